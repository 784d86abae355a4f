import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { chartComments, objectives, plans, weeklyReports } from "~/db/schema";
import type { Permission } from "~/domain/permissions";
import { createBip, createChartComment, createLocation, createObjective, createPatient, createPlan, createUser, createWeeklyReport, db, request, signInCookie } from "./helpers";

/**
 * A stale save (409) of the goal editor, an objective form and the goal screen's report and comment rows, with
 * JavaScript off (the screens hydrate no React; with JavaScript the same posts return the same page): the form shows
 * the stored value with the new version, the page also shows what was typed and not saved, and a save of the form
 * as shown (a deliberate second save) succeeds (probe 8952 #2, #6).
 */

const MANAGE: Permission[] = ["view_bips", "manage_bips"];

function post(path: string, fields: Record<string, string>, cookie: string) {
  return request(path, { method: "POST", body: new URLSearchParams(fields), cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

/** The <form> around the first occurrence of `marker`. */
function formAround(html: string, marker: string): string {
  const at = html.indexOf(marker);
  expect(at, marker).toBeGreaterThan(-1);
  const start = html.lastIndexOf("<form", at);
  return html.slice(start, html.indexOf("</form>", at));
}

const versionOf = (form: string) => Number(/name="version" value="(\d+)"/.exec(form)?.[1]);
const textareaIn = (html: string, id: string) => /<textarea[^>]*>([^<]*)<\/textarea>/.exec(html.slice(html.lastIndexOf("<textarea", html.indexOf(`id="${id}"`))))?.[1];
const inputValue = (html: string, id: string) => /value="([^"]*)"/.exec(new RegExp(`<input[^>]*id="${id}"[^>]*>`).exec(html)?.[0] ?? "")?.[1];

interface Case {
  name: string;
  /** The screen, the fields every save posts, the field changed, and how to read it back. */
  setup: (bip: { id: number; patientId: number }) => Promise<{
    path: string;
    fields: Record<string, string>;
    field: string;
    typed: [first: string, second: string, third: string];
    stored: () => Promise<unknown>;
    /** The value the form shows and the version it carries. */
    shown: (html: string) => { value: string | undefined; version: number };
  }>;
  /** How the page shows what was not saved (and nothing else beside it, for a row). */
  unsaved: (typed: string) => string;
}

// The field named in words, as the form's label reads ("Description", not "description"; probe 8954 #3).
const details = (typed: string) => `<dt>Description</dt><dd style="white-space:pre-line">${typed}</dd>`;

const CASES: Case[] = [
  {
    name: "goal editor (save-plan)",
    setup: async (bip) => {
      const plan = await createPlan(bip, { name: "Aggression" });
      return {
        path: `/bip/goal/${plan.id}/edit`,
        fields: { intent: "save-plan", name: "Aggression", category: "maladaptive", status: "active" },
        field: "description",
        typed: ["tab one", "tab two text", "tab two, again"],
        stored: async () => (await db().select().from(plans).where(eq(plans.id, plan.id)))[0]!.description,
        shown: (html) => ({ value: textareaIn(html, "f-description"), version: versionOf(formAround(html, 'name="intent" value="save-plan"')) }),
      };
    },
    unsaved: details,
  },
  {
    name: "objective form (save-objective)",
    setup: async (bip) => {
      const plan = await createPlan(bip);
      const o = await createObjective(plan, { type: "STO", position: 1, name: "First" });
      return {
        path: `/bip/goal/${plan.id}/edit`,
        fields: { intent: "save-objective", objective_id: String(o.id), type: "STO", status: "in progress", name: "First" },
        field: "description",
        typed: ["objdesc one", "objdesc two", "objdesc three"],
        stored: async () => (await db().select().from(objectives).where(eq(objectives.id, o.id)))[0]!.description,
        shown: (html) => ({ value: textareaIn(html, `objective-${o.id}-description`), version: versionOf(formAround(html, `id="objective-${o.id}-description"`)) }),
      };
    },
    unsaved: details,
  },
  {
    name: "weekly report row (update-report)",
    setup: async (bip) => {
      const plan = await createPlan(bip);
      const r = await createWeeklyReport(plan, "2026-01-10", 3);
      return {
        path: `/bip/goal/${plan.id}?edit=1`,
        fields: { intent: "update-report", report_id: String(r.id) },
        field: "value",
        typed: ["8", "9", "10"],
        stored: async () => (await db().select().from(weeklyReports).where(eq(weeklyReports.id, r.id)))[0]!.value,
        shown: (html) => ({ value: inputValue(html, `report-${r.id}-value`), version: versionOf(formAround(html, `id="report-${r.id}"`)) }),
      };
    },
    unsaved: (typed) => `Not saved: ${typed}</div>`,
  },
  {
    name: "chart comment row (update-comment)",
    setup: async (bip) => {
      const plan = await createPlan(bip);
      const c = await createChartComment(plan, "2026-01-07", "Med change 1");
      return {
        path: `/bip/goal/${plan.id}?edit=1`,
        fields: { intent: "update-comment", comment_id: String(c.id), comment_date: "2026-01-07" },
        field: "comment",
        typed: ["Med change 2", "Med change 3", "Med change 4"],
        stored: async () => (await db().select().from(chartComments).where(eq(chartComments.id, c.id)))[0]!.comment,
        shown: (html) => ({ value: inputValue(html, `comment-${c.id}-text`), version: versionOf(formAround(html, `id="comment-${c.id}"`)) }),
      };
    },
    unsaved: (typed) => `Not saved: ${typed}</div>`,
  },
];

describe("a stale save keeps the stored value in the form and shows the text that was not saved", () => {
  it.each(CASES)("$name", async ({ setup, unsaved }) => {
    const loc = await createLocation();
    const bip = await createBip(await createPatient({ locationId: loc.id }));
    const cookie = await signInCookie(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const { path, fields, field, typed, stored, shown } = await setup(bip);
    const [first, second, third] = typed;

    expect((await post(path, { ...fields, version: "1", [field]: first }, cookie)).status).toBe(303);
    const stale = await post(path, { ...fields, version: "1", [field]: second }, cookie);
    expect(stale.status).toBe(409);
    const html = await stale.text();
    expect(html).toContain("Someone else saved a newer version");
    // The form shows what is stored, with the version that came with it…
    expect(shown(html)).toEqual({ value: first, version: 2 });
    // …and the page keeps what was typed and not saved.
    expect(html).toContain(unsaved(second));
    // A value typed as it is stored was not lost, and is not listed.
    expect(html).not.toContain("<dt>Name</dt>");
    expect(String(await stored())).toBe(first);

    // Saving the form as shown (the new version) is a deliberate second save, and it succeeds.
    expect((await post(path, { ...fields, version: String(shown(html).version), [field]: third }, cookie)).status).toBe(303);
    expect(String(await stored())).toBe(third);
  });
});
