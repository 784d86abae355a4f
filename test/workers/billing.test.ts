import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, clientReports, insurances, insuranceServices, notes, paServices } from "~/db/schema";
import { getUserActor } from "~/models/actors.server";
import { clientReport } from "~/models/client-reports.server";
import { auditTail } from "~/services/audit.server";
import { STAFF_OPTIONS_MAX, TOO_MANY_STAFF_HINT } from "~/domain/employees";
import { dayNumber } from "~/domain/weeks";
import { api, apiToken, countingDb, createLocation, createManyStaff, createParent, createPatient, createUser, db, form, request, scrollRegionNames, signInCookie, withoutFlashTag, withFlashTag } from "./helpers";

/**
 * The billing screens (platform §2 billing, billing/list, billing/by-client, client-report…; clinical §2
 * report-by-client; decision 030): guard and scope, filters, a row saved and a status switched without
 * JavaScript (POST → 303 → GET with the message), bad input and stale saves.
 */

type Loc = { id: number };
let here: Loc;
let there: Loc;
let alice: { id: number; firstName: string; lastName: string };
let faraway: { id: number };
let provider: { id: number };
let manager: string;
let noPerm: string;
let outsider: string;
const ids: Record<string, number> = {};

async function note(over: { type: "rbt" | "bcba"; patientId: number; locationId: number; date: string; providerId?: number; paServiceId?: number; signed?: boolean }) {
  const s = dayNumber(over.date)! * 1440 + 9 * 60;
  const [row] = await db()
    .insert(notes)
    .values({ type: over.type, patientId: over.patientId, locationId: over.locationId, providerId: over.providerId ?? provider.id, cptCode: over.type === "rbt" ? "97153" : "97155", pos: "12", diagnosisCode: "F84.0", paServiceId: over.paServiceId ?? null, signedAt: over.signed === false ? null : `${over.date}T23:00:00.000Z`, providerSignedOn: over.signed === false ? null : over.date, sessionDate: over.date, timeIn: "09:00", timeOut: "11:00", start1At: s, end1At: s + 120, startAt: s, endAt: s + 120, minutes: 120, units: 8 })
    .returning();
  return row!;
}

const html = async (res: Response) => {
  expect(res.status, res.headers.get("Location") ?? "").toBe(200);
  return res.text();
};
const rowsOf = (page: string) => /<caption[^>]*>Billing by note<\/caption>[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? "";
const reports = async () => (await db().select({ n: count() }).from(clientReports))[0]!.n;
/** One row of a report page: the <tr> holding that note's Save form. */
const rowOf = (page: string, noteId: number) => rowsOf(page).split("<tr").find((tr) => tr.includes(`id="row-${noteId}"`)) ?? "";
/** A hidden field of a row's Save form, as the next Save would send it. */
const saveField = (row: string, name: string) => new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(row.slice(row.indexOf('<form method="post" id="row-')))?.[1];
/** The selected option of a row's modifier selector. */
const selectedCode = (row: string, name: "md" | "md2") => /<option value="([^"]*)" selected="">/.exec(new RegExp(`<select name="${name}" [\\s\\S]*?</select>`).exec(row)?.[0] ?? "")?.[1];
const checked = (row: string, name: "billed" | "pay") => new RegExp(`<input type="checkbox" name="${name}"[^>]*checked=""`).test(row);

beforeAll(async () => {
  here = await createLocation();
  there = await createLocation();
  const [ins] = await db().insert(insurances).values({ name: "Blue Payer", payerId: "PAYER1" }).returning();
  ids.ins = ins!.id;
  await db()
    .insert(insuranceServices)
    .values([
      { insuranceId: ins!.id, cptCode: "97153", provider: "rbt", type: "rbt", unitPrice: 15 },
      { insuranceId: ins!.id, cptCode: "97155", provider: "bcba", type: "bcba", unitPrice: 25.25 },
    ]);
  alice = await createPatient({ locationId: here.id, insurerId: ins!.id, firstName: "Alice", lastName: "Anders" });
  const [pa] = await db().insert(paServices).values({ patientId: alice.id, paService: "Direct therapy", cpt: "97153", nUnits: 300, startDate: "2026-01-01", endDate: "2026-06-30", insuranceId: ins!.id }).returning();
  faraway = await createPatient({ locationId: there.id, insurerId: ins!.id });
  provider = await createUser({ permissions: ["view_notes"], locations: [here.id], name: "Rita" });
  const other = await createUser({ permissions: ["view_notes"], locations: [here.id], name: "Omar" });
  ids.rbt = (await note({ type: "rbt", patientId: alice.id, locationId: here.id, date: "2026-02-02" })).id;
  ids.bcba = (await note({ type: "bcba", patientId: alice.id, locationId: here.id, date: "2026-02-03", providerId: other.id })).id;
  ids.rbt2 = (await note({ type: "rbt", patientId: alice.id, locationId: here.id, date: "2026-02-09", paServiceId: pa!.id })).id;
  ids.far = (await note({ type: "rbt", patientId: faraway.id, locationId: there.id, date: "2026-02-02", providerId: other.id })).id;
  ids.unsigned = (await note({ type: "rbt", patientId: alice.id, locationId: here.id, date: "2026-01-12", paServiceId: pa!.id, signed: false })).id;
  ids.other = other.id;
  manager = await signInCookie(await createUser({ role: "MANAGER", permissions: ["manage_claims"], locations: [here.id] }));
  noPerm = await signInCookie(await createUser({ permissions: ["view_notes", "manage_notes", "view_clients"], locations: [here.id] }));
  outsider = await signInCookie(await createUser({ permissions: ["manage_claims"], locations: [there.id] }));
});

