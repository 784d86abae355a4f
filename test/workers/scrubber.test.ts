import { count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, clientReports, insurances, insuranceServices, locations, notes, paServices, patients, userLocations, users } from "~/db/schema";
import { noteBodyToFormFields } from "~/domain/note-form";
import { localMinute, NOTE_MESSAGES } from "~/domain/note-rules";
import { type NoteJson, unitsForMinutes } from "~/domain/notes";
import type { Permission } from "~/domain/permissions";
import { getUserActor } from "~/models/actors.server";
import type { ModelContext } from "~/models/context";
import { noteAsInput } from "~/models/notes.server";
import { scrubNotes } from "~/models/scrubber.server";
import { api, apiToken, countingDb, createLocation, createPatient, createUser, db, form, request, signInCookie } from "./helpers";

/**
 * The pre-billing scrubber (decision 034) against real D1 rows: every rule seen through scrubNotes, the
 * one-round-trip read, scope (notes of another location are absent), the refusal helper, the report and
 * the screen and API guards.
 */

const MANAGER: Permission[] = ["manage_claims", "view_notes", "view_clients"];

async function ctxOf(userId: number, database = db()): Promise<ModelContext> {
  const actor = await getUserActor(db(), userId);
  return { db: database, actor: actor!, ip: "127.0.0.1", now: () => new Date("2026-10-20T12:00:00Z") };
}

let token = 0;
type NoteOver = Partial<typeof notes.$inferInsert> & { time?: [string, string] };
function noteValues(patient: { id: number; locationId: number }, sessionDate: string, over: NoteOver = {}): typeof notes.$inferInsert {
  const [tIn, tOut] = over.time ?? ["09:00", "11:00"];
  const start = localMinute(sessionDate, tIn)!;
  const end = localMinute(sessionDate, tOut)!;
  const minutes = end - start;
  const { time: _t, ...rest } = over;
  return {
      type: "rbt",
      patientId: patient.id,
      locationId: patient.locationId,
      cptCode: "97153",
      diagnosisCode: "F84.0",
      pos: "12",
      sessionDate,
      timeIn: tIn,
      timeOut: tOut,
      start1At: start,
      end1At: end,
      startAt: start,
      endAt: end,
      minutes,
      units: Math.round(minutes / 15),
      signedAt: `${sessionDate}T20:00:00Z`,
      providerName: "Jane Doe",
      formToken: `scrub-${++token}`,
      // The modifier of the provider type, which the world's prices carry (a price for a modifier the note lacks is a reason).
      md: (over.type ?? "rbt") === "rbt" ? "HM" : "HO",
      ...rest,
  };
}

async function note(patient: { id: number; locationId: number }, sessionDate: string, over: NoteOver = {}) {
  const [row] = await db().insert(notes).values(noteValues(patient, sessionDate, over)).returning();
  return row!;
}

/** A clinic with an insurer (POS lists, 97153 for RBTs at 16 units a day), an RBT with valid dates, a client with a PA. */
async function world() {
  const loc = await createLocation({ title: "Scrub Clinic" });
  const elsewhere = await createLocation({ title: "Elsewhere" });
  const [acme] = await db().insert(insurances).values({ name: "Acme", payerId: "ACME1", posAllowedToTt: "12,03", extraPosForBcba: "11", posAllowedToCg: "11,12" }).returning();
  await db().insert(insuranceServices).values([
    { insuranceId: acme!.id, cptCode: "97153", provider: "rbt", type: "rbt", modifiers: "HM", unitPrice: 12.5, maxPerDay: 16 },
    { insuranceId: acme!.id, cptCode: "97155", provider: "bcba", type: "bcba", modifiers: "HO", unitPrice: 20, maxPerDay: 8 },
  ]);
  const rbt = await createUser({ role: "RBT", locations: [loc.id, elsewhere.id], name: "Jane" });
  await db().update(userLocations).set({ compliance: JSON.stringify({ bacb_license_expiration: "2027-01-01", cpr_every_2_years: "2027-06-01" }) }).where(eq(userLocations.userId, rbt.id));
  const lapsed = await createUser({ role: "RBT", locations: [loc.id], name: "Lapsed" });
  await db().update(userLocations).set({ compliance: JSON.stringify({ bacb_license_expiration: "2026-10-04" }) }).where(eq(userLocations.userId, lapsed.id));
  const client = await createPatient({ locationId: loc.id, firstName: "Mia", lastName: "Lopez", insurerId: acme!.id, details: JSON.stringify({ diagnosis_code: "F84.0", pos_covered: ["12", "03", "11"] }) });
  const [pa] = await db().insert(paServices).values({ patientId: client.id, paService: "ABA 97153", cpt: "97153", nUnits: 240, startDate: "2026-09-01", endDate: "2026-12-31", insuranceId: acme!.id }).returning();
  const manager = await createUser({ permissions: MANAGER, locations: [loc.id] });
  const outsider = await createUser({ permissions: MANAGER, locations: [elsewhere.id] });
  return { loc, elsewhere, acme: acme!, rbt, lapsed, client, pa: pa!, manager, outsider };
}

type World = Awaited<ReturnType<typeof world>>;
const codesOf = (m: Map<number, { code: string }[]>, id: number) => m.get(id)?.map((r) => r.code);

