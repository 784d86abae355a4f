import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { expect } from "vitest";
import { d1Database, type Db } from "~/db/client.server";
import { bips, chartComments, insuranceServices, insurances, intakeAssessments, locations, notes, objectives, paServices, parents, patients, plans, rateRecords, roles, tickets, userLocations, userRoles, users, weeklyReports } from "~/db/schema";
import { POS_CODE_VALUES } from "~/domain/locations";
import { todayAtLocation } from "~/domain/pa-pacing";
import { addDays, dayNumber, weekdayOfDay } from "~/domain/weeks";
import type { Permission } from "~/domain/permissions";
import { hashPassword } from "~/services/passwords.server";
import { flashTag } from "~/services/flash.server";
import { appFetch } from "./app-fetch";

/** Factories and request helpers for workers tests. Each creates its own rows; no test relies on another's data. */

export const BASE = "http://localhost";
export const PASSWORD = "correct horse battery";
let seq = 0;
const next = () => `${Date.now().toString(36)}${(++seq).toString(36)}`;

export function db(): Db {
  return d1Database(env.DB);
}

/**
 * The database behind a counter of the D1 statements it runs (a batch counts each of its statements) and
 * of its round trips (a batch is one), for tests of a use case's statement budget.
 */
export function countingDb(): { db: Db; statements: () => number; roundTrips: () => number; queries: () => string[] } {
  const queries: string[] = [];
  let n = 0;
  let trips = 0;
  const originals = new WeakMap<object, D1PreparedStatement>();
  const wrap = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const run = <T>(f: () => T) => (n++, trips++, f());
    const wrapped = {
      bind: (...values: unknown[]) => wrap(stmt.bind(...values)),
      first: (column?: string) => run(() => (column === undefined ? stmt.first() : stmt.first(column))),
      run: () => run(() => stmt.run()),
      all: () => run(() => stmt.all()),
      raw: (options?: { columnNames?: boolean }) => run(() => stmt.raw(options as { columnNames: true })),
    } as unknown as D1PreparedStatement;
    originals.set(wrapped, stmt);
    return wrapped;
  };
  const binding = {
    prepare: (query: string) => (queries.push(query), wrap(env.DB.prepare(query))),
    batch: (statements: D1PreparedStatement[]) => ((n += statements.length), trips++, env.DB.batch(statements.map((x) => originals.get(x) ?? x))),
    exec: (query: string) => env.DB.exec(query),
    dump: () => env.DB.dump(),
    withSession: (...args: Parameters<D1Database["withSession"]>) => env.DB.withSession(...args),
  } as D1Database;
  return { db: d1Database(binding), statements: () => n, roundTrips: () => trips, queries: () => [...queries] };
}

let cachedHash: string | null = null;
async function passwordHash() {
  cachedHash ??= await hashPassword(PASSWORD);
  return cachedHash;
}

/**
 * What a claim's billing provider needs (2010AA: address with ZIP+4, phone, NPI, tax id): a location has it unless told,
 * so that its notes pass the pre-billing scrubber's party checks (decision 034).
 */
export const BILLABLE_LOCATION = { address: "100 Main St", city: "Miami", state: "FL", zip: "33101-1234", phone1: "305-555-0100", npi: "1306849450", taxId: "591234567" } as const;

/** A location offering every place-of-service code unless told (a note's POS must be one of its location's), billable (BILLABLE_LOCATION). */
export async function createLocation(over: Partial<typeof locations.$inferInsert> = {}) {
  const [row] = await db().insert(locations).values({ title: `Clinic ${next()}`, timeZone: "America/New_York", posCodes: POS_CODE_VALUES.join(","), ...BILLABLE_LOCATION, ...over }).returning();
  return row!;
}

/** A zone where it is now 02:00 to 21:59 (New York and Tokyo are 13 or 14 hours apart): a session of today that ended at 01:00, and one that ends at 23:30, both exist. */
export function dayTimeZone(): string {
  const hour = (zone: string) => Number(new Intl.DateTimeFormat("en-US", { timeZone: zone, hour: "numeric", hourCycle: "h23" }).format(new Date()));
  return ["America/New_York", "Asia/Tokyo"].find((z) => hour(z) >= 2 && hour(z) <= 21)!;
}

export async function createRole(name: string, permissions: readonly string[]) {
  const [row] = await db()
    .insert(roles)
    .values({ name: `${name}`, permissions: JSON.stringify(permissions) })
    .onConflictDoUpdate({ target: roles.name, set: { permissions: JSON.stringify(permissions) } })
    .returning();
  return row!;
}

export interface TestUser {
  id: number;
  email: string;
  password: string;
}