describe("the billing list", () => {
  it("lists the clients with notes of the period in the actor's locations, with counts", async () => {
    const page = await html(await request("/billing/list?date_from=2026-02-01&date_to=2026-02-28", { cookie: manager }));
    expect(page).toContain("Alice Anders");
    expect(page).toContain(`/billing/by-client/${alice.id}`);
    expect(page).not.toContain(`/billing/by-client/${faraway.id}`);
    expect(page).toContain("Showing 1 to 1 of 1 entries");
  });

  it("filters by provider and status; empty filters are left out of the address", async () => {
    const byOther = await html(await request(`/billing/list?date_from=2026-02-01&date_to=2026-02-28&provider_id=${ids.other}`, { cookie: manager }));
    expect(byOther).toContain("Alice Anders");
    const paid = await html(await request("/billing/list?date_from=2026-02-01&date_to=2026-02-28&status=paid", { cookie: manager }));
    expect(paid).toContain("No data to display.");
    const res = await request("/billing/list?date_from=2026-02-01&status=&provider_id=", { cookie: manager });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/billing/list?date_from=2026-02-01");
  });

  it("a date before 1900 is a bad filter like 2026-02-30: its message and the default list, not a 500 (decision 017)", async () => {
    const res = await request("/billing/list?date_from=0050-01-01&date_to=0050-02-01", { cookie: manager });
    expect(res.status).toBe(200);
    const page = await html(res);
    expect(page).toContain("Dates must be real dates like 2026-01-31.");
  });

  it("/billing and /client-report lead to the list; without manage_claims 403; another location's filter lists nothing (decision 017)", async () => {
    expect((await request("/billing?status=ok", { cookie: manager })).headers.get("Location")).toBe("/billing/list?status=ok");
    expect((await request("/client-report", { cookie: manager })).headers.get("Location")).toBe("/billing/list");
    expect((await request("/billing/list", { cookie: noPerm })).status).toBe(403);
    const far = await request(`/billing/list?location_id=${there.id}`, { cookie: manager });
    expect(far.status).toBe(200);
    expect(await far.text()).not.toContain("/billing/by-client/");
  });


  it("the provider select lists the chosen location's staff; with more than it lists, it asks for a location and keeps the chosen one", async () => {
    const small = await createLocation();
    const big = await createLocation();
    const biller = await signInCookie(await createUser({ permissions: ["manage_claims"], locations: [small.id, big.id] }));
    const few = await createUser({ permissions: [], locations: [small.id], name: "Fewbilling" });
    await createManyStaff(big.id, STAFF_OPTIONS_MAX + 1, "Bulk");
    const providerSelect = (page: string) => /<select id="f-provider_id"[\s\S]*?<\/select>/.exec(page)?.[0] ?? "";

    const every = await html(await request("/billing/list", { cookie: biller }));
    expect(every).toContain(TOO_MANY_STAFF_HINT);
    expect(every).toContain('aria-describedby="f-provider_id-hint"');
    expect(providerSelect(every)).not.toContain("Bulk0 Staff");
    expect(providerSelect(every)).not.toContain("Fewbilling User");

    const smallOnly = await html(await request(`/billing/list?location_id=${small.id}`, { cookie: biller }));
    expect(providerSelect(smallOnly)).toContain("Fewbilling User");
    expect(smallOnly).not.toContain(TOO_MANY_STAFF_HINT);

    const chosen = await html(await request(`/billing/list?provider_id=${few.id}`, { cookie: biller }));
    expect(chosen).toContain(TOO_MANY_STAFF_HINT);
    expect(providerSelect(chosen)).toMatch(new RegExp(`<option value="${few.id}"[^>]*>Fewbilling User</option>`));
    // A provider of a location the actor does not cover, given by id, is not listed.
    const stranger = await html(await request(`/billing/list?provider_id=${ids.other}`, { cookie: biller }));
    expect(providerSelect(stranger)).not.toContain(`value="${ids.other}"`);
  });
});

describe("a refused filter keeps what was typed, shows its error beside the field and lists nothing (probe 8901 §2)", () => {
  const inputValue = (page: string, id: string) => new RegExp(`<input id="f-${id}"[^>]*value="([^"]*)"`).exec(page)?.[1];
  const selected = (page: string, id: string) => /<option value="([^"]*)" selected="">/.exec(new RegExp(`<select id="f-${id}"[\\s\\S]*?</select>`).exec(page)?.[0] ?? "")?.[1];
  const errorOf = (page: string, id: string) => new RegExp(`<p id="f-${id}-error" class="field-error" role="alert">([^<]*)</p>`).exec(page)?.[1];

  it.each([
    ["billing by client", () => `/billing/by-client/${alice.id}?from=2026-02-20&to=2026-02-01&type=bcba`],
    ["its twin address", () => `/client-report/by-client/${alice.id}?from=2026-02-20&to=2026-02-01&type=bcba`],
    ["employee by client", () => `/client-report/employee-by-client?patient_id=${alice.id}&employee_id=${ids.other}&from=2026-02-20&to=2026-02-01&type=bcba`],
  ])("%s: To before From", async (_l, path) => {
    const page = await html(await request(path(), { cookie: manager }));
    expect([inputValue(page, "from"), inputValue(page, "to"), selected(page, "type")]).toEqual(["2026-02-20", "2026-02-01", "bcba"]);
    expect(errorOf(page, "to")).toBe("To must be on or after From.");
    expect(page).toMatch(/<input id="f-to"[^>]*aria-invalid="true"/);
    expect(page).toContain("Nothing is listed until the filters marked above are corrected.");
    // No row, no count and no week totals that could pass for the result; the client's header stays.
    expect(page).not.toContain("2026-02-03");
    expect(page).not.toContain("Showing");
    expect(page).not.toContain("Week Total Units");
    expect(page).toContain("Alice Anders");
  });

  it("billing by client: a date that is not real is marked on From, with the typed text kept", async () => {
    const page = await html(await request(`/billing/by-client/${alice.id}?from=2026-02-30&type=rbt`, { cookie: manager }));
    expect(errorOf(page, "from")).toBe("Dates must be real dates like 2026-01-31.");
    expect([inputValue(page, "from"), selected(page, "type")]).toEqual(["2026-02-30", "rbt"]);
    expect(page).not.toContain("2026-02-02");
  });

  it.each([
    ["To before From", "/billing/list?date_from=2026-02-20&date_to=2026-02-01&status=billed", "date_to", "To must be on or after From."],
    ["a status not in the list", "/billing/list?date_from=2026-02-01&date_to=2026-02-28&status=everything", "status", "Choose a status from the list."],
    ["a date that is not real", "/billing/list?date_from=2026-02-30&status=billed", "date_from", "Dates must be real dates like 2026-01-31."],
  ])("the billing list: %s", async (_l, path, field, message) => {
    const page = await html(await request(path, { cookie: manager }));
    const typed = Object.fromEntries(new URL(path, "http://x").searchParams);
    expect(errorOf(page, field)).toBe(message);
    expect(inputValue(page, "date_from")).toBe(typed.date_from);
    expect(inputValue(page, "date_to")).toBe(typed.date_to ?? "");
    if (typed.status !== "everything") expect(selected(page, "status")).toBe(typed.status);
    expect(page).not.toContain("Alice Anders");
    expect(page).toContain("Nothing is listed until the filters marked above are corrected.");
  });

  it.each([
    ["a malformed employee", () => "?employee_id=abc", "provider_id", "The employee in the address (employee_id) must be a record id, a whole number."],
    ["a malformed employee with a client", () => `?patient_id=${alice.id}&employee_id=abc`, "provider_id", "The employee in the address (employee_id) must be a record id, a whole number."],
    ["a malformed client", () => `?patient_id=abc&employee_id=${ids.other}`, null, "The client in the address (patient_id) must be a record id, a whole number."],
  ])("employee by client: %s is named, and nothing is listed", async (_l, query, field, message) => {
    const page = await html(await request(`/client-report/employee-by-client${query()}&date_from=2026-02-01&date_to=2026-02-28`, { cookie: manager }));
    if (field) expect(errorOf(page, field)).toBe(message);
    else expect(page).toContain(`<p class="alert alert-danger" role="alert">${message}</p>`);
    expect(page).not.toContain("Alice Anders");
    expect(page).toContain("Nothing is listed until the filters marked above are corrected.");
  });

  it.each([
    ["x", "page must be a whole number."],
    ["1.5", "page must be a whole number."],
    // The lists' one rule (app/domain/paging.ts): -1 is a whole number below 1, as 0 is (stop 33).
    ["-1", "page must be at least 1."],
    ["0", "page must be at least 1."],
  ])("a refused page number (page=%s; no field shows it) is the message above the list", async (value, message) => {
    const page = await html(await request(`/billing/by-client/${alice.id}?page=${value}&type=rbt`, { cookie: manager }));
    expect(page).toContain(`<p class="alert alert-danger" role="alert">${message}</p>`);
    expect(selected(page, "type")).toBe("rbt");
  });

  // Every name a period goes by (from/to, date_from/date_to, date_start/date_end; decision 030) is one filter: a bad
  // value under any of them is the field error with the typed value kept, never the 404 page (stop 37).
  const screens = [
    // [screen, its address before the period, the From and To fields' ids, whether a client's name stays (report header)]
    ["the billing list", () => "/billing/list?status=billed", ["date_from", "date_to"], false],
    ["employee by client's list", () => `/client-report/employee-by-client?employee_id=${ids.other}`, ["date_from", "date_to"], false],
    ["billing by client", () => `/billing/by-client/${alice.id}?type=all`, ["from", "to"], true],
    ["its twin address", () => `/client-report/by-client/${alice.id}?type=all`, ["from", "to"], true],
    ["employee by client's report", () => `/client-report/employee-by-client?patient_id=${alice.id}&employee_id=${ids.other}`, ["from", "to"], true],
  ] as const;
  const names = [
    ["from", "to"],
    ["date_from", "date_to"],
    ["date_start", "date_end"],
  ] as const;
  const cases = [
    ["a From that is not a date", "x", "", 0, "Dates must be real dates like 2026-01-31."],
    ["a To that is not a date", "", "x", 1, "Dates must be real dates like 2026-01-31."],
    ["To before From", "2026-02-20", "2026-02-01", 1, "To must be on or after From."],
  ] as const;
  it.each(screens.flatMap((screen) => names.flatMap((pair) => cases.map((c) => [`${screen[0]}, ${pair.join("/")}: ${c[0]}`, screen, pair, c] as const))))(
    "%s → the field error, the typed values kept, nothing listed",
    async (_l, [, address, fields, header], [start, end], [, from, to, bad, message]) => {
      const period = new URLSearchParams();
      if (from) period.set(start, from);
      if (to) period.set(end, to);
      const page = await html(await request(`${address()}&${period}`, { cookie: manager }));
      expect(errorOf(page, fields[bad])).toBe(message);
      expect(page).toMatch(new RegExp(`<input id="f-${fields[bad]}"[^>]*aria-invalid="true"`));
      expect([inputValue(page, fields[0]), inputValue(page, fields[1])]).toEqual([from, to]);
      expect(page).toContain("Nothing is listed until the filters marked above are corrected.");
      expect(page).not.toContain("2026-02-03");
      if (!header) expect(page).not.toContain("Alice Anders");
    },
  );
});

