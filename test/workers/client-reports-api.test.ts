import { count, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, clientReports, insurances, insuranceServices, notes, paServices, patients } from "~/db/schema";
import { dayNumber } from "~/domain/weeks";
import { createClaim } from "./claim-fixtures";
import { api, apiToken, createLocation, createPatient, createUser, db, form, signInCookie } from "./helpers";

/**
 * The client_report API (clinical §7 client reports; decision 030): every call allowed, 403 without
 * manage_claims, 404 for another location, bad input → 4xx and nothing changed, a stale save → 409.
 */

type Loc = { id: number };
let here: Loc;
let there: Loc;
let insurer: number;
let patient: { id: number; patientIdentifier: string };
let farPatient: { id: number };
let provider: { id: number };
let manager: string;
let noPerm: string;
let outsider: string;
const ids: Record<string, number> = {};

async function lastAudit() {
  const [row] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
  return row!;
}

async function note(over: { type: "rbt" | "bcba" | "combined"; patientId: number; locationId: number; date: string; minutes?: number; paServiceId?: number | null; cpt?: string; md?: string | null; providerId?: number }) {
  const minutes = over.minutes ?? 120;
  const s = dayNumber(over.date)! * 1440 + 9 * 60;
  const [row] = await db()
    .insert(notes)
    .values({
      type: over.type,
      patientId: over.patientId,
      locationId: over.locationId,
      providerId: over.providerId ?? provider.id,
      paServiceId: over.paServiceId ?? null,
      diagnosisCode: "F84.0",
      signedAt: `${over.date}T23:00:00.000Z`,
      providerSignedOn: over.date,
      cptCode: over.cpt ?? (over.type === "rbt" ? "97153" : "97155"),
      pos: "12",
      sessionDate: over.date,
      timeIn: "09:00",
      timeOut: "11:00",
      start1At: s,
      end1At: s + minutes,
      startAt: s,
      endAt: s + minutes,
      minutes,
      units: Math.round(minutes / 15),
      md: over.md ?? null,
    })
    .returning();
  return row!;
}

const rowsOf = async () => (await db().select({ n: count() }).from(clientReports))[0]!.n;
const auditCount = async () => (await db().select({ n: count() }).from(auditLog))[0]!.n;

beforeAll(async () => {
  here = await createLocation();
  there = await createLocation();
  const [ins] = await db().insert(insurances).values({ name: "Acme Health", payerId: "PAYER1" }).returning();
  insurer = ins!.id;
  await db()
    .insert(insuranceServices)
    .values([
      { insuranceId: insurer, cptCode: "97153", provider: "rbt", type: "rbt", unitPrice: 12.5 },
      { insuranceId: insurer, cptCode: "97155", provider: "bcba", type: "bcba", unitPrice: 30.1 },
    ]);
  patient = await createPatient({ locationId: here.id, insurerId: insurer });
  farPatient = await createPatient({ locationId: there.id, insurerId: insurer });
  provider = await createUser({ permissions: ["view_notes"], locations: [here.id] });
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Treatment", cpt: "97153", nUnits: 400, startDate: "2026-01-01", endDate: "2026-12-31", insuranceId: insurer }).returning();
  ids.pa = pa!.id;
  ids.rbt1 = (await note({ type: "rbt", patientId: patient.id, locationId: here.id, date: "2026-03-02", paServiceId: pa!.id })).id;
  ids.bcba1 = (await note({ type: "bcba", patientId: patient.id, locationId: here.id, date: "2026-03-03", minutes: 60 })).id;
  ids.rbt2 = (await note({ type: "rbt", patientId: patient.id, locationId: here.id, date: "2026-03-10", paServiceId: pa!.id, md: "XP" })).id;
  const farProvider = await createUser({ permissions: ["view_notes"], locations: [there.id] });
  ids.far = (await note({ type: "rbt", patientId: farPatient.id, locationId: there.id, date: "2026-03-02", providerId: farProvider.id })).id;
  ids.unsigned = (await note({ type: "rbt", patientId: patient.id, locationId: here.id, date: "2026-02-16", paServiceId: pa!.id })).id;
  await db().update(notes).set({ signedAt: null, providerSignedOn: null }).where(eq(notes.id, ids.unsigned));
  manager = await apiToken(await createUser({ role: "MANAGER", permissions: ["manage_claims"], locations: [here.id] }));
  noPerm = await apiToken(await createUser({ permissions: ["view_notes", "manage_notes"], locations: [here.id] }));
  outsider = await apiToken(await createUser({ permissions: ["manage_claims"], locations: [there.id] }));
});