describe("scrubNotes: every rule through real rows", () => {
  it("finds each reason, in one round trip", async () => {
    const w: World = await world();
    const base = (date: string, over: NoteOver = {}) => note(w.client, date, { providerId: w.rbt.id, paServiceId: w.pa.id, ...over });
    const clean = await base("2026-10-05");
    const unsigned = await base("2026-10-06", { signedAt: null });
    const noDiagnosisOrPos = await note(await createPatient({ locationId: w.loc.id, insurerId: w.acme.id }), "2026-10-06", { providerId: w.rbt.id, diagnosisCode: "", pos: "", time: ["13:00", "14:00"] });
    const office = await base("2026-10-07", { pos: "11" });
    const lapsed = await base("2026-10-08", { providerId: w.lapsed.id });
    const [expiredPa] = await db().insert(paServices).values({ patientId: w.client.id, paService: "Old PA", cpt: "97153", nUnits: 100, startDate: "2026-01-01", endDate: "2026-09-30", insuranceId: w.acme.id }).returning();
    const paExpired = await base("2026-10-09", { paServiceId: expiredPa!.id });
    const paOtherCpt = await base("2026-10-10", { paServiceId: expiredPa!.id, sessionDate: "2026-09-10", cptCode: "97155", type: "bcba", time: ["09:00", "10:00"] });
    const [small] = await db().insert(paServices).values({ patientId: w.client.id, paService: "Small PA", cpt: "97153", nUnits: 10, startDate: "2026-10-01", endDate: "2026-10-31", insuranceId: w.acme.id }).returning();
    const withinSmall = await base("2026-10-12", { paServiceId: small!.id }); // 8 of 10
    const beyondSmall = await base("2026-10-13", { paServiceId: small!.id }); // 2 left for 8
    const noPa = await base("2026-10-14", { paServiceId: null });
    const overlapA = await base("2026-10-15");
    const overlapB = await base("2026-10-15", { time: ["10:30", "11:30"], providerId: w.lapsed.id, signedAt: "2026-10-15T20:00:00Z" });
    const other = await createPatient({ locationId: w.loc.id, insurerId: w.acme.id, details: JSON.stringify({ diagnosis_code: "F84.0" }) });
    const providerBusy = await base("2026-10-16");
    const providerOther = await note(other, "2026-10-16", { providerId: w.rbt.id, time: ["10:00", "12:00"] });
    const dayA = await base("2026-10-19", { time: ["08:00", "10:00"] });
    const dayB = await base("2026-10-19", { time: ["13:00", "15:15"] }); // 8 + 9 = 17 > 16
    const noPrice = await base("2026-10-20", { cptCode: "97151", type: "bcba", providerId: null });
    const deleted = await base("2026-10-21", { deletedAt: "2026-10-21T00:00:00Z" });
    const away = await note(await createPatient({ locationId: w.elsewhere.id, insurerId: w.acme.id }), "2026-10-22", { providerId: w.rbt.id });

    const counting = countingDb();
    const ctx = await ctxOf(w.manager.id, counting.db);
    const ids = [clean, unsigned, noDiagnosisOrPos, office, lapsed, paExpired, paOtherCpt, withinSmall, beyondSmall, noPa, overlapA, overlapB, providerBusy, providerOther, dayA, dayB, noPrice, deleted, away].map((n) => n.id);
    const m = await scrubNotes(ctx, ids);
    expect(counting.roundTrips()).toBe(1);

    expect(codesOf(m, clean.id)).toEqual([]);
    expect(codesOf(m, unsigned.id)).toEqual(["unsigned"]);
    expect(m.get(unsigned.id)![0]!.message).toBe("Note is not signed by the provider.");
    expect(codesOf(m, noDiagnosisOrPos.id)).toEqual(["missing_diagnosis", "missing_pos", "no_pa"]);
    expect(m.get(office.id)).toEqual([{ code: "pos_not_allowed", message: "POS 11 (Office) is not allowed by Acme for RBT services (allowed: 12, 03)." }]);
    expect(m.get(lapsed.id)).toEqual([{ code: "credential_expired", message: "BACB license (RBT) of Lapsed User expired on 2026-10-04, before the session date 2026-10-08." }]);
    expect(m.get(paExpired.id)).toEqual([{ code: "pa_out_of_dates", message: "PA 'Old PA' expired on 2026-09-30, before the session date 2026-10-09." }]);
    expect(codesOf(m, paOtherCpt.id)).toContain("pa_other_cpt");
    expect(codesOf(m, withinSmall.id)).toEqual([]);
    expect(m.get(beyondSmall.id)).toEqual([{ code: "pa_exhausted", message: "PA 'Small PA' ran out: 2 of 10 units left, and this session needs 8." }]);
    expect(codesOf(m, noPa.id)).toEqual(["no_pa"]);
    expect(m.get(overlapA.id)).toEqual([{ code: "client_overlap", message: `Session overlaps the client's note #${overlapB.id} on 2026-10-15.` }]);
    expect(codesOf(m, overlapB.id)).toEqual(["credential_expired", "client_overlap"]);
    expect(m.get(providerBusy.id)).toEqual([{ code: "provider_overlap", message: `Session overlaps note #${providerOther.id} of the same provider, Jane User.` }]);
    expect(codesOf(m, providerOther.id)).toEqual(["no_pa", "provider_overlap"]);
    expect(m.get(dayB.id)).toEqual([{ code: "above_max_per_day", message: "17 units of CPT 97153 on 2026-10-19 for this client, above Acme's maximum of 16 a day." }]);
    expect(codesOf(m, dayA.id)).toEqual(["above_max_per_day"]);
    expect(codesOf(m, noPrice.id)).toEqual(["no_provider", "pa_other_cpt", "no_price"]);
    expect(m.get(noPrice.id)!.at(-1)!.message).toBe("Acme has no price for CPT 97151 for BCBA providers.");
    // Deleted notes and notes of another location are absent: callers answer 404.
    expect(m.has(deleted.id)).toBe(false);
    expect(m.has(away.id)).toBe(false);
    expect(m.size).toBe(ids.length - 2);

    // The other location's manager sees only its own note.
    const outside = await scrubNotes(await ctxOf(w.outsider.id), ids);
    expect([...outside.keys()]).toEqual([away.id]);
  });

  it("finds a provider's overlapping session by its moments: second pairs, touching ends, other time zones", async () => {
    const w = await world();
    const clientOf = () => createPatient({ locationId: w.loc.id, insurerId: w.acme.id, details: JSON.stringify({ diagnosis_code: "F84.0" }) });
    const farClient = await createPatient({ locationId: w.elsewhere.id, insurerId: w.acme.id, details: JSON.stringify({ diagnosis_code: "F84.0" }) });
    const pairs = (date: string, a: [string, string], b?: [string, string]): NoteOver => {
      const [s1, e1] = [localMinute(date, a[0])!, localMinute(date, a[1])!];
      const second = b ? { timeIn2: b[0], timeOut2: b[1], start2At: localMinute(date, b[0])!, end2At: localMinute(date, b[1])! } : {};
      return { time: a, ...second, startAt: s1, endAt: b ? localMinute(date, b[1])! : e1 };
    };
    // [what, the note's date, its pairs and UTC offset, the provider's other note (its date, here or at the other location), overlap?]
    const cases: [string, string, NoteOver, NoteOver & { far?: boolean; date?: string }, boolean][] = [
      ["a second pair over the other's first", "2026-10-05", pairs("2026-10-05", ["08:00", "09:00"], ["13:00", "14:00"]), pairs("2026-10-05", ["13:30", "15:00"]), true],
      ["touching ends", "2026-10-06", pairs("2026-10-06", ["09:00", "11:00"]), pairs("2026-10-06", ["11:00", "12:00"]), false],
      ["the same moment on two clocks", "2026-10-07", { ...pairs("2026-10-07", ["11:30", "12:30"]), utcOffset: -240 }, { ...pairs("2026-10-07", ["09:00", "10:00"]), utcOffset: -360, far: true }, true],
      ["the same clock at two moments", "2026-10-08", { ...pairs("2026-10-08", ["09:00", "10:00"]), utcOffset: -240 }, { ...pairs("2026-10-08", ["09:00", "10:00"]), utcOffset: -360, far: true }, false],
      ["a day apart", "2026-10-09", pairs("2026-10-09", ["09:00", "10:00"]), { ...pairs("2026-10-10", ["09:00", "10:00"]), date: "2026-10-10" }, false],
    ];
    const made: { what: string; id: number; otherId: number; overlap: boolean; far: boolean }[] = [];
    for (const [what, date, mine, theirs, overlap] of cases) {
      const { far = false, date: otherDate = date, ...other } = theirs;
      const n = await note(await clientOf(), date, { providerId: w.rbt.id, paServiceId: null, ...mine });
      const o = await note(far ? farClient : await clientOf(), otherDate, { providerId: w.rbt.id, ...other });
      made.push({ what, id: n.id, otherId: o.id, overlap, far });
    }
    const m = await scrubNotes(await ctxOf(w.manager.id), made.map((x) => x.id));
    for (const x of made) {
      const found = m.get(x.id)?.find((r) => r.code === "provider_overlap");
      const expected = x.far ? "Session overlaps a note of the same provider, Jane User, at another location." : `Session overlaps note #${x.otherId} of the same provider, Jane User.`;
      expect({ what: x.what, message: found?.message ?? null }).toEqual({ what: x.what, message: x.overlap ? expected : null });
    }
  });

  it("scrubs a page of 300 notes in one round trip, and more than 1,000 ids in one batch per 1,000", async () => {
    const w = await world();
    const d = db();
    const inserts = Array.from({ length: 300 }, (_, i) => {
      const day = `2026-10-${String(1 + (i % 28)).padStart(2, "0")}`;
      const h = String(6 + Math.floor(i / 28)).padStart(2, "0");
      return d.insert(notes).values(noteValues(w.client, day, { providerId: w.rbt.id, paServiceId: w.pa.id, time: [`${h}:00`, `${h}:30`] })).returning({ id: notes.id });
    });
    const ids = ((await d.batch(inserts as unknown as Parameters<typeof d.batch>[0])) as unknown as { id: number }[][]).map(([r]) => r!.id);
    const counting = countingDb();
    const m = await scrubNotes(await ctxOf(w.manager.id, counting.db), ids);
    expect(counting.roundTrips()).toBe(1);
    expect(m.size).toBe(300);
    // 240 units authorized, 2 units a note: the notes past the 120th (in session order) ran out.
    const exhausted = [...m.values()].filter((r) => r.some((x) => x.code === "pa_exhausted")).length;
    expect(exhausted).toBe(180);
    // More than 1,000 ids: one more round trip per 1,000, the same answers (unknown ids are absent).
    const many = countingDb();
    const unknown = Array.from({ length: 750 }, (_, i) => 10_000_000 + i);
    const again = await scrubNotes(await ctxOf(w.manager.id, many.db), [...unknown, ...ids]);
    expect(many.roundTrips()).toBe(2);
    expect(again).toEqual(m);
  });
});