describe("billing by client", () => {
  it("shows the header, the PA services table, one row per note sorted by date, prices and the week's totals", async () => {
    const page = await html(await request(`/billing/by-client/${alice.id}`, { cookie: manager }));
    expect(page).toContain("Alice Anders");
    expect(page).toContain("Blue Payer");
    expect(page).toContain(">Back<");
    for (const h of ["PA Services", "Units Allowed", "Beginning", "Expiration", "Direct therapy", "2026-06-30"]) expect(page).toContain(h);
    expect(page).toContain("<dd>97153 RBT: $15.00</dd>");
    const rows = rowsOf(page);
    expect(rows.indexOf("2026-02-02")).toBeLessThan(rows.indexOf("2026-02-03"));
    expect(rows.indexOf("2026-02-03")).toBeLessThan(rows.indexOf("2026-02-09"));
    expect(rows).toContain(`/note-rbt/view/${ids.rbt}`);
    expect(rows).toContain("$120.00"); // 8 × $15.00
    expect(rows).toContain("$202.00"); // 8 × $25.25
    expect(page).toContain("Showing 1 to 4 of 4 entries");
    expect(page).toMatch(/Week Total Units <input[^>]*value="8"/);
  });

  it("a page past the last one shows no impossible range and links back to page 1 and the last page (the filters kept)", async () => {
    const page = await html(await request(`/billing/by-client/${alice.id}?type=rbt&page=9`, { cookie: manager }));
    expect(page).toContain("3 entries on 1 page");
    expect(page).not.toContain("Showing 0 to 0");
    expect(page).not.toMatch(/Showing 401 to/);
    const pages = /<nav class="pagination"[\s\S]*?<\/nav>/.exec(page)?.[0] ?? "";
    expect(pages).toMatch(/<a [^>]*href="[^"]*\?type=rbt&amp;page=1"[^>]*>Previous<\/a>/);
    expect(pages).toMatch(/<a [^>]*href="[^"]*\?type=rbt&amp;page=1"[^>]*>1<\/a>/);
    expect(pages).not.toContain("Next");
    // One page, on it: no links, as before.
    const first = await html(await request(`/billing/by-client/${alice.id}?type=rbt`, { cookie: manager }));
    expect(/<nav class="pagination"[\s\S]*?<\/nav>/.exec(first)?.[0] ?? "").not.toContain("<a ");
  });

  it("filters by type and dates, and sorts by a column", async () => {
    const bcba = rowsOf(await html(await request(`/billing/by-client/${alice.id}?type=bcba`, { cookie: manager })));
    expect(bcba).toContain("2026-02-03");
    expect(bcba).not.toContain("2026-02-02");
    const early = rowsOf(await html(await request(`/billing/by-client/${alice.id}?from=2026-02-01&to=2026-02-05`, { cookie: manager })));
    expect(early).not.toContain("2026-02-09");
    const desc = rowsOf(await html(await request(`/billing/by-client/${alice.id}?sort=date&dir=desc`, { cookie: manager })));
    expect(desc.indexOf("2026-02-09")).toBeLessThan(desc.indexOf("2026-02-02"));
  });

  it("the twin address /client-report/by-client answers the same screen; employee-by-client keeps one employee's notes", async () => {
    expect(rowsOf(await html(await request(`/client-report/by-client/${alice.id}`, { cookie: manager })))).toContain("2026-02-09");
    const mine = rowsOf(await html(await request(`/client-report/employee-by-client?patient_id=${alice.id}&employee_id=${ids.other}`, { cookie: manager })));
    expect(mine).toContain("2026-02-03");
    expect(mine).not.toContain("2026-02-02");
  });

  it("without manage_claims 403; a client of another location 404", async () => {
    expect((await request(`/billing/by-client/${alice.id}`, { cookie: noPerm })).status).toBe(403);
    expect((await request(`/billing/by-client/${alice.id}`, { cookie: outsider })).status).toBe(404);
    expect((await form(`/billing/by-client/${alice.id}`, { intent: "status", note_id: String(ids.rbt), status: "ok" }, outsider)).status).toBe(404);
    expect((await form(`/billing/by-client/${alice.id}`, { intent: "status", note_id: String(ids.rbt), status: "ok" }, noPerm)).status).toBe(403);
    const [n] = await db().select().from(notes).where(eq(notes.id, ids.rbt));
    expect(n!.status).toBe("pending");
  });

  it.each([
    ["a save of a note the actor may see", "/billing/by-client/:id", () => ({ intent: "save", note_id: String(ids.rbt), md: "HM" })],
    ["a status of a note the actor may see", "/billing/by-client/:id", () => ({ intent: "status", note_id: String(ids.rbt), status: "ok" })],
    ["a save whose modifier does not parse", "/billing/by-client/:id", () => ({ intent: "save", note_id: String(ids.rbt), md: "ZZ" })],
    ["a bad status", "/billing/by-client/:id", () => ({ intent: "status", note_id: String(ids.rbt), status: "done" })],
    ["no intent", "/billing/by-client/:id", () => ({ note_id: String(ids.rbt) })],
    ["a save on the twin address", "/client-report/by-client/:id", () => ({ intent: "save", note_id: String(ids.rbt), md: "HM" })],
    ["a save on employee by client", "/client-report/employee-by-client?patient_id=:id&employee_id=me", () => ({ intent: "save", note_id: String(ids.rbt), md: "HM" })],
  ])("a POST for a client of another location answers 404, never 422 (probe 8984 L4): %s", async (_l, path, fields) => {
    const [n] = await db().select().from(notes).where(eq(notes.id, ids.rbt));
    const before = await reports();
    const res = await form(path.replace(":id", String(faraway.id)).replace("me", String(provider.id)), { note_version: String(n!.version), ...fields() }, manager);
    expect(res.status).toBe(404);
    expect(await reports()).toBe(before);
    const [after] = await db().select().from(notes).where(eq(notes.id, ids.rbt));
    expect(after).toEqual(n);
  });

  it("a note of the actor's location whose client moved to another location is not saved through that client's screen (404)", async () => {
    const moved = await createPatient({ locationId: there.id, insurerId: ids.ins });
    const n = await note({ type: "rbt", patientId: moved.id, locationId: here.id, date: "2025-07-10" });
    const before = await reports();
    for (const fields of [{ intent: "save", md: "HM" }, { intent: "status", status: "ok" }] as Record<string, string>[]) {
      const res = await form(`/billing/by-client/${moved.id}`, { note_id: String(n.id), note_version: String(n.version), ...fields }, manager);
      expect(res.status, fields.intent).toBe(404);
    }
    expect(await reports()).toBe(before);
    const [after] = await db().select().from(notes).where(eq(notes.id, n.id));
    expect(after).toEqual(n);
  });

  it("reads everything in one round trip after the guard's, and for a client or employee out of scope reads and records nothing", async () => {
    const me = await createUser({ permissions: ["manage_claims"], locations: [here.id] });
    const actor = (await getUserActor(db(), me.id))!;
    const audits = async () => (await db().select({ n: count() }).from(auditLog))[0]!.n;
    const tailNow = async () => (await db().select({ t: auditTail }).from(auditLog).limit(1))[0]?.t ?? null;
    const run = async (patientId: number, opts: { providerId?: number } = {}) => {
      const c = countingDb();
      const r = await clientReport({ db: c.db, actor, ip: "127.0.0.1", now: () => new Date("2026-02-20T12:00:00Z") }, patientId, {}, { ...opts, scrub: true, tail: await tailNow() });
      return { r, roundTrips: c.roundTrips() };
    };
    const before = await audits();
    const mine = await run(alice.id);
    expect(mine.roundTrips).toBe(1);
    expect(mine.r.ok && mine.r.data.page.data.map((x) => x.note_id)).toEqual([ids.unsigned, ids.rbt, ids.bcba, ids.rbt2]);
    expect(await audits()).toBe(before + 1);
    // Another location's client, and an employee the actor may not know: 404, no rows, no audit row.
    const far = await run(faraway.id);
    expect(far.r).toMatchObject({ ok: false, status: 404 });
    const stranger = await createUser({ permissions: ["view_notes"], locations: [there.id] });
    const unknown = await run(alice.id, { providerId: stranger.id });
    expect(unknown.r).toMatchObject({ ok: false, status: 404 });
    expect(await audits()).toBe(before + 1);
  });

  it("the week totals are the newest note's Sunday–Saturday week, never the days before its Sunday", async () => {
    const bob = await createPatient({ locationId: here.id, insurerId: ids.ins, firstName: "Bob", lastName: "Week" });
    // Sat 2026-03-07 (the week before), Sun 2026-03-08 and Tue 2026-03-10 (the newest note's week).
    for (const date of ["2026-03-07", "2026-03-08", "2026-03-10"]) await note({ type: "rbt", patientId: bob.id, locationId: here.id, date });
    const token = await apiToken(await createUser({ permissions: ["manage_claims"], locations: [here.id] }));
    const body = (await (await api(`/client_report/byprofile/${bob.id}`, { token })).json()) as any;
    expect(body.week).toEqual({ start: "2026-03-08", end: "2026-03-14" });
    expect(body).toMatchObject({ week_total_hours: 4, week_total_units: 16 });
    // A To date picks its own week: Sun 2026-03-01 – Sat 2026-03-07, the Saturday's note alone.
    const to = (await (await api(`/client_report/byprofile/${bob.id}?date_end=2026-03-07`, { token })).json()) as any;
    expect(to.week).toEqual({ start: "2026-03-01", end: "2026-03-07" });
    expect(to).toMatchObject({ week_total_hours: 2, week_total_units: 8 });
  });

  it("a row's status switches at once (303 back to the same address, the table shows it)", async () => {
    const res = await form(`/billing/by-client/${alice.id}?type=rbt`, { intent: "status", note_id: String(ids.rbt), status: "ok" }, manager);
    expect(res.status).toBe(303);
    expect(withoutFlashTag(res.headers.get("Location"))).toMatch(new RegExp(`^/billing/by-client/${alice.id}\\?type=rbt&flash=`));
    const [n] = await db().select().from(notes).where(eq(notes.id, ids.rbt));
    expect(n!.status).toBe("ok");
  });

  it("both tables' scroll boxes are regions named by their captions (probe 8923 L9)", async () => {
    expect(scrollRegionNames(await html(await request(`/billing/by-client/${alice.id}`, { cookie: manager })))).toEqual(["PA services", "Billing by note"]);
  });

  it("a row's status is saved by its Set button only: the select is not marked to save on change, the button not to be hidden (probe 8923 M1)", async () => {
    const row = rowOf(await html(await request(`/billing/by-client/${alice.id}`, { cookie: manager })), ids.rbt);
    const status = /<form method="post" class="row-status"[\s\S]*?<\/form>/.exec(row)?.[0] ?? "";
    expect(status).toContain(`aria-label="Status of the RBT note of 2026-02-02"`);
    expect(status).toMatch(/<button type="submit" class="btn btn-small">Set<\/button>/);
    expect(status).not.toContain("autosubmit");
  });

  it("Save creates the billing record ('Updated - Added successfully!'), then updates it ('Updated - Bip Updated successfully!')", async () => {
    const [n] = await db().select().from(notes).where(eq(notes.id, ids.rbt2));
    const created = await form(`/billing/by-client/${alice.id}`, { intent: "save", note_id: String(ids.rbt2), note_version: String(n!.version), version: "", md: "HM", md2: "", billed: "true" }, manager);
    expect(created.status).toBe(303);
    expect(decodeURIComponent(created.headers.get("Location")!)).toContain("Updated - Added successfully!");
    const [after] = await db().select().from(notes).where(eq(notes.id, ids.rbt2));
    expect(after).toMatchObject({ md: "HM", billed: true, paid: false });
    const [cr] = await db().select().from(clientReports).where(eq(clientReports.noteId, ids.rbt2));
    expect(cr).toMatchObject({ chargesCents: 12000, billed: true, version: 1 });
    const updated = await form(`/billing/by-client/${alice.id}`, { intent: "save", note_id: String(ids.rbt2), note_version: String(after!.version), version: "1", md: "HM", md2: "XP", billed: "true", pay: "true" }, manager);
    expect(updated.status).toBe(303);
    expect(decodeURIComponent(updated.headers.get("Location")!)).toContain("Updated - Bip Updated successfully!");
    const page = await html(await request(updated.headers.get("Location")!, { cookie: manager }));
    expect(page).toContain("Updated - Bip Updated successfully!");
    expect(page).toContain("(XP $120.00)");
  });

  it("a scrubber reason is shown as text on its row, and marking that note billed is refused with it", async () => {
    const page = await html(await request(`/billing/by-client/${alice.id}?to=2026-01-31`, { cookie: manager }));
    expect(rowsOf(page)).toMatch(/<li>Note is not signed[^<]*<\/li>/);
    const [n] = await db().select().from(notes).where(eq(notes.id, ids.unsigned));
    const res = await form(`/billing/by-client/${alice.id}`, { intent: "save", note_id: String(ids.unsigned), note_version: String(n!.version), version: "", billed: "true" }, manager);
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("This note cannot be billed");
    const [after] = await db().select().from(notes).where(eq(notes.id, ids.unsigned));
    expect(after!.billed).toBe(false);
  });

  it("a parent subscriber without a parent name: the refusal names the form's field, says a linked account's name is not used, and is said once, at its row", async () => {
    const parent = await createParent({ name: "Rita", surname: "Linked" });
    const kai = await createPatient({ locationId: here.id, insurerId: ids.ins, parentId: parent.id, details: JSON.stringify({ is_self_subscriber: false, relationship: "child", diagnosis_code: "F84.0" }) });
    const [pa] = await db().insert(paServices).values({ patientId: kai.id, paService: "Direct therapy", cpt: "97153", nUnits: 300, startDate: "2025-01-01", endDate: "2025-12-31", insuranceId: ids.ins }).returning();
    const n = await note({ type: "rbt", patientId: kai.id, locationId: here.id, date: "2025-06-02", paServiceId: pa!.id, providerId: ids.other });
    const message =
      'Subscriber first name is missing. Add it in &quot;Parent name&quot; (the &quot;Parent or guardian&quot; section) on the client&#x27;s profile. The linked parent account&#x27;s name is not used as the insurance subscriber.';
    const before = await html(await request(`/billing/by-client/${kai.id}`, { cookie: manager }));
    expect(before.split(message).length - 1).toBe(1); // the row's claim check
    const res = await form(`/billing/by-client/${kai.id}`, { intent: "save", note_id: String(n.id), note_version: String(n.version), version: "", billed: "true" }, manager);
    expect(res.status).toBe(422);
    const page = await res.text();
    const refusal = `This note cannot be billed: ${message}`;
    // Once, as the row's error (role=alert, described by the focused checkbox); not a second alert above the table.
    expect(page.split(refusal).length - 1).toBe(1);
    expect(page).toMatch(new RegExp(`<p id="row-${n.id}-error" class="field-error" role="alert">This note cannot be billed: Subscriber first name is missing`));
    expect(page).toMatch(new RegExp(`aria-label="Billed: the RBT note of 2025-06-02" aria-invalid="true" aria-errormessage="row-${n.id}-error" autofocus=""`));
    expect(page).not.toContain('<p class="alert alert-danger" role="alert">This note cannot be billed');
    const [after] = await db().select().from(notes).where(eq(notes.id, n.id));
    expect(after!.billed).toBe(false);
  });

  it("each row has two labelled modifier selectors of the codes that fit its note type, showing the saved codes", async () => {
    const page = await html(await request(`/billing/by-client/${alice.id}`, { cookie: manager }));
    const rows = rowsOf(page);
    const selects = [...rows.matchAll(/<select name="(md2?)" form="row-(\d+)"[^>]*>([\s\S]*?)<\/select>/g)];
    expect(selects.length).toBe(2 * (rows.match(/<tr>/g) ?? []).length);
    for (const [select, , noteId, options] of selects) {
      expect(select).toMatch(/aria-label="Modifier [12] of the (RBT|BCBA) note of \d{4}-\d{2}-\d{2}"/);
      const codes = Number(noteId) === ids.bcba ? ["", "XE", "HO", "GT", "TS", "95"] : ["", "HM", "XE", "XP", "GT", "TS", "95"];
      expect([...options!.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1])).toEqual(codes);
    }
    // The saved modifiers of the row saved above.
    const saved = (name: string) => new RegExp(`<select name="${name}" form="row-${ids.rbt2}"[^>]*>[\\s\\S]*?</select>`).exec(rows)?.[0] ?? "";
    expect(saved("md")).toMatch(/<option value="HM" selected="">/);
    expect(saved("md2")).toMatch(/<option value="XP" selected="">/);
  });

  it("a stale save answers 409 with the message and changes nothing", async () => {
    const before = await reports();
    const res = await form(`/billing/by-client/${alice.id}`, { intent: "save", note_id: String(ids.rbt2), note_version: "1", version: "1", md: "GT" }, manager);
    expect(res.status).toBe(409);
    expect(await res.text()).toContain("Someone else saved a newer version");
    const [n] = await db().select().from(notes).where(eq(notes.id, ids.rbt2));
    expect(n!.md).toBe("HM");
    expect(await reports()).toBe(before);
  });

  it("bad input shows the field's message with the typed values kept; nothing changes", async () => {
    const [n] = await db().select().from(notes).where(eq(notes.id, ids.bcba));
    const res = await form(`/billing/by-client/${alice.id}`, { intent: "save", note_id: String(ids.bcba), note_version: String(n!.version), version: "", md: "ZZ", pay: "true" }, manager);
    expect(res.status).toBe(422);
    const page = await res.text();
    expect(page).toContain('role="alert"');
    const [after] = await db().select().from(notes).where(eq(notes.id, ids.bcba));
    expect(after!.version).toBe(n!.version);
    const bad = await form(`/billing/by-client/${alice.id}`, { intent: "status", note_id: String(ids.bcba), status: "done" }, manager);
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("Choose pending or ok.");
    // Posted to the address of an earlier success (JavaScript off: the form posts to the current URL): the refusal
    // alone is shown, not the earlier "Status updated." beside it (probe, stop 24).
    const after422 = await (await form(`/billing/by-client/${alice.id}?flash=${encodeURIComponent("Status updated.")}`, { intent: "status", note_id: String(ids.bcba), status: "done" }, manager)).text();
    expect(after422).toContain("Choose pending or ok.");
    expect(after422).not.toContain("Status updated.");
    expect(await html(await request(await withFlashTag(`/billing/by-client/${alice.id}?flash=${encodeURIComponent("Status updated.")}`), { cookie: manager }))).toContain("Status updated.");
  });

  it("a note of another client cannot be saved nor have its status switched through this client's screen", async () => {
    const other = await createPatient({ locationId: here.id });
    const before = await reports();
    const res = await form(`/billing/by-client/${other.id}`, { intent: "save", note_id: String(ids.bcba), version: "" }, manager);
    expect(res.status).toBe(422);
    expect(await reports()).toBe(before);
    const [n] = await db().select().from(notes).where(eq(notes.id, ids.bcba));
    const status = await form(`/billing/by-client/${other.id}`, { intent: "status", note_id: String(ids.bcba), note_version: String(n!.version), status: n!.status === "ok" ? "pending" : "ok" }, manager);
    expect(status.status).toBe(422);
    expect(await status.text()).toContain("The client does not match the note&#x27;s client.");
    const [after] = await db().select().from(notes).where(eq(notes.id, ids.bcba));
    expect(after).toEqual(n);
  });

  it("a stale Save (JavaScript off) shows the row as it is now and what changed; the next Save sends the fresh version with the fresh values", async () => {
    const client = await freshClient();
    const n = await note({ type: "rbt", patientId: client.id, locationId: here.id, date: "2026-03-02", paServiceId: client.pa });
    const path = `/billing/by-client/${client.id}`;
    const colleague = await signInCookie(await createUser({ role: "MANAGER", permissions: ["manage_claims"], locations: [here.id] }));
    // Both billers have the page with the row unsaved; the colleague saves first (XE, billed).
    const loaded = rowOf(await html(await request(path, { cookie: manager })), n.id);
    expect([saveField(loaded, "note_version"), saveField(loaded, "version")]).toEqual([String(n.version), ""]);
    expect((await form(path, { intent: "save", note_id: String(n.id), note_version: String(n.version), version: "", md: "XE", md2: "", billed: "true" }, colleague)).status).toBe(303);
    const [stored] = await db().select().from(clientReports).where(eq(clientReports.noteId, n.id));
    const [storedNote] = await db().select().from(notes).where(eq(notes.id, n.id));

    // This biller's Save from the page loaded before: GT and TS, not billed.
    const stale = await form(path, { intent: "save", note_id: String(n.id), note_version: String(n.version), version: "", md: "GT", md2: "TS" }, manager);
    expect(stale.status).toBe(409);
    const row = rowOf(await stale.text(), n.id);
    // The row shows the stored values, not the typed ones, and says what they are.
    expect([selectedCode(row, "md"), selectedCode(row, "md2"), checked(row, "billed"), checked(row, "pay")]).toEqual(["XE", "", true, false]);
    expect(row).toContain("Someone else changed this row");
    expect(row).toMatch(/Modifier 1 XE, no Modifier 2, billed, not paid/);
    // The hidden versions are the stored ones, so a Save of the page as shown is a Save of the current values.
    expect([saveField(row, "note_version"), saveField(row, "version")]).toEqual([String(storedNote!.version), String(stored!.version)]);
    const [unchanged] = await db().select().from(clientReports).where(eq(clientReports.noteId, n.id));
    expect(unchanged).toMatchObject({ md: "XE", md2: null, billed: true, version: stored!.version });

    // Saving the page as it now stands (the user adds Pay) works and keeps the colleague's modifier.
    const again = await form(path, { intent: "save", note_id: String(n.id), note_version: saveField(row, "note_version")!, version: saveField(row, "version")!, md: selectedCode(row, "md")!, md2: selectedCode(row, "md2")!, billed: "true", pay: "true" }, manager);
    expect(again.status).toBe(303);
    const [after] = await db().select().from(clientReports).where(eq(clientReports.noteId, n.id));
    expect(after).toMatchObject({ md: "XE", billed: true, pay: true, version: stored!.version + 1 });
  });

  it("a resent Save of one's own save that landed answers as it did (create and update); another user's or another body's stays 409 (decision 030)", async () => {
    const client = await freshClient();
    const n = await note({ type: "rbt", patientId: client.id, locationId: here.id, date: "2026-03-11", paServiceId: client.pa });
    const path = `/billing/by-client/${client.id}`;
    const added = { intent: "save", note_id: String(n.id), note_version: String(n.version), version: "", md: "XE", md2: "", billed: "true" };
    const first = await form(path, added, manager);
    const again = await form(path, added, manager);
    expect([first.status, again.status]).toEqual([303, 303]);
    expect(withoutFlashTag(again.headers.get("Location"))).toBe(withoutFlashTag(first.headers.get("Location")));
    expect(decodeURIComponent(again.headers.get("Location")!)).toContain("Updated - Added successfully!");
    const [cr] = await db().select().from(clientReports).where(eq(clientReports.noteId, n.id));
    expect(cr).toMatchObject({ md: "XE", billed: true, version: 1 });
    const [saved] = await db().select().from(notes).where(eq(notes.id, n.id));
    const updated = { intent: "save", note_id: String(n.id), note_version: String(saved!.version), version: "1", md: "XE", md2: "", billed: "true", pay: "true" };
    const u1 = await form(path, updated, manager);
    const u2 = await form(path, updated, manager);
    expect([u1.status, u2.status]).toEqual([303, 303]);
    expect(decodeURIComponent(u2.headers.get("Location")!)).toContain("Updated - Bip Updated successfully!");
    const [after] = await db().select().from(clientReports).where(eq(clientReports.noteId, n.id));
    expect(after).toMatchObject({ pay: true, version: 2 });
    // The same old version with another body: the stale 409, nothing written.
    expect((await form(path, { ...updated, md: "GT" }, manager)).status).toBe(409);
    // Another user's Save of the very same form on the old version: 409 too.
    const colleague = await signInCookie(await createUser({ role: "MANAGER", permissions: ["manage_claims"], locations: [here.id] }));
    expect((await form(path, updated, colleague)).status).toBe(409);
    const [unchanged] = await db().select().from(clientReports).where(eq(clientReports.noteId, n.id));
    expect(unchanged).toMatchObject({ md: "XE", pay: true, version: 2 });
  });

  it("Save keeps the PA number and NPI stored through the API (the row's form sends neither)", async () => {
    const client = await freshClient();
    const n = await note({ type: "rbt", patientId: client.id, locationId: here.id, date: "2026-03-03", paServiceId: client.pa });
    const token = await apiToken(await createUser({ role: "MANAGER", permissions: ["manage_claims"], locations: [here.id] }));
    const stored = await api(`/client_report/store`, { method: "POST", token, body: { note_rbt_id: n.id, md: "HM", pa_number: "PA-4411", npi: "1234567890" } });
    expect(stored.status, await stored.clone().text()).toBe(201);
    const [fresh] = await db().select().from(notes).where(eq(notes.id, n.id));
    const res = await form(`/billing/by-client/${client.id}`, { intent: "save", note_id: String(n.id), note_version: String(fresh!.version), version: "1", md: "HM", md2: "XP" }, manager);
    expect(res.status).toBe(303);
    const [cr] = await db().select().from(clientReports).where(eq(clientReports.noteId, n.id));
    expect(cr).toMatchObject({ md2: "XP", version: 2, paNumber: "PA-4411", npi: "1234567890" });
  });

  it("Save with both boxes unticked (absent from the form post) clears billed and pay, where the API keeps what it leaves out", async () => {
    const client = await freshClient();
    const n = await note({ type: "rbt", patientId: client.id, locationId: here.id, date: "2026-03-04", paServiceId: client.pa });
    const path = `/billing/by-client/${client.id}`;
    expect((await form(path, { intent: "save", note_id: String(n.id), note_version: String(n.version), version: "", md: "HM", md2: "", billed: "true", pay: "true" }, manager)).status).toBe(303);
    const row = rowOf(await html(await request(path, { cookie: manager })), n.id);
    expect([checked(row, "billed"), checked(row, "pay")]).toEqual([true, true]);
    // The browser sends the selectors and no checkbox: the row is no longer billed nor paid, its modifier stays.
    const res = await form(path, { intent: "save", note_id: saveField(row, "note_id")!, note_version: saveField(row, "note_version")!, version: saveField(row, "version")!, md: selectedCode(row, "md")!, md2: selectedCode(row, "md2")! }, manager);
    expect(res.status).toBe(303);
    const [after] = await db().select({ md: notes.md, billed: notes.billed, paid: notes.paid }).from(notes).where(eq(notes.id, n.id));
    expect(after).toEqual({ md: "HM", billed: false, paid: false });
  });

  it("after a save, the page and sort links leave the message out, so it is not shown again", async () => {
    const client = await freshClient();
    for (let d = 0; d < 51; d++) await note({ type: "rbt", patientId: client.id, locationId: here.id, date: new Date(Date.UTC(2025, 0, 1 + d)).toISOString().slice(0, 10) });
    const page = await html(await request(await withFlashTag(`/billing/by-client/${client.id}?type=rbt&flash=${encodeURIComponent("Updated - Added successfully!")}`), { cookie: manager }));
    expect(page).toContain("Updated - Added successfully!");
    const links = [...page.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&")).filter((h) => /[?&](page|sort)=/.test(h));
    expect(links.some((h) => /[?&]page=2\b/.test(h))).toBe(true);
    expect(links.some((h) => /[?&]sort=date\b/.test(h))).toBe(true);
    for (const h of links) {
      expect(h).not.toContain("flash");
      expect(h).toContain("type=rbt");
    }
  });
});