describe("byprofile: the client report response", () => {
  it("answers the client, RBT and BCBA rows apart, priced by the one price function, with pages and the week's totals", async () => {
    const before = await auditCount();
    const res = await api(`/client_report/byprofile/${patient.id}`, { token: manager });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.patient).toMatchObject({ id: patient.id, patient_id: patient.patientIdentifier, insurer_id: insurer });
    expect(body.noteRbts.map((r: any) => r.id)).toEqual([ids.unsigned, ids.rbt1, ids.rbt2]);
    expect(body.noteBcbas.map((r: any) => r.id)).toEqual([ids.bcba1]);
    expect(body.data.map((r: any) => r.session_date)).toEqual(["2026-02-16", "2026-03-02", "2026-03-03", "2026-03-10"]);
    // The pre-billing scrubber's reasons, as text, per row.
    expect(body.noteRbts[0].reasons).toEqual([expect.stringMatching(/not signed/)]);
    expect(body.noteRbts[1].reasons).toEqual([]);
    // 8 units × $12.50 = $100.00; 4 units × $30.10 = $120.40; XP: charged 0, $100.00 shown beside.
    expect(body.noteRbts[1]).toMatchObject({ total_units: 8, unit_price_cents: 1250, charges_cents: 10000, xp: null });
    expect(body.noteBcbas[0]).toMatchObject({ total_units: 4, unit_price_cents: 3010, charges_cents: 12040, mdbcba: null, billedbcba: false });
    expect(body.noteRbts[2]).toMatchObject({ charges_cents: 0, xp_cents: 10000, xp: "100.00", multiplier: 0 });
    expect(body).toMatchObject({ total: 4, per_page: 50, arrayPages: [1], showing: "Showing 1 to 4 of 4 entries" });
    // The week of the latest note (Sun 2026-03-08 – Sat 2026-03-14): one RBT note of 2 h, 8 units.
    expect(body.week).toEqual({ start: "2026-03-08", end: "2026-03-14" });
    expect(body).toMatchObject({ week_total_hours: 2, week_total_units: 8 });
    expect(body.pa_services).toEqual([expect.objectContaining({ pa_service: "Treatment", cpt: "97153", n_units: 400, start_date: "2026-01-01", end_date: "2026-12-31" })]);
    expect(await auditCount()).toBe(before + 1);
  });

  it("filters by dates and note type; empty filters are left out; the To date picks the week", async () => {
    const bcba = (await (await api(`/client_report/byprofile/${patient.id}?noteType=bcba&date_start=&date_end=`, { token: manager })).json()) as any;
    expect(bcba.data.map((r: any) => r.id)).toEqual([ids.bcba1]);
    const march = (await (await api(`/client_report/byprofile/${patient.id}?date_start=2026-03-01&date_end=2026-03-05&noteType=rbt`, { token: manager })).json()) as any;
    expect(march.data.map((r: any) => r.id)).toEqual([ids.rbt1]);
    expect(march.week).toEqual({ start: "2026-03-01", end: "2026-03-07" });
    expect(march.week_total_units).toBe(8);
  });

  it.each([
    ["All", "all four"],
    ["all", "all four"],
    ["ALL", "all four"],
    ["", "all four"],
    ["Rbt", "the RBT notes"],
    ["RBT", "the RBT notes"],
    ["rbt", "the RBT notes"],
    ["Bcba", "the BCBA notes"],
    ["bCbA", "the BCBA notes"],
    [" Bcba ", "the BCBA notes"],
  ])("noteType=%j keeps %s (All, Rbt and Bcba in any case; All is no filter)", async (noteType, kept) => {
    const res = await api(`/client_report/byprofile/${patient.id}?noteType=${encodeURIComponent(noteType)}`, { token: manager });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as any;
    const expected = { "all four": [ids.unsigned, ids.rbt1, ids.bcba1, ids.rbt2], "the RBT notes": [ids.unsigned, ids.rbt1, ids.rbt2], "the BCBA notes": [ids.bcba1] }[kept]!;
    expect(body.data.map((r: any) => r.id)).toEqual(expected);
  });

  it("a page past the last one is empty, says so and leads back to page 1", async () => {
    const body = (await (await api(`/client_report/byprofile/${patient.id}?page=9`, { token: manager })).json()) as any;
    expect(body).toMatchObject({ data: [], noteRbts: [], noteBcbas: [], total: 4, page: 9, last_page: 1, arrayPages: [1] });
    expect(body.showing).toBe("Showing 0 to 0 of 4 entries");
  });

  it.each([
    ["a bad date", "date_start=2026-02-30"],
    ["To before From", "date_start=2026-03-05&date_end=2026-03-01"],
    ["an unknown note type", "noteType=parent"],
    ["a page that is not a number", "page=1e3"],
  ])("%s answers 422 with the message", async (_l, query) => {
    const res = await api(`/client_report/byprofile/${patient.id}?${query}`, { token: manager });
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).message).toBeTruthy();
  });

  // Scope before the query (decision 030, 2026-11-27 (stop 28)): a client the actor may not see is 404 whatever the query.
  const CLIENT = { "in scope": () => patient.id, "of another location": () => farPatient.id, missing: () => 999_999_999 };
  const CALLS = {
    byprofile: (client: number) => `/client_report/byprofile/${client}`,
    byemployee: (client: number) => `/client_report/byemployee/${provider.id}/${client}`,
    "byemployee, unknown employee": (client: number) => `/client_report/byemployee/999999999/${client}`,
    profile: (client: number) => `/client_report/profile/${client}`,
  };
  const QUERY = { valid: "date_start=2026-03-01&noteType=rbt", invalid: "date_start=2026-02-30&noteType=parent" };
  // [call, client, query, status, message]
  it.each<[keyof typeof CALLS, keyof typeof CLIENT, keyof typeof QUERY, number, string | null]>([
    ["byprofile", "in scope", "valid", 200, null],
    ["byprofile", "in scope", "invalid", 422, null],
    ["byprofile", "of another location", "valid", 404, "Client not found."],
    ["byprofile", "of another location", "invalid", 404, "Client not found."],
    ["byprofile", "missing", "valid", 404, "Client not found."],
    ["byprofile", "missing", "invalid", 404, "Client not found."],
    ["byemployee", "in scope", "valid", 200, null],
    ["byemployee", "in scope", "invalid", 422, null],
    ["byemployee", "of another location", "valid", 404, "Client not found."],
    ["byemployee", "of another location", "invalid", 404, "Client not found."],
    ["byemployee", "missing", "valid", 404, "Client not found."],
    ["byemployee", "missing", "invalid", 404, "Client not found."],
    ["byemployee, unknown employee", "in scope", "valid", 404, "Employee not found."],
    ["byemployee, unknown employee", "in scope", "invalid", 404, "Employee not found."],
    ["profile", "in scope", "valid", 200, null],
    ["profile", "in scope", "invalid", 422, null],
    ["profile", "of another location", "valid", 404, "Client not found."],
    ["profile", "of another location", "invalid", 404, "Client not found."],
    ["profile", "missing", "valid", 404, "Client not found."],
    ["profile", "missing", "invalid", 404, "Client not found."],
  ])("%s of a client %s, %s query → %i", async (call, client, query, status, message) => {
    const before = await auditCount();
    const res = await api(`${CALLS[call](CLIENT[client]())}?${QUERY[query]}`, { token: manager });
    expect(res.status).toBe(status);
    const body = (await res.json()) as any;
    if (message) expect(body.message).toBe(message);
    if (status === 422) expect(Object.keys(body.errors).sort()).toEqual(["date_start", "noteType"]);
    // Only an answer with the client's data is a read on record.
    expect(await auditCount()).toBe(before + (status === 200 ? 1 : 0));
  });

  it("byemployee keeps one employee's notes; profile answers the header and PA services", async () => {
    const mine = (await (await api(`/client_report/byemployee/${provider.id}/${patient.id}`, { token: manager })).json()) as any;
    expect(mine.total).toBe(4);
    const other = await createUser({ permissions: ["view_notes"], locations: [here.id] });
    const none = (await (await api(`/client_report/byemployee/${other.id}/${patient.id}`, { token: manager })).json()) as any;
    expect(none.total).toBe(0);
    // An employee only of a location the actor cannot see answers as one that does not exist (no name, no 200).
    const far = await createUser({ permissions: ["view_notes"], locations: [there.id], name: "Farley" });
    for (const id of [far.id, 999_999_999]) {
      const res = await api(`/client_report/byemployee/${id}/${patient.id}`, { token: manager });
      expect(res.status, String(id)).toBe(404);
      expect(await res.text()).not.toContain("Farley");
    }
    // Clinical §7 writes both calls with a slash before the query (probe 8896, stop 25).
    expect((await api(`/client_report/byemployee/${provider.id}/${patient.id}/?page=1`, { token: manager })).status).toBe(200);
    const slashed = (await (await api(`/client_report/byprofile/${patient.id}/?page=1`, { token: manager })).json()) as any;
    expect(slashed.patient.id).toBe(patient.id);
    const profile = (await (await api(`/client_report/profile/${patient.id}`, { token: manager })).json()) as any;
    expect(profile.data.patient.id).toBe(patient.id);
    // pos_covered is the client's own list; a client with none recorded is not restricted (every code).
    expect(profile.data.pos_covered.map((p: { code: string }) => p.code)).toEqual(["02", "03", "10", "11", "12", "99"]);
    const [before] = await db().select({ details: patients.details }).from(patients).where(eq(patients.id, patient.id));
    await db().update(patients).set({ details: JSON.stringify({ ...JSON.parse(before!.details || "{}"), pos_covered: ["12", "03"] }) }).where(eq(patients.id, patient.id));
    const covered = (await (await api(`/client_report/profile/${patient.id}`, { token: manager })).json()) as any;
    expect(covered.data.pos_covered).toEqual([{ code: "03", label: "School" }, { code: "12", label: "Home" }]);
    await db().update(patients).set({ details: before!.details }).where(eq(patients.id, patient.id));
    expect(profile.data.pa_services).toHaveLength(1);
    expect(profile.data.rates).toEqual([{ cpt: "97153", provider: "rbt", unit_price_cents: 1250, unit_price: "12.50", service_id: expect.any(Number), modifiers: [], multiplier: 1, location_id: null, label: "97153 RBT" }]);
  });

  it("bylocation lists the clients with notes of the period", async () => {
    const res = await api(`/client_report/bylocation/${here.id}?date_from=2026-03-01&date_to=2026-03-31`, { token: manager });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.data).toEqual([expect.objectContaining({ patient_id: patient.id, notes: 3, unbilled: 3, total_units: 20 })]);
    expect(body).toMatchObject({ total: 1, page: 1, last_page: 1 });
    // A page past the end: no rows, and still the list's count.
    const past = (await (await api(`/client_report/bylocation/${here.id}?date_from=2026-03-01&date_to=2026-03-31&page=3`, { token: manager })).json()) as any;
    expect(past).toMatchObject({ data: [], total: 1, page: 3, last_page: 1 });
    // An empty period: no rows and a count of 0.
    expect(await (await api(`/client_report/bylocation/${here.id}?date_from=2019-03-01&date_to=2019-03-31`, { token: manager })).json()).toMatchObject({ data: [], total: 0 });
    expect((await api(`/client_report/bylocation/${there.id}`, { token: manager })).status).toBe(404);
    // Scope before the query: another location's id is 404 with a bad query too; one's own location says what is wrong.
    const bad = "date_from=2026-02-30";
    const far = await api(`/client_report/bylocation/${there.id}?${bad}`, { token: manager });
    expect([far.status, ((await far.json()) as any).message]).toEqual([404, "Location not found."]);
    const own = await api(`/client_report/bylocation/${here.id}?${bad}`, { token: manager });
    expect([own.status, Object.keys(((await own.json()) as any).errors)]).toEqual([422, ["date_from"]]);
  });

  // The three pairs of names for the period, in every call, are the same filter; two different values for one bound
  // are refused on the call's own field (decision 030, 2026-11-27 (stop 28); probe 8912).
  const PERIOD_CALLS: Record<string, { path: () => string; start: string; end: string; seen: (body: any) => unknown }> = {
    byprofile: { path: () => `/client_report/byprofile/${patient.id}`, start: "date_start", end: "date_end", seen: (b) => b.data.map((r: any) => r.id) },
    byemployee: { path: () => `/client_report/byemployee/${provider.id}/${patient.id}/`, start: "date_start", end: "date_end", seen: (b) => b.data.map((r: any) => r.id) },
    profile: { path: () => `/client_report/profile/${patient.id}`, start: "date_start", end: "date_end", seen: (b) => b.data.total },
    bylocation: { path: () => `/client_report/bylocation/${here.id}`, start: "date_from", end: "date_to", seen: (b) => b.data.filter((r: any) => r.patient_id === patient.id).map((r: any) => [r.notes, r.total_units]) },
  };
  const PAIRS = [
    ["date_start", "date_end"],
    ["date_from", "date_to"],
    ["from", "to"],
  ] as const;
  it.each(Object.keys(PERIOD_CALLS).flatMap((call) => PAIRS.map(([s, e]) => [call, s, e] as const)))("%s takes ?%s&%s as the period", async (call, s, e) => {
    const c = PERIOD_CALLS[call]!;
    const res = await api(`${c.path()}?${s}=2026-03-01&${e}=2026-03-05`, { token: manager });
    expect(res.status).toBe(200);
    const expected = { byprofile: [ids.rbt1, ids.bcba1], byemployee: [ids.rbt1, ids.bcba1], profile: 2, bylocation: [[2, 12]] }[call];
    const body = (await res.json()) as any;
    expect(c.seen(body)).toEqual(expected);
  });

  it.each(Object.keys(PERIOD_CALLS))("%s: one bound under two names with different values is 422 on that field; the same value is fine", async (call) => {
    const c = PERIOD_CALLS[call]!;
    const before = await auditCount();
    const starts = await api(`${c.path()}?date_start=2026-03-01&date_from=2026-03-02&to=2026-03-05`, { token: manager });
    expect(starts.status).toBe(422);
    expect(((await starts.json()) as any).errors).toEqual({ [c.start]: "Give the start of the period once." });
    const ends = await api(`${c.path()}?from=2026-03-01&date_end=2026-03-05&to=2026-03-06&date_to=2026-03-05`, { token: manager });
    expect(ends.status).toBe(422);
    expect(((await ends.json()) as any).errors).toEqual({ [c.end]: "Give the end of the period once." });
    expect(await auditCount()).toBe(before);
    expect((await api(`${c.path()}?date_start=2026-03-01&from=2026-03-01&date_to=2026-03-05`, { token: manager })).status).toBe(200);
  });

  it("bylocation ?query keeps the clients whose name or identifier contains it, as the client list searches (clinical §7)", async () => {
    const loc = await createLocation();
    const biller = await apiToken(await createUser({ role: "MANAGER", permissions: ["manage_claims"], locations: [loc.id] }));
    const liam = await createPatient({ locationId: loc.id, firstName: "Liam", lastName: "Garcia", patientIdentifier: "BL-7001" });
    const olivia = await createPatient({ locationId: loc.id, firstName: "Olivia", lastName: "Garcia", patientIdentifier: "BL-7002" });
    for (const p of [liam, olivia]) await note({ type: "rbt", patientId: p.id, locationId: loc.id, date: "2026-04-06" });
    const clients = async (query: string) => {
      const res = await api(`/client_report/bylocation/${loc.id}?date_from=2026-04-01&date_to=2026-04-30${query}`, { token: biller });
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      expect(body.total).toBe(body.data.length);
      return body.data.map((r: any) => r.patient_name);
    };
    const cases: [query: string, names: string[]][] = [
      ["", ["Liam Garcia", "Olivia Garcia"]],
      ["&query=", ["Liam Garcia", "Olivia Garcia"]],
      ["&query=Liam", ["Liam Garcia"]],
      ["&query=liam%20garc", ["Liam Garcia"]],
      ["&query=BL-7002", ["Olivia Garcia"]],
      // Under 3 characters: the plain substring match (no trigram index), the same clients.
      ["&query=li", ["Liam Garcia", "Olivia Garcia"]],
      ["&query=Noah", []],
    ];
    for (const [query, names] of cases) expect([query, await clients(query)]).toEqual([query, names]);
    // A page past the end keeps the filtered count.
    expect(await (await api(`/client_report/bylocation/${loc.id}?date_from=2026-04-01&date_to=2026-04-30&query=Liam&page=2`, { token: biller })).json()).toMatchObject({ data: [], total: 1 });
    const long = await api(`/client_report/bylocation/${loc.id}?query=${"x".repeat(400)}`, { token: biller });
    expect(long.status).toBe(422);
    expect(((await long.json()) as any).errors.query).toMatch(/too long/);
  });

  it.each([
    ["GET", () => `/client_report/byprofile/${patient.id}`],
    ["GET", () => `/client_report/byemployee/${provider.id}/${patient.id}`],
    ["GET", () => `/client_report/profile/${patient.id}`],
    ["GET", () => `/client_report/bylocation/${here.id}`],
    ["GET", () => `/client_report/config`],
    ["GET", () => `/client_report/show/1`],
    ["POST", () => `/client_report/store`],
    ["POST", () => `/client_report/update/1`],
    ["DELETE", () => `/client_report/destroy/1`],
    ["PUT", () => `/client_report/update/status/${ids.rbt1}`],
  ])("%s %s without manage_claims answers 403", async (method, path) => {
    const res = await api(path(), { method, token: noPerm, body: method === "GET" || method === "DELETE" ? undefined : { note_id: ids.rbt1, status: "ok" } });
    expect(res.status).toBe(403);
  });

  it("a client, note or location of another location answers 404", async () => {
    expect((await api(`/client_report/byprofile/${patient.id}`, { token: outsider })).status).toBe(404);
    expect((await api(`/client_report/profile/${patient.id}`, { token: outsider })).status).toBe(404);
    expect((await api(`/client_report/byprofile/${farPatient.id}`, { token: manager })).status).toBe(404);
    const before = await rowsOf();
    expect((await api(`/client_report/store`, { method: "POST", token: manager, body: { note_rbt_id: ids.far } })).status).toBe(404);
    expect((await api(`/client_report/update/status/${ids.far}`, { method: "PUT", token: manager, body: { status: "ok" } })).status).toBe(404);
    expect(await rowsOf()).toBe(before);
  });

  it("config names the modifiers, note types and page size", async () => {
    const body = (await (await api(`/client_report/config`, { token: manager })).json()) as any;
    expect(body.data.modifiers).toEqual(expect.arrayContaining(["HM", "XP", "HO"]));
    expect(body.data.page_size).toBe(50);
  });

  it("config lists the modifiers that fit each note type (clinical §3 Type column), beside the full list kept as it was", async () => {
    const body = (await (await api(`/client_report/config`, { token: manager })).json()) as any;
    expect(body.data.modifiers).toEqual(["HM", "XE", "XP", "HO", "GT", "TS", "95"]);
    expect(body.data.modifiers_by_note_type).toEqual({
      rbt: ["HM", "XE", "XP", "GT", "TS", "95"],
      bcba: ["XE", "HO", "GT", "TS", "95"],
      combined: ["XE", "HO", "GT", "TS", "95"],
    });
  });
});

