import { describe, expect, it } from "vitest";
import { notes, paServices } from "~/db/schema";
import { FILTER_FLAG_MESSAGE, FILTER_ID_MESSAGE, FILTER_STATUS_MESSAGE, unknownFilterMessage } from "~/domain/list-filters";
import { NOTE_MESSAGES } from "~/domain/note-rules";
import { dayNumber } from "~/domain/weeks";
import { DATE_MESSAGE, type ListQuery } from "~/domain/paging";
import { getActor } from "~/models/actors.server";
import type { ModelContext } from "~/models/context";
import * as bipsApi from "../../workers/api/bips";
import * as employeesApi from "../../workers/api/employees";
import * as insurancesApi from "../../workers/api/insurances";
import * as intakeApi from "../../workers/api/intake-assessments";
import * as locationsApi from "../../workers/api/locations";
import * as notesApi from "../../workers/api/notes";
import * as parentsApi from "../../workers/api/parents";
import * as patientsApi from "../../workers/api/patients";
import * as plansApi from "../../workers/api/plans";
import * as rateRecordsApi from "../../workers/api/rate-records";
import { takenParams, type RestResource } from "../../workers/api/rest";
import * as rolesApi from "../../workers/api/roles";
import * as weeklyApi from "../../workers/api/weekly-reports";
import { api, apiToken, createBip, createLocation, createPatient, createPlan, createUser, db, request, signInCookie } from "./helpers";

/**
 * A list's filters (decision 017): a malformed record id or status is refused with 422 at its field and one message,
 * never dropped (a dropped filter answers a different list); another location's filter lists nothing, on every list.
 */

const query: ListQuery = { page: 1, per_page: 25, search: "", date_from: "", date_to: "", cache: false };

/** Every RestResource these modules of workers/api declare, found by shape: a new one in them is covered as it lands. */
const resources = [bipsApi, employeesApi, insurancesApi, intakeApi, locationsApi, notesApi, parentsApi, patientsApi, plansApi, rateRecordsApi, rolesApi, weeklyApi]
  .flatMap((m) => Object.values(m as Record<string, unknown>))
  .filter((x): x is RestResource<unknown> => typeof x === "object" && x !== null && "list" in x && "name" in x && "view" in x);
const idFilterCases = resources.flatMap((r) => (r.idFilters ?? []).map((f) => [r.name, f, r] as const));

async function admin() {
  const loc = await createLocation();
  const user = await createUser({ role: "ADMIN", locations: [loc.id] });
  return { loc, user, token: await apiToken(user) };
}

