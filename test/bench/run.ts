/**
 * `npm run bench`: page weight and response time of the sign-in page and the dashboard, measured
 * against `wrangler dev` with a fresh, seeded local D1. A benchmark, not a test: it reports figures
 * and exits 0 unless the app cannot be started or signed into.
 *
 * - HTML bytes, raw and gzip (node:zlib default level).
 * - First-load JavaScript: every <script src>, every <link rel="modulepreload"> and every module the
 *   inline module scripts import, plus their static imports, fetched and gzipped one by one.
 * - First-load requests: document + scripts + stylesheets (no favicon, no later data requests).
 * - Response time: 50 sequential requests per page after 5 warm-ups, from request start to the last
 *   body byte over loopback (wrangler dev → workerd → local D1), median and p95; and the Worker's own
 *   time for the same requests (its Server-Timing header, sent in local development only).
 * - The Worker is bundled as `wrangler deploy` bundles it (NODE_ENV=production), so React is the
 *   production build users get rather than the development build `wrangler dev` picks by default.
 * - D1 statements per request: a second instance runs the same app behind a thin wrapper of the D1
 *   binding (test/bench/d1-count-worker.ts) that counts the statements the app executes.
 * - A slow connection: Chromium on DevTools' "3G" profile, cache on, signs in and opens the clients list,
 *   JavaScript off and on (test/bench/slow-network.ts), on a third instance with the demo data only.
 *   `npm run bench -- --3g` runs only this part.
 */
import { gzipSync } from "node:zlib";
import { benchCreateTarget } from "../../scripts/bench-shape";
import { bench837P, TARGET_837P_MS } from "./claims-837p";
import { benchPlanPdf, TARGET_PLAN_PDF_BYTES, TARGET_PLAN_PDF_MS } from "./plan-pdf";
import { bench835, TARGET_835_MS } from "./remittance-835";
import { DEMO_PASSWORD } from "../../scripts/demo-data";
import { startApp, type AppServer } from "../support/server";
import { D1_COUNT_HEADER } from "./d1-count-header";
import { SLOW_3G, SLOW_TARGETS_MS, slowNetworkSteps, type SlowStep } from "./slow-network";

const RUNS = 50;
const WARMUP = 5;
const ADMIN = "admin@demo.test";
/** `npm run bench -- --only report-`: measure only the pages and API scenarios whose name starts with it (several: `--only calendar,api-calendar`). */
const ONLY = process.argv.includes("--only") ? (process.argv[process.argv.indexOf("--only") + 1] ?? "") : null;
/**
 * `npm run bench -- --state DIR`: run on a ready bench persist dir (a copy of `.wrangler/state` with the bench
 * data, e.g. `cp -r /work/ci/.wrangler .` then `--state .wrangler/state`) instead of loading the data set
 * again; only pending migrations are applied to it. The folder is written to (sessions, audit rows) and kept.
 */
const STATE = process.argv.includes("--state") ? process.argv[process.argv.indexOf("--state") + 1] : undefined;
const picked = <T extends { name: string }>(xs: T[]) => (ONLY === null ? xs : xs.filter((x) => ONLY.split(",").some((prefix) => x.name.startsWith(prefix))));

interface PageSpec {
  name: string;
  path: string;
  signedIn: boolean;
  /** Text that proves the right page was served (not a redirect to sign-in). */
  expect: string;
  /** A screen that may not be in this build (another branch's): a 404 is reported as missing, not a failure. */
  optional?: boolean;
}

/** A bench RBT note (scripts/bench-data.ts: id 1,000,004 is day 0, location 0, provider 40, slot 0). */
const BENCH_RBT_NOTE = 1_000_004;

