import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { bips, insuranceServices, insurances, intakeAssessments, locations, notes, objectives, plans, rateRecords, roles, users } from "~/db/schema";
import { readDocument } from "~/domain/bip-document";
import { createLocation, createUser, db, form, oneRecordOfEach, request, signInCookie } from "./helpers";

/**
 * Every screen delete asks first (probe 8972, as Delete client and a PA service's Delete): the page shows a link to a
 * confirm step (no delete form), the step asks the question and its 'Yes, delete it' sends `confirmed=yes`; a POST
 * without it (a page's old one-click form) answers 303 to the step and deletes nothing; a POST with it deletes.
 */

type Records = Awaited<ReturnType<typeof oneRecordOfEach>> & { spare: { id: number; title: string } };

interface Case {
  /** The screen that shows the delete link. */
  page: (r: Records) => string;
  /** The link's target: the confirm step, with the fragment that scrolls to it. */
  step: (r: Records) => string;
  question: (r: Records) => string;
  fields: (r: Records) => Record<string, string>;
  /** Whether the record is gone (soft-deleted, or removed). */
  gone: (r: Records) => Promise<boolean>;
}

const deletedAt = async (rows: Promise<{ deletedAt: string | null }[]>) => {
  const [row] = await rows;
  return !row || row.deletedAt !== null;
};

const cases: Record<string, Case> = {
  location: {
    page: (r) => `/location/list/edit/${r.spare.id}`,
    step: (r) => `/location/list/edit/${r.spare.id}?confirm=delete#delete-location`,
    question: (r) => `Are you sure you want to delete the location “${r.spare.title}”?`,
    fields: () => ({ intent: "delete" }),
    gone: (r) => deletedAt(db().select({ deletedAt: locations.deletedAt }).from(locations).where(eq(locations.id, r.spare.id))),
  },
  insurer: {
    page: (r) => `/insurance/list/edit/${r.insurer.id}`,
    step: (r) => `/insurance/list/edit/${r.insurer.id}?confirm=delete#delete-insurance`,
    question: () => "Are you sure you want to delete the insurance “Acme Health”?",
    fields: () => ({ intent: "delete" }),
    gone: (r) => deletedAt(db().select({ deletedAt: insurances.deletedAt }).from(insurances).where(eq(insurances.id, r.insurer.id))),
  },
  "insurer's CPT service": {
    page: (r) => `/insurance/list/edit/${r.insurer.id}`,
    step: (r) => `/insurance/list/edit/${r.insurer.id}?confirm=delete-service-${r.service.id}#services-title`,
    question: () => "Are you sure you want to delete the service “97153”?",
    fields: (r) => ({ intent: "delete-service", service_id: String(r.service.id) }),
    gone: (r) => deletedAt(db().select({ deletedAt: insuranceServices.deletedAt }).from(insuranceServices).where(eq(insuranceServices.id, r.service.id))),
  },
  employee: {
    page: (r) => `/doctors/list/edit/${r.employee.id}`,
    step: (r) => `/doctors/list/edit/${r.employee.id}?confirm=delete#delete-employee`,
    question: () => "Are you sure you want to delete the employee “Test User”?",
    fields: () => ({ intent: "delete" }),
    gone: (r) => deletedAt(db().select({ deletedAt: users.deletedAt }).from(users).where(eq(users.id, r.employee.id))),
  },
  role: {
    page: (r) => `/roles/list/edit/${r.role.id}`,
    step: (r) => `/roles/list/edit/${r.role.id}?confirm=delete#delete-role`,
    question: () => "Are you sure you want to delete the role “Front desk”?",
    fields: () => ({ intent: "delete" }),
    gone: async (r) => (await db().select().from(roles).where(eq(roles.id, r.role.id))).length === 0,
  },
  "intake assessment": {
    page: (r) => `/medical/initial-assessment/${r.intake.id}`,
    step: (r) => `/medical/initial-assessment/${r.intake.id}?confirm=delete#delete-intake`,
    question: (r) => `Are you sure you want to delete the intake assessment of ${r.patient.firstName} ${r.patient.lastName}?`,
    fields: () => ({ intent: "delete" }),
    gone: (r) => deletedAt(db().select({ deletedAt: intakeAssessments.deletedAt }).from(intakeAssessments).where(eq(intakeAssessments.id, r.intake.id))),
  },
  BIP: {
    page: (r) => `/bip/tabbed/${r.bip.id}?tab=identity`,
    step: (r) => `/bip/tabbed/${r.bip.id}?tab=identity&confirm=delete#delete-plan`,
    question: (r) => `Are you sure you want to delete the plan of ${r.patient.firstName} ${r.patient.lastName}`,
    fields: () => ({ intent: "delete" }),
    gone: (r) => deletedAt(db().select({ deletedAt: bips.deletedAt }).from(bips).where(eq(bips.id, r.bip.id))),
  },
  // A plan document's list item (since stop 36): the list shows the six default interventions.
  "plan document list item": {
    page: (r) => `/bip/tabbed/${r.bip.id}?tab=interventions`,
    step: (r) => `/bip/tabbed/${r.bip.id}?tab=interventions&confirm=delete-interventions-2#interventions-item-2`,
    question: () => "Are you sure you want to delete intervention 2 (“",
    fields: () => ({ intent: "item-delete", section: "interventions", index: "2" }),
    gone: async (r) => {
      const [row] = await db().select({ document: bips.document }).from(bips).where(eq(bips.id, r.bip.id));
      return readDocument(row!.document).interventions.length === 5;
    },
  },
  note: {
    page: (r) => `/note-rbt/view/${r.note.id}`,
    step: (r) => `/note-rbt/view/${r.note.id}?confirm=delete#delete-note`,
    question: (r) => `Are you sure you want to delete the RBT note of ${r.patient.firstName} ${r.patient.lastName} on ${r.note.sessionDate}?`,
    fields: () => ({ intent: "delete" }),
    gone: (r) => deletedAt(db().select({ deletedAt: notes.deletedAt }).from(notes).where(eq(notes.id, r.note.id))),
  },
  // These three had their confirm step already; since stop 34 their POST requires it too.
  "rate record": {
    page: (r) => `/insurance/rates/edit/${r.rate.id}`,
    step: (r) => `/insurance/rates/edit/${r.rate.id}?confirm=delete`,
    question: () => "Are you sure you want to delete the rate record “Standard”?",
    fields: () => ({ intent: "delete" }),
    gone: (r) => deletedAt(db().select({ deletedAt: rateRecords.deletedAt }).from(rateRecords).where(eq(rateRecords.id, r.rate.id))),
  },
  goal: {
    page: (r) => `/bip/goal/${r.plan.id}/edit`,
    step: (r) => `/bip/goal/${r.plan.id}/edit?confirm=delete`,
    question: (r) => `Are you sure you want to delete the goal “${r.plan.name}”?`,
    fields: () => ({ intent: "delete-plan" }),
    gone: (r) => deletedAt(db().select({ deletedAt: plans.deletedAt }).from(plans).where(eq(plans.id, r.plan.id))),
  },
  objective: {
    page: (r) => `/bip/goal/${r.plan.id}/edit`,
    step: (r) => `/bip/goal/${r.plan.id}/edit?delete-objective=${r.objective.id}`,
    question: () => "Are you sure you want to delete",
    fields: (r) => ({ intent: "delete-objective", objective_id: String(r.objective.id) }),
    gone: (r) => deletedAt(db().select({ deletedAt: objectives.deletedAt }).from(objectives).where(eq(objectives.id, r.objective.id))),
  },
};