describe("record-id filters: one rule, one message", () => {
  it("every v2 list declares its id filters (the table below is not empty)", () => {
    expect(resources.length).toBeGreaterThan(10);
    expect(idFilterCases.map(([name, f]) => `${name}:${f}`)).toEqual(expect.arrayContaining(["patients:location_id", "pa_services:patient_id", "bips:patient_id", "plans:bip_id", "intake_assessments:patient_id", "rate_records:location_id"]));
  });

  it.each(idFilterCases.flatMap(([name, f, r]) => ["abc", "-1", "1.5"].map((bad) => [name, f, bad, r] as const)))("%s?%s=%s answers 422 at the filter", async (_name, field, bad, resource) => {
    const { user } = await admin();
    const ctx: ModelContext = { db: db(), actor: (await getActor(db(), "user", user.id))!, ip: "127.0.0.1", now: () => new Date() };
    const result = await resource.list(ctx, query, { [field]: bad });
    expect(result).toMatchObject({ ok: false, status: 422, errors: { [field]: FILTER_ID_MESSAGE } });
  });

  it.each([
    ["/v2/bips?patient_id=abc", "patient_id"],
    ["/v2/claims?patient_id=abc", "patient_id"],
    ["/v2/pa-services?patient_id=abc", "patient_id"],
    ["/v2/plans?bip_id=abc", "bip_id"],
    ["/v2/objectives?plan_id=abc", "plan_id"],
    ["/v2/intake-assessments?patient_id=abc", "patient_id"],
    ["/v2/employees?location_id=abc", "location_id"],
    ["/v2/employees?location_id=-1", "location_id"],
    ["/doctors?location_id=abc", "location_id"],
    ["/v2/rate-records?location_id=abc", "location_id"],
    ["/v2/patients?location_id=abc", "location_id"],
    ["/v2/scheduled-sessions?from=2026-11-01&to=2026-11-07&location_id=abc", "location_id"],
  ])("GET %s answers 422 'Filters take a record id.' at %s", async (path, field) => {
    const { token } = await admin();
    const res = await api(path, { token });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ message: FILTER_ID_MESSAGE, errors: { [field]: FILTER_ID_MESSAGE } });
  });

  it.each(["/v2/employees?status=Inactive", "/v2/employees?status=zzz", "/doctors?status=zzz", "/v2/patients?status=zzz"])("GET %s answers 422 'Choose a status from the list.'", async (path) => {
    const { token } = await admin();
    const res = await api(path, { token });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ message: FILTER_STATUS_MESSAGE, errors: { status: FILTER_STATUS_MESSAGE } });
  });

  it("well-formed filters still filter: employees by location and status, rate records by location", async () => {
    const { loc, token } = await admin();
    const other = await createLocation();
    const here = await createUser({ locations: [loc.id], name: "Herefilter" });
    await createUser({ locations: [other.id], name: "Therefilter", status: "inactive" });
    const ids = async (path: string) => ((await (await api(path, { token })).json()) as { data: { id: number }[] }).data.map((e) => e.id);
    expect(await ids(`/v2/employees?per_page=100&location_id=${loc.id}&search=filter`)).toEqual([here.id]);
    expect((await ids(`/v2/employees?per_page=100&status=inactive&search=Therefilter`)).length).toBe(1);
    const rr = await api("/v2/rate-records", { method: "POST", token, body: { name: "Here rates", location_id: loc.id, rbt: 20 } });
    expect(rr.status).toBe(201);
    expect(await ids(`/v2/rate-records?location_id=${loc.id}`)).toEqual([((await rr.json()) as { data: { id: number } }).data.id]);
  });

  it("the employee and rate-record screens show the refused filter at its field, keep what was typed, and list without it", async () => {
    const loc = await createLocation();
    const cookie = await signInCookie(await createUser({ role: "ADMIN", locations: [loc.id] }));
    for (const [path, value, message] of [
      ["/doctors/list?location_id=abc", "abc", FILTER_ID_MESSAGE],
      ["/doctors/list?status=Inactive", "Inactive", FILTER_STATUS_MESSAGE],
      ["/insurance/rates?location_id=-1", "-1", FILTER_ID_MESSAGE],
    ] as const) {
      const res = await request(path, { cookie });
      expect(res.status, path).toBe(200);
      const html = await res.text();
      expect(html, path).toContain(message);
      expect(html, path).toContain(`<option value="${value}" selected="">${value}</option>`);
    }
  });
});