/**
 * `count` staff at a location as plain rows (no roles, no sign-in), named `${prefix}0 Staff`, `${prefix}1 Staff`…:
 * more staff than a provider select lists (STAFF_OPTIONS_MAX), cheaply.
 */
export async function createManyStaff(locationId: number, count: number, prefix: string): Promise<void> {
  await db().run(
    sql`insert into users (name, surname, email, password_hash, status, location_id)
        with recursive c(n) as (select 0 union all select n + 1 from c where n < ${count - 1})
        select ${prefix} || n, 'Staff', lower(${prefix}) || '-' || n || '-' || ${locationId} || '@test.example', 'x', 'active', ${locationId} from c`,
  );
  await db().run(sql`insert into user_locations (user_id, location_id) select id, location_id from users where location_id = ${locationId} and name like ${`${prefix}%`}`);
}

/** A staff user with one role (made up from `permissions`, or a named built-in role) and some locations, with an NPI (a claim's rendering provider needs one). */
export async function createUser(opts: { role?: string; permissions?: readonly Permission[]; locations?: number[]; twoFactor?: boolean; status?: string; name?: string } = {}): Promise<TestUser> {
  const email = `user-${next()}@test.example`;
  const [user] = await db()
    .insert(users)
    .values({ name: opts.name ?? "Test", surname: "User", email, passwordHash: await passwordHash(), profile: JSON.stringify({ npi: "1112223338" }), twoFactorEnabled: !!opts.twoFactor, status: opts.status ?? "active", locationId: opts.locations?.[0] ?? null })
    .returning();
  const role = await createRole(opts.role ?? `ROLE_${next()}`, opts.permissions ?? []);
  await db().insert(userRoles).values({ userId: user!.id, roleId: role.id });
  for (const locationId of opts.locations ?? []) await db().insert(userLocations).values({ userId: user!.id, locationId });
  return { id: user!.id, email, password: PASSWORD };
}

export async function createParent(over: Partial<typeof parents.$inferInsert> = {}): Promise<TestUser> {
  const email = `parent-${next()}@test.example`;
  const [row] = await db()
    .insert(parents)
    .values({ name: "Pat", surname: "Parent", email, passwordHash: await passwordHash(), ...over })
    .returning();
  return { id: row!.id, email, password: PASSWORD };
}

/** What a claim's subscriber needs (decision 034's party checks): a self-subscriber client with a member id and an address. */
export const BILLABLE_DETAILS = { is_self_subscriber: true, insuranceId: "MBR123", address: "5 Palm Ave", city: "Miami", state: "FL", zip: "33102" } as const;

/** A client (born 2018) whose details are BILLABLE_DETAILS with the given `details` over them. */
export async function createPatient(over: Partial<typeof patients.$inferInsert> & { locationId: number }) {
  const details = JSON.stringify({ ...BILLABLE_DETAILS, ...(JSON.parse(over.details ?? "{}") as object) });
  const [row] = await db()
    .insert(patients)
    .values({ patientIdentifier: `P-${next()}`, firstName: "Casey", lastName: `Client${next()}`, birthDate: "2018-04-02", ...over, details })
    .returning();
  return row!;
}

/** A BIP for a client (the document starts empty: defaults fill it when shown). */
export async function createBip(patient: { id: number; locationId: number }, over: Partial<typeof bips.$inferInsert> = {}) {
  const [row] = await db().insert(bips).values({ patientId: patient.id, locationId: patient.locationId, ...over }).returning();
  return row!;
}

/** A plan (goal) of a BIP; maladaptive by default with the §5 maladaptive defaults. */
export async function createPlan(bip: { id: number; patientId: number }, over: Partial<typeof plans.$inferInsert> = {}) {
  const [row] = await db()
    .insert(plans)
    .values({ bipId: bip.id, patientId: bip.patientId, name: `Behavior ${next()}`, category: "maladaptive", timeframe: "per_week", baselineTimeframe: "per_hour", unitType: "occurrences", ...over })
    .returning();
  return row!;
}

export async function createObjective(plan: { id: number }, over: Partial<typeof objectives.$inferInsert> = {}) {
  const [row] = await db().insert(objectives).values({ planId: plan.id, ...over }).returning();
  return row!;
}

export async function createWeeklyReport(plan: { id: number }, weekEnd: string, value: number, totalUnits: number | null = null) {
  const d = new Date(`${weekEnd}T00:00:00Z`);
  const weekStart = new Date(d.getTime() - 6 * 86_400_000).toISOString().slice(0, 10);
  const [row] = await db().insert(weeklyReports).values({ planId: plan.id, weekStart, weekEnd, value, totalUnits }).returning();
  return row!;
}