describe("store, show, update, destroy", () => {
  let reportId: number;

  it("store creates the note's billing record and sets the note's modifiers and flags in one change", async () => {
    const res = await api(`/client_report/store`, { method: "POST", token: manager, body: { note_rbt_id: ids.rbt1, patient_id: patient.id, insurer_id: insurer, md: "HM", billed: true, pay: false, pa_number: "PA-77", chargesrbt: 999999 } });
    expect(res.status, await res.clone().text()).toBe(201);
    const body = (await res.json()) as any;
    expect(body.message).toBe("Updated - Added successfully!");
    // The charges are the price function's, not the body's.
    expect(body.data.report).toMatchObject({ note_id: ids.rbt1, md: "HM", billed: true, pay: false, charges_cents: 10000, unit_price_cents: 1250, total_units: 8, pa_number: "PA-77", version: 1 });
    reportId = body.data.report.id;
    const [n] = await db().select().from(notes).where(eq(notes.id, ids.rbt1));
    expect(n).toMatchObject({ md: "HM", billed: true, paid: false });
    const shown = (await (await api(`/client_report/show/${reportId}`, { token: manager })).json()) as any;
    expect(shown.data).toMatchObject({ id: reportId, billed: true });
    expect((await api(`/client_report/show/${reportId}`, { token: outsider })).status).toBe(404);
  });

  it("a second store for the same note answers 409 with the current record; nothing changes", async () => {
    const res = await api(`/client_report/store`, { method: "POST", token: manager, body: { note_rbt_id: ids.rbt1, md: "GT" } });
    expect(res.status).toBe(409);
    expect(((await res.json()) as any).current.client_report.id).toBe(reportId);
    const [n] = await db().select().from(notes).where(eq(notes.id, ids.rbt1));
    expect(n!.md).toBe("HM");
    // The 409 answers the client's billing row: an audited read naming the client (and no write's row).
    expect(await lastAudit()).toMatchObject({ action: "read", entity: "client_report", patientId: patient.id });
  });

  it("update with the current version updates ('Updated - Bip Updated successfully!'); a stale version answers 409 and changes nothing", async () => {
    const ok = await api(`/client_report/update/${reportId}`, { method: "POST", token: manager, body: { version: 1, md: "HM", md2: "XP", billed: true, pay: true } });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as any;
    expect(body.message).toBe("Updated - Bip Updated successfully!");
    expect(body.data.report).toMatchObject({ version: 2, md2: "XP", charges_cents: 0, xp_cents: 10000, pay: true });
    const stale = await api(`/client_report/update/${reportId}`, { method: "POST", token: manager, body: { version: 1, md: "GT", billed: false } });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as any).current.client_report.version).toBe(2);
    expect(await lastAudit()).toMatchObject({ action: "read", entity: "client_report", entityId: String(reportId), patientId: patient.id });
    const [n] = await db().select().from(notes).where(eq(notes.id, ids.rbt1));
    expect(n).toMatchObject({ md: "HM", md2: "XP", billed: true, paid: true });
    // The spec's payload has no version: update/{id} names the record, so none sets no precondition (probe 8896, stop 25).
    const plain = await api(`/client_report/update/${reportId}`, { method: "POST", token: manager, body: { md: "HM", md2: "XP", billed: true, pay: false } });
    expect(plain.status, await plain.clone().text()).toBe(200);
    expect(((await plain.json()) as any).data.report).toMatchObject({ version: 3, pay: false });
  });

  it("a note the scrubber refuses cannot be marked billed (422 with its reasons); saved unbilled it can", async () => {
    const before = await rowsOf();
    const res = await api(`/client_report/store`, { method: "POST", token: manager, body: { note_rbt_id: ids.unsigned, billed: true } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).errors.billed).toMatch(/cannot be billed: .*not signed/);
    expect(await rowsOf()).toBe(before);
    const [n] = await db().select().from(notes).where(eq(notes.id, ids.unsigned));
    expect(n!.billed).toBe(false);
    expect((await api(`/client_report/store`, { method: "POST", token: manager, body: { note_rbt_id: ids.unsigned, md: "HM" } })).status).toBe(201);
  });

  it("a stale note version answers 409", async () => {
    const res = await api(`/client_report/store`, { method: "POST", token: manager, body: { note_bcba_id: ids.bcba1, note_version: 99 } });
    expect(res.status).toBe(409);
  });

  it.each([
    ["no note", { md: "HM" }, "note_id"],
    ["two notes", { note_rbt_id: 1, note_bcba_id: 2 }, "note_id"],
    ["an unknown modifier", { note_bcba_id: 0, note_id: 5, md: "ZZ" }, "md"],
    ["an NPI that is not 10 digits", { note_rbt_id: 1, npi: "123" }, "npi"],
    ["a PA number with control characters", { note_rbt_id: 1, pa_number: "A\u0000B" }, "pa_number"],
  ])("%s answers 422 on its field; nothing changes", async (_l, payload, field) => {
    const before = await rowsOf();
    const res = await api(`/client_report/store`, { method: "POST", token: manager, body: payload });
    expect(res.status).toBe(422);
    const body = (await res.json()) as any;
    expect(body.message).toBeTruthy();
    expect(Object.keys(body.errors)).toContain(field);
    expect(await rowsOf()).toBe(before);
  });

  it("a client or insurer that is not the note's answers 422; a body that is not JSON 400", async () => {
    const other = await createPatient({ locationId: here.id });
    const before = await rowsOf();
    const a = await api(`/client_report/store`, { method: "POST", token: manager, body: { note_bcba_id: ids.bcba1, patient_id: other.id } });
    expect(a.status).toBe(422);
    expect(((await a.json()) as any).errors.patient_id).toBeTruthy();
    const b = await api(`/client_report/store`, { method: "POST", token: manager, body: { note_bcba_id: ids.bcba1, insurer_id: insurer + 100 } });
    expect(b.status).toBe(422);
    const c = await api(`/client_report/store`, { method: "POST", token: manager, body: [1, 2] });
    expect(c.status).toBe(400);
    expect(await rowsOf()).toBe(before);
  });

  it("the row's status is saved at once; a bad status answers 422", async () => {
    const ok = await api(`/client_report/update/status/${ids.bcba1}`, { method: "PUT", token: manager, body: { status: "ok" } });
    expect(ok.status).toBe(200);
    const [n] = await db().select().from(notes).where(eq(notes.id, ids.bcba1));
    expect(n!.status).toBe("ok");
    const bad = await api(`/client_report/update/status/${ids.bcba1}`, { method: "PUT", token: manager, body: { status: "done" } });
    expect(bad.status).toBe(422);
    const stale = await api(`/client_report/update/status/${ids.bcba1}`, { method: "PUT", token: manager, body: { status: "pending", note_version: 1 } });
    expect(stale.status).toBe(409);
    expect(await lastAudit()).toMatchObject({ action: "read", entity: "note", entityId: String(ids.bcba1), patientId: patient.id });
  });

  it("destroy refuses a billed record (422) and deletes one that is not billed", async () => {
    expect((await api(`/client_report/destroy/${reportId}`, { method: "DELETE", token: manager })).status).toBe(422);
    const created = (await (await api(`/client_report/store`, { method: "POST", token: manager, body: { note_bcba_id: ids.bcba1, mdbcba: "HO" } })).json()) as any;
    const id = created.data.report.id;
    expect(created.data.report).toMatchObject({ md: "HO", note_type: "bcba" });
    expect((await api(`/client_report/destroy/${id}`, { method: "DELETE", token: outsider })).status).toBe(404);
    expect((await api(`/client_report/destroy/${id}`, { method: "DELETE", token: manager })).status).toBe(200);
    expect((await api(`/client_report/show/${id}`, { token: manager })).status).toBe(404);
  });

  it("other methods answer 405", async () => {
    expect((await api(`/client_report/store`, { token: manager })).status).toBe(405);
  });

  it("update keeps a PA number and NPI the body leaves out; null clears the PA number and gives the NPI back to the location's", async () => {
    const npiLocation = await createLocation({ npi: "1999999992" });
    const biller = await apiToken(await createUser({ role: "MANAGER", permissions: ["manage_claims"], locations: [npiLocation.id] }));
    const client = await createPatient({ locationId: npiLocation.id, insurerId: insurer });
    const n = await note({ type: "rbt", patientId: client.id, locationId: npiLocation.id, date: "2026-04-06" });
    const created = (await (await api(`/client_report/store`, { method: "POST", token: biller, body: { note_rbt_id: n.id, pa_number: "PA-9", npi: "1234567890" } })).json()) as any;
    expect(created.data.report).toMatchObject({ pa_number: "PA-9", npi: "1234567890", version: 1 });
    const id = created.data.report.id;
    const kept = await api(`/client_report/update/${id}`, { method: "POST", token: biller, body: { version: 1, md: "HM" } });
    expect(kept.status).toBe(200);
    expect(((await kept.json()) as any).data.report).toMatchObject({ md: "HM", pa_number: "PA-9", npi: "1234567890", version: 2 });
    const cleared = await api(`/client_report/update/${id}`, { method: "POST", token: biller, body: { version: 2, md: "HM", pa_number: null, npi: null } });
    expect(((await cleared.json()) as any).data.report).toMatchObject({ pa_number: null, npi: "1999999992", version: 3 });
  });
});