describe("an out-of-scope location filter lists nothing, on every list (decision 017)", () => {
  it.each([
    "/v2/patients?location_id=LOC",
    "/v2/employees?location_id=LOC",
    "/v2/rate-records?location_id=LOC",
    "/v2/tickets?location_id=LOC",
    "/v2/bips?location_id=LOC",
  ])("GET %s: 200, no rows", async (path) => {
    const mine = await createLocation();
    const theirs = await createLocation();
    await createPatient({ locationId: theirs.id });
    await createUser({ locations: [theirs.id] });
    const token = await apiToken(await createUser({ permissions: ["view_clients", "view_employees", "manage_insurances", "view_bips", "manage_claims", "view_notes"], locations: [mine.id] }));
    const res = await api(path.replace("LOC", String(theirs.id)), { token });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it.each(["/v2/claims?location_id=LOC", "/v2/claims/billable-notes?location_id=LOC"])("GET %s (another location, or none): 200, no rows", async (path) => {
    const mine = await createLocation();
    const theirs = await createLocation();
    const token = await apiToken(await createUser({ permissions: ["manage_claims"], locations: [mine.id] }));
    for (const id of [theirs.id, 99_999_999]) {
      const res = await api(path.replace("LOC", String(id)), { token });
      expect(res.status, String(id)).toBe(200);
      const body = (await res.json()) as { data: unknown[] };
      expect(body.data, String(id)).toEqual([]);
    }
  });

  it("the claims screen's location filter and build form's location (another location, or none): the page, no claims or notes listed", async () => {
    const mine = await createLocation();
    const theirs = await createLocation();
    const cookie = await signInCookie(await createUser({ permissions: ["manage_claims"], locations: [mine.id] }));
    for (const id of [theirs.id, 99_999_999]) {
      for (const path of [`/claims?location_id=${id}`, `/claims?pick=1&b_location_id=${id}`]) {
        const res = await request(path, { cookie });
        expect(res.status, path).toBe(200);
        expect(await res.text(), path).not.toContain("not found");
      }
    }
  });

  it("the scheduled-session range and the calendar: a client or provider filter of another location, or of no one, shows nothing (not 404)", async () => {
    const mine = await createLocation();
    const theirs = await createLocation();
    const away = await createPatient({ locationId: theirs.id });
    const awayProvider = await createUser({ locations: [theirs.id] });
    const viewer = await createUser({ permissions: ["view_notes"], locations: [mine.id] });
    const token = await apiToken(viewer);
    const cookie = await signInCookie(viewer);
    for (const [field, id] of [["patient_id", away.id], ["patient_id", 99_999_999], ["provider_id", awayProvider.id], ["provider_id", 99_999_999]] as const) {
      const res = await api(`/v2/scheduled-sessions?from=2026-11-01&to=2026-11-07&${field}=${id}`, { token });
      expect(res.status, `${field}=${id}`).toBe(200);
      expect(((await res.json()) as { data: { entries: unknown[] } }).data.entries, `${field}=${id}`).toEqual([]);
      // The screen's filter form (a GET form, works without JavaScript): the grid, empty, the filter kept.
      const screen = await request(`/calendar/view?view=week&date=2026-11-04&${field}=${id}`, { cookie });
      expect(screen.status, `screen ${field}=${id}`).toBe(200);
      const html = await screen.text();
      expect(html).toContain("Week of");
      expect(html).toContain(`<option value="${id}" selected="">#${id}</option>`);
      expect(html).not.toContain("cal-entry");
    }
  });

  it("the scheduled-session range: 200 with no entries (not 404)", async () => {
    const mine = await createLocation();
    const theirs = await createLocation();
    const token = await apiToken(await createUser({ permissions: ["view_clients", "view_employees", "manage_insurances", "view_bips", "manage_claims", "view_notes"], locations: [mine.id] }));
    const res = await api(`/v2/scheduled-sessions?from=2026-11-01&to=2026-11-07&location_id=${theirs.id}`, { token });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { entries: unknown[] } }).data.entries).toEqual([]);
  });
});