export async function createChartComment(plan: { id: number }, commentDate: string, comment: string) {
  const [row] = await db().insert(chartComments).values({ planId: plan.id, commentDate, comment }).returning();
  return row!;
}

/** A same-site request through the whole Worker (forms need the Origin header to pass the cross-site check). */
export function request(path: string, init: RequestInit & { cookie?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set("Cookie", init.cookie);
  headers.set("Host", new URL(BASE).host);
  if (init.method && init.method !== "GET" && !headers.has("Origin")) headers.set("Origin", BASE);
  return appFetch(`${BASE}${path}`, { ...init, headers, redirect: "manual" });
}

export function form(path: string, fields: Record<string, string>, cookie?: string): Promise<Response> {
  return request(path, { method: "POST", body: new URLSearchParams(fields), cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

export function api(path: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<Response> {
  const headers = new Headers({ Accept: "application/json" });
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
  if (init.body !== undefined) headers.set("Content-Type", "application/json");
  return appFetch(`${BASE}/api${path}`, { method: init.method ?? "GET", headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
}

/** The cookies a response sets, as one Cookie header value (name=value pairs, cleared ones dropped). */
export function cookiesFrom(res: Response, previous = ""): string {
  const jar = new Map(previous.split("; ").filter(Boolean).map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)] as const));
  for (const c of res.headers.getSetCookie()) {
    const [pair, ...attrs] = c.split("; ");
    const name = pair!.slice(0, pair!.indexOf("="));
    const value = pair!.slice(pair!.indexOf("=") + 1);
    if (attrs.some((a) => a.toLowerCase() === "max-age=0") || value === "") jar.delete(name);
    else jar.set(name, value);
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
}

/** cookiesFrom without the D1 bookmark cookie (decision 022), for tests about the other cookies. */
export function cookiesBesidesBookmark(res: Response, previous = ""): string {
  return cookiesFrom(res, previous)
    .split("; ")
    .filter((c) => c && !c.startsWith("__bookmark="))
    .join("; ");
}

/** The Set-Cookie values of a response besides the D1 bookmark's (decision 022). */
export function setCookiesBesidesBookmark(res: Response): string[] {
  return res.headers.getSetCookie().filter((c) => !c.startsWith("__bookmark="));
}

/** Signs in through the login form and returns the session cookie. */
export async function signInCookie(user: TestUser, parent = false): Promise<string> {
  const res = await form("/login", { email: user.email, password: user.password, ...(parent ? { parent: "on" } : {}) });
  if (res.status !== 303) throw new Error(`sign-in failed with ${res.status}`);
  return cookiesFrom(res);
}

/** Signs in through the API and returns the bearer token. */
export async function apiToken(user: TestUser, parent = false): Promise<string> {
  const res = await api("/auth/login", { method: "POST", body: { email: user.email, password: user.password, parent } });
  if (res.status !== 200) throw new Error(`API sign-in failed with ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Every email sent to an address, newest first (from the development outbox). */
export async function emailsTo(to: string) {
  const res = await api(`/dev/outbox?to=${encodeURIComponent(to)}`);
  return ((await res.json()) as { data: { subject: string; text: string; created_at: string }[] }).data;
}

/** The newest email sent to an address (from the development outbox). */
export async function lastEmail(to: string) {
  return (await emailsTo(to))[0] ?? null;
}

/** The queue delivers an email a moment later: the newest one to `to` whose subject matches, waited for up to 5 s. */
export async function emailTo(to: string, subject: RegExp) {
  for (let i = 0; i < 50; i++) {
    const mail = await lastEmail(to);
    if (mail && subject.test(mail.subject)) return mail;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

export function codeIn(text: string): string {
  const m = /\b(\d{6})\b/.exec(text);
  if (!m) throw new Error("no code in email");
  return m[1]!;
}

/**
 * The database of a model call whose first batch of several statements (its write with the audit row) waits
 * until `before` has run: another request's write landing between the call's reads and its write. `skip`: how
 * many batches of several statements run first (a call that reads in a batch: 1).
 */
export function beforeWriteDb(before: () => Promise<unknown>, skip = 0): Db {
  let done = false;
  let seen = 0;
  const binding = {
    prepare: (query: string) => env.DB.prepare(query),
    batch: async (statements: D1PreparedStatement[]) => {
      if (!done && statements.length > 1 && seen++ >= skip) {
        done = true;
        await before();
      }
      return env.DB.batch(statements);
    },
    exec: (query: string) => env.DB.exec(query),
    dump: () => env.DB.dump(),
    withSession: (...args: Parameters<D1Database["withSession"]>) => env.DB.withSession(...args),
  } as D1Database;
  return d1Database(binding);
}

/** Each (method, path) answers 405 JSON "Unsupported HTTP method" to a Bearer client (platform §7), never the screens' answers. */
export async function expectUnsupportedMethods(token: string, cases: readonly (readonly [method: string, path: string])[]): Promise<void> {
  for (const [method, path] of cases) {
    const res = await api(path, { method, token });
    expect([method, path, res.status]).toEqual([method, path, 405]);
    // RFC 9110 §15.5.6: a 405 lists the methods the path does serve (never the refused one).
    expect([method, path, res.headers.has("Allow"), (res.headers.get("Allow") ?? "").split(", ").includes(method)]).toEqual([method, path, true, false]);
    expect(await res.json()).toEqual({ message: "Unsupported HTTP method" });
  }
}

/** A path whose `flash` is tagged as the server tags its own (app/services/flash.server.ts): shown, not redirected away. */
export async function withFlashTag(path: string): Promise<string> {
  const text = new URL(path, BASE).searchParams.get("flash");
  if (text === null) return path;
  return `${path}${path.includes("?") ? "&" : "?"}fs=${await flashTag(env, text)}`;
}

/** A redirect's Location without its flash tag (`&fs=…`), to compare with the address a test expects. */
export function withoutFlashTag(location: string | null): string | null {
  return location === null ? null : location.replace(/[?&]fs=[0-9a-f]{32}/, "");
}

/**
 * The names of a page's focusable table scroll boxes (`div.table-scroll`), each as a screen reader announces it: a
 * region named by the caption its aria-labelledby points to; `null` for a box that is not such a named region.
 */
export function scrollRegionNames(html: string): (string | null)[] {
  return (html.match(/<div class="table-scroll"[^>]*>/g) ?? []).map((tag) => {
    const id = /aria-labelledby="([^"]+)"/.exec(tag)?.[1];
    if (!/ role="region"/.test(tag) || !id) return null;
    const caption = html.split(`<caption id="${id}"`);
    return caption.length === 2 ? (/^[^>]*>([^<]+)<\/caption>/.exec(caption[1]!)?.[1] ?? null) : null;
  });
}

/**
 * One record of each editable resource at one location, with a SUPERADMIN's API token: for tests that walk every
 * resource's update call (field parsers, one-line fields, PATCH rules). The note is two days old: a past day in every
 * time zone, within the 14 days a note may be changed.
 */
export async function oneRecordOfEach() {
  const location = await createLocation();
  const admin = await createUser({ role: "SUPERADMIN", locations: [location.id] });
  const token = await apiToken(admin);
  const parent = await createParent({ locationId: location.id });
  const patient = await createPatient({ locationId: location.id, parentId: parent.id });
  const bip = await createBip(patient);
  const plan = await createPlan(bip);
  const objective = await createObjective(plan, { name: "Reduce to 2 per week" });
  const employee = await createUser({ permissions: ["view_notes"], locations: [location.id] });
  const role = await createRole("Front desk", ["view_clients"]);
  const [insurer] = await db().insert(insurances).values({ name: "Acme Health" }).returning();
  const [service] = await db().insert(insuranceServices).values({ insuranceId: insurer!.id, locationId: location.id, cptCode: "97153", unitPrice: 20 }).returning();
  const [rate] = await db().insert(rateRecords).values({ name: "Standard", locationId: location.id }).returning();
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Assessment", cpt: "97153", nUnits: 32, startDate: "2026-01-01", endDate: "2030-12-31" }).returning();
  const [intake] = await db().insert(intakeAssessments).values({ patientId: patient.id, personResponding: "Mother" }).returning();
  const [ticket] = await db().insert(tickets).values({ userId: admin.id, subject: "Printer", body: "It jams.", locationId: location.id }).returning();
  const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
  const [note] = await db()
    .insert(notes)
    .values({ type: "rbt", patientId: patient.id, locationId: location.id, providerId: employee.id, paServiceId: pa!.id, cptCode: "97153", sessionDate: twoDaysAgo, timeIn: "08:00", timeOut: "08:30", minutes: 30, units: 2 })
    .returning();
  return { location, admin, token, parent, patient, bip, plan, objective, employee, role, insurer: insurer!, service: service!, rate: rate!, pa: pa!, intake: intake!, ticket: ticket!, note: note! };
}

/** The next date, at least `after` days after today in `zone`, that falls on `weekday` (0 = Sunday): a booking's day. */
export function nextWeekdayIn(zone: string, weekday: number, after: number): string {
  let d = addDays(todayAtLocation(new Date(), zone), after);
  while (weekdayOfDay(dayNumber(d)!) !== weekday) d = addDays(d, 1);
  return d;
}