describe("a note with no units (probe 8912)", () => {
  it("a 7-minute note cannot be marked billed or claimed (422 with the reason); an 8-minute one can", async () => {
    const w = await world();
    const token = await apiToken(w.manager);
    const short = (date: string, tOut: string) => note(w.client, date, { providerId: w.rbt.id, paServiceId: w.pa.id, time: ["09:00", tOut], units: unitsForMinutes(localMinute(date, tOut)! - localMinute(date, "09:00")!) });
    const seven = await short("2026-10-05", "09:07");
    const eight = await short("2026-10-06", "09:08");
    expect([seven.units, eight.units]).toEqual([0, 1]);
    const reason = "No units to bill: the session is 7 minutes long, shorter than the 8 minutes a unit needs.";

    // The scrubber and the billing row's claim check name it.
    const one = (await (await api(`/v2/billing/scrubber/notes/${seven.id}`, { token })).json()) as { data: { reasons: { code: string; message: string }[] } };
    expect(one.data.reasons).toEqual([{ code: "no_units", message: reason }]);
    const rows = (await (await api(`/client_report/byprofile/${w.client.id}?date_start=2026-10-05&date_end=2026-10-06`, { token })).json()) as { noteRbts: { id: number; reasons: string[] }[] };
    expect(rows.noteRbts.map((r) => [r.id, r.reasons])).toEqual([
      [seven.id, [reason]],
      [eight.id, []],
    ]);

    // Marking it billed: 422 with the reason, nothing written.
    const refused = await api("/client_report/store", { method: "POST", token, body: { note_rbt_id: seven.id, billed: true } });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: Record<string, string> }).errors.billed).toBe(`This note cannot be billed: ${reason}`);
    expect((await db().select({ billed: notes.billed }).from(notes).where(eq(notes.id, seven.id)))[0]!.billed).toBe(false);
    const billed = await api("/client_report/store", { method: "POST", token, body: { note_rbt_id: eight.id, billed: true } });
    expect(billed.status, await billed.clone().text()).toBe(201);
    expect((await db().select({ billed: notes.billed }).from(notes).where(eq(notes.id, eight.id)))[0]!.billed).toBe(true);

    // Billed before the rule (or amended since): the claim builder refuses it with the same reason, not a price.
    await db().update(notes).set({ billed: true }).where(eq(notes.id, seven.id));
    const claim = await api("/v2/claims", { method: "POST", token, body: { note_ids: [seven.id] } });
    expect(claim.status).toBe(422);
    const claimBody = (await claim.json()) as { errors: Record<string, string> };
    expect(claimBody.errors[`notes.${seven.id}`]).toBe(`Note ${seven.id}: Cannot bill this note: ${reason}`);
    expect(JSON.stringify(claimBody)).not.toMatch(/Set a price/);
    const built = await api("/v2/claims", { method: "POST", token, body: { note_ids: [eight.id] } });
    expect(built.status, await built.clone().text()).toBe(201);
    const lines = ((await built.json()) as { data: { errors: { message: string }[] }[] }).data[0]!.errors.map((e) => e.message).join("\n");
    expect(lines).not.toMatch(/no units|Set a price/);
  });
});

describe("the claim's parties: what the 837P would refuse is a reason (probe 8933 §2)", () => {
  it("a 5-digit location ZIP, an RBT without an NPI and a self-subscriber without an address are listed by the API and the screens, billing is refused; fixed, the notes are Ready and billed", async () => {
    // A new clinic's normal setup: the location form takes a 5-digit ZIP, the employee form no NPI, the client form no address.
    const loc = await createLocation({ title: "Chicago North", timeZone: "America/Chicago", zip: "60602" });
    const [prairie] = await db().insert(insurances).values({ name: "Prairie Health", payerId: "PRH01" }).returning();
    await db().insert(insuranceServices).values({ insuranceId: prairie!.id, locationId: loc.id, cptCode: "97153", provider: "rbt", type: "rbt", modifiers: "HM", unitPrice: 15 });
    const ryan = await createUser({ role: "RBT", locations: [loc.id], name: "Ryan" });
    await db().update(users).set({ surname: "Ortiz", profile: "{}" }).where(eq(users.id, ryan.id));
    const rosa = await createUser({ role: "RBT", locations: [loc.id], name: "Rosa" });
    const ethan = await createPatient({ locationId: loc.id, firstName: "Ethan", lastName: "Nguyen", insurerId: prairie!.id, details: JSON.stringify({ diagnosis_code: "F84.0", is_self_subscriber: false, parent_name: "Laura Nguyen", parent_birth_date: "1988-03-04" }) });
    const leo = await createPatient({ locationId: loc.id, firstName: "Leo", lastName: "Park", birthDate: "2004-05-06", insurerId: prairie!.id, details: JSON.stringify({ diagnosis_code: "F84.0", address: "", city: "", state: "" }) });
    const pa = async (patientId: number) => (await db().insert(paServices).values({ patientId, paService: `PA ${patientId}`, cpt: "97153", nUnits: 240, startDate: "2026-10-01", endDate: "2026-12-31", insuranceId: prairie!.id }).returning())[0]!.id;
    const byRyan = await note(ethan, "2026-10-05", { providerId: ryan.id, paServiceId: await pa(ethan.id) });
    const byRosa = await note(leo, "2026-10-06", { providerId: rosa.id, paServiceId: await pa(leo.id) });
    const manager = await createUser({ permissions: MANAGER, locations: [loc.id] });
    const token = await apiToken(manager);
    const cookie = await signInCookie(manager);

    const zip = "The ZIP code of the location Chicago North is 60602: a claim's billing provider needs the 9-digit ZIP+4 (for example 60602-1234). Enter the ZIP+4 on the location's page.";
    const npi = "Ryan Ortiz has no NPI. Add the rendering provider's NPI on the employee's profile.";
    const address = ["Subscriber address is missing. Add it on the client's profile.", "Subscriber city is missing. Add it on the client's profile.", "Subscriber state must be a 2-letter code (for example FL). Set it on the client's profile."];
    const expected = new Map([
      [byRyan.id, [{ code: "location_zip", message: zip }, { code: "provider_npi", message: npi }]],
      [byRosa.id, [{ code: "location_zip", message: zip }, ...address.map((message) => ({ code: "subscriber_details", message }))]],
    ]);
    const period = `location_id=${loc.id}&date_from=2026-10-01&date_to=2026-10-31`;
    const report = async () => ((await (await api(`/v2/billing/scrubber?${period}`, { token })).json()) as { data: { total: number; scrubbed: number; data: { id: number; reasons: { code: string; message: string }[] }[] } }).data;
    const text = async (path: string) => (await (await request(path, { cookie })).text()).replaceAll("&#x27;", "'");
    const billedOf = async (id: number) => (await db().select({ billed: notes.billed }).from(notes).where(eq(notes.id, id)))[0]!.billed;

    // The scrubber's API and screen list both notes with every reason; the billing rows' claim check names them.
    const listed = await report();
    expect(listed).toMatchObject({ total: 2, scrubbed: 2 });
    expect(new Map(listed.data.map((n) => [n.id, n.reasons]))).toEqual(expected);
    expect(((await (await api(`/v2/billing/scrubber/notes/${byRyan.id}`, { token })).json()) as { data: { reasons: unknown[] } }).data.reasons).toEqual(expected.get(byRyan.id));
    const screen = await text(`/billing/scrubber?${period}`);
    for (const message of [zip, npi, ...address]) expect(screen).toContain(message);
    expect(screen).toContain("2 of 2 notes need attention");
    // A page past the last: which page is last, and not the empty list's "Every note … can be billed." (probe 8984 §L1).
    const past = await text(`/billing/scrubber?${period}&page=9`);
    expect(past).toContain("There is no page 9: the last page is 1.");
    expect(past).not.toContain("Every note of this period can be billed.");
    const rows = await text(`/billing/by-client/${leo.id}?from=2026-10-01&to=2026-10-31`);
    for (const message of [zip, ...address]) expect(rows).toContain(message);
    expect(rows).not.toMatch(/>Ready</);

    // Marking them billed: 422 with the reasons, nothing written.
    for (const [id, reasons] of expected) {
      const refused = await api("/client_report/store", { method: "POST", token, body: { note_rbt_id: id, billed: true } });
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as { errors: Record<string, string> }).errors.billed).toBe(`This note cannot be billed: ${reasons.map((r) => r.message).join(" ")}`);
      expect(await billedOf(id)).toBe(false);
    }

    // Fixed where the reasons say: the ZIP+4 on the location, Ryan's NPI, Leo's address.
    await db().update(locations).set({ zip: "60602-1234" }).where(eq(locations.id, loc.id));
    await db().update(users).set({ profile: JSON.stringify({ npi: "1234567893" }) }).where(eq(users.id, ryan.id));
    await db().update(patients).set({ details: JSON.stringify({ ...JSON.parse(leo.details), address: "5 Elm St", city: "Chicago", state: "IL" }) }).where(eq(patients.id, leo.id));
    expect(await report()).toMatchObject({ total: 0, scrubbed: 2, data: [] });
    expect(await text(`/billing/by-client/${leo.id}?from=2026-10-01&to=2026-10-31`)).toMatch(/>Ready</);
    for (const id of expected.keys()) {
      const billed = await api("/client_report/store", { method: "POST", token, body: { note_rbt_id: id, billed: true } });
      expect(billed.status, await billed.clone().text()).toBe(201);
      expect(await billedOf(id)).toBe(true);
    }
  });
});