describe("a parent-record or billing location filter the actor cannot see lists nothing (decision 017, 030)", () => {
  async function scene() {
    const mine = await createLocation();
    const theirs = await createLocation();
    const away = await createPatient({ locationId: theirs.id });
    const awayBip = await createBip(away);
    const awayPlan = await createPlan(awayBip);
    const user = await createUser({ permissions: ["view_clients", "view_bips", "manage_bips", "manage_claims"], locations: [mine.id] });
    return { mine, theirs, awayBip, awayPlan, user, token: await apiToken(user) };
  }
  type Scene = Awaited<ReturnType<typeof scene>>;

  // Each list, its filter, and the record of another location to name (a missing id is asked too).
  it.each([
    ["/v2/plans?bip_id=ID", (s: Scene) => s.awayBip.id],
    ["/v2/objectives?plan_id=ID", (s: Scene) => s.awayPlan.id],
    ["/v2/weekly-reports?plan_id=ID", (s: Scene) => s.awayPlan.id],
    ["/v2/weekly-reports?bip_id=ID", (s: Scene) => s.awayBip.id],
    ["/v2/chart-comments?plan_id=ID", (s: Scene) => s.awayPlan.id],
    ["/v2/chart-comments?bip_id=ID", (s: Scene) => s.awayBip.id],
  ] as const)("GET %s (another location's, or none): 200, no rows", async (path, away) => {
    const s = await scene();
    for (const id of [away(s), 99_999_999]) {
      const res = await api(path.replace("ID", String(id)), { token: s.token });
      expect(res.status, `${path} ${id}`).toBe(200);
      expect(((await res.json()) as { data: unknown[] }).data, `${path} ${id}`).toEqual([]);
    }
  });

  it("GET /v2/billing/scrubber?location_id= (another location's, or none): 200, an empty report naming no location; one's own is scrubbed as before", async () => {
    const s = await scene();
    const report = async (id: number) => {
      const res = await api(`/v2/billing/scrubber?location_id=${id}&date_from=2026-01-01&date_to=2026-01-31`, { token: s.token });
      expect(res.status, String(id)).toBe(200);
      return ((await res.json()) as { data: { data: unknown[]; location: unknown; scrubbed: number; total: number } }).data;
    };
    for (const id of [s.theirs.id, 99_999_999]) expect(await report(id), String(id)).toMatchObject({ data: [], location: null, scrubbed: 0, total: 0 });
    expect((await report(s.mine.id)).location).toMatchObject({ id: s.mine.id });
  });

  it("the billing list and the scrubber screens: another location (or none) is the page with nothing listed, the filter kept", async () => {
    const s = await scene();
    const cookie = await signInCookie(s.user);
    for (const id of [s.theirs.id, 99_999_999]) {
      for (const path of [`/billing/list?location_id=${id}`, `/billing/scrubber?location_id=${id}&date_from=2026-01-01&date_to=2026-01-31`]) {
        const res = await request(path, { cookie });
        expect(res.status, path).toBe(200);
        const html = await res.text();
        expect(html, path).not.toContain("not found");
      }
      const scrub = await (await request(`/billing/scrubber?location_id=${id}&date_from=2026-01-01&date_to=2026-01-31`, { cookie })).text();
      expect(scrub).toContain(`<option value="${id}" selected="">#${id}</option>`);
      expect(scrub).toContain("0 of 0 notes need attention.");
    }
    // /billing leads to the list with its filters.
    expect((await request(`/billing?location_id=${s.theirs.id}`, { cookie })).headers.get("Location")).toBe(`/billing/list?location_id=${s.theirs.id}`);
  });

  it("the billing list's location filter never lists another location's clients, nor its staff as providers", async () => {
    const s = await scene();
    await createUser({ locations: [s.theirs.id], name: "Farawaystaff" });
    const res = await api(`/client_report/bylocation/${s.mine.id}?date_from=2026-01-01&date_to=2026-01-31`, { token: s.token });
    expect(res.status).toBe(200);
    // The location in the address keeps its 404 (the address names the record; decision 017).
    expect((await api(`/client_report/bylocation/${s.theirs.id}`, { token: s.token })).status).toBe(404);
    const page = await (await request(`/billing/list?location_id=${s.theirs.id}`, { cookie: await signInCookie(s.user) })).text();
    expect(page).not.toContain("Farawaystaff");
  });
});

describe("weekly reports and chart comments: date_start/date_from (and date_end/date_to) are one filter", () => {
  async function planOf() {
    const { loc, token } = await admin();
    const patient = await createPatient({ locationId: loc.id });
    const bip = await createBip(patient);
    const plan = await createPlan(bip);
    return { token, plan };
  }

  it.each(["weekly-reports", "chart-comments"])("/v2/%s: two different values under the two names are refused at the C §7 name; the same value is one", async (list) => {
    const { token, plan } = await planOf();
    for (const [a, b] of [["date_start", "date_from"], ["date_end", "date_to"]] as const) {
      const res = await api(`/v2/${list}?plan_id=${plan.id}&${a}=2026-01-01&${b}=2026-06-01`, { token });
      expect(res.status).toBe(422);
      const message = `Give ${a} once (${b} is the same filter).`;
      expect(await res.json()).toMatchObject({ message, errors: { [a]: message } });
      expect((await api(`/v2/${list}?plan_id=${plan.id}&${a}=2026-01-01&${b}=2026-01-01`, { token })).status).toBe(200);
    }
  });

  it.each(["date_start", "date_from", "date_end", "date_to"])("an impossible date under %s gets the one date message", async (name) => {
    const { token, plan } = await planOf();
    const res = await api(`/v2/weekly-reports?plan_id=${plan.id}&${name}=2026-02-30`, { token });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ message: DATE_MESSAGE, errors: { [name]: DATE_MESSAGE } });
  });
});