describe("a save keeps every field it does not send (decision 030, probe 8901 §1)", () => {
  let clinic: { id: number };
  let biller: string;
  let client: { id: number; locationId: number };
  let paId: number;

  beforeAll(async () => {
    clinic = await createLocation({ npi: "1999999992" });
    biller = await apiToken(await createUser({ role: "MANAGER", permissions: ["manage_claims"], locations: [clinic.id] }));
    client = await createPatient({ locationId: clinic.id, insurerId: insurer });
    const [pa] = await db().insert(paServices).values({ patientId: client.id, paService: "Treatment", cpt: "97153", nUnits: 400, startDate: "2026-01-01", endDate: "2026-12-31", insuranceId: insurer }).returning();
    paId = pa!.id;
  });

  /** A note stored as md HM, billed and paid, with its billing record (PA-1); the record's id and the note's id. */
  async function paidNote(date: string) {
    const n = await note({ type: "rbt", patientId: client.id, locationId: clinic.id, date, paServiceId: paId });
    const res = await api(`/client_report/store`, { method: "POST", token: biller, body: { note_rbt_id: n.id, md: "HM", billed: true, pay: true, pa_number: "PA-1" } });
    expect(res.status, await res.clone().text()).toBe(201);
    return { noteId: n.id, reportId: ((await res.json()) as any).data.report.id as number };
  }
  const stateOf = async (noteId: number) => {
    const [n] = await db().select({ md: notes.md, md2: notes.md2, billed: notes.billed, paid: notes.paid }).from(notes).where(eq(notes.id, noteId));
    const [r] = await db().select({ md: clientReports.md, md2: clientReports.md2, billed: clientReports.billed, pay: clientReports.pay, paNumber: clientReports.paNumber, version: clientReports.version }).from(clientReports).where(eq(clientReports.noteId, noteId));
    return { note: n, report: r };
  };
  const paid = { md: "HM", md2: null, billed: true };

  it.each([
    ["only the PA number", "2026-05-04", { pa_number: "PA-49" }, { note: { ...paid, paid: true }, report: { ...paid, pay: true, paNumber: "PA-49" } }],
    ["only md2", "2026-05-12", { md2: "XP" }, { note: { ...paid, md2: "XP", paid: true }, report: { ...paid, md2: "XP", pay: true, paNumber: "PA-1" } }],
    ["only pay, cleared", "2026-05-13", { pay: false }, { note: { ...paid, paid: false }, report: { ...paid, pay: false, paNumber: "PA-1" } }],
    ["md cleared (null)", "2026-05-14", { md: null }, { note: { ...paid, md: null, paid: true }, report: { ...paid, md: null, pay: true, paNumber: "PA-1" } }],
    ["billed and pay cleared (false)", "2026-05-15", { billed: false, pay: false }, { note: { ...paid, billed: false, paid: false }, report: { ...paid, billed: false, pay: false, paNumber: "PA-1" } }],
  ])("update with %s changes that and keeps the rest", async (_l, date, body, expected) => {
    const { noteId, reportId } = await paidNote(date);
    const res = await api(`/client_report/update/${reportId}`, { method: "POST", token: biller, body: { ...body, version: 1 } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await stateOf(noteId)).toEqual({ note: expected.note, report: { ...expected.report, version: 2 } });
  });

  it("store on the existing record with only its version and the PA number keeps the modifiers, billed and pay", async () => {
    const { noteId } = await paidNote("2026-05-05");
    const res = await api(`/client_report/store`, { method: "POST", token: biller, body: { note_id: noteId, version: 1, pa_number: "PA-2" } });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await stateOf(noteId)).toEqual({ note: { ...paid, paid: true }, report: { ...paid, pay: true, paNumber: "PA-2", version: 2 } });
  });

  it("a body naming no field answers 422 'Nothing to change' and writes nothing", async () => {
    const { noteId, reportId } = await paidNote("2026-05-06");
    const before = await stateOf(noteId);
    const audits = await auditCount();
    for (const body of [{ version: 1, note_version: 2 }, {}, { chargesrbt: 5 }]) {
      const res = await api(`/client_report/update/${reportId}`, { method: "POST", token: biller, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(((await res.json()) as any).errors).toEqual({ form: "Nothing to change: send at least one field to update." });
    }
    expect(await stateOf(noteId)).toEqual(before);
    expect(await auditCount()).toBe(audits);
  });

  it("billed cleared on a paid note without pay answers 422 on billed; nothing changes", async () => {
    const { noteId, reportId } = await paidNote("2026-05-07");
    const before = await stateOf(noteId);
    const res = await api(`/client_report/update/${reportId}`, { method: "POST", token: biller, body: { billed: false } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).errors).toEqual({ billed: "A note is paid only after it is billed." });
    expect(await stateOf(noteId)).toEqual(before);
  });

  it("pay on an unbilled note (billed not sent) answers 422 on pay; no record is written", async () => {
    const n = await note({ type: "rbt", patientId: client.id, locationId: clinic.id, date: "2026-05-18", paServiceId: paId });
    const before = await rowsOf();
    const res = await api(`/client_report/store`, { method: "POST", token: biller, body: { note_rbt_id: n.id, pay: true } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).errors).toEqual({ pay: "A note is paid only after it is billed." });
    expect(await rowsOf()).toBe(before);
  });

  it("a BCBA record updated with the RBT names (md) takes them: a sent field is never ignored", async () => {
    const n = await note({ type: "bcba", patientId: client.id, locationId: clinic.id, date: "2026-05-08", md: "HO" });
    const created = (await (await api(`/client_report/store`, { method: "POST", token: biller, body: { note_bcba_id: n.id, mdbcba: "HO" } })).json()) as any;
    const res = await api(`/client_report/update/${created.data.report.id}`, { method: "POST", token: biller, body: { md2: "GT" } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await stateOf(n.id)).note).toMatchObject({ md: "HO", md2: "GT" });
  });

  it("on a note on a live claim, the PA number alone is saved: no refusal on the modifiers or billed flag it did not send", async () => {
    const { claim, lines } = await createClaim({ id: client.id, locationId: clinic.id }, [{ cpt: "97153", serviceDate: "2026-05-11", units: 8, chargeCents: 10000 }]);
    const { noteId, reportId } = lines[0]!;
    await db().update(notes).set({ md: "HM" }).where(eq(notes.id, noteId));
    const res = await api(`/client_report/update/${reportId}`, { method: "POST", token: biller, body: { pa_number: "AUTH314" } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await stateOf(noteId)).note).toMatchObject({ md: "HM", billed: true });
    // A change it does send is still refused, naming the claim.
    const refused = await api(`/client_report/update/${reportId}`, { method: "POST", token: biller, body: { md: null } });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as any).errors.md).toContain(claim.claimNumber);
  });
});