/** Measured on the benchmark data set (npm run bench:data): 20,000 clients, 2,000 employees, 40 locations. */
const PAGES: PageSpec[] = [
  { name: "login", path: "/login", signedIn: false, expect: "Sign in" },
  { name: "dashboard", path: "/dashboard", signedIn: true, expect: "Good Day" },
  { name: "locations", path: "/location/list", signedIn: true, expect: "Bench Clinic" },
  { name: "insurers", path: "/insurance/list", signedIn: true, expect: "Bench Insurer" },
  { name: "clients", path: "/patients/list", signedIn: true, expect: "BN-" },
  { name: "clients-search", path: "/patients/list?search=Garcia", signedIn: true, expect: "Garcia" },
  { name: "clients-search-full", path: "/patients/list?search=Liam+Garc", signedIn: true, expect: "Liam Garcia" },
  { name: "clients-search-id", path: "/patients/list?search=BN-1005", signedIn: true, expect: "BN-1005" },
  { name: "clients-filter", path: "/patients/list?status=active&location_id=1005", signedIn: true, expect: "Bench Clinic 06" },
  { name: "client-profile", path: "/patients/profile/1500", signedIn: true, expect: "BN-100500" },
  // The client forms' staff selects: the client's location's staff, not every location's (decision 017, stop 33).
  { name: "client-add", path: "/patients/add", signedIn: true, expect: "Add client" },
  { name: "client-edit", path: "/patients/list/edit/1500", signedIn: true, expect: "Edit client" },
  { name: "employees", path: "/doctors/list", signedIn: true, expect: "bench-employee" },
  // A goal with three years of weekly data (scripts/bench-data.ts: plan 1000), its chart and its editors.
  { name: "goal", path: "/bip/goal/1000", signedIn: true, expect: "Physical aggression" },
  { name: "goal-edit", path: "/bip/goal/1000?edit=1", signedIn: true, expect: "Update Weekly Reports" },
  { name: "bip-profile", path: "/bip/profile/1000", signedIn: true, expect: "Physical aggression" },
  { name: "bip-list", path: "/bip/list", signedIn: true, expect: "BN-" },
  // Notes (issue 10), on 2,000,000 bench notes: the list, one client's notes, one note.
  { name: "notes-list", path: "/notes-list", signedIn: true, expect: "Showing 1 to 25 of" },
  { name: "notes-list-client", path: "/notes-list?patient_id=1500", signedIn: true, expect: "Client:" },
  { name: "notes-list-type", path: "/notes-list?type=bcba&date_from=2026-10-01", signedIn: true, expect: "BCBA" },
  // The screen names the client (a random bench name), not the identifier: a full first page proves the notes are there.
  { name: "notes-by-client", path: "/note-rbt/listbyclient/1500", signedIn: true, expect: "Showing 1 to 25 of", optional: true },
  { name: "note-view", path: `/note-rbt/view/${BENCH_RBT_NOTE}`, signedIn: true, expect: "97153", optional: true },
  // Billing by client (issue 11): a client with a year of notes, priced and scrubbed per row; the billing list
  // of one location for the bench notes' last month (they end on 2026-10-31).
  { name: "billing-by-client", path: "/billing/by-client/1500", signedIn: true, expect: "BN-100500" },
  { name: "billing-list", path: "/billing/list?location_id=1005&date_from=2026-10-01&date_to=2026-10-31", signedIn: true, expect: "Showing 1 to" },
  // The calendar's week of one location at bench size (issue 12: ≤ 25 ms; decision 037): the last bench week.
  { name: "calendar-week", path: "/calendar/view?view=week&date=2026-10-28&location_id=1005", signedIn: true, expect: "Week of Sunday 25 October 2026" },
  // The reports (issue 12: p95 ≤ 100 ms; decisions 038, 039). The bench instance also gets scripts/bench-reports.ts: 300,000 audit entries, compliance dates.
  { name: "reports-logs", path: "/reports/logs", signedIn: true, expect: "Integrity check" },
  { name: "reports-logs-actor", path: "/reports/logs?actor_id=1040", signedIn: true, expect: "Integrity check" },
  { name: "reports-access", path: "/reports/access", signedIn: true, expect: "Access" },
  { name: "reports-access-client", path: "/reports/access?patient_id=1500", signedIn: true, expect: "Access" },
  { name: "reports-pas", path: "/reports/pas", signedIn: true, expect: "Pacing" },
  { name: "reports-pas-location", path: "/reports/pas?location_id=1005&status=ending", signedIn: true, expect: "Pacing" },
  { name: "reports-client-projection", path: "/reports/client-projection", signedIn: true, expect: "Projected use" },
  { name: "reports-client-eligibility", path: "/reports/client-eligibility?window=60", signedIn: true, expect: "Lapses on" },
  { name: "reports-expiration-dates", path: "/reports/expiration-dates", signedIn: true, expect: "Expiration dates" },
  // The operations reports (issue 12, decision 039; p95 ≤ 100 ms): the bench notes' last month in one location
  // (~6,200 notes), and payroll and hours over every location (~248,000 notes: over budget, see 039).
  { name: "report-payroll", path: "/reports/payroll?location_id=1005&date_from=2026-10-01&date_to=2026-10-31", signedIn: true, expect: "Bench Clinic", optional: true },
  { name: "report-hours", path: "/reports/hours?location_id=1005&date_from=2026-10-01&date_to=2026-10-31", signedIn: true, expect: "Hours per week", optional: true },
  { name: "report-hours-client", path: "/reports/hours?location_id=1005&by=client&date_from=2026-10-01&date_to=2026-10-31", signedIn: true, expect: "BN-", optional: true },
  { name: "report-bcba", path: "/reports/bcba-report?location_id=1005&date_from=2026-10-01&date_to=2026-10-31", signedIn: true, expect: "BN-", optional: true },
  { name: "report-location-cpt", path: "/reports/location-cpt?location_id=1005&date_from=2026-10-01&date_to=2026-10-31", signedIn: true, expect: "97153", optional: true },
  { name: "report-provider-clients", path: "/reports/provider-clients?location_id=1005&date_from=2026-10-01&date_to=2026-10-31", signedIn: true, expect: "BN-", optional: true },
  { name: "report-ticket-support", path: "/reports/ticket-support?date_from=2026-10-01&date_to=2026-11-30", signedIn: true, expect: "Answered", optional: true },
  { name: "report-payroll-all", path: "/reports/payroll?date_from=2026-10-01&date_to=2026-10-31", signedIn: true, expect: "Bench Clinic", optional: true },
  { name: "report-hours-all", path: "/reports/hours?date_from=2026-10-01&date_to=2026-10-31", signedIn: true, expect: "Hours per week", optional: true },
  // Every location: provider-clients (10 names per provider on the screen), and the client reports over a whole
  // month and over a period with edge days (decision 039, 2026-11-26 "names per provider; edge days").
  { name: "report-provider-clients-all", path: "/reports/provider-clients?date_from=2026-10-01&date_to=2026-10-31", signedIn: true, expect: "more", optional: true },
  { name: "report-hours-client-all", path: "/reports/hours?by=client&date_from=2026-10-01&date_to=2026-10-31", signedIn: true, expect: "BN-", optional: true },
  { name: "report-hours-client-edges", path: "/reports/hours?by=client&date_from=2026-09-15&date_to=2026-11-14", signedIn: true, expect: "BN-", optional: true },
  { name: "report-bcba-all", path: "/reports/bcba-report?date_from=2026-10-01&date_to=2026-10-31", signedIn: true, expect: "BN-", optional: true },
  { name: "report-bcba-edges", path: "/reports/bcba-report?date_from=2026-09-15&date_to=2026-11-14", signedIn: true, expect: "BN-", optional: true },
];