/** An address as it stands in an href attribute. */
const inHref = (url: string) => url.replace(/&/g, "&amp;");

describe("a screen's delete asks first and deletes only from its confirm step (probe 8972)", () => {
  it.each(Object.entries(cases))("%s", async (_label, c) => {
    const records = await oneRecordOfEach();
    // An empty location (the records' own has clients and staff, so its delete is refused as in use).
    const spare = await createLocation();
    const admin = await signInCookie(await createUser({ role: "SUPERADMIN", locations: [records.location.id, spare.id] }));
    const r: Records = { ...records, spare };
    const step = c.step(r);
    const fields = c.fields(r);
    const intentField = `name="intent" value="${fields.intent}"`;

    const page = await request(c.page(r), { cookie: admin });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`href="${inHref(step)}"`);
    expect(html).not.toContain(intentField);
    expect(html).not.toContain("Yes, delete it");

    const confirm = await request(step.replace(/#.*/, ""), { cookie: admin });
    expect(confirm.status).toBe(200);
    const confirmHtml = await confirm.text();
    expect(confirmHtml).toContain(c.question(r));
    expect(confirmHtml).toContain("This action cannot be undone.");
    expect(confirmHtml).toContain("Yes, delete it");
    expect(confirmHtml).toContain(intentField);
    expect(confirmHtml).toContain('name="confirmed" value="yes"');
    // The step takes the focus on its way back (decision 021): the question is read, and Enter deletes nothing.
    const focused = confirmHtml.match(/<(a|input|select|textarea|button)\b[^>]*autofocus[^>]*>[^<]*/g) ?? [];
    expect(focused, "focus").toHaveLength(1);
    expect(focused[0], "focus").toMatch(/^<a class="btn"[^>]*>(Cancel|[^<]*)$/);
    expect(confirmHtml.slice(confirmHtml.indexOf('role="alertdialog"'))).toContain(focused[0]);

    // The old one-click form (or any post without the step's field): the step, nothing deleted.
    const unconfirmed = await form(c.page(r), fields, admin);
    expect(unconfirmed.status).toBe(303);
    expect(unconfirmed.headers.get("location")).toBe(step);
    expect(await c.gone(r)).toBe(false);

    const deleted = await form(step.replace(/#.*/, ""), { ...fields, confirmed: "yes" }, admin);
    expect(deleted.status).toBe(303);
    expect(await c.gone(r)).toBe(true);
  });
});