describe("the note's own claim line and the price it came from (decision 034, stop 31)", () => {
  it("a price for a modifier the note lacks, a POS the 837P refuses and a PA service name too long for REF*G1 are listed by the API, the report and the billing rows; billing is refused; fixed in the same save, the notes are billed", async () => {
    const w = await world();
    const token = await apiToken(w.manager);
    const cookie = await signInCookie(w.manager);
    const [longPa] = await db().insert(paServices).values({ patientId: w.client.id, paService: `ABA treatment plan ${"x".repeat(40)}`, cpt: "97153", nUnits: 240, startDate: "2026-09-01", endDate: "2026-12-31", insuranceId: w.acme.id }).returning();
    const base = (date: string, over: NoteOver = {}) => note(w.client, date, { providerId: w.rbt.id, paServiceId: w.pa.id, ...over });
    const lacksHm = await base("2026-10-05", { md: null });
    const home = await base("2026-10-06", { pos: "Home" });
    const longName = await base("2026-10-07", { paServiceId: longPa!.id });
    const clean = await base("2026-10-08");

    const otherModifier = "Acme's price for this note is its service 97153 HM ($12.50), a price for modifier HM, which this note lacks: Acme has no price for CPT 97153 without modifiers for RBT providers. Add HM to the note's modifiers on its billing row, or add a price for CPT 97153 without modifiers for RBT providers on Acme's services.";
    const pos = "The claim line of this note (97153 on 2026-10-06): the place of service Home must be a 2-digit code (for example 12, Home). Choose a place of service on the note.";
    const paName = `The claim line of this note (97153 on 2026-10-07): the prior authorization number (the name of PA service '${longPa!.paService}', sent when the billing record has no PA number: edit it on the client's PA services) is longer than the 50 characters a claim can carry. Shorten it and build again.`;
    const expected = new Map([
      [lacksHm.id, [{ code: "price_for_other_modifier", message: otherModifier }]],
      [home.id, [{ code: "pos_not_allowed", message: "POS Home is not allowed by Acme for RBT services (allowed: 12, 03)." }, { code: "pos_not_covered", message: "POS Home is not covered for this client (covered: 12, 03, 11)." }, { code: "invalid_pos", message: pos }]],
      [longName.id, [{ code: "invalid_pa_number", message: paName }]],
    ]);
    const period = `location_id=${w.loc.id}&date_from=2026-10-01&date_to=2026-10-31`;
    const text = async (path: string) => (await (await request(path, { cookie })).text()).replaceAll("&#x27;", "'");
    const billedOf = async (id: number) => (await db().select({ billed: notes.billed }).from(notes).where(eq(notes.id, id)))[0]!.billed;

    // The scrubber's API (one note and the report), its screen and the billing rows' claim check.
    for (const [id, reasons] of expected) expect(((await (await api(`/v2/billing/scrubber/notes/${id}`, { token })).json()) as { data: { reasons: unknown[] } }).data.reasons).toEqual(reasons);
    const report = (await (await api(`/v2/billing/scrubber?${period}`, { token })).json()) as { data: { total: number; scrubbed: number; data: { id: number; reasons: unknown[] }[] } };
    expect(report.data).toMatchObject({ total: 3, scrubbed: 4 });
    expect(new Map(report.data.data.map((n) => [n.id, n.reasons]))).toEqual(expected);
    const screen = await text(`/billing/scrubber?${period}`);
    for (const message of [otherModifier, pos, paName]) expect(screen).toContain(message);
    const rows = (await (await api(`/client_report/byprofile/${w.client.id}?date_start=2026-10-05&date_end=2026-10-08`, { token })).json()) as { noteRbts: { id: number; reasons: string[] }[] };
    expect(rows.noteRbts.map((r) => [r.id, r.reasons])).toEqual([...[...expected].map(([id, reasons]) => [id, reasons.map((r) => r.message)]), [clean.id, []]]);
    const rowScreen = await text(`/billing/by-client/${w.client.id}?from=2026-10-05&to=2026-10-08`);
    for (const message of [otherModifier, pos, paName]) expect(rowScreen).toContain(message);

    // Marking them billed: 422 with the reasons, nothing written.
    for (const [id, reasons] of expected) {
      const refused = await api("/client_report/store", { method: "POST", token, body: { note_rbt_id: id, billed: true } });
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as { errors: Record<string, string> }).errors.billed).toBe(`This note cannot be billed: ${reasons.map((r) => r.message).join(" ")}`);
      expect(await billedOf(id)).toBe(false);
    }
    // A PA number the claim cannot carry, saved with Billed: refused at the field itself, by the claim's rule (stop 31).
    const starred = await api("/client_report/store", { method: "POST", token, body: { note_rbt_id: longName.id, pa_number: "AUTH*1", billed: true } });
    expect(starred.status).toBe(422);
    expect(((await starred.json()) as { errors: Record<string, string> }).errors).toEqual({ pa_number: "The PA number contains '*', which a claim cannot carry (* ~ : ^ separate the file's parts). Edit it and save again." });
    expect(await db().select().from(clientReports).where(eq(clientReports.noteId, longName.id))).toEqual([]);

    // Fixed in the same save: HM added to the note; the payer's authorization number saved on the record (sent instead of the name).
    const withHm = await api("/client_report/store", { method: "POST", token, body: { note_rbt_id: lacksHm.id, md: "HM", billed: true } });
    expect(withHm.status, await withHm.clone().text()).toBe(201);
    const withAuth = await api("/client_report/store", { method: "POST", token, body: { note_rbt_id: longName.id, pa_number: "AUTH-1", billed: true } });
    expect(withAuth.status, await withAuth.clone().text()).toBe(201);
    expect([await billedOf(lacksHm.id), await billedOf(longName.id)]).toEqual([true, true]);

    // A billed note's PA number: one the claim cannot carry is refused at the field; another saves, whatever other reason arose.
    await db().update(userLocations).set({ compliance: JSON.stringify({ bacb_license_expiration: "2026-10-01" }) }).where(eq(userLocations.userId, w.rbt.id));
    const update = async (pa_number: string) => {
      const [n] = await db().select({ version: notes.version }).from(notes).where(eq(notes.id, longName.id));
      const [cr] = await db().select({ id: clientReports.id, version: clientReports.version }).from(clientReports).where(eq(clientReports.noteId, longName.id));
      return api(`/client_report/update/${cr!.id}`, { method: "POST", token, body: { note_id: longName.id, pa_number, note_version: n!.version, version: cr!.version } });
    };
    const tilde = await update("AUTH~2");
    expect(tilde.status).toBe(422);
    expect(((await tilde.json()) as { errors: Record<string, string> }).errors.pa_number).toBe("The PA number contains '~', which a claim cannot carry (* ~ : ^ separate the file's parts). Edit it and save again.");
    // Cleared, the claim line would carry the PA service's name again, which is too long: refused for the billed note.
    const cleared = await update("");
    expect(cleared.status).toBe(422);
    expect(((await cleared.json()) as { errors: Record<string, string> }).errors.pa_number).toBe(`This note is billed, and its claim could not carry this PA number: ${paName} Keep its PA number, or untick Billed in the same save.`);
    expect((await db().select({ paNumber: clientReports.paNumber }).from(clientReports).where(eq(clientReports.noteId, longName.id)))[0]!.paNumber).toBe("AUTH-1");
    const fine = await update("AUTH-2");
    expect(fine.status, await fine.clone().text()).toBe(200);
    expect((await db().select({ paNumber: clientReports.paNumber }).from(clientReports).where(eq(clientReports.noteId, longName.id)))[0]!.paNumber).toBe("AUTH-2");
  });
});