/** A client of its own with a PA service (97153, first half of 2026), so a test does not lean on another's rows. */
async function freshClient() {
  const client = await createPatient({ locationId: here.id, insurerId: ids.ins });
  const [pa] = await db().insert(paServices).values({ patientId: client.id, paService: "Direct therapy", cpt: "97153", nUnits: 300, startDate: "2026-01-01", endDate: "2026-06-30", insuranceId: ids.ins }).returning();
  return { id: client.id, pa: pa!.id };
}

describe("the unit price shows its multiplier where it is not 1 (probe 8912 §4)", () => {
  it("a 1.15 service's row reads '$12.99 × 1.15' beside its charge, screen and API alike; a 1.00 service's row the price alone", async () => {
    const [payer] = await db().insert(insurances).values({ name: "Multiplier Payer", payerId: "PAYER1" }).returning();
    await db().insert(insuranceServices).values({ insuranceId: payer!.id, cptCode: "97153", provider: "rbt", type: "rbt", unitPrice: 12.99, multiplier: 1.15 });
    const carol = await createPatient({ locationId: here.id, insurerId: payer!.id, firstName: "Carol", lastName: "Times" });
    const n = await note({ type: "rbt", patientId: carol.id, locationId: here.id, date: "2026-04-06" });
    // 8 units × $12.99 × 1.15 = $119.508 → $119.51.
    const row = rowOf(await html(await request(`/billing/by-client/${carol.id}`, { cookie: manager })), n.id);
    expect(row).toContain("<td>$12.99 × 1.15</td>");
    expect(row).toContain("$119.51");
    const token = await apiToken(await createUser({ permissions: ["manage_claims"], locations: [here.id] }));
    const body = (await (await api(`/client_report/byprofile/${carol.id}`, { token })).json()) as any;
    expect(body.noteRbts[0]).toMatchObject({ unit_price_cents: 1299, multiplier: 1.15, charges_cents: 11951 });
    // Blue Payer's service has no multiplier: $15.00 alone, and 8 × $15.00 = $120.00.
    const plain = rowOf(await html(await request(`/billing/by-client/${alice.id}`, { cookie: manager })), ids.rbt);
    expect(plain).toContain("<td>$15.00</td>");
    expect(plain).toContain("$120.00");
    expect(plain).not.toContain("×");
  });
});

