import { count } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, notes, paServices } from "~/db/schema";
import { todayAtLocation } from "~/domain/pa-pacing";
import { addDays } from "~/domain/weeks";
import { api, apiToken, createLocation, createPatient, createUser, db, request, signInCookie, type TestUser } from "./helpers";

/**
 * The PA calculator, pacing and the note form's weekly units meter (issue 11 "Authorization calculator, meter
 * and pacing"; decision 031): permission as PA services (view_clients), another location's record 404, bad ids
 * 4xx JSON, and the meter on the note form without JavaScript.
 */

const ZONE = "America/Los_Angeles";
const today = () => todayAtLocation(new Date(), ZONE);

let w: {
  token: string;
  managerCookie: string;
  noPermToken: string;
  outsiderToken: string;
  rbt: TestUser;
  rbtCookie: string;
  patient: number;
  stranger: number;
  pa: number;
  smallPa: number;
  strangerPa: number;
  note: number;
  location: number;
};

async function addNote(patientId: number, locationId: number, providerId: number, paServiceId: number, sessionDate: string, units: number) {
  const [row] = await db()
    .insert(notes)
    .values({ type: "rbt", patientId, locationId, providerId, paServiceId, cptCode: "97153", sessionDate, timeIn: "09:00", timeOut: "11:00", minutes: units * 15, units, pos: "12" })
    .returning();
  return row!.id;
}

beforeAll(async () => {
  const loc = await createLocation({ timeZone: ZONE, posCodes: "12" });
  const elsewhere = await createLocation();
  const patient = await createPatient({ locationId: loc.id });
  const stranger = await createPatient({ locationId: elsewhere.id });
  const t = today();
  // 28 days → 4 weeks → 10 units a week on average.
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "RBT direct", cpt: "97153", nUnits: 40, startDate: addDays(t, -13), endDate: addDays(t, 14) }).returning();
  const [small] = await db().insert(paServices).values({ patientId: patient.id, paService: "Small", cpt: "97153", nUnits: 10, startDate: addDays(t, -6), endDate: addDays(t, 7) }).returning();
  const [strangerPa] = await db().insert(paServices).values({ patientId: stranger.id, paService: "Theirs", cpt: "97153", nUnits: 40, startDate: addDays(t, -13), endDate: addDays(t, 14) }).returning();
  const rbt = await createUser({ permissions: ["view_notes"], locations: [loc.id] });
  const note = await addNote(patient.id, loc.id, rbt.id, pa!.id, t, 8);
  await addNote(patient.id, loc.id, rbt.id, small!.id, t, 8);
  const manager = await createUser({ permissions: ["view_clients"], locations: [loc.id] });
  w = {
    token: await apiToken(manager),
    managerCookie: await signInCookie(manager),
    noPermToken: await apiToken(await createUser({ permissions: ["view_notes"], locations: [loc.id] })),
    outsiderToken: await apiToken(await createUser({ permissions: ["view_clients"], locations: [elsewhere.id] })),
    rbt,
    rbtCookie: await signInCookie(rbt),
    patient: patient.id,
    stranger: stranger.id,
    pa: pa!.id,
    smallPa: small!.id,
    strangerPa: strangerPa!.id,
    note,
    location: loc.id,
  };
});

async function auditRows(): Promise<number> {
  const [r] = await db().select({ n: count() }).from(auditLog);
  return r!.n;
}