describe("store reads the fields under the names sent, whichever id names the note (decision 030, stop 35; probe 8984 M1)", () => {
  let clinic: { id: number };
  let biller: string;
  let client: { id: number };
  let paId: number;
  let day = 0;

  beforeAll(async () => {
    clinic = await createLocation();
    biller = await apiToken(await createUser({ role: "MANAGER", permissions: ["manage_claims"], locations: [clinic.id] }));
    client = await createPatient({ locationId: clinic.id, insurerId: insurer });
    const [pa] = await db().insert(paServices).values({ patientId: client.id, paService: "Supervision", cpt: "97155", nUnits: 400, startDate: "2026-01-01", endDate: "2026-12-31", insuranceId: insurer }).returning();
    paId = pa!.id;
  });

  /** A BCBA note (97155, HO) of its own day, signed or not. */
  async function bcbaNote(signed: boolean) {
    day++;
    const n = await note({ type: "bcba", patientId: client.id, locationId: clinic.id, date: `2026-06-${String(day).padStart(2, "0")}`, minutes: 60, paServiceId: paId, md: "HO" });
    if (!signed) await db().update(notes).set({ signedAt: null, providerSignedOn: null }).where(eq(notes.id, n.id));
    return n.id;
  }
  const stateOf = async (noteId: number) => {
    const [n] = await db().select({ md: notes.md, billed: notes.billed }).from(notes).where(eq(notes.id, noteId));
    const [r] = await db().select({ md: clientReports.md, billed: clientReports.billed }).from(clientReports).where(eq(clientReports.noteId, noteId));
    return { note: n, report: r ?? null };
  };

  // The same body under each role's names: the RBT names (md, billed) and the BCBA names (mdbcba, billedbcba).
  const names = { rbt: "", bcba: "bcba" } as const;
  const cases = [
    // what is sent (by role-neutral name) → the status, the field refused (named as sent) and what is stored after
    { what: "a modifier and billed: both applied", signed: true, body: { md: "XE", billed: true }, status: 201, refused: null, after: { note: { md: "XE", billed: true }, report: { md: "XE", billed: true } } },
    { what: "billed on an unsigned note: the scrubber refuses it", signed: false, body: { billed: true }, status: 422, refused: "billed", after: { note: { md: "HO", billed: false }, report: null } },
    { what: "a modifier that does not fit a BCBA note: refused", signed: true, body: { md: "HM" }, status: 422, refused: "md", after: { note: { md: "HO", billed: false }, report: null } },
  ] as const;
  const table = (["note_id", "note_rbt_id", "note_bcba_id"] as const).flatMap((key) => (Object.keys(names) as (keyof typeof names)[]).flatMap((set) => cases.map((c) => [key, set, c.what, c] as const)));

  it.each(table)("%s with the %s names, %s", async (key, set, _what, c) => {
    const noteId = await bcbaNote(c.signed);
    const suffix = names[set];
    const body = Object.fromEntries(Object.entries(c.body).map(([k, x]) => [k === "md" ? `md${suffix}` : `${k}${suffix}`, x]));
    const res = await api(`/client_report/store`, { method: "POST", token: biller, body: { [key]: noteId, ...body } });
    expect(res.status, await res.clone().text()).toBe(c.status);
    if (c.refused) {
      const answer = (await res.json()) as any;
      expect(Object.keys(answer.errors)).toEqual([`${c.refused}${suffix}`]);
      expect(answer.message).toBe(answer.errors[`${c.refused}${suffix}`]);
    }
    expect(await stateOf(noteId)).toEqual(c.after);
  });

  it("with both sets sent, the id's role is read (the spec's payload carries both roles' flags)", async () => {
    const both = { md: "XE", billed: false, mdbcba: "GT", billedbcba: false };
    const viaRbt = await bcbaNote(true);
    expect((await api(`/client_report/store`, { method: "POST", token: biller, body: { note_rbt_id: viaRbt, ...both } })).status).toBe(201);
    expect((await stateOf(viaRbt)).note).toEqual({ md: "XE", billed: false });
    for (const key of ["note_bcba_id", "note_id"]) {
      const id = await bcbaNote(true);
      expect((await api(`/client_report/store`, { method: "POST", token: biller, body: { [key]: id, ...both } })).status).toBe(201);
      expect((await stateOf(id)).note, key).toEqual({ md: "GT", billed: false });
    }
  });
});