describe("the billing save scrubs the note with the modifiers it saves (probe 8914)", () => {
  // Acme's 97153 for RBTs at a multiplier of 0: without XP the charge is $0 (zero_charge), with XP it is $0 by design.
  async function zeroWorld() {
    const w = await world();
    await db().update(insuranceServices).set({ multiplier: 0 }).where(eq(insuranceServices.insuranceId, w.acme.id));
    const rbtNote = (date: string, md2: string | null) => note(w.client, date, { providerId: w.rbt.id, paServiceId: w.pa.id, md: "HM", md2 });
    return { ...w, rbtNote, token: await apiToken(w.manager), cookie: await signInCookie(w.manager) };
  }
  type Z = Awaited<ReturnType<typeof zeroWorld>>;
  const stored = async (id: number) => (await db().select().from(notes).where(eq(notes.id, id)))[0]!;
  const reportOf = async (id: number) => (await db().select().from(clientReports).where(eq(clientReports.noteId, id)))[0];
  const reasonsOf = async (z: Z, id: number) => ((await (await api(`/v2/billing/scrubber/notes/${id}`, { token: z.token })).json()) as { data: { reasons: { code: string }[] } }).data.reasons.map((r) => r.code);

  /** One save of md HM, md2 and billed, as the API (store, or update/{id} once a record exists) or the screen's row form sends it; and its success status. */
  const channels: [string, number[], (z: Z, id: number, md2: string | null, billed: boolean) => Promise<Response>][] = [
    [
      "API",
      [200, 201],
      async (z, id, md2, billed) => {
        const n = await stored(id);
        const cr = await reportOf(id);
        const body = { note_id: id, md: "HM", md2, billed, note_version: n.version, ...(cr ? { version: cr.version } : {}) };
        return api(cr ? `/client_report/update/${cr.id}` : "/client_report/store", { method: "POST", token: z.token, body });
      },
    ],
    [
      "screen (JavaScript off)",
      [303],
      async (z, id, md2, billed) => {
        const n = await stored(id);
        const cr = await reportOf(id);
        const fields = { intent: "save", note_id: String(id), note_version: String(n.version), version: cr ? String(cr.version) : "", md: "HM", md2: md2 ?? "" };
        return form(`/billing/by-client/${z.client.id}`, billed ? { ...fields, billed: "true" } : fields, z.cookie);
      },
    ],
  ];

  it.each(channels)("%s: removing XP and ticking Billed in one save is refused with zero_charge; adding XP and ticking Billed bills the note", async (_name, ok, save) => {
    const z = await zeroWorld();

    // A. XP saved first (a billing record, so the API's second save is update/{id}): no reason.
    const withXp = await z.rbtNote("2026-10-05", "XP");
    expect(ok).toContain((await save(z, withXp.id, "XP", false)).status);
    expect(await reasonsOf(z, withXp.id)).toEqual([]);
    const refused = await save(z, withXp.id, null, true);
    expect(refused.status).toBe(422);
    const refusedText = await refused.text();
    expect(refusedText).toContain("This note cannot be billed: The charge is $0");
    if (_name.startsWith("screen")) {
      // Without JavaScript the refused Billed box takes focus and names the row's message (probe 8943 D4).
      const box = new RegExp(`<input[^>]*name="billed"[^>]*form="row-${withXp.id}"[^>]*>`).exec(refusedText)?.[0] ?? "";
      expect(box).toContain(`aria-errormessage="row-${withXp.id}-error"`);
      expect(box).toContain('aria-invalid="true"');
      expect(box).toMatch(/autofocus/i);
      expect(refusedText).toContain(`<p id="row-${withXp.id}-error" class="field-error" role="alert">This note cannot be billed`);
    }
    expect(await stored(withXp.id)).toMatchObject({ billed: false, md: "HM", md2: "XP" });
    expect(await reportOf(withXp.id)).toMatchObject({ billed: false, md2: "XP" });
    expect(await reasonsOf(z, withXp.id)).toEqual([]);

    // B. No XP stored (zero_charge now): one save adds XP and ticks Billed.
    const plain = await z.rbtNote("2026-10-06", null);
    expect(await reasonsOf(z, plain.id)).toEqual(["zero_charge"]);
    expect(ok).toContain((await save(z, plain.id, "XP", true)).status);
    expect(await stored(plain.id)).toMatchObject({ billed: true, md: "HM", md2: "XP" });
    // The billed flag and the scrubber agree: a billed note has no reason.
    expect(await reasonsOf(z, plain.id)).toEqual([]);
  });
});