describe("the header's 'Insurer rate and CPT' lists each price the rows can use, labelled (probe 8984 L3)", () => {
  it("one entry per provider and modifiers of the PA services' CPTs at the client's location, screen and API alike", async () => {
    const [payer] = await db().insert(insurances).values({ name: "Many Prices", payerId: "PAYER1" }).returning();
    const [hm, ho, hmGt] = await db()
      .insert(insuranceServices)
      .values([
        { insuranceId: payer!.id, cptCode: "97153", provider: "rbt", type: "rbt", modifiers: "HM", unitPrice: 16.25 },
        { insuranceId: payer!.id, cptCode: "97153", provider: "bcba", type: "bcba", modifiers: "HO", unitPrice: 26.25 },
        { insuranceId: payer!.id, cptCode: "97153", provider: "rbt", type: "rbt", modifiers: "HM-GT", unitPrice: 12.99, multiplier: 1.15 },
        // Another location's own price, and a CPT the client has no PA service for: not listed.
        { insuranceId: payer!.id, cptCode: "97153", provider: "rbt", type: "rbt", modifiers: "HM", unitPrice: 99, locationId: there.id },
        { insuranceId: payer!.id, cptCode: "97155", provider: "bcba", type: "bcba", unitPrice: 30 },
      ])
      .returning();
    const dana = await createPatient({ locationId: here.id, insurerId: payer!.id, firstName: "Dana", lastName: "Rates" });
    await db().insert(paServices).values({ patientId: dana.id, paService: "Direct therapy", cpt: "97153", nUnits: 300, startDate: "2026-01-01", endDate: "2026-12-31", insuranceId: payer!.id });
    const withGt = await note({ type: "rbt", patientId: dana.id, locationId: here.id, date: "2026-04-06" });
    await db().update(notes).set({ md: "HM", md2: "GT" }).where(eq(notes.id, withGt.id));
    const page = await html(await request(`/billing/by-client/${dana.id}`, { cookie: manager }));
    expect(page).toContain("<dt>Insurer rate and CPT</dt><dd>97153 RBT HM: $16.25 · 97153 BCBA HO: $26.25 · 97153 RBT HM GT: $12.99 × 1.15</dd>");
    // The row is priced with one of them.
    expect(rowOf(page, withGt.id)).toContain("<td>$12.99 × 1.15</td>");
    const token = await apiToken(await createUser({ permissions: ["manage_claims"], locations: [here.id] }));
    const profile = (await (await api(`/client_report/profile/${dana.id}`, { token })).json()) as any;
    const entry = (s: { id: number }, provider: string, modifiers: string[], cents: number, multiplier: number, label: string) => ({ cpt: "97153", provider, unit_price_cents: cents, unit_price: (cents / 100).toFixed(2), service_id: s.id, modifiers, multiplier, location_id: null, label });
    expect(profile.data.rates).toEqual([entry(hm!, "rbt", ["HM"], 1625, 1, "97153 RBT HM"), entry(ho!, "bcba", ["HO"], 2625, 1, "97153 BCBA HO"), entry(hmGt!, "rbt", ["HM", "GT"], 1299, 1.15, "97153 RBT HM GT")]);
  });
});

