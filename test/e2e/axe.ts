/**
 * Accessibility checks for the browser tests: axe-core (WCAG 2.0/2.1 A and AA rules) on every screen
 * a flow reaches, JavaScript off and on. axe's source is evaluated in the page through the devtools
 * protocol (page.evaluate), which works in a context with JavaScript disabled and is not subject to
 * the page's Content-Security-Policy (a <script> tag would be). With JavaScript disabled, evaluated
 * code runs but timers never fire, and axe schedules its work with setTimeout: on such a page (which
 * runs no script of its own) the timers are replaced by microtasks before axe runs. Serious and
 * critical violations fail the flow; minor and moderate ones are left to review.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
export const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] as const;
const FAILING_IMPACTS = new Set(["serious", "critical"]);

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string; html: string; summary: string }[];
}

/**
 * axe's violations on the page as it is now (axe is loaded into the page once per document).
 * `scripts`: whether the page's context runs JavaScript (when not, timers become microtasks).
 */
export async function axeViolations(page: Page, scripts: boolean): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === "object");
  if (!loaded) await page.evaluate(AXE_SOURCE);
  if (!scripts) {
    await page.evaluate(() => {
      const w = window as unknown as Record<string, unknown>;
      const cancelled = new Set<number>();
      let last = 0;
      w.setTimeout = (fn: (...a: unknown[]) => void, _ms?: number, ...args: unknown[]) => {
        const id = ++last;
        void Promise.resolve().then(() => (cancelled.has(id) ? undefined : fn(...args)));
        return id;
      };
      w.clearTimeout = (id: number) => cancelled.add(id);
      w.requestAnimationFrame = (fn: (t: number) => void) => (w.setTimeout as (f: () => void) => number)(() => fn(performance.now()));
    });
  }
  return page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: unknown) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[]; html: string; failureSummary?: string }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.map(String).join(" "), html: n.html.slice(0, 160), summary: (n.failureSummary ?? "").replace(/\s+/g, " ").slice(0, 240) })),
    }));
  }, [...AXE_TAGS]);
}

/** Throws when the page has a serious or critical violation, naming the rule, the elements and the page. */
export async function assertAccessible(page: Page, scripts: boolean): Promise<void> {
  const failing = (await axeViolations(page, scripts)).filter((v) => FAILING_IMPACTS.has(v.impact ?? ""));
  if (!failing.length) return;
  const lines = failing.flatMap((v) => [`${v.id} (${v.impact}): ${v.help}`, ...v.nodes.slice(0, 5).map((n) => `    ${n.target}  ${n.html}\n      ${n.summary}`), ...(v.nodes.length > 5 ? [`    … and ${v.nodes.length - 5} more`] : [])]);
  throw new Error(`Accessibility (axe, WCAG 2.1 A/AA) on ${new URL(page.url()).pathname}:\n  ${lines.join("\n  ")}`);
}

/**
 * Documents already found accessible, by JavaScript on/off and the hash of their markup with hidden inputs' values
 * left out (one-time form tokens): axe's answer depends only on the document and the stylesheet, so the same markup
 * again (the sign-in page, a screen reached twice unchanged) is not checked again. A document that failed is never
 * recorded, so it fails wherever it shows.
 */
const passed = new Set<string>();

async function documentKey(page: Page, scripts: boolean): Promise<string> {
  const markup = await page.evaluate(() => {
    const copy = document.documentElement.cloneNode(true) as HTMLElement;
    for (const input of copy.querySelectorAll('input[type="hidden"]')) input.removeAttribute("value");
    return copy.outerHTML;
  });
  return `${scripts ? "on" : "off"}:${createHash("sha256").update(markup).digest("hex")}`;
}

/**
 * Checks every screen the page reaches: after each page.goto, page.reload and page.waitForURL has
 * settled (and `settle` ran: with JavaScript on, the page's scripts), axe runs on it — once per
 * document and URL (a mark on the window), so a flow that waits for the page it is on is not checked
 * twice, while a reload or a client-side navigation is — unless the same markup passed before (`passed`).
 * Install once per page, before the flow starts.
 */
export function checkEveryScreen(page: Page, { scripts, settle }: { scripts: boolean; settle: (page: Page) => Promise<void> }): void {
  const check = async () => {
    if (page.isClosed() || !/^https?:/.test(page.url())) return;
    await settle(page);
    const fresh = await page.evaluate(() => {
      const w = window as unknown as { __axeChecked?: string };
      if (w.__axeChecked === location.href) return false;
      w.__axeChecked = location.href;
      return true;
    });
    if (!fresh) return;
    const key = await documentKey(page, scripts);
    if (passed.has(key)) return;
    await assertAccessible(page, scripts);
    passed.add(key);
  };
  const goto = page.goto.bind(page);
  const reload = page.reload.bind(page);
  const waitForURL = page.waitForURL.bind(page);
  page.goto = async (...args) => {
    const res = await goto(...args);
    await check();
    return res;
  };
  page.reload = async (...args) => {
    const res = await reload(...args);
    await check();
    return res;
  };
  page.waitForURL = async (...args) => {
    await waitForURL(...args);
    await check();
  };
}