describe("a note that stays billed is scrubbed again when a save changes what the rules read (decision 034, stop 30)", () => {
  // Acme's 97153 at a multiplier of 0: HM+XP is $0 by design (no reason); without XP the charge is $0 (zero_charge).
  async function billedWorld() {
    const w = await world();
    await db().update(insuranceServices).set({ multiplier: 0 }).where(eq(insuranceServices.insuranceId, w.acme.id));
    const notesManager = await createUser({ permissions: [...MANAGER, "manage_notes", "ignore_time_limits"], locations: [w.loc.id] });
    const z = { ...w, token: await apiToken(notesManager), cookie: await signInCookie(notesManager) };
    const billed = await note(w.client, "2026-10-05", { providerId: w.rbt.id, paServiceId: w.pa.id, md: "HM", md2: "XP" });
    const saved = await api("/client_report/store", { method: "POST", token: z.token, body: { note_rbt_id: billed.id, billed: true, note_version: billed.version } });
    expect(saved.status, await saved.clone().text()).toBe(201);
    return { ...z, id: billed.id };
  }
  type B = Awaited<ReturnType<typeof billedWorld>>;
  const stored = async (id: number) => (await db().select({ md: notes.md, md2: notes.md2, billed: notes.billed, paid: notes.paid, version: notes.version }).from(notes).where(eq(notes.id, id)))[0]!;
  const record = async (id: number) => (await db().select({ md: clientReports.md, md2: clientReports.md2, billed: clientReports.billed, pay: clientReports.pay, paNumber: clientReports.paNumber, version: clientReports.version }).from(clientReports).where(eq(clientReports.noteId, id)))[0]!;
  /** The billing save through the API's update/{id}, with the versions read. */
  const billingApi = async (b: B, body: Record<string, unknown>) => {
    const [n, cr] = [await stored(b.id), await record(b.id)];
    const id = (await db().select({ id: clientReports.id }).from(clientReports).where(eq(clientReports.noteId, b.id)))[0]!.id;
    return api(`/client_report/update/${id}`, { method: "POST", token: b.token, body: { note_id: b.id, note_version: n.version, version: cr.version, ...body } });
  };
  /** The billing screen's row Save (JavaScript off): every field of the row, as the form sends it. */
  const billingScreen = async (b: B, row: { md: string; md2: string; billed: boolean; pay?: boolean }) => {
    const [n, cr] = [await stored(b.id), await record(b.id)];
    const fields: Record<string, string> = { intent: "save", note_id: String(b.id), note_version: String(n.version), version: String(cr.version), md: row.md, md2: row.md2 };
    return form(`/billing/by-client/${b.client.id}`, { ...fields, ...(row.billed ? { billed: "true" } : {}), ...(row.pay ? { pay: "true" } : {}) }, b.cookie);
  };
  const zeroCharge = "The charge is $0";
  const notBilledHere = NOTE_MESSAGES.billed;

  // writer, the change → status, the field refused and a part of its message (none: saved)
  const refusals: [string, (b: B) => Promise<Response>, string, string][] = [
    ["billing API: XP removed, Billed kept", (b) => billingApi(b, { md: "HM", md2: null, billed: true }), "md2", zeroCharge],
    ["billing API: XP removed, Billed left out of the body", (b) => billingApi(b, { md2: null }), "md2", zeroCharge],
    ["billing API: both modifiers cleared (the first changed field)", (b) => billingApi(b, { md: null, md2: null }), "md", zeroCharge],
    ["notes' modifier call (PUT …/update/modifier)", (b) => api(`/note_rbt/update/modifier/${b.id}`, { method: "PUT", token: b.token, body: { md2: null } }), "md2", notBilledHere],
    ["note PATCH naming md", (b) => api(`/v2/notes-rbt/${b.id}`, { method: "PATCH", token: b.token, body: { md: "GT", amendment_reason: "Wrong modifier" } }), "md", notBilledHere],
  ];
  it.each(refusals)("%s: 422 at the field, nothing written", async (_name, change, field, message) => {
    const b = await billedWorld();
    const [note0, record0, audits] = [await stored(b.id), await record(b.id), await auditCount()];
    const res = await change(b);
    expect(res.status, await res.clone().text()).toBe(422);
    const errors = ((await res.json()) as { errors: Record<string, string> }).errors;
    expect(Object.keys(errors)).toEqual([field]);
    expect(errors[field]).toContain(message);
    expect(await stored(b.id)).toEqual(note0);
    expect(await record(b.id)).toEqual(record0);
    expect(await auditCount()).toBe(audits);
  });

  it("the billing screen's row Save shows the reason and writes nothing", async () => {
    const b = await billedWorld();
    const [note0, record0] = [await stored(b.id), await record(b.id)];
    const res = await billingScreen(b, { md: "HM", md2: "", billed: true });
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("This note is billed, and with these modifiers it could not be: The charge is $0");
    expect(await stored(b.id)).toEqual(note0);
    expect(await record(b.id)).toEqual(record0);
  });

  it("the note view's Change modifiers refuses md/md2 on a billed note; md3 still changes", async () => {
    const b = await billedWorld();
    const note0 = await stored(b.id);
    const res = await form(`/note-rbt/view/${b.id}`, { intent: "modifiers", md: "HM", md2: "", md3: "" }, b.cookie);
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("This note is billed: untick Billed first");
    expect(await stored(b.id)).toEqual(note0);
    expect((await form(`/note-rbt/view/${b.id}`, { intent: "modifiers", md: "HM", md2: "XP", md3: "95" }, b.cookie)).status).toBe(303);
    expect(await stored(b.id)).toMatchObject({ md: "HM", md2: "XP", billed: true });
  });

  // writer, the change, with a reason that arose after billing (the RBT's license ran out before the session) → the note after.
  // A save that keeps the modifiers is not scrubbed, so a later reason does not lock the record's other fields.
  const saves: [string, (b: B) => Promise<Response>, boolean, Record<string, unknown>][] = [
    ["billing API: new modifiers the scrub passes (HM and XP swapped)", (b) => billingApi(b, { md: "XP", md2: "HM", billed: true }), false, { md: "XP", md2: "HM", billed: true }],
    ["billing API: XP removed and Billed unticked in one save", (b) => billingApi(b, { md: "HM", md2: null, billed: false }), true, { md: "HM", md2: null, billed: false }],
    ["billing screen: XP removed and Billed unticked in one save", (b) => billingScreen(b, { md: "HM", md2: "", billed: false }), false, { md: "HM", md2: null, billed: false }],
    ["billing API: pay and a PA number a claim can carry (the note's other reasons do not lock them)", (b) => billingApi(b, { pay: true, pa_number: "PA-77" }), true, { md: "HM", md2: "XP", billed: true, paid: true }],
    ["billing screen: the row as shown with Pay ticked", (b) => billingScreen(b, { md: "HM", md2: "XP", billed: true, pay: true }), true, { md: "HM", md2: "XP", billed: true, paid: true }],
    ["notes' modifier call: md3 only", (b) => api(`/note_rbt/update/modifier/${b.id}`, { method: "PUT", token: b.token, body: { md3: "95" } }), false, { md: "HM", md2: "XP", billed: true }],
  ];
  it.each(saves)("%s: saved", async (_name, change, lapsed, after) => {
    const b = await billedWorld();
    if (lapsed) await db().update(userLocations).set({ compliance: JSON.stringify({ bacb_license_expiration: "2026-10-01" }) }).where(eq(userLocations.userId, b.rbt.id));
    const res = await change(b);
    expect([200, 303], await res.clone().text()).toContain(res.status);
    expect(await stored(b.id)).toMatchObject(after);
  });
});