describe("a note is priced for its provider's credential: the row, the save and the scrubber agree (decision 030, 2026-11-26 (issue 11 review))", () => {
  let clinic: { id: number };
  let biller: string;
  let analyst: { id: number };
  let technician: { id: number };
  let noRole: { id: number };
  let dual: number;
  let rbtOnly: number;

  beforeAll(async () => {
    clinic = await createLocation();
    // Dual prices 97153 for RBTs and for BCBAs; RbtOnly only for RBTs.
    const [a] = await db().insert(insurances).values({ name: "Dual Health", payerId: "PAYER1" }).returning();
    const [b] = await db().insert(insurances).values({ name: "RbtOnly Health", payerId: "PAYER1" }).returning();
    dual = a!.id;
    rbtOnly = b!.id;
    await db()
      .insert(insuranceServices)
      .values([
        { insuranceId: dual, cptCode: "97153", provider: "rbt", type: "rbt", unitPrice: 12.5 },
        { insuranceId: dual, cptCode: "97153", provider: "bcba", type: "bcba", unitPrice: 20 },
        { insuranceId: rbtOnly, cptCode: "97153", provider: "rbt", type: "rbt", unitPrice: 12.5 },
      ]);
    analyst = await createUser({ role: "BCBA", permissions: ["view_notes"], locations: [clinic.id] });
    technician = await createUser({ role: "RBT", permissions: ["view_notes"], locations: [clinic.id] });
    noRole = await createUser({ permissions: ["view_notes"], locations: [clinic.id] });
    biller = await apiToken(await createUser({ permissions: ["manage_claims"], locations: [clinic.id] }));
  });

  async function client(insurerId: number) {
    const c = await createPatient({ locationId: clinic.id, insurerId });
    const [pa] = await db().insert(paServices).values({ patientId: c.id, paService: `PA-${c.id}`, cpt: "97153", nUnits: 400, startDate: "2026-01-01", endDate: "2026-12-31", insuranceId: insurerId }).returning();
    return { id: c.id, pa: pa!.id };
  }

  it.each([
    // who renders an RBT note of 97153 (8 units) → the unit price shown, saved and judged
    ["a BCBA: the BCBA price", () => analyst, 2000, 16000],
    ["an RBT: the RBT price", () => technician, 1250, 10000],
    ["a provider without a credential role: the note's type (rbt)", () => noRole, 1250, 10000],
  ])("%s", async (_l, who, unitPrice, charges) => {
    const c = await client(dual);
    const n = await note({ type: "rbt", patientId: c.id, locationId: clinic.id, date: "2026-04-06", paServiceId: c.pa, providerId: who().id });
    const report = (await (await api(`/client_report/byprofile/${c.id}`, { token: biller })).json()) as any;
    expect(report.data).toHaveLength(1);
    expect(report.data[0]).toMatchObject({ id: n.id, unit_price_cents: unitPrice, charges_cents: charges, reasons: [] });
    const saved = await api(`/client_report/store`, { method: "POST", token: biller, body: { note_rbt_id: n.id, billed: true } });
    expect(saved.status, await saved.clone().text()).toBe(201);
    expect(((await saved.json()) as any).data.report).toMatchObject({ unit_price_cents: unitPrice, charges_cents: charges, billed: true });
  });

  it("a BCBA's note the payer has no BCBA price for shows no price and the scrubber's reason, and cannot be billed", async () => {
    const c = await client(rbtOnly);
    const n = await note({ type: "rbt", patientId: c.id, locationId: clinic.id, date: "2026-04-07", paServiceId: c.pa, providerId: analyst.id });
    const row = ((await (await api(`/client_report/byprofile/${c.id}`, { token: biller })).json()) as any).data[0];
    // The price the scrubber judged (none) is the price shown: never $12.50 beside "has no price".
    expect(row).toMatchObject({ unit_price_cents: 0, charges_cents: 0, reasons: ["RbtOnly Health has no price for CPT 97153 for BCBA providers."] });
    const before = await rowsOf();
    const refused = await api(`/client_report/store`, { method: "POST", token: biller, body: { note_rbt_id: n.id, billed: true } });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as any).errors.billed).toMatch(/no price for CPT 97153 for BCBA providers/);
    expect(await rowsOf()).toBe(before);
  });
});