/** The API calls of the notes (measured with a Bearer token of the admin). */
interface ApiSpec {
  name: string;
  method: "GET" | "POST";
  /** Request k of the run (creates need a different session each time). */
  path: (k: number) => string;
  body?: (k: number) => unknown;
  status: number;
  /** The issue's budget: p95 Worker time and D1 round trips. */
  target: { ms: number; roundTrips: number };
}
/**
 * Create k: an RBT note yesterday 09:00–10:00 for the k-th bench client whose 97153 PA service covers
 * yesterday, by the RBT of the same index and location (benchCreateTarget, from the generator's own shape
 * in scripts/bench-shape.ts: the PA services' end dates are spread over 90 days around 2026-11-01). The
 * bench notes end on 2026-10-31, so a create meets no other session and stays within the 14 days.
 */
const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const BENCH_NOTE_DAYS = 250; // scripts/bench-data.ts: 2,000,000 notes over 40 × 50 providers × 4 slots a day
function createBody(k: number) {
  const date = yesterday();
  const target = benchCreateTarget(k, date, BENCH_NOTE_DAYS);
  if (!target) throw new Error(`No bench client has a PA service covering ${date} for create ${k}: regenerate the bench data's dates.`);
  return { patient_id: target.patientId, provider_id: target.providerId, pa_service_id: target.paServiceId, cpt_code: "97153", session_date: date, time_in: "09:00", time_out: "10:00", pos: "12", diagnosis_code: "F84.0" };
}
const API_SCENARIOS: ApiSpec[] = [
  {
    name: "create-note",
    method: "POST",
    path: () => "/api/v2/notes-rbt",
    body: createBody,
    status: 201,
    target: { ms: 30, roundTrips: 4 },
  },
  { name: "api-notes-list", method: "GET", path: () => "/api/v2/notes-rbt?per_page=25", status: 200, target: { ms: 20, roundTrips: 3 } },
  { name: "api-notes-by-client", method: "GET", path: () => "/api/note_rbt/byclient/1500", status: 200, target: { ms: 20, roundTrips: 3 } },
  { name: "api-note-view", method: "GET", path: () => `/api/v2/notes-rbt/${BENCH_RBT_NOTE}`, status: 200, target: { ms: 20, roundTrips: 3 } },
  // The PA calculator and pacing (decision 031): bench client 1500's 97153 PA service (id 1000 + 500 × 2) and all of its PA services.
  { name: "pa-service-calculator", method: "GET", path: () => "/api/v2/pa-service-calculator/2000", status: 200, target: { ms: 20, roundTrips: 3 } },
  { name: "api-pa-pacing", method: "GET", path: () => "/api/v2/pa-pacing?patient_id=1500", status: 200, target: { ms: 20, roundTrips: 3 } },
  // Billing by client and the billing list of a location (issue 11: p95 ≤ 25 ms, ≤ 3 round trips).
  { name: "api-billing-by-client", method: "GET", path: () => "/api/client_report/byprofile/1500", status: 200, target: { ms: 25, roundTrips: 3 } },
  { name: "api-billing-list", method: "GET", path: () => "/api/client_report/bylocation/1005?date_from=2026-10-01&date_to=2026-10-31", status: 200, target: { ms: 25, roundTrips: 3 } },
  // The calendar's week of one location (issue 12: p95 ≤ 25 ms; decision 037).
  { name: "api-calendar-week", method: "GET", path: () => "/api/v2/scheduled-sessions?from=2026-10-25&to=2026-10-31&location_id=1005", status: 200, target: { ms: 25, roundTrips: 3 } },
];

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