describe("GET /api/v2/pa-service-calculator/{id}", () => {
  it("answers the weekly calculation with the units left, in the client's location week, and records the read", async () => {
    const before = await auditRows();
    const res = await api(`/v2/pa-service-calculator/${w.pa}`, { token: w.token });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Record<string, unknown> };
    const t = today();
    expect(data).toMatchObject({ id: w.pa, used_units_this_week: 8, average_units_per_week: 10, n_units: 40, spent_units: 8, remaining_units: 32, available_units: 32, weeks: 4 });
    expect(data.week_start_date! <= t && t <= data.week_end_date!).toBe(true);
    expect(await auditRows()).toBe(before + 1);
  });

  it("a one-day authorization (start = end) is created through the API and counts as one week: average = n_units; an end before the start is refused", async () => {
    const token = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [w.location] }));
    const t = today();
    const client = await createPatient({ locationId: w.location });
    const body = { patient_id: client.id, pa_service: "One day", cpt: "97153", n_units: 6, start_date: t, end_date: t };
    const created = await api("/v2/pa-services", { method: "POST", token, body });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { data: { id: number } }).data.id;
    const res = await api(`/v2/pa-service-calculator/${id}`, { token: w.token });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Record<string, unknown> };
    expect(data).toMatchObject({ id, weeks: 1, average_units_per_week: 6, n_units: 6, used_units_this_week: 0, remaining_units: 6 });
    const reversed = await api("/v2/pa-services", { method: "POST", token, body: { ...body, end_date: addDays(t, -1) } });
    expect(reversed.status).toBe(422);
    expect(((await reversed.json()) as { errors: Record<string, string> }).errors.end_date).toBe("The end date cannot be before the start date.");
  });

  it("a deleted note gives its units back", async () => {
    const id = await addNote(w.patient, w.location, w.rbt.id, w.pa, today(), 4);
    const { data } = (await (await api(`/v2/pa-service-calculator/${w.pa}`, { token: w.token })).json()) as { data: { used_units_this_week: number } };
    expect(data.used_units_this_week).toBe(12);
    const { eq } = await import("drizzle-orm");
    await db().update(notes).set({ deletedAt: new Date().toISOString() }).where(eq(notes.id, id));
    const again = (await (await api(`/v2/pa-service-calculator/${w.pa}`, { token: w.token })).json()) as { data: { used_units_this_week: number } };
    expect(again.data.used_units_this_week).toBe(8);
  });

  it.each<[string, () => string, () => number | string, number]>([
    ["without view_clients: 403", () => w.noPermToken, () => w.pa, 403],
    ["another location's PA service: 404", () => w.outsiderToken, () => w.pa, 404],
    ["a PA service of another location seen from here: 404", () => w.token, () => w.strangerPa, 404],
    ["no such PA service: 404", () => w.token, () => 99_999, 404],
    ["a bad id: 404 JSON", () => w.token, () => "abc", 404],
    ["a zero id: 404 JSON", () => w.token, () => "0", 404],
  ])("%s", async (_label, token, id, status) => {
    const before = await auditRows();
    const res = await api(`/v2/pa-service-calculator/${id()}`, { token: token() });
    expect(res.status).toBe(status);
    expect(((await res.json()) as { message: string }).message).toBeTruthy();
    expect(await auditRows()).toBe(before);
  });
});

describe("pacing as JSON", () => {
  it("GET /api/v2/pa-services/{id}/pacing: the forecast and its flags", async () => {
    const res = await api(`/v2/pa-services/${w.smallPa}/pacing`, { token: w.token });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { pacing: { phase: string; will_run_out: boolean; summary: string }; calculation: { average_units_per_week: number } } };
    // 8 of 10 units used in the first week of a two-week authorization: at that rate it runs out.
    expect(data.pacing.phase).toBe("active");
    expect(data.pacing.will_run_out).toBe(true);
    expect(data.pacing.summary).toMatch(/^Will run out on \d{4}-\d{2}-\d{2}, before the end date/);
    expect(data.calculation.average_units_per_week).toBe(5);
  });

  it("GET /api/v2/pa-pacing?patient_id=: every PA service of the client", async () => {
    const before = await auditRows();
    const res = await api(`/v2/pa-pacing?patient_id=${w.patient}`, { token: w.token });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { id: number }[] };
    expect(data.map((p) => p.id).sort()).toEqual([w.pa, w.smallPa].sort());
    expect(await auditRows()).toBe(before + 1);
  });

  it.each<[string, () => string, () => string, number]>([
    ["without view_clients: 403", () => w.noPermToken, () => `/v2/pa-pacing?patient_id=${w.patient}`, 403],
    ["another location's client: 404", () => w.outsiderToken, () => `/v2/pa-pacing?patient_id=${w.patient}`, 404],
    ["a client of another location: 404", () => w.token, () => `/v2/pa-pacing?patient_id=${w.stranger}`, 404],
    ["no patient_id: 422", () => w.token, () => `/v2/pa-pacing`, 422],
    ["a bad patient_id: 422", () => w.token, () => `/v2/pa-pacing?patient_id=1e3`, 422],
    ["another location's PA service: 404", () => w.outsiderToken, () => `/v2/pa-services/${w.pa}/pacing`, 404],
    ["a bad PA service id: 404", () => w.token, () => `/v2/pa-services/x1/pacing`, 404],
    ["without view_clients, one PA service: 403", () => w.noPermToken, () => `/v2/pa-services/${w.pa}/pacing`, 403],
  ])("%s", async (_label, token, path, status) => {
    const res = await api(path(), { token: token() });
    expect(res.status).toBe(status);
    expect(((await res.json()) as { message: string }).message).toBeTruthy();
  });
});