/** Each RestResource's list and the paths that answer it (v2; the notes' and employees' v1 twins too). */
const LIST_PATHS = new Map<object, readonly string[]>([
  [bipsApi.bipResource, ["/v2/bips"]],
  [employeesApi.employeeResource, ["/v2/employees", "/doctors"]],
  [insurancesApi.insuranceResource, ["/v2/insurances"]],
  [intakeApi.intakeAssessmentResource, ["/v2/intake-assessments"]],
  [locationsApi.locationResource, ["/v2/locations"]],
  [notesApi.noteRbtResource, ["/v2/notes-rbt", "/note_rbt"]],
  [notesApi.noteBcbaResource, ["/v2/notes-bcba", "/note_bcba"]],
  [notesApi.noteCombinedResource, ["/v2/notes-combined"]],
  [parentsApi.parentResource, ["/v2/parents"]],
  [patientsApi.patientResource, ["/v2/patients"]],
  [patientsApi.paServiceResource, ["/v2/pa-services"]],
  [plansApi.planResource, ["/v2/plans"]],
  [plansApi.objectiveResource, ["/v2/objectives"]],
  [rateRecordsApi.rateRecordResource, ["/v2/rate-records"]],
  [rolesApi.roleResource, ["/v2/roles"]],
  [weeklyApi.weeklyReportResource, ["/v2/weekly-reports"]],
  [weeklyApi.chartCommentResource, ["/v2/chart-comments"]],
]);
const listPaths = [...LIST_PATHS].flatMap(([r, paths]) => paths.map((p) => [p, r as RestResource<unknown>] as const));

describe("a query parameter a list does not take is refused at its name, never ignored (decision 017, stop 44)", () => {
  it("every list is in the table", () => {
    expect(resources.filter((r) => !LIST_PATHS.has(r)).map((r) => r.name)).toEqual([]);
  });

  it.each<readonly [string, string]>([
    ...listPaths.map(([path]) => [`${path}?zzz=1`, "zzz"] as const),
    // What a tester tried on the lists that do not hold them.
    ["/v2/pa-services?billed=true", "billed"],
    ["/v2/pa-services?status=bogus", "status"],
    ["/v2/plans?billed=true", "billed"],
    ["/v2/objectives?location_id=1", "location_id"],
    ["/v2/locations?location_id=1", "location_id"],
    ["/v2/notes-rbt?per_page=5&sort=date", "sort"],
  ])("GET %s: 422 naming %s", async (path, name) => {
    const { token } = await admin();
    const res = await api(path, { token });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ message: unknownFilterMessage(name), errors: { [name]: unknownFilterMessage(name) } });
  });

  it.each(listPaths.map(([path, r]) => [path, takenParams(r).join(", "), r] as const))("GET %s takes %s (none refused as unknown)", async (path, _names, resource) => {
    const { token } = await admin();
    for (const name of takenParams(resource)) {
      const res = await api(`${path}?${name}=`, { token });
      const body = (await res.json()) as { errors?: Record<string, string> };
      expect(body.errors?.[name], `${path}?${name}=`).not.toBe(unknownFilterMessage(name));
    }
  });
});