describe("a billed note keeps what it billed on the notes' own writers; its narrative still changes (decision 034, stop 30)", () => {
  /** A billed RBT note and a billed combined note (factory rows), a second PA service, a manager of notes. */
  async function lockWorld() {
    const w = await world();
    const manager = await createUser({ permissions: [...MANAGER, "manage_notes", "ignore_time_limits"], locations: [w.loc.id] });
    const [pa2] = await db().insert(paServices).values({ patientId: w.client.id, paService: "ABA 97153 (2)", cpt: "97153", nUnits: 240, startDate: "2026-09-01", endDate: "2026-12-31", insuranceId: w.acme.id }).returning();
    const rbt = await note(w.client, "2026-10-05", { providerId: w.rbt.id, paServiceId: w.pa.id, md: "HM", billed: true });
    const combined = await note(w.client, "2026-10-06", { type: "combined", providerId: w.rbt.id, paServiceId: w.pa.id, unitPriceCents: 5000, billed: true });
    return { ...w, token: await apiToken(manager), cookie: await signInCookie(manager), pa2: pa2!, ids: { rbt: rbt.id, combined: combined.id } as Record<"rbt" | "combined", number> };
  }
  type L = Awaited<ReturnType<typeof lockWorld>>;
  const row = async (id: number) => (await db().select().from(notes).where(eq(notes.id, id)))[0]!;
  const patch = (l: L, type: "rbt" | "combined", body: Record<string, unknown>) => api(`/v2/notes-${type}/${l.ids[type]}`, { method: "PATCH", token: l.token, body: { ...body, amendment_reason: "Corrected" } });
  /** The edit screen's amendment (JavaScript off): the stored note as its form sends it, with the changes typed. */
  const screen = async (l: L, type: "rbt" | "combined", changes: Record<string, string>) => {
    const shown = ((await (await api(`/v2/notes-${type}/${l.ids[type]}`, { token: l.token })).json()) as { data: NoteJson }).data;
    const fields = Object.fromEntries(noteBodyToFormFields(noteAsInput(shown) as unknown as Record<string, unknown>));
    return form(`/note-${type}/edit/${shown.id}`, { ...fields, intent: "amend", version: String(shown.version), amendment_reason: "Corrected", ...changes }, l.cookie);
  };

  // the field refused (the first billed fact the change touches), the note, the change
  const facts: [string, "rbt" | "combined", (l: L) => Record<string, string | number | null>][] = [
    ["session_date", "rbt", () => ({ session_date: "2026-10-07" })],
    ["time_in", "rbt", () => ({ time_in: "09:30" })],
    ["time_out", "rbt", () => ({ time_out: "10:30" })],
    ["time_in2", "rbt", () => ({ time_in2: "13:00", time_out2: "14:00" })],
    ["cpt_code", "combined", () => ({ cpt_code: "97155" })],
    ["md", "rbt", () => ({ md: "GT" })],
    ["md2", "rbt", () => ({ md2: "XP" })],
    ["pos", "rbt", () => ({ pos: "03" })],
    ["pa_service_id", "rbt", (l) => ({ pa_service_id: l.pa2.id })],
    ["provider_id", "rbt", (l) => ({ provider_id: l.lapsed.id })],
    ["unit_price", "combined", () => ({ unit_price: 60 })],
  ];
  it.each(facts)("PATCH changing %s: 422 at the field, nothing written", async (field, type, change) => {
    const l = await lockWorld();
    const [before, audits] = [await row(l.ids[type]), await auditCount()];
    const res = await patch(l, type, change(l));
    expect(res.status, await res.clone().text()).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual({ [field]: NOTE_MESSAGES.billed });
    expect(await row(l.ids[type])).toEqual(before);
    expect(await auditCount()).toBe(audits);
  });

  // The edit screen has no modifier fields (the view's Change modifiers does) nor a price on an RBT note.
  const onScreen = facts.filter(([field]) => !["md", "md2", "unit_price"].includes(field));
  it.each(onScreen)("the edit screen changing %s: 422 with the message at the field and the typed values kept, nothing written", async (field, type, change) => {
    const l = await lockWorld();
    const before = await row(l.ids[type]);
    const typed = Object.fromEntries(Object.entries(change(l)).map(([k, v]) => [k, String(v)]));
    const res = await screen(l, type, typed);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toMatch(new RegExp(`id="f-${field}-error"[^>]*>[^<]*${NOTE_MESSAGES.billed.replace(/[()]/g, "\\$&")}`));
    for (const [k, v] of Object.entries(typed)) expect(html).toMatch(new RegExp(`name="${k}"[^>]*value="${v}"|<option[^>]*value="${v}"[^>]*selected=""`));
    expect(await row(l.ids[type])).toEqual(before);
  });

  it("a billed note is not deleted, through the API or its view (422, nothing written)", async () => {
    const l = await lockWorld();
    const before = await row(l.ids.rbt);
    const res = await api(`/v2/notes-rbt/${l.ids.rbt}`, { method: "DELETE", token: l.token });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual({ form: NOTE_MESSAGES.billed });
    const view = await form(`/note-rbt/view/${l.ids.rbt}`, { intent: "delete", confirmed: "yes" }, l.cookie);
    expect(view.status).toBe(422);
    expect(await view.text()).toContain(NOTE_MESSAGES.billed);
    expect(await row(l.ids.rbt)).toEqual(before);
  });

  // The narrative (no claim nor billing row carries it) and md3 (not a billing field) still change on a billed note.
  const narrative: [string, (l: L) => Promise<Response>, Partial<typeof notes.$inferSelect>][] = [
    ["PATCH of the narrative", (l) => patch(l, "rbt", { content: { client_appeared: "Calm" } }), { billed: true, md: "HM" }],
    ["PATCH of md3", (l) => patch(l, "rbt", { md3: "95" }), { billed: true, md: "HM", md3: "95" }],
    ["the edit screen's amendment of the narrative", (l) => screen(l, "rbt", { "content.client_appeared": "Calm" }), { billed: true, md: "HM" }],
  ];
  it.each(narrative)("%s: saved", async (_name, change, after) => {
    const l = await lockWorld();
    const res = await change(l);
    expect([200, 303], await res.clone().text()).toContain(res.status);
    expect(await row(l.ids.rbt)).toMatchObject({ ...after, sessionDate: "2026-10-05", timeOut: "11:00", units: 8 });
  });

  it("unticking Billed on its billing row frees the note: the refused change then saves, and the note can be deleted", async () => {
    const l = await lockWorld();
    const n = await note(l.client, "2026-10-08", { providerId: l.rbt.id, paServiceId: l.pa.id, md: "HM" });
    const billed = await api("/client_report/store", { method: "POST", token: l.token, body: { note_rbt_id: n.id, billed: true, note_version: n.version } });
    expect(billed.status, await billed.clone().text()).toBe(201);
    const change = { time_out: "10:30", amendment_reason: "Ended early" };
    expect((await api(`/v2/notes-rbt/${n.id}`, { method: "PATCH", token: l.token, body: change })).status).toBe(422);
    const report = (await db().select().from(clientReports).where(eq(clientReports.noteId, n.id)))[0]!;
    const unticked = await api(`/client_report/update/${report.id}`, { method: "POST", token: l.token, body: { note_id: n.id, note_version: (await row(n.id)).version, version: report.version, billed: false } });
    expect(unticked.status, await unticked.clone().text()).toBe(200);
    const saved = await api(`/v2/notes-rbt/${n.id}`, { method: "PATCH", token: l.token, body: change });
    expect(saved.status, await saved.clone().text()).toBe(200);
    expect(await row(n.id)).toMatchObject({ billed: false, timeOut: "10:30", units: 6 });
    expect((await api(`/v2/notes-rbt/${n.id}`, { method: "DELETE", token: l.token })).status).toBe(200);
    expect((await row(n.id)).deletedAt).not.toBeNull();
  });
});

