/**
 * The benchmark's slow-connection part (docs/decisions/018): Chromium on DevTools' "3G" profile —
 * 2,000 ms latency, 50 KB/s down and up — with its cache on, as a user on a poor mobile connection sees
 * the app. One sign-in journey, with JavaScript off and again with it on, each in a fresh browser profile:
 *
 * - first visit: /login with an empty cache (document, stylesheet, script);
 * - sign-in → dashboard: the form POST, its 303 and the dashboard GET;
 * - dashboard → clients: a click on the sidebar's Clients link;
 * - clients → notes: a click on the sidebar's Notes link (the notes list, issue 10).
 *
 * Then the note journey of issue 10 (an RBT writing a note on a phone), signed in as the demo RBT in a
 * fresh profile whose sign-in ran before the throttling (so its stylesheet and script are cached, as after
 * the journey above):
 * - notes → new RBT note: the notes list's "New RBT note" link (the client chooser);
 * - open the note form: a click on the first client (the form with the client's PA services and goals);
 * - save a note: the filled form sent — without JavaScript the POST, its 303 and the note's GET.
 *
 * Each step is timed from the click (or the address) to the new page's load event, and the requests
 * that went over the network are listed (a file answered from the browser's cache costs nothing; a
 * revalidation, 304 or not, costs a round trip). Runs on the demo data.
 */
import { chromium, type Browser, type CDPSession, type Page } from "playwright-core";
import { DEMO_PASSWORD } from "../../scripts/demo-data";
import { addDays } from "../../app/domain/weeks";

export const SLOW_3G = { offline: false, latency: 2000, downloadThroughput: 50 * 1024, uploadThroughput: 50 * 1024 };

/** Targets of issue 9 ("one round trip per screen"). */
export const SLOW_TARGETS_MS: Record<string, number> = {
  "sign-in → dashboard": 4600,
  "dashboard → clients": 2600,
  "clients → notes": 2600,
  // Issue 10: opening the note form ≤ 2.6 s, a no-JS save (POST → 303 → GET) ≤ 4.6 s.
  "notes → new RBT note": 2600,
  "open the note form": 2600,
  "save a note": 4600,
};

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];
const ADMIN = "admin@demo.test";
const RBT = "rbt@demo.test";

export interface SlowStep {
  step: string;
  javaScript: boolean;
  ms: number;
  /** Requests that went over the (emulated) network, as "METHOD /path status". */
  network: string[];
}

/** Records the requests the page sent over the network (not those served from the memory or disk cache). */
function networkLog(cdp: CDPSession): { take(): string[] } {
  const sent = new Map<string, { method: string; path: string }>();
  const done: string[] = [];
  cdp.on("Network.requestWillBeSent", (e) => {
    // A redirect reuses the request id: the answer that redirected is reported here.
    const before = sent.get(e.requestId);
    if (before && e.redirectResponse) done.push(`${before.method} ${before.path} ${e.redirectResponse.status}`);
    const url = new URL(e.request.url);
    if (url.protocol.startsWith("http")) sent.set(e.requestId, { method: e.request.method, path: url.pathname });
  });
  cdp.on("Network.requestServedFromCache", (e) => sent.delete(e.requestId));
  cdp.on("Network.responseReceived", (e) => {
    const r = sent.get(e.requestId);
    if (!r) return;
    sent.delete(e.requestId);
    if (e.response.fromDiskCache || e.response.fromPrefetchCache || e.response.fromServiceWorker) return;
    done.push(`${r.method} ${r.path} ${e.response.status}`);
  });
  return {
    take() {
      return done.splice(0);
    },
  };
}

/** From `act` to the load event of the page whose address is `pathname` (or passes the test). */
async function timed(page: Page, pathname: string | ((u: URL) => boolean), act: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  const arrived = typeof pathname === "string" ? (u: URL) => u.pathname === pathname : pathname;
  await Promise.all([page.waitForURL(arrived, { waitUntil: "load", timeout: 60_000 }), act()]);
  return Math.round(performance.now() - t0);
}