describe("pacing on the client profile", () => {
  it("the PA services table says in words which authorization will run out", async () => {
    const res = await request(`/patients/profile/${w.patient}`, { cookie: w.managerCookie });
    expect(res.status).toBe(200);
    const html = (await res.text()).replace(/<!-- -->/g, "");
    expect(html).toContain("<th>Pacing</th>");
    // The flag is said once: made strong where the sentence begins with it (probe 9045).
    expect(html).toMatch(/>Will run out<\/strong> on \d{4}-\d{2}-\d{2}, before the end date/);
    expect(html).not.toContain("Will run out. ");
    // The other one: 8 of 40 units in 14 days, at 4 a week for 14 more days → 24 left, above 20 % of 40.
    expect(html).toContain(">Under-using</strong>: 24 units forecast unused on");
    expect(html).not.toContain("Under-using. ");
  });
});

/** The meter's pieces as the note form renders them. */
function meterOf(html: string) {
  const exceeded = /<p class="meter-exceeded" data-meter-exceeded="true"( hidden="")?>Expected weekly usage exceeded.<\/p>/.exec(html);
  const text = /<span data-meter-text="true">([^<]*)<\/span>/.exec(html)?.[1] ?? null;
  const unitsRed = /class="units-over" data-units-display="true"/.test(html);
  return { exceeded: exceeded ? !exceeded[1] : null, text, unitsRed };
}