async function auditCount() {
  const [row] = await db().select({ n: count() }).from(auditLog);
  return row!.n;
}

describe("the report and its API and screen", () => {
  async function reportWorld() {
    const w = await world();
    const base = (date: string, over: NoteOver = {}) => note(w.client, date, { providerId: w.rbt.id, paServiceId: w.pa.id, ...over });
    const clean = await base("2026-10-05");
    const unsigned = await base("2026-10-06", { signedAt: null });
    const office = await base("2026-10-07", { pos: "11" });
    const noPa = await base("2026-10-08", { paServiceId: null });
    const outOfPeriod = await base("2026-11-20", { signedAt: null });
    const away = await note(await createPatient({ locationId: w.elsewhere.id, insurerId: w.acme.id }), "2026-10-06", { providerId: w.rbt.id, signedAt: null, time: ["13:00", "14:00"] });
    return { ...w, clean, unsigned, office, noPa, outOfPeriod, away };
  }

  it("API: the notes of the period with reasons, a page at a time; 403, 404 (a note), 422 and another location's empty report change nothing", async () => {
    const w = await reportWorld();
    const token = await apiToken(w.manager);
    const period = `location_id=${w.loc.id}&date_from=2026-10-01&date_to=2026-10-31`;
    let before = await auditCount();
    const first = await api(`/v2/billing/scrubber?${period}&per_page=2`, { token });
    expect(first.status).toBe(200);
    const body = (await first.json()) as { data: { data: { id: number; reasons: { code: string; message: string }[]; client_name: string }[]; total: number; last_page: number; scrubbed: number; location: { title: string } } };
    expect(body.data).toMatchObject({ total: 3, last_page: 2, scrubbed: 4, location: { title: "Scrub Clinic" } });
    expect(body.data.data.map((n) => n.id)).toEqual([w.unsigned.id, w.office.id]);
    expect(body.data.data[0]!.reasons).toEqual([{ code: "unsigned", message: "Note is not signed by the provider." }]);
    expect(body.data.data[0]!.client_name).toBe("Mia Lopez");
    expect(await auditCount()).toBe(before + 1);
    const second = (await (await api(`/v2/billing/scrubber?${period}&per_page=2&page=2`, { token })).json()) as typeof body;
    expect(second.data.data.map((n) => n.id)).toEqual([w.noPa.id]);

    // One note's reasons; a clean note answers an empty list.
    const one = (await (await api(`/v2/billing/scrubber/notes/${w.office.id}`, { token })).json()) as { data: { reasons: { code: string }[] } };
    expect(one.data.reasons.map((r) => r.code)).toEqual(["pos_not_allowed"]);
    const ok = (await (await api(`/v2/billing/scrubber/notes/${w.clean.id}`, { token })).json()) as { data: { reasons: unknown[] } };
    expect(ok.data.reasons).toEqual([]);

    before = await auditCount();
    // Another location's report lists nothing, as every location filter (decision 017); its note is 404, as an unknown one.
    const far = await api(`/v2/billing/scrubber?location_id=${w.elsewhere.id}&date_from=2026-10-01&date_to=2026-10-31`, { token });
    expect(far.status).toBe(200);
    expect(((await far.json()) as { data: unknown }).data).toMatchObject({ data: [], total: 0, scrubbed: 0, location: null });
    for (const path of [`/v2/billing/scrubber/notes/${w.away.id}`, `/v2/billing/scrubber/notes/999999`, "/v2/billing/scrubber/notes/abc"]) {
      const res = await api(path, { token });
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { message: string }).message).toBeTruthy();
    }
    // Bad filters: 422 with the field's message.
    const bad: [string, string, string][] = [
      ["date_from=2026-10-01&date_to=2026-10-31", "location_id", "Location is required."],
      [`location_id=${w.loc.id}&date_from=2026-10-31&date_to=2026-10-01`, "date_to", "To must be on or after From."],
      [`location_id=${w.loc.id}&date_from=2026-09-01&date_to=2026-10-31`, "date_to", "The period may cover at most 31 days."],
      [`location_id=${w.loc.id}&date_from=2026-02-30&date_to=2026-03-01`, "date_from", "Dates must be real dates like 2026-01-31."],
      [`location_id=x&date_from=2026-10-01&date_to=2026-10-31`, "location_id", "Location must be a whole number."],
      [`${period}&page=0`, "page", "Page must be at least 1."],
      [`${period}&page=-1`, "page", "Page must be at least 1."],
      [`${period}&page=1.5`, "page", "Page must be a whole number."],
      [`${period}&per_page=101`, "per_page", "per_page must be at most 100."],
    ];
    for (const [query, field, message] of bad) {
      const res = await api(`/v2/billing/scrubber?${query}`, { token });
      expect(res.status, query).toBe(422);
      expect(((await res.json()) as { errors: Record<string, string> }).errors[field], query).toBe(message);
    }
    expect(await auditCount()).toBe(before);

    // Without manage_claims: 403, nothing read.
    const viewer = await apiToken(await createUser({ permissions: ["view_notes", "view_clients"], locations: [w.loc.id] }));
    before = await auditCount(); // the sign-in's own row
    expect((await api(`/v2/billing/scrubber?${period}`, { token: viewer })).status).toBe(403);
    expect((await api(`/v2/billing/scrubber/notes/${w.office.id}`, { token: viewer })).status).toBe(403);
    expect(await auditCount()).toBe(before);
  });

  it("screen: the reasons as text with JavaScript off, the first visit filled in, bad filters shown, 403, another location lists nothing", async () => {
    const w = await reportWorld();
    const cookie = await signInCookie(w.manager);
    const period = `location_id=${w.loc.id}&date_from=2026-10-01&date_to=2026-10-31`;
    const res = await request(`/billing/scrubber?${period}`, { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Pre-billing scrubber");
    expect(html).toContain("Note is not signed by the provider.");
    expect(html).toContain("POS 11 (Office) is not allowed by Acme for RBT services (allowed: 12, 03).");
    expect(html).toContain(`href="/note-rbt/view/${w.unsigned.id}"`);
    expect(html).toContain("3 of 4 notes need attention");
    expect(html).not.toContain(`/note-rbt/view/${w.clean.id}"`);
    expect(html).toContain("Showing 1 to 3 of 3 entries");

    // The first visit: the actor's location and the last 31 days.
    const first = await request("/billing/scrubber", { cookie });
    expect(first.status).toBe(302);
    expect(first.headers.get("Location")).toMatch(new RegExp(`^/billing/scrubber\\?location_id=${w.loc.id}&date_from=\\d{4}-\\d{2}-\\d{2}&date_to=\\d{4}-\\d{2}-\\d{2}$`));

    // Bad filters: the field's message and the typed values.
    const bad = await request(`/billing/scrubber?location_id=${w.loc.id}&date_from=2026-10-31&date_to=2026-10-01`, { cookie });
    expect(bad.status).toBe(200);
    const badHtml = await bad.text();
    expect(badHtml).toContain("To must be on or after From.");
    expect(badHtml).toContain('value="2026-10-31"');

    // Another location: the form with it kept and nothing listed, as every location filter (decision 017).
    const far = await request(`/billing/scrubber?location_id=${w.elsewhere.id}&date_from=2026-10-01&date_to=2026-10-31`, { cookie });
    expect(far.status).toBe(200);
    expect(await far.text()).toContain("0 of 0 notes need attention.");
    const viewer = await signInCookie(await createUser({ permissions: ["view_notes"], locations: [w.loc.id] }));
    expect((await request(`/billing/scrubber?${period}`, { cookie: viewer })).status).toBe(403);
  });
});