async function journey(browser: Browser, base: string, javaScript: boolean): Promise<SlowStep[]> {
  const context = await browser.newContext({ javaScriptEnabled: javaScript, baseURL: base });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: false });
    await cdp.send("Network.emulateNetworkConditions", SLOW_3G);
    const log = networkLog(cdp);
    const steps: SlowStep[] = [];
    const record = (step: string, ms: number) => steps.push({ step, javaScript, ms, network: log.take() });

    record("first visit /login", await timed(page, "/login", () => page.goto("/login", { waitUntil: "commit", timeout: 60_000 })));
    if (javaScript) await page.waitForFunction(() => (window as unknown as { __baselineEnhanced?: boolean }).__baselineEnhanced === true);
    await page.getByLabel("Email", { exact: true }).fill(ADMIN);
    await page.getByLabel("Password", { exact: true }).fill(DEMO_PASSWORD);
    record("sign-in → dashboard", await timed(page, "/dashboard", () => page.getByRole("button", { name: "Sign in", exact: true }).click()));
    await page.getByRole("heading", { name: /^Good Day/ }).waitFor();
    record("dashboard → clients", await timed(page, "/patients/list", () => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Clients" }).click()));
    await page.getByRole("heading", { name: "Clients", exact: true }).waitFor();
    record("clients → notes", await timed(page, "/notes-list", () => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Notes", exact: true }).click()));
    return steps;
  } finally {
    await context.close();
  }
}

/**
 * The RBT's note: sign in at full speed (untimed), then on 3G open the notes list, the new-note chooser,
 * the form for the first client, and save a note at `timeIn`–`timeOut` today (the demo notes end
 * yesterday; the two runs use times 15 minutes apart, the provider buffer).
 */
async function noteJourney(browser: Browser, base: string, javaScript: boolean, timeIn: string, timeOut: string): Promise<SlowStep[]> {
  const context = await browser.newContext({ javaScriptEnabled: javaScript, baseURL: base });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: false });
    await page.goto("/login");
    if (javaScript) await page.waitForFunction(() => (window as unknown as { __baselineEnhanced?: boolean }).__baselineEnhanced === true);
    await page.getByLabel("Email", { exact: true }).fill(RBT);
    await page.getByLabel("Password", { exact: true }).fill(DEMO_PASSWORD);
    await Promise.all([page.waitForURL((u) => u.pathname === "/dashboard", { waitUntil: "load" }), page.getByRole("button", { name: "Sign in", exact: true }).click()]);
    await page.goto("/notes-list");
    await cdp.send("Network.emulateNetworkConditions", SLOW_3G);
    const log = networkLog(cdp);
    const steps: SlowStep[] = [];
    const record = (step: string, ms: number) => steps.push({ step, javaScript, ms, network: log.take() });

    record("notes → new RBT note", await timed(page, "/note-rbt", () => page.getByRole("link", { name: "New RBT note", exact: true }).click()));
    const client = page.getByRole("list", { name: "Clients" }).getByRole("link").first();
    await client.waitFor();
    record("open the note form", await timed(page, (u) => u.pathname === "/note-rbt" && u.searchParams.has("patient_id"), () => client.click()));
    await page.getByLabel("Morning: time in").waitFor();
    if (javaScript) await page.waitForFunction(() => (window as unknown as { __baselineEnhanced?: boolean }).__baselineEnhanced === true);
    // Yesterday at the client's location (the form's day, one back): a session of today at these times has not ended
    // yet when the bench runs before them there (decision 023's rule), and the save would be refused.
    const day = page.getByLabel("Session date");
    await day.fill(addDays(await day.inputValue(), -1));
    const pa = page.getByLabel("PA service");
    const offered = await pa.locator("option:not([disabled]):not([value=''])").first().getAttribute("value");
    if (!offered) throw new Error("the demo client has no PA service covering today");
    await pa.selectOption(offered);
    await page.getByLabel("Place of service (POS)").selectOption("12");
    await page.getByLabel("Morning: time in").fill(timeIn);
    await page.getByLabel("Morning: time out").fill(timeOut);
    record("save a note", await timed(page, (u) => /^\/note-rbt\/view\/\d+$/.test(u.pathname), () => page.getByRole("button", { name: "Save note" }).click()));
    await page.getByText("Note created.").waitFor();
    return steps;
  } finally {
    await context.close();
  }
}

/** The journeys with JavaScript off, then on. */
export async function slowNetworkSteps(base: string): Promise<SlowStep[]> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    return [
      ...(await journey(browser, base, false)),
      ...(await noteJourney(browser, base, false, "06:00", "06:45")),
      ...(await journey(browser, base, true)),
      ...(await noteJourney(browser, base, true, "07:00", "07:45")),
    ];
  } finally {
    await browser.close();
  }
}