describe("location_id on the notes, PA-service and plan lists: applied within the actor's scope (decision 017, stop 44)", () => {
  const day = "2026-10-05";
  async function note(type: "rbt" | "bcba" | "combined", patientId: number, locationId: number, providerId: number, billed = false) {
    const s = dayNumber(day)! * 1440 + 9 * 60;
    const [row] = await db()
      .insert(notes)
      .values({ type, patientId, locationId, providerId, billed, diagnosisCode: "F84.0", cptCode: type === "rbt" ? "97153" : "97155", pos: "12", sessionDate: day, timeIn: "09:00", timeOut: "10:00", start1At: s, end1At: s + 60, startAt: s, endAt: s + 60, minutes: 60, units: 4 })
      .returning();
    return row!;
  }
  /** Two locations with a client each, every kind of record at each; a viewer of the first one only. */
  async function world() {
    const mine = await createLocation();
    const theirs = await createLocation();
    const provider = await createUser({ locations: [mine.id, theirs.id] });
    const at = async (loc: { id: number }) => {
      const patient = await createPatient({ locationId: loc.id });
      const noteIds = [(await note("rbt", patient.id, loc.id, provider.id)).id, (await note("bcba", patient.id, loc.id, provider.id)).id, (await note("combined", patient.id, loc.id, provider.id)).id];
      const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Direct", cpt: "97153", nUnits: 40, startDate: "2026-01-01", endDate: "2026-12-31" }).returning();
      const plan = await createPlan(await createBip(patient));
      return { loc, patient, ids: new Set([...noteIds, pa!.id, plan.id]) };
    };
    const here = await at(mine);
    const there = await at(theirs);
    const viewer = await createUser({ permissions: ["view_notes", "view_clients", "view_bips"], locations: [mine.id] });
    const adminUser = await createUser({ role: "ADMIN", locations: [mine.id] });
    return { here, there, viewer: await apiToken(viewer), admin: await apiToken(adminUser) };
  }
  const LOCATION_LISTS = ["/v2/notes-rbt", "/v2/notes-bcba", "/v2/notes-combined", "/note_rbt", "/note_bcba", "/v2/pa-services", "/v2/plans"] as const;
  const rows = async (path: string, token: string) => {
    const res = await api(path, { token });
    expect(res.status, path).toBe(200);
    return ((await res.json()) as { data: { id: number; patient_id: number }[] }).data;
  };

  it.each(LOCATION_LISTS)("GET %s?location_id=: only that location's records; another location's, or none, for a viewer of one: no rows", async (list) => {
    const w = await world();
    // Every location (admin): the filter picks one location's records.
    for (const side of [w.here, w.there]) {
      const found = await rows(`${list}?per_page=100&location_id=${side.loc.id}`, w.admin);
      expect(found.length, list).toBeGreaterThan(0);
      expect(found.every((r) => r.patient_id === side.patient.id) || found.every((r) => side.ids.has(r.id)), list).toBe(true);
      expect(found.map((r) => r.patient_id)).toContain(side.patient.id);
      const other = side === w.here ? w.there : w.here;
      expect(found.map((r) => r.patient_id)).not.toContain(other.patient.id);
    }
    // A viewer of one location: their own is listed, another's (or a location that does not exist) lists nothing.
    expect((await rows(`${list}?per_page=100&location_id=${w.here.loc.id}`, w.viewer)).map((r) => r.patient_id)).toContain(w.here.patient.id);
    for (const id of [w.there.loc.id, 99_999_999]) expect(await rows(`${list}?per_page=100&location_id=${id}`, w.viewer), `${list} ${id}`).toEqual([]);
  });

  it.each(LOCATION_LISTS.flatMap((list) => ["abc", "-1", "1.5"].map((bad) => [list, bad] as const)))("GET %s?location_id=%s: 422 at location_id", async (list, bad) => {
    const w = await world();
    const res = await api(`${list}?location_id=${bad}`, { token: w.admin });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ message: FILTER_ID_MESSAGE, errors: { location_id: FILTER_ID_MESSAGE } });
  });

  it("the notes lists: billed applies (true/false); a malformed billed or status is refused at its name", async () => {
    const w = await world();
    const billed = await note("rbt", w.here.patient.id, w.here.loc.id, (await createUser({ locations: [w.here.loc.id] })).id, true);
    const ids = async (q: string) => (await rows(`/v2/notes-rbt?per_page=100&location_id=${w.here.loc.id}&${q}`, w.admin)).map((r) => r.id);
    expect(await ids("billed=true")).toEqual([billed.id]);
    expect(await ids("billed=1")).toEqual([billed.id]);
    expect(await ids("billed=false")).not.toContain(billed.id);
    expect((await ids("billed=false")).length).toBeGreaterThan(0);
    for (const [path, field, message] of [
      ["/v2/notes-rbt?billed=maybe", "billed", FILTER_FLAG_MESSAGE],
      ["/note_rbt?billed=yes", "billed", FILTER_FLAG_MESSAGE],
      ["/v2/notes-bcba?status=bogus", "status", NOTE_MESSAGES.status],
      ["/note_bcba?status=bogus", "status", NOTE_MESSAGES.status],
    ] as const) {
      const res = await api(path, { token: w.admin });
      expect(res.status, path).toBe(422);
      expect(await res.json(), path).toMatchObject({ errors: { [field]: message } });
    }
  });

  it("the plans list: status applies; an unknown status is refused", async () => {
    const w = await world();
    const bip = await createBip(w.here.patient);
    const inactive = await createPlan(bip, { status: "inactive" });
    const ids = (await rows(`/v2/plans?per_page=100&location_id=${w.here.loc.id}&status=inactive`, w.admin)).map((r) => r.id);
    expect(ids).toEqual([inactive.id]);
    const res = await api("/v2/plans?status=bogus", { token: w.admin });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ errors: { status: FILTER_STATUS_MESSAGE } });
  });
});
