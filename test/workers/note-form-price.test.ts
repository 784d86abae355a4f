import { and, eq, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notes, paServices } from "~/db/schema";
import { addDays } from "~/domain/weeks";
import { createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * The combined note form asks for its own unit price in dollars, as the API's `unit_price` and every other price
 * field do (decision 025, stop 41): "29.75" bills $29.75 a unit, "30" $30.00; a price the money rule refuses is shown
 * beside the field with what was typed, and nothing is saved. The edit form shows the stored price in dollars.
 */

const today = () => new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());

let w: { cookie: string; manager: number; patientId: number; paId: number };

beforeAll(async () => {
  const loc = await createLocation({ posCodes: "11,12" });
  const manager = await createUser({ permissions: ["view_notes", "manage_notes"], locations: [loc.id] });
  const patient = await createPatient({ locationId: loc.id });
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Auth", cpt: "97155", nUnits: 4000, startDate: "2020-01-01", endDate: "2099-12-31" }).returning();
  w = { cookie: await signInCookie(manager), manager: manager.id, patientId: patient.id, paId: pa!.id };
});

let slot = 0;
/** A session of its own each time (the manager is every note's provider). */
function fields(price: Record<string, string>): Record<string, string> {
  const n = slot++;
  const h = 6 + (n % 7) * 2;
  const hh = String(h).padStart(2, "0");
  return {
    intent: "save",
    form_token: crypto.randomUUID(),
    type: "combined",
    patient_id: String(w.patientId),
    provider_id: String(w.manager),
    pa_service_id: String(w.paId),
    cpt_code: "97155",
    pos: "12",
    diagnosis_code: "F84.0",
    session_date: addDays(today(), -1 - Math.floor(n / 7)),
    time_in: `${hh}:00`,
    time_out: `${hh}:45`,
    ...price,
  };
}

function post(path: string, f: Record<string, string>) {
  return request(path, { method: "POST", body: new URLSearchParams(f), cookie: w.cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

async function storedNotes() {
  return db().select().from(notes).where(and(eq(notes.patientId, w.patientId), isNull(notes.deletedAt)));
}

const createdId = (res: Response) => Number(/\/note-combined\/view\/(\d+)/.exec(res.headers.get("Location") ?? "")?.[1]);

describe("the combined note form's unit price, in dollars", () => {
  it("the form asks for 'Unit price' in dollars (unit_price), never in cents", async () => {
    const page = await (await request(`/note-combined?patient_id=${w.patientId}`, { cookie: w.cookie })).text();
    expect(page).toMatch(/<input[^>]*name="unit_price"[^>]*inputMode="decimal"|<input[^>]*inputMode="decimal"[^>]*name="unit_price"/i);
    expect(page).toContain(">Unit price<");
    expect(page).not.toContain("unit_price_cents");
    expect(page).not.toContain("(cents)");
  });

  it.each([
    ["29.75", 2975, "$29.75"],
    ["30", 3000, "$30.00"],
    ["0.5", 50, "$0.50"],
    [" 12.10 ", 1210, "$12.10"],
  ])("%j is saved as %i cents and shown as %s; the edit form shows it in dollars", async (typed, cents, shown) => {
    const res = await post(`/note-combined?patient_id=${w.patientId}`, fields({ unit_price: typed }));
    expect(res.status, await res.clone().text()).toBe(303);
    const id = createdId(res);
    const [row] = await db().select().from(notes).where(eq(notes.id, id));
    expect(row!.unitPriceCents).toBe(cents);
    const view = await (await request(`/note-combined/view/${id}`, { cookie: w.cookie })).text();
    expect(view).toContain(shown);
    const edit = await (await request(`/note-combined/edit/${id}`, { cookie: w.cookie })).text();
    expect(edit).toMatch(new RegExp(`name="unit_price"[^>]*value="${(cents / 100).toFixed(2).replace(".", "\\.")}"`));
  });

  it("a blank price saves none (the insurer's price bills)", async () => {
    const res = await post(`/note-combined?patient_id=${w.patientId}`, fields({ unit_price: "" }));
    expect(res.status).toBe(303);
    const [row] = await db().select().from(notes).where(eq(notes.id, createdId(res)));
    expect(row!.unitPriceCents).toBeNull();
  });

  it.each([
    ["abc", "Unit price must be a number."],
    ["-1", "Unit price must be 0 or more."],
    ["29.755", "Unit price takes at most 2 decimals (whole cents)."],
    ["1000000.01", "Unit price must be at most 1,000,000."],
  ])("%j: 422, the field's message beside it, the typed value kept, nothing saved (create and edit)", async (typed, message) => {
    const before = await storedNotes();
    const res = await post(`/note-combined?patient_id=${w.patientId}`, fields({ unit_price: typed }));
    expect(res.status).toBe(422);
    const page = await res.text();
    expect(page).toContain(message);
    expect(page).toMatch(new RegExp(`name="unit_price"[^>]*value="${typed.replace(".", "\\.")}"`));
    expect(await storedNotes()).toHaveLength(before.length);

    // The edit form: the stored note keeps its price and version.
    const ok = await post(`/note-combined?patient_id=${w.patientId}`, fields({ unit_price: "31.50" }));
    expect(ok.status).toBe(303);
    const id = createdId(ok);
    const [stored] = await db().select().from(notes).where(eq(notes.id, id));
    const { form_token: _t, ...again } = fields({ unit_price: typed });
    const edit = await post(`/note-combined/edit/${id}`, { ...again, version: String(stored!.version), session_date: stored!.sessionDate, time_in: stored!.timeIn!, time_out: stored!.timeOut! });
    expect(edit.status).toBe(422);
    const editPage = await edit.text();
    expect(editPage).toContain(message);
    expect(editPage).toMatch(new RegExp(`name="unit_price"[^>]*value="${typed.replace(".", "\\.")}"`));
    const [after] = await db().select().from(notes).where(eq(notes.id, id));
    expect(after).toMatchObject({ unitPriceCents: 3150, version: stored!.version });
  });

  it("an edit that changes the price in dollars saves it; one left as shown keeps it", async () => {
    const res = await post(`/note-combined?patient_id=${w.patientId}`, fields({ unit_price: "18.25" }));
    const id = createdId(res);
    const [stored] = await db().select().from(notes).where(eq(notes.id, id));
    const { form_token: _t, ...base } = fields({});
    const same = { ...base, version: String(stored!.version), session_date: stored!.sessionDate, time_in: stored!.timeIn!, time_out: stored!.timeOut! };
    const kept = await post(`/note-combined/edit/${id}`, { ...same, unit_price: "18.25", diagnosis_code: "F84.9" });
    expect(kept.status).toBe(303);
    const [mid] = await db().select().from(notes).where(eq(notes.id, id));
    expect(mid).toMatchObject({ unitPriceCents: 1825, diagnosisCode: "F84.9" });
    const changed = await post(`/note-combined/edit/${id}`, { ...same, version: String(mid!.version), unit_price: "29.75" });
    expect(changed.status).toBe(303);
    const [after] = await db().select().from(notes).where(eq(notes.id, id));
    expect(after!.unitPriceCents).toBe(2975);
  });
});