describe("filters carried: the report's sort through a new filter, the lists' period to a client's report (probe 8984 L5)", () => {
  /** The report's filter form (GET). */
  const filterForm = (page: string) => /<form method="get"[^>]*aria-label="Filter the notes"[\s\S]*?<\/form>/.exec(page)?.[0] ?? "";
  const hidden = (formHtml: string) => [...formHtml.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => `${m[1]}=${m[2]}`);

  it.each([
    ["a chosen sort and direction are kept", "?sort=units&dir=desc&page=2", ["sort=units", "dir=desc"]],
    ["a sort alone", "?sort=provider", ["sort=provider"]],
    ["no sort: nothing hidden", "?from=2026-02-01", []],
    ["a refused sort is not carried (the next search drops it)", "?sort=charges&dir=desc", ["dir=desc"]],
  ])("the by-client filter form: %s (never the page: a new filter starts at page 1)", async (_l, query, expected) => {
    const page = await request(`/billing/by-client/${alice.id}${query}`, { cookie: manager });
    expect(page.status).toBe(200);
    expect(hidden(filterForm(await page.text()))).toEqual(expected);
  });

  it("employee by client's report form keeps its client and employee and the sort", async () => {
    const page = await html(await request(`/client-report/employee-by-client?patient_id=${alice.id}&employee_id=${ids.other}&sort=date&dir=desc`, { cookie: manager }));
    expect(hidden(filterForm(page))).toEqual([`patient_id=${alice.id}`, `employee_id=${ids.other}`, "sort=date", "dir=desc"]);
  });

  it.each([
    ["the period chosen (the status has no filter on the report: left out)", "?date_from=2026-02-01&date_to=2026-02-28&status=unbilled", "from=2026-02-01&amp;to=2026-02-28"],
    ["From alone: the period the list read (to the end of From's month)", "?date_from=2026-02-02", "from=2026-02-02&amp;to=2026-02-28"],
    ["a location and a provider are not report filters", `?date_from=2026-02-01&date_to=2026-02-10&provider_id=:other`, "from=2026-02-01&amp;to=2026-02-10"],
  ])("the billing list's link to a client carries %s", async (_l, query, carried) => {
    const page = await html(await request(`/billing/list${query.replace(":other", String(ids.other))}`, { cookie: manager }));
    expect(page).toContain(`href="/billing/by-client/${alice.id}?${carried}"`);
    // The report read with it lists the notes of that period only.
    const report = rowsOf(await html(await request(`/billing/by-client/${alice.id}?${carried.replaceAll("&amp;", "&")}`, { cookie: manager })));
    expect(report).toContain("2026-02-03");
    expect(report).not.toContain("2026-01-12");
  });

  it("employee by client's links carry its period too", async () => {
    const page = await html(await request(`/client-report/employee-by-client?employee_id=${ids.other}&date_from=2026-02-01&date_to=2026-02-15`, { cookie: manager }));
    expect(page).toContain(`href="/client-report/employee-by-client?patient_id=${alice.id}&amp;employee_id=${ids.other}&amp;from=2026-02-01&amp;to=2026-02-15"`);
  });
});
