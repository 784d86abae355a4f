/**
 * Browser test of the AI summary button module (app/client/note-summary.ts, built standalone as
 * `ASSET_URLS.noteSummaryJs`) against `wrangler dev` with the built-in provider. The note form screens bundle the
 * module themselves (and their flows, JavaScript off and on, live in run.ts); until then this test puts a note
 * form with the button on a signed-in page of the app (same origin, same CSP) and loads the standalone module.
 * Run: `node --import tsx --test-reporter=spec --test test/e2e/ai-summary.ts`.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { DEMO_PASSWORD } from "../../scripts/demo-data";
import { ROOT, startApp, type AppServer } from "../support/server";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];

let app: AppServer;
let browser: Browser;

before(
  async () => {
    app = await startApp({ label: "baseline-e2e-ai" });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  },
  { timeout: 180_000 },
);
after(async () => {
  await browser?.close().catch(() => {});
  await app?.stop();
});

/** An RBT note form as the note screens render it: field names of app/domain/note-form.ts. */
const FORM = `
<form method="post" id="note">
  <input type="hidden" name="type" value="rbt">
  <label>CPT <input name="cpt_code" value="97153"></label>
  <label>Diagnosis <input name="diagnosis_code" value="F84.0"></label>
  <label>POS <select name="pos"><option value="">Choose</option><option value="12" selected>Home</option><option value="03">School</option></select></label>
  <label>Time in <input name="time_in" value="09:00"></label>
  <label>Time out <input name="time_out" value="10:30"></label>
  <input name="content.maladaptives[0].name" value="Aggression" aria-label="Maladaptive">
  <input name="content.maladaptives[0].frequency" value="3" aria-label="Frequency">
  <input name="content.replacements[0].name" value="Manding" aria-label="Replacement">
  <input name="content.replacements[0].total_trials" value="10" aria-label="Trials">
  <input name="content.replacements[0].correct_responses" value="7" aria-label="Correct">
  <input name="content.interventions[]" value="DRA" aria-label="Intervention">
  <label>Mood <input name="content.client_appeared" value="Calm"></label>
  <label>Evidenced by <input name="content.as_evidenced_by" value="following directions"></label>
  <label>Progress <input name="content.client_response_to_treatment_this_session" value="responded well"></label>
  <label>Modeled <input name="content.rbt_modeled_and_demonstrated_to_caregiver" value="labeled praise"></label>
  <label>Summary <textarea name="content.summary_note"></textarea></label>
  <button type="submit" name="intent" value="generate-summary" data-ai-summary>Generate AI Summary</button>
</form>`;

async function signedInPageWithForm(email: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: app.url });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  await page.goto("/login");
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => url.pathname !== "/login");
  // A signed-in page of the app (its CSP applies), with the note form in place of its main content.
  await page.evaluate((html) => {
    const main = document.querySelector("main") ?? document.body;
    main.innerHTML = html;
  }, FORM);
  const manifest = JSON.parse(readFileSync(path.join(ROOT, "app/generated/assets.json"), "utf8")) as { noteSummaryJs: string };
  await page.addScriptTag({ url: manifest.noteSummaryJs, type: "module" });
  await page.waitForFunction(() => (document.querySelector("button[data-ai-summary]") as HTMLElement | null)?.dataset.aiSummaryAttached === "1");
  return page;
}

describe("AI summary button (JavaScript on, built-in provider)", () => {
  it("generates the summary into the note's summary field: 'Generating...' while it runs", async () => {
    const page = await signedInPageWithForm("rbt@demo.test");
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    // Hold the answer so the busy state can be seen.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route("**/notes/generate-summary", async (route) => {
      await held;
      await route.continue();
    });
    const button = page.getByRole("button", { name: "Generate AI Summary" });
    await button.click();
    const busy = page.getByRole("button", { name: "Generating..." });
    await busy.waitFor();
    assert.equal(await busy.isDisabled(), true);
    release();
    await page.getByRole("button", { name: "Generate AI Summary" }).waitFor();
    assert.equal(await button.isDisabled(), false);
    const summary = await page.locator('textarea[name="content.summary_note"]').inputValue();
    assert.match(summary, /^Met with client at home/);
    assert.doesNotMatch(summary, /97153|F84|09:00/);
    assert.equal(await page.locator("dialog").count(), 0);
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  it("shows 'Missing Required Fields' with the list, closes on Escape and gives focus back", async () => {
    const page = await signedInPageWithForm("rbt@demo.test");
    let posted = false;
    page.on("request", (r) => {
      if (r.url().endsWith("/notes/generate-summary")) posted = true;
    });
    await page.locator('select[name="pos"]').selectOption("");
    await page.locator('input[name="content.client_appeared"]').fill("");
    await page.getByRole("button", { name: "Generate AI Summary" }).click();
    const dialog = page.getByRole("alertdialog", { name: "Missing Required Fields" });
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? "", /Please complete the required fields below before generating the AI summary:/);
    assert.deepEqual(await dialog.locator("li").allTextContents(), ["POS", "Mood"]);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Close");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-ai-summary")), "");
    assert.equal(posted, false, "the pre-check in the browser stops before the server is asked");
    await page.context().close();
  });

  it("a failure shows the 'Error' dialog with the server's message, or the default one", async () => {
    const page = await signedInPageWithForm("rbt@demo.test");
    await page.route("**/notes/generate-summary", (route) => route.fulfill({ status: 504, contentType: "application/json", body: JSON.stringify({ message: "The AI summary took too long. Please try again." }) }));
    await page.getByRole("button", { name: "Generate AI Summary" }).click();
    let dialog = page.getByRole("alertdialog", { name: "Error" });
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? "", /The AI summary took too long\. Please try again\./);
    await dialog.getByRole("button", { name: "Close" }).click();
    await dialog.waitFor({ state: "detached" });
    await page.unroute("**/notes/generate-summary");
    await page.route("**/notes/generate-summary", (route) => route.fulfill({ status: 500, contentType: "text/html", body: "<h1>oops</h1>" }));
    await page.getByRole("button", { name: "Generate AI Summary" }).click();
    dialog = page.getByRole("alertdialog", { name: "Error" });
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? "", /Error generating AI summary\. Please try again\./);
    assert.equal(await page.getByRole("button", { name: "Generate AI Summary" }).isDisabled(), false);
    await page.context().close();
  });
});
