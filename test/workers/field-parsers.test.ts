import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { chartComments, insuranceServices, insurances, notes, objectives, paServices, patients } from "~/db/schema";
import { api, apiToken, BASE, createBip, createChartComment, createLocation, createObjective, createPatient, createPlan, createUser, db } from "./helpers";
import { appFetch } from "./app-fetch";

/**
 * The shared field parsers refuse what they used to turn into another value (probe 8913, defects 3–6): each case
 * is one of the reported requests, answered 422 at the field with the row left as it was.
 */

let token: string;
let location: { id: number };

beforeAll(async () => {
  location = await createLocation();
  const admin = await createUser({ role: "SUPERADMIN", locations: [location.id] });
  token = await apiToken(admin);
});

async function refused(path: string, body: unknown, field: string, message: string) {
  const res = await api(path, { method: "PATCH", token, body });
  expect(res.status, JSON.stringify(body)).toBe(422);
  expect(((await res.json()) as { errors: Record<string, string> }).errors[field], JSON.stringify(body)).toBe(message);
}

describe("a choice field sent as null or blank (defect 3)", () => {
  it("keeps a mastered objective mastered and an LTO an LTO", async () => {
    const patient = await createPatient({ locationId: location.id });
    const plan = await createPlan(await createBip(patient));
    const mastered = await createObjective(plan, { status: "mastered" });
    const lto = await createObjective(plan, { type: "LTO" });
    await refused(`/v2/objectives/${mastered.id}`, { status: null }, "status", "Choose a status from the list.");
    await refused(`/v2/objectives/${mastered.id}`, { status: "" }, "status", "Choose a status from the list.");
    await refused(`/v2/objectives/${lto.id}`, { type: "" }, "type", "Choose STO or LTO.");
    const rows = await db().select().from(objectives).where(eq(objectives.planId, plan.id));
    expect(rows.find((o) => o.id === mastered.id)?.status).toBe("mastered");
    expect(rows.find((o) => o.id === lto.id)?.type).toBe("LTO");
  });

  it("keeps an inactive client inactive (and writes none of the other fields)", async () => {
    const patient = await createPatient({ locationId: location.id, status: "inactive", details: JSON.stringify({ phone: "305-555-1111" }) });
    await refused(`/v2/patients/${patient.id}`, { status: "", phone: "305-555-0000" }, "status", "Choose a status from the list.");
    await refused(`/v2/patients/${patient.id}`, { status: null }, "status", "Choose a status from the list.");
    const [row] = await db().select().from(patients).where(eq(patients.id, patient.id));
    expect([row?.status, JSON.parse(row!.details).phone]).toEqual(["inactive", "305-555-1111"]);
  });

  it("still gives a new objective its defaults when the keys are left out", async () => {
    const patient = await createPatient({ locationId: location.id });
    const plan = await createPlan(await createBip(patient));
    const res = await api("/v2/objectives", { method: "POST", token, body: { plan_id: plan.id, name: "Reduce to 3 per week" } });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { data: { type: string; status: string } }).data).toMatchObject({ type: "STO", status: "not started" });
  });
});

describe("a number sent as blank, hex or exponent text (defect 4)", () => {
  it("keeps a PA service's authorised units and an insurer service's price", async () => {
    const patient = await createPatient({ locationId: location.id, details: JSON.stringify({ deductible: 250 }) });
    const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Assessment", cpt: "97153", nUnits: 960, startDate: "2026-01-01", endDate: "2030-12-31" }).returning();
    await refused(`/v2/pa-services/${pa!.id}`, { n_units: "   " }, "n_units", "Units is required.");
    await refused(`/v2/pa-services/${pa!.id}`, { n_units: "0x20" }, "n_units", "Units must be a number.");
    const [insurer] = await db().insert(insurances).values({ name: "Acme Health" }).returning();
    const [service] = await db().insert(insuranceServices).values({ insuranceId: insurer!.id, locationId: location.id, cptCode: "97153", unitPrice: 20 }).returning();
    const res = await api(`/insurance/update/service/${service!.id}`, { method: "PATCH", token, body: { unit_price: "0x10" } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.unit_price).toBe("Unit price must be a number.");
    await refused(`/v2/patients/${patient.id}`, { deductible: "1e3" }, "deductible", "Deductible must be a number.");
    expect((await db().select().from(paServices).where(eq(paServices.id, pa!.id)))[0]?.nUnits).toBe(960);
    expect((await db().select().from(insuranceServices).where(eq(insuranceServices.id, service!.id)))[0]?.unitPrice).toBe(20);
    expect(JSON.parse((await db().select().from(patients).where(eq(patients.id, patient.id)))[0]!.details).deductible).toBe(250);
  });
});

describe("a flag sent as something other than yes or no (defect 5)", () => {
  it("keeps a telehealth note telehealth and a primary authorisation primary", async () => {
    const patient = await createPatient({ locationId: location.id });
    const employee = await createUser({ permissions: ["view_notes"], locations: [location.id] });
    const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Assessment", cpt: "97153", nUnits: 32, startDate: "2026-01-01", endDate: "2030-12-31", isPrimary: true }).returning();
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const [note] = await db()
      .insert(notes)
      .values({ type: "rbt", patientId: patient.id, locationId: location.id, providerId: employee.id, paServiceId: pa!.id, cptCode: "97153", sessionDate: twoDaysAgo, timeIn: "08:00", timeOut: "08:30", minutes: 30, units: 2, isTelehealth: true })
      .returning();
    await refused(`/v2/notes-rbt/${note!.id}`, { is_telehealth: 2 }, "is_telehealth", "Choose yes or no.");
    await refused(`/v2/notes-rbt/${note!.id}`, { is_telehealth: "y" }, "is_telehealth", "Choose yes or no.");
    await refused(`/v2/pa-services/${pa!.id}`, { is_primary: -1 }, "is_primary", "Choose yes or no.");
    expect((await db().select().from(notes).where(eq(notes.id, note!.id)))[0]?.isTelehealth).toBe(true);
    expect((await db().select().from(paServices).where(eq(paServices.id, pa!.id)))[0]?.isPrimary).toBe(true);
  });
});

describe("a chart comment sent as a number (defect 6)", () => {
  it("is 'Invalid Comment', and the stored text stays", async () => {
    const patient = await createPatient({ locationId: location.id });
    const comment = await createChartComment(await createPlan(await createBip(patient)), "2026-01-02", "New routine");
    for (const raw of ['{"comment":1e309}', '{"comment":9007199254740993}', '{"comment":99999999999999999999}']) {
      const res = await patchRaw(`/api/v2/chart-comments/${comment.id}`, raw);
      expect(res.status, raw).toBe(422);
      expect(((await res.json()) as { errors: Record<string, string> }).errors.comment, raw).toBe("Please provide a valid date and comment (max 50 characters).");
    }
    expect((await db().select().from(chartComments).where(eq(chartComments.id, comment.id)))[0]?.comment).toBe("New routine");
  });
});

/** A PATCH with the body exactly as written (JSON.stringify cannot write 1e309). */
function patchRaw(path: string, raw: string): Promise<Response> {
  return appFetch(`${BASE}${path}`, { method: "PATCH", headers: { Accept: "application/json", Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: raw });
}