describe("a query parameter given twice with different values (probe 8914 #5)", () => {
  it.each([
    ["/client_report/byprofile/1?date_start=2026-11-05&date_start=2026-11-01", 422, "date_start"],
    ["/client_report/bylocation/1?date_from=2026-11-05&date_from=2026-11-01", 422, "date_from"],
    ["/v2/notes-rbt?page=1&page=2", 422, "page"],
  ] as const)("%s → %i naming it", async (path, status, key) => {
    const res = await api(path, { token: await apiToken(await createUser({ permissions: ["manage_claims", "view_notes"] })) });
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual({ message: `Give ${key} once.`, errors: { [key]: `Give ${key} once.` } });
  });
  it("the same value twice is one value", async () => {
    const res = await api("/v2/notes-rbt?page=1&page=1", { token: await apiToken(await createUser({ permissions: ["view_notes"] })) });
    expect(res.status).toBe(200);
  });
});

describe("the PA number is only what a claim line can carry, checked on every save (decision 034, stop 31)", () => {
  const separators = (c: string) => `The PA number contains '${c}', which a claim cannot carry (* ~ : ^ separate the file's parts). Edit it and save again.`;
  const tooLong = "The PA number is longer than the 50 characters a claim can carry. Shorten it and save again.";
  const identifier = (c: string) => `The PA number contains '${c}', which a claim cannot carry as typed: an identifier goes out letter for letter (A–Z, digits and basic punctuation). Edit it and save again.`;
  const refused: [string, string, string][] = [
    ["an element separator", "AUTH*1", separators("*")],
    ["a segment terminator", "AUTH~1", separators("~")],
    ["a component separator", "AUTH:1", separators(":")],
    ["a repetition separator", "AUTH^1", separators("^")],
    ["51 characters", "A".repeat(51), tooLong],
    // An authorization number goes out letter for letter (stop 35): a letter outside A–Z is refused, not transliterated.
    ["26 ß", "ß".repeat(26), identifier("ß")],
    ["a character outside X12's set", "AUTH山1", identifier("山")],
    ["accented letters", "Zoë-7", identifier("ë")],
    ["a tab", "AUTH\t1", "The PA number contains a control or invisible character (U+0009), which a claim cannot carry. Edit it and save again."],
    ["a line break", "AUTH\n1", "The PA number contains a control or invisible character (U+000A), which a claim cannot carry. Edit it and save again."],
    ["runs of spaces over 50 typed characters", `A${" ".repeat(60)}B`, "PA number is at most 50 characters."],
  ];
  let noteId: number;
  let reportId: number;
  let cookie: string;
  const stored = async () => (await db().select({ paNumber: clientReports.paNumber, version: clientReports.version }).from(clientReports).where(eq(clientReports.id, reportId)))[0]!;
  beforeAll(async () => {
    noteId = (await note({ type: "rbt", patientId: patient.id, locationId: here.id, date: "2026-04-06", paServiceId: ids.pa })).id;
    const created = await api(`/client_report/store`, { method: "POST", token: manager, body: { note_rbt_id: noteId, pa_number: "AUTH-1" } });
    expect(created.status, await created.clone().text()).toBe(201);
    reportId = ((await created.json()) as any).data.report.id;
    cookie = await signInCookie(await createUser({ permissions: ["manage_claims"], locations: [here.id] }));
  });

  it.each(refused)("%s: refused at pa_number by the API's store and update and by the screen's save; nothing written", async (_l, paNumber, message) => {
    const before = await rowsOf();
    // store of a note with no billing record yet: 422, no record.
    const store = await api(`/client_report/store`, { method: "POST", token: manager, body: { note_rbt_id: ids.rbt2, pa_number: paNumber } });
    expect(store.status).toBe(422);
    expect(((await store.json()) as any).errors).toEqual({ pa_number: message });
    expect(await rowsOf()).toBe(before);
    // update/{id} of an existing record, and the screen's save of its row, Billed not ticked: 422, the record keeps AUTH-1.
    const update = await api(`/client_report/update/${reportId}`, { method: "POST", token: manager, body: { pa_number: paNumber } });
    expect(update.status).toBe(422);
    expect(((await update.json()) as any).errors).toEqual({ pa_number: message });
    const [n] = await db().select({ version: notes.version }).from(notes).where(eq(notes.id, noteId));
    const screen = await form(`/billing/by-client/${patient.id}`, { intent: "save", note_id: String(noteId), note_version: String(n!.version), version: String((await stored()).version), md: "HM", md2: "", pa_number: paNumber }, cookie);
    expect(screen.status).toBe(422);
    const page = (await screen.text()).replaceAll("&#x27;", "'");
    // The message in the row's alert; the typed modifier kept in its selector.
    expect(page).toContain(`<p id="row-${noteId}-error" class="field-error" role="alert">${message.replaceAll("&", "&amp;").replaceAll("<", "&lt;")}</p>`);
    const md = (page.match(/<select[^>]*>.*?<\/select>/gs) ?? []).find((x) => x.includes(`form="row-${noteId}"`) && x.includes('name="md"'));
    expect(md).toMatch(/<option value="HM" selected="">/);
    expect(await stored()).toMatchObject({ paNumber: "AUTH-1", version: 1 });
    const [after] = await db().select({ md: notes.md, version: notes.version }).from(notes).where(eq(notes.id, noteId));
    expect(after).toEqual({ md: null, version: n!.version });
  });

  it.each([
    ["letters, digits and a dash", "AUTH-2", "AUTH-2"],
    ["50 characters", "B".repeat(50), "B".repeat(50)],
    ["blank: no PA number", "  ", null],
  ])("%s: saved", async (_l, paNumber, kept) => {
    const res = await api(`/client_report/update/${reportId}`, { method: "POST", token: manager, body: { pa_number: paNumber } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await stored()).paNumber).toBe(kept);
  });
});