async function signInCookie(base: string): Promise<string> {
  const res = await fetch(`${base}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: base, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email: ADMIN, password: DEMO_PASSWORD, redirectTo: "/dashboard" }),
  });
  await res.arrayBuffer();
  const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0]!);
  if (res.status < 300 || res.status >= 400 || cookies.length === 0) throw new Error(`Signing in as ${ADMIN} answered ${res.status} without a session cookie`);
  return cookies.join("; ");
}

async function apiToken(base: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/login`, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify({ email: ADMIN, password: DEMO_PASSWORD }) });
  const body = (await res.json()) as { access_token?: string };
  if (!res.ok || !body.access_token) throw new Error(`API sign-in as ${ADMIN} answered ${res.status}`);
  return body.access_token;
}

async function apiCall(base: string, spec: ApiSpec, k: number, token: string): Promise<{ status: number; headers: Headers; text: string }> {
  const body = spec.body?.(k);
  const res = await fetch(`${base}${spec.path(k)}`, {
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    method: spec.method,
    headers: { Authorization: `Bearer ${token}`, Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/**
 * Deletes what a timed create made (not timed): the creates are yesterday 09:00–10:00 for the same bench
 * clients on every run, so without this a second run on the same day and state met its own earlier notes
 * (422 overlap). The note is soft-deleted through the API (`DELETE <path>/<id>`), as a user would.
 */
async function undoCreate(base: string, spec: ApiSpec, k: number, r: { status: number; text: string }, token: string): Promise<void> {
  if (spec.method !== "POST" || r.status !== 201) return;
  const answer = JSON.parse(r.text) as { id?: number; data?: { id?: number } };
  const id = answer.data?.id ?? answer.id;
  if (typeof id !== "number") throw new Error(`${spec.method} ${spec.path(k)} answered no id to delete`);
  const res = await fetch(`${base}${spec.path(k)}/${id}`, { method: "DELETE", headers: { Authorization: `Bearer ${token}`, Accept: "application/json" }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`DELETE ${spec.path(k)}/${id} answered ${res.status}`);
  await res.arrayBuffer();
}

/** A request that takes longer than this fails its page (reported), and the bench goes on with the next. */
const REQUEST_TIMEOUT_MS = 20_000;

async function getText(url: string, cookie?: string): Promise<{ status: number; body: Buffer; headers: Headers }> {
  const res = await fetch(url, { redirect: "manual", headers: cookie ? { Cookie: cookie } : {}, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

const gz = (b: Buffer) => gzipSync(b).length;

function attr(tag: string, name: string): string | undefined {
  return new RegExp(`\\b${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag)?.slice(2).find((v) => v !== undefined);
}

/** Static import specifiers of a module (`import x from "y"`, `import "y"`, `export … from "y"`); dynamic import() is not first-load. */
function staticImports(code: string): string[] {
  return [...code.matchAll(/(?:\bimport|\bfrom)\s*["']([^"']+)["']/g)].map((m) => m[1]!);
}

interface Weight {
  htmlBytes: number;
  htmlGzip: number;
  jsFiles: number;
  jsBytes: number;
  jsGzip: number;
  cssFiles: number;
  cssGzip: number;
  requests: number;
}

async function firstLoad(base: string, page: PageSpec, cookie?: string): Promise<Weight> {
  const url = `${base}${page.path}`;
  const doc = await getText(url, cookie);
  const html = doc.body.toString("utf8");
  if (doc.status !== 200 || !html.includes(page.expect)) throw new Error(`${page.path} answered ${doc.status} without "${page.expect}"`);

  const scripts = new Set<string>();
  const styles = new Set<string>();
  for (const [tag] of html.matchAll(/<script\b[^>]*>/gi)) {
    const src = attr(tag, "src");
    if (src) scripts.add(new URL(src, url).href);
  }
  for (const [, body] of html.matchAll(/<script\b[^>]*type\s*=\s*["']module["'][^>]*>([\s\S]*?)<\/script>/gi)) {
    for (const spec of staticImports(body ?? "")) scripts.add(new URL(spec, url).href);
  }
  for (const [tag] of html.matchAll(/<link\b[^>]*>/gi)) {
    const rel = attr(tag, "rel")?.toLowerCase();
    const href = attr(tag, "href");
    if (!href) continue;
    if (rel === "modulepreload") scripts.add(new URL(href, url).href);
    if (rel === "stylesheet") styles.add(new URL(href, url).href);
  }

  // Follow static imports so a chunk that is not preloaded still counts.
  const js = new Map<string, Buffer>();
  const queue = [...scripts];
  while (queue.length) {
    const src = queue.shift()!;
    if (js.has(src)) continue;
    const r = await getText(src);
    if (r.status !== 200) throw new Error(`${src} answered ${r.status}`);
    js.set(src, r.body);
    for (const spec of staticImports(r.body.toString("utf8"))) {
      const next = new URL(spec, src).href;
      if (!js.has(next)) queue.push(next);
    }
  }
  const css: Buffer[] = [];
  for (const href of styles) css.push((await getText(href)).body);

  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return {
    htmlBytes: doc.body.length,
    htmlGzip: gz(doc.body),
    jsFiles: js.size,
    jsBytes: sum([...js.values()].map((b) => b.length)),
    jsGzip: sum([...js.values()].map(gz)),
    cssFiles: css.length,
    cssGzip: sum(css.map(gz)),
    requests: 1 + js.size + css.length,
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The Worker's own time from its Server-Timing header (`app;dur=…`, local development only), or null. */
function serverTime(headers: Headers): number | null {
  const m = /\bapp;dur=([\d.]+)/.exec(headers.get("Server-Timing") ?? "");
  return m ? Number(m[1]) : null;
}

interface Times {
  medianMs: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
  /** Inside the Worker (Server-Timing), without wrangler dev's local proxy; null when not reported. */
  serverMedianMs: number | null;
  serverP95Ms: number | null;
}

async function responseTimes(base: string, page: PageSpec, cookie?: string): Promise<Times> {
  const times: number[] = [];
  const server: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t0 = performance.now();
    const r = await getText(`${base}${page.path}`, cookie);
    const ms = performance.now() - t0;
    if (r.status !== 200) throw new Error(`${page.path} answered ${r.status} on request ${i + 1}`);
    if (i < WARMUP) continue;
    times.push(ms);
    const inside = serverTime(r.headers);
    if (inside !== null) server.push(inside);
  }
  times.sort((a, b) => a - b);
  server.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  const whole = server.length === times.length;
  return {
    medianMs: round(percentile(times, 50)),
    p95Ms: round(percentile(times, 95)),
    minMs: round(times[0]!),
    maxMs: round(times.at(-1)!),
    serverMedianMs: whole ? round(percentile(server, 50)) : null,
    serverP95Ms: whole ? round(percentile(server, 95)) : null,
  };
}

/** Times of an API call: request k of WARMUP + RUNS (creates each get their own session). */
async function apiTimes(base: string, spec: ApiSpec, token: string, first = 0): Promise<Times> {
  const times: number[] = [];
  const server: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t0 = performance.now();
    const r = await apiCall(base, spec, first + i, token);
    const ms = performance.now() - t0;
    if (r.status !== spec.status) throw new Error(`${spec.method} ${spec.path(first + i)} answered ${r.status}: ${r.text.slice(0, 200)}`);
    await undoCreate(base, spec, first + i, r, token);
    if (i < WARMUP) continue;
    times.push(ms);
    const inside = serverTime(r.headers);
    if (inside !== null) server.push(inside);
  }
  times.sort((a, b) => a - b);
  server.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  const whole = server.length === times.length;
  return { medianMs: round(percentile(times, 50)), p95Ms: round(percentile(times, 95)), minMs: round(times[0]!), maxMs: round(times.at(-1)!), serverMedianMs: whole ? round(percentile(server, 50)) : null, serverP95Ms: whole ? round(percentile(server, 95)) : null };
}

interface D1Count {
  statements: number;
  roundTrips: number;
  /**
   * Of the Worker's time (Server-Timing), the part spent waiting for D1 and the rest (the Worker's own work),
   * per request over WAIT_RUNS requests, median and p95; null when not measured.
   */
  wait: { medianMs: number; p95Ms: number; outsideMedianMs: number; outsideP95Ms: number } | null;
}

/** Requests per page and call on the counting instance for the D1 wait split (after the two counted ones). */
const WAIT_RUNS = 20;

function parseCount(headers: Headers): (Omit<D1Count, "wait"> & { waitMs: number }) | null {
  const v = headers.get(D1_COUNT_HEADER);
  const m = v ? /^(\d+);(\d+);([\d.]+)$/.exec(v) : null;
  return m ? { statements: Number(m[1]), roundTrips: Number(m[2]), waitMs: Number(m[3]) } : null;
}

/** The counts of one response, without the wait split. */
function countOnly(headers: Headers): D1Count | null {
  const c = parseCount(headers);
  return c && { statements: c.statements, roundTrips: c.roundTrips, wait: null };
}

/** The counts of the last response, and the D1 wait split over `more` further ones. */
async function countAndWait(last: Response | { headers: Headers }, more: () => Promise<{ headers: Headers }>): Promise<D1Count | null> {
  const count = parseCount(last.headers);
  if (!count) return null;
  const waits: number[] = [];
  const outside: number[] = [];
  for (let i = 0; i < WAIT_RUNS; i++) {
    const r = await more();
    const c = parseCount(r.headers);
    const app = serverTime(r.headers);
    if (!c || app === null) return { statements: count.statements, roundTrips: count.roundTrips, wait: null };
    waits.push(c.waitMs);
    outside.push(Math.max(0, app - c.waitMs));
  }
  waits.sort((a, b) => a - b);
  outside.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    statements: count.statements,
    roundTrips: count.roundTrips,
    wait: { medianMs: round(percentile(waits, 50)), p95Ms: round(percentile(waits, 95)), outsideMedianMs: round(percentile(outside, 50)), outsideP95Ms: round(percentile(outside, 95)) },
  };
}

/** D1 statements per request, from the counting instance. Null when it could not be measured. */
async function d1Counts(): Promise<Record<string, D1Count | null> | null> {
  let app: AppServer | undefined;
  try {
    app = await startApp({ label: "baseline-bench-d1", entry: "test/bench/d1-count-worker.ts", log, scale: true, production: true, state: STATE });
    const base = app.url;
    const signIn = await fetch(`${base}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: base, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: ADMIN, password: DEMO_PASSWORD, redirectTo: "/dashboard" }),
    });
    await signIn.arrayBuffer();
    const cookie = signIn.headers.getSetCookie().map((c) => c.split(";")[0]!).join("; ");
    const out: Record<string, D1Count | null> = { "sign-in POST": countOnly(signIn.headers) };
    for (const page of picked(PAGES)) {
      try {
        // The second request is the steady state (the first may create per-process rows such as settings).
        const first = await getText(`${base}${page.path}`, page.signedIn ? cookie : undefined);
        if (page.optional && first.status === 404) continue;
        const get = () => getText(`${base}${page.path}`, page.signedIn ? cookie : undefined);
        out[page.name] = await countAndWait(await get(), get);
      } catch (e) {
        log(`D1 count of ${page.path} unavailable: ${(e as Error).message}`);
        out[page.name] = null;
      }
    }
    const token = await apiToken(base);
    for (const spec of picked(API_SCENARIOS)) {
      // Two calls: the second is the steady state; creates 1000 and 1001 are sessions the timed run does not use.
      const a = await apiCall(base, spec, 1000, token);
      const b = await apiCall(base, spec, 1001, token);
      for (const [k, r] of [[1000, a], [1001, b]] as const) await undoCreate(base, spec, k, r, token);
      // The wait split repeats reads only (a create needs a fresh session each time).
      const ok = a.status === spec.status && b.status === spec.status;
      out[spec.name] = !ok ? null : spec.method === "GET" ? await countAndWait(b, () => apiCall(base, spec, 1001, token)) : countOnly(b.headers);
    }
    return out;
  } catch (e) {
    log(`D1 statement count unavailable: ${(e as Error).message.split("\n")[0]}`);
    return null;
  } finally {
    await app?.stop();
  }
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r, ri) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ") + (ri === 0 ? `\n${widths.map((w) => "-".repeat(w)).join("  ")}` : "")).join("\n");
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;

/** The slow-connection journey on its own instance with the demo data; null when it could not run. */
async function slowNetwork(): Promise<SlowStep[] | null> {
  let app: AppServer | undefined;
  try {
    app = await startApp({ label: "baseline-bench-3g", log, production: true });
    log("measuring the 3G journey (JavaScript off, then on)");
    return await slowNetworkSteps(app.url);
  } catch (e) {
    log(`3G journey unavailable: ${(e as Error).message.split("\n")[0]}`);
    return null;
  } finally {
    await app?.stop();
  }
}

function printSlowNetwork(steps: SlowStep[] | null): void {
  console.log(`\n3G (latency ${SLOW_3G.latency} ms, ${SLOW_3G.downloadThroughput / 1024} KB/s down and up), cache on, Chromium, demo data: click to the new page's load event`);
  if (!steps) {
    console.log("unavailable (Chromium or the app did not start)");
    return;
  }
  const rows = steps.map((s) => {
    const target = SLOW_TARGETS_MS[s.step];
    return [s.step, s.javaScript ? "on" : "off", `${s.ms} ms`, target ? `${target} ms ${s.ms <= target ? "met" : "MISSED"}` : "", String(s.network.length), s.network.join(", ")];
  });
  console.log(table([["step", "JS", "time", "target", "over the network", "requests"], ...rows]));
  console.log(JSON.stringify({ bench: "baseline-3g", profile: SLOW_3G, steps }));
}

async function main() {
  if (process.argv.includes("--3g")) {
    printSlowNetwork(await slowNetwork());
    return;
  }
  let app: AppServer;
  try {
    app = await startApp({ label: "baseline-bench", log, scale: true, production: true, state: STATE });
  } catch (e) {
    console.error(`The app did not start: ${(e as Error).message}`);
    process.exit(1);
  }

  const results: Record<string, Weight & Awaited<ReturnType<typeof responseTimes>>> = {};
  const apiResults: Record<string, Times> = {};
  const missing: string[] = [];
  const failed: string[] = [];
  try {
    const cookie = await signInCookie(app.url);
    for (const page of picked(PAGES)) {
      const c = page.signedIn ? cookie : undefined;
      if (page.optional && (await getText(`${app.url}${page.path}`, c)).status === 404) {
        missing.push(page.path);
        continue;
      }
      log(`measuring ${page.path}`);
      try {
        results[page.name] = { ...(await firstLoad(app.url, page, c)), ...(await responseTimes(app.url, page, c)) };
      } catch (e) {
        // One page that fails or is too slow (over REQUEST_TIMEOUT_MS) is reported; the others are still measured.
        failed.push(`${page.path}: ${(e as Error).message}`);
        log(`${page.path} failed: ${(e as Error).message}`);
      }
    }
    const token = await apiToken(app.url);
    for (const spec of picked(API_SCENARIOS)) {
      log(`measuring ${spec.method} ${spec.path(0)}`);
      try {
        apiResults[spec.name] = await apiTimes(app.url, spec, token);
      } catch (e) {
        failed.push(`${spec.method} ${spec.path(0)}: ${(e as Error).message}`);
      }
    }
  } catch (e) {
    console.error(`Benchmark failed: ${(e as Error).message}`);
    await app.stop();
    process.exit(1);
  }
  await app.stop();

  const d1 = await d1Counts();
  // --only measures a few pages: the slow-network flows (sign-in and the clients list) are left out.
  const slow = ONLY === null ? await slowNetwork() : null;

  const header = ["page", "HTML", "HTML gzip", "JS files", "JS", "JS gzip", "CSS gzip", "requests", "median", "p95", "server median", "server p95", "D1 statements (round trips)", "D1 wait", "outside D1"];
  const ms = (n: number | null) => (n === null ? "n/a" : `${n} ms`);
  /** The wait split of a page or call as "median / p95" of the D1 wait and of the rest. */
  const split = (q: D1Count | null | undefined) => (q?.wait ? [`${q.wait.medianMs} / ${q.wait.p95Ms} ms`, `${q.wait.outsideMedianMs} / ${q.wait.outsideP95Ms} ms`] : ["n/a", "n/a"]);
  const rows = PAGES.filter((p) => results[p.name]).map((p) => {
    const r = results[p.name]!;
    const q = d1?.[p.name];
    return [p.path, kb(r.htmlBytes), kb(r.htmlGzip), String(r.jsFiles), kb(r.jsBytes), kb(r.jsGzip), kb(r.cssGzip), String(r.requests), ms(r.medianMs), ms(r.p95Ms), ms(r.serverMedianMs), ms(r.serverP95Ms), q ? `${q.statements} (${q.roundTrips})` : "n/a", ...split(q)];
  });
  console.log(
    `\nBaseline bench: wrangler dev (bundled as for deploy, NODE_ENV=production) + local D1, ${RUNS} sequential requests per page after ${WARMUP} warm-ups, admin signed in; data: demo + 20,000 clients, 2,000 employees, 40 locations (npm run bench:data)`,
  );
  console.log(table([header, ...rows]));
  console.log(
    "requests = first load: document + scripts (incl. modulepreload) + stylesheets. median/p95: loopback round trips to the last body byte, through wrangler dev's local proxy (about 10 ms of its own: see /login). server: the Worker's own time from request to rendered response (its Server-Timing header), D1 round trips included. D1 wait / outside D1: that time split into the part with a D1 call outstanding and the rest, median / p95 of ${WAIT_RUNS} requests on the counting instance (decision 043).",
  );
  const signInCount = d1?.["sign-in POST"];
  console.log(
    d1
      ? `D1: counted by a wrapper around the DB binding (test/bench/d1-count-worker.ts); sign-in POST ${signInCount ? `${signInCount.statements} (${signInCount.roundTrips})` : "n/a"}.`
      : "D1: statement count unavailable (the counting instance did not start).",
  );
  if (missing.length) console.log(`Not in this build (answered 404, not measured): ${missing.join(", ")}.`);
  if (failed.length) console.log(`FAILED (not measured):\n  ${failed.join("\n  ")}`);
  console.log("\nNotes API (admin's Bearer token; data: demo + bench, about 2,000,000 notes)");
  console.log(
    table([
      ["call", "median", "p95", "server median", "server p95", "D1 statements (round trips)", "D1 wait", "outside D1", "target (server p95, round trips)"],
      ...API_SCENARIOS.filter((spec) => apiResults[spec.name]).map((spec) => {
        const r = apiResults[spec.name]!;
        const q = d1?.[spec.name];
        const met = r.serverP95Ms !== null && r.serverP95Ms <= spec.target.ms && q != null && q.roundTrips <= spec.target.roundTrips;
        return [`${spec.method} ${spec.path(0)}`, ms(r.medianMs), ms(r.p95Ms), ms(r.serverMedianMs), ms(r.serverP95Ms), q ? `${q.statements} (${q.roundTrips})` : "n/a", ...split(q), `≤ ${spec.target.ms} ms, ≤ ${spec.target.roundTrips}: ${met ? "met" : "MISSED"}`];
      }),
    ]),
  );
  console.log(JSON.stringify({ bench: "baseline", runs: RUNS, warmup: WARMUP, pages: results, api: apiResults, missing, failed, d1 }));
  if (ONLY === null) printSlowNetwork(slow);
  else console.log("\n3G journey: not run with --only (npm run bench -- --3g runs it alone)");
  const x12 = bench837P();
  console.log(`\n837P for 1,000 notes (priceNote + grouping + writer, in process; ${x12.claims} claims, ${x12.bytes} bytes): median ${x12.medianMs} ms, p95 ${x12.p95Ms} ms, target ≤ ${TARGET_837P_MS} ms: ${x12.met ? "met" : "MISSED"}`);
  const era = await bench835();
  console.log(`835 of ${era.lines.toLocaleString("en-US")} lines (read, match, write, audit; in process on libSQL, 5 runs): median ${era.medianMs} ms, p95 ${era.p95Ms} ms, target ≤ ${TARGET_835_MS} ms: ${era.met ? "met" : "MISSED"}`);
  const pdf = await benchPlanPdf();
  console.log(
    `Plan PDF of 26 sections with 3 years of charts (layout + pdf-lib, in process, 7 runs): ${(pdf.bytes / 1024).toFixed(0)} kB, median ${pdf.medianMs} ms, p95 ${pdf.p95Ms} ms, target ≤ ${TARGET_PLAN_PDF_MS / 1000} s and ≤ ${TARGET_PLAN_PDF_BYTES / 1_000_000} MB: ${pdf.met ? "met" : "MISSED"}`,
  );
}

await main();
