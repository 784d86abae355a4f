import { describe, expect, it } from "vitest";
import { FILTER_ID_MESSAGE, FILTER_STATUS_MESSAGE } from "~/domain/list-filters";
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
import type { RestResource } from "../../workers/api/rest";
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