function post(path: string, fields: Record<string, string>, cookie: string) {
  return request(path, { method: "POST", body: new URLSearchParams(fields), cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

describe("the weekly units meter on the note form, JavaScript off", () => {
  const refused = (pa: string, timeOut: string) => ({
    intent: "save",
    type: "rbt",
    patient_id: String(w.patient),
    provider_id: String(w.rbt.id),
    session_date: today(),
    cpt_code: "97153",
    pa_service_id: pa,
    time_in: "14:00",
    time_out: timeOut,
    // A second pair without its time out: the save is refused and the form is shown again.
    time_in2: "17:00",
    time_out2: "",
    pos: "12",
  });

  it("a refused save shows the meter for the typed times: 8 used + 4 projected > 10 a week", async () => {
    const res = await post(`/note-rbt?patient_id=${w.patient}`, refused(String(w.pa), "15:00"), w.rbtCookie);
    const html = await res.text();
    expect(res.status).toBe(422);
    const m = meterOf(html);
    expect(m.text).toBe("This week: 12 of 10 units expected per week (including this note).");
    expect(m.exceeded).toBe(true);
    expect(m.unitsRed).toBe(false);
  });

  it("within the average: no warning", async () => {
    const res = await post(`/note-rbt?patient_id=${w.patient}`, refused(String(w.pa), "14:30"), w.rbtCookie);
    const m = meterOf(await res.text());
    expect(m.text).toBe("This week: 10 of 10 units expected per week (including this note).");
    expect(m.exceeded).toBe(false);
  });

  it("projected units above the units left turn the units display red", async () => {
    const res = await post(`/note-rbt?patient_id=${w.patient}`, refused(String(w.smallPa), "15:00"), w.rbtCookie);
    const html = await res.text();
    expect(meterOf(html)).toMatchObject({ unitsRed: true, exceeded: true });
    expect(html).toContain('<span data-units-over-text="true">more than the 2 units left on the PA service</span>');
  });

  it.each([
    ["14:22", "22 minutes · 1 unit"],
    ["14:01", "1 minute · 0 units"],
    ["15:00", "60 minutes · 4 units"],
  ])("the running total says '1 unit' and '1 minute' in the singular (time out %s)", async (timeOut, words) => {
    const html = (await (await post(`/note-rbt?patient_id=${w.patient}`, { ...refused(String(w.pa), timeOut), time_in2: "", time_out2: "", session_date: "x" }, w.rbtCookie)).text()).replace(/<!-- -->/g, "");
    const totals = /<p class="note-totals"[^>]*>([\s\S]*?)<\/p>/.exec(html)?.[1] ?? "";
    expect(totals.replace(/<[^>]+>/g, "").replace(/\s+/g, " ").trim()).toMatch(new RegExp(`^Total: ${words}`));
  });

  it("no PA service chosen: 'Please select a CPT Code'", async () => {
    const res = await post(`/note-rbt?patient_id=${w.patient}`, refused("", "15:00"), w.rbtCookie);
    expect(meterOf(await res.text())).toMatchObject({ text: "Please select a CPT Code", exceeded: false });
  });

  it("editing a note does not count its own units twice", async () => {
    const res = await request(`/note-rbt/edit/${w.note}`, { cookie: w.rbtCookie });
    expect(res.status).toBe(200);
    // The stored note: 09:00–11:00 (8 units) on the PA service whose week already holds exactly those 8.
    expect(meterOf(await res.text()).text).toBe("This week: 8 of 10 units expected per week (including this note).");
  });
});

describe("an ended authorization that was overspent (probe 8973 §1)", () => {
  it("says the overspend on the pacing call, the profile, the pas report and its CSV; one left over says 'unused'", async () => {
    const t = today();
    const client = await createPatient({ locationId: w.location, firstName: "Overspent", lastName: "Ended" });
    // Ended yesterday: 1 unit authorized, 2 written (one over); the other 100 authorized, 99 written (one left).
    const [over] = await db().insert(paServices).values({ patientId: client.id, paService: "EndedOver", cpt: "97153", nUnits: 1, startDate: addDays(t, -31), endDate: addDays(t, -1) }).returning();
    const [left] = await db().insert(paServices).values({ patientId: client.id, paService: "EndedLeft", cpt: "97153", nUnits: 100, startDate: addDays(t, -31), endDate: addDays(t, -1) }).returning();
    await addNote(client.id, w.location, w.rbt.id, over!.id, addDays(t, -2), 2);
    await addNote(client.id, w.location, w.rbt.id, left!.id, addDays(t, -3), 99);
    const end = addDays(t, -1);
    const overSentence = `Ended on ${end}, 1 unit over the authorization.`;
    const leftSentence = `Ended on ${end} with 1 unit unused.`;

    const res = await api(`/v2/pa-services/${over!.id}/pacing`, { token: w.token });
    const { data } = (await res.json()) as { data: { pacing: { phase: string; exhausted: boolean; available_units: number; summary: string } } };
    expect(data.pacing).toMatchObject({ phase: "ended", exhausted: true, available_units: -1, summary: overSentence });
    const other = (await (await api(`/v2/pa-services/${left!.id}/pacing`, { token: w.token })).json()) as { data: { pacing: { summary: string } } };
    expect(other.data.pacing.summary).toBe(leftSentence);

    const profile = (await (await request(`/patients/profile/${client.id}`, { cookie: w.managerCookie })).text()).replace(/<!-- -->/g, "");
    expect(profile).toContain(`Overspent. </strong>${overSentence}`);
    expect(profile).toContain(`<span class="pacing" data-pacing="ended">${leftSentence}</span>`);

    const reporter = await signInCookie(await createUser({ permissions: ["manage_notes", "view_clients"], locations: [w.location] }));
    const html = (await (await request(`/reports/pas?status=ended&patient_id=${client.id}`, { cookie: reporter })).text()).replace(/<!-- -->/g, "");
    expect(html).toContain(overSentence);
    expect(html).toContain(leftSentence);
    const csv = await (await request(`/reports/pas/export.csv?status=ended&patient_id=${client.id}`, { cookie: reporter })).text();
    const line = (name: string) => csv.split("\r\n").find((l) => l.includes(name)) ?? "";
    expect(line("EndedOver")).toContain(`,1,2,-1,`);
    expect(line("EndedOver")).toContain(`,Overspent,"${overSentence}"`);
    expect(line("EndedLeft")).toContain(`,Ended,${leftSentence}`);
  });
});

describe("units left on the note form never read negative (probe 8973 §2)", () => {
  it("an overspent PA service: the units display and its option say 'already N units over its authorized units', JavaScript off", async () => {
    const t = today();
    const client = await createPatient({ locationId: w.location });
    // 5 units authorized, 12 written: 7 over.
    const [pa] = await db().insert(paServices).values({ patientId: client.id, paService: "YearEnd", cpt: "97153", nUnits: 5, startDate: addDays(t, -20), endDate: addDays(t, 40) }).returning();
    await addNote(client.id, w.location, w.rbt.id, pa!.id, addDays(t, -10), 12);
    const fields = {
      intent: "save",
      type: "rbt",
      patient_id: String(client.id),
      provider_id: String(w.rbt.id),
      session_date: t,
      cpt_code: "97153",
      pa_service_id: String(pa!.id),
      time_in: "00:00",
      time_out: "00:30",
      time_in2: "17:00",
      time_out2: "",
      pos: "12",
    };
    const res = await post(`/note-rbt?patient_id=${client.id}`, fields, w.rbtCookie);
    expect(res.status).toBe(422);
    const html = (await res.text()).replace(/<!-- -->/g, "");
    expect(meterOf(html).unitsRed).toBe(true);
    expect(html).toContain('<span data-units-over-text="true">the PA service is already 7 units over its authorized units</span>');
    expect(html).toContain(`YearEnd · 97153 · ${addDays(t, -20)} to ${addDays(t, 40)} · already 7 units over its 5 authorized units`);
    expect(html).not.toMatch(/-7 (units|of)/);
  });
});
