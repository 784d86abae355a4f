import { asc, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { noteCounts, paServices } from "~/db/schema";
import { todayIn } from "~/domain/note-rules";
import type { Permission } from "~/domain/permissions";
import { addDays, dayNumber } from "~/domain/weeks";
import { api, apiToken, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * The notes lists' totals and the dashboard's note counts at scale (decision 035): exact totals from
 * note_counts (kept by triggers on every note and client write), capped totals ("10,000+",
 * total_is_lower_bound) for other filters, and the same numbers on the screen, the API and the dashboard.
 */

const today = () => todayIn(new Date(), "America/New_York");
const day = (offset: number) => addDays(today(), offset);

let here: { id: number };
let manager: { id: number; token: string; cookie: string };

async function staff(permissions: Permission[], locations: number[]) {
  const user = await createUser({ permissions, locations });
  return { id: user.id, token: await apiToken(user), cookie: await signInCookie(user) };
}

/** A client of `here` with a 97153 PA service and room for many notes. */
async function client() {
  const patient = await createPatient({ locationId: here.id });
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Direct therapy", cpt: "97153", nUnits: 4000, startDate: day(-200), endDate: day(200) }).returning();
  return { patient, pa: pa! };
}

async function call(token: string, method: string, path: string, body?: unknown) {
  const res = await api(path, { method, token, body });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

function create(c: Awaited<ReturnType<typeof client>>, date: string, start: string, end: string, over: Record<string, unknown> = {}) {
  return call(manager.token, "POST", "/v2/notes-rbt", { patient_id: c.patient.id, provider_id: manager.id, pa_service_id: c.pa.id, cpt_code: "97153", session_date: date, time_in: start, time_out: end, pos: "12", diagnosis_code: "F84.0", ...over });
}

/** What note_counts says, and what counting the notes themselves says (live notes of live clients), per location and type. */
async function countsAndRecount() {
  const stored = await db().select({ location_id: noteCounts.locationId, type: noteCounts.type, n: noteCounts.n }).from(noteCounts).where(sql`${noteCounts.n} <> 0`).orderBy(asc(noteCounts.locationId), asc(noteCounts.type));
  const recount = await db().all<{ location_id: number; type: string; n: number }>(
    sql`select n.location_id, n.type, count(*) as n from notes n join patients p on p.id = n.patient_id where n.deleted_at is null and p.deleted_at is null group by n.location_id, n.type order by n.location_id, n.type`,
  );
  return { stored, recount };
}

/** The totals a user sees: the API list (RBT), the notes list screen, the dashboard's RBT count. */
async function totals(user: { token: string; cookie: string }) {
  const list = await call(user.token, "GET", "/v2/notes-rbt");
  const screen = await (await request("/notes-list?type=rbt", { cookie: user.cookie })).text();
  const dash = await call(user.token, "GET", "/dashboard/admin");
  return { api: list.json.total as number, screen: /Showing \d+ to \d+ of ([\d,+]+) entries/.exec(screen)?.[1], dashboard: dash.json.total_noteRbts as number };
}

beforeAll(async () => {
  here = await createLocation();
  manager = await staff(["view_notes", "manage_notes", "view_clients", "manage_clients", "ignore_time_limits"], [here.id]);
});

describe("exact totals from note_counts", () => {
  it("a create counts at once, a refused create does not, an amendment changes nothing, a delete gives it back — on the list, the API and the dashboard", async () => {
    const c = await client();
    expect(await totals(manager)).toEqual({ api: 0, screen: "0", dashboard: 0 });

    const a = await create(c, day(-1), "09:00", "10:00");
    const b = await create(c, day(-2), "09:00", "10:00", { provider_name: "Mona", provider_signed_on: day(-2) });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(await totals(manager)).toEqual({ api: 2, screen: "2", dashboard: 2 });

    // Refused (overlaps the first note): nothing written, nothing counted.
    const refused = await create(c, day(-1), "09:30", "10:30");
    expect(refused.status).toBe(422);
    expect(await totals(manager)).toEqual({ api: 2, screen: "2", dashboard: 2 });

    // An edit and an amendment of a signed note keep the count.
    expect((await call(manager.token, "PATCH", `/v2/notes-rbt/${a.json.data.id}`, { time_out: "10:30" })).status).toBe(200);
    expect((await call(manager.token, "PATCH", `/v2/notes-rbt/${b.json.data.id}`, { time_out: "10:30", amendment_reason: "Ran longer" })).status).toBe(200);
    expect(await totals(manager)).toEqual({ api: 2, screen: "2", dashboard: 2 });

    // A status change keeps it; a delete gives one back; deleting again changes nothing.
    expect((await call(manager.token, "PUT", `/note_rbt/update/status/${a.json.data.id}`, { status: "ok" })).status).toBe(200);
    expect((await call(manager.token, "DELETE", `/v2/notes-rbt/${a.json.data.id}`)).status).toBe(200);
    expect((await call(manager.token, "DELETE", `/v2/notes-rbt/${a.json.data.id}`)).status).toBe(404);
    expect(await totals(manager)).toEqual({ api: 1, screen: "1", dashboard: 1 });

    const { stored, recount } = await countsAndRecount();
    expect(stored).toEqual(recount);
  });

  it("concurrent creates count exactly the notes that landed", async () => {
    const c = await client();
    const before = (await totals(manager)).api;
    // Ten creates at once, two of each pair overlapping: the rules let five land.
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create(c, day(-3), `${String(8 + Math.floor(i / 2)).padStart(2, "0")}:00`, `${String(8 + Math.floor(i / 2)).padStart(2, "0")}:45`)));
    const landed = results.filter((r) => r.status === 201).length;
    expect(landed).toBe(5);
    expect((await totals(manager)).api).toBe(before + landed);
    const { stored, recount } = await countsAndRecount();
    expect(stored).toEqual(recount);
  });

  it("a deleted client's notes are not counted anywhere; restored, they count again", async () => {
    const c = await client();
    const before = await totals(manager);
    for (const d of [-4, -5, -6]) expect((await create(c, day(d), "13:00", "14:00")).status).toBe(201);
    expect((await totals(manager)).api).toBe(before.api + 3);

    expect((await call(manager.token, "DELETE", `/v2/patients/${c.patient.id}`)).status).toBe(200);
    expect(await totals(manager)).toEqual(before);
    // Filtered lists (capped counts) leave them out too.
    const byDate = await call(manager.token, "GET", `/v2/notes-rbt?date_from=${day(-6)}&date_to=${day(-4)}`);
    expect(byDate.json.data.filter((n: { patient_id: number }) => n.patient_id === c.patient.id)).toEqual([]);
    expect(byDate.json.total).toBe(byDate.json.data.length);
    expect(byDate.json.total_is_lower_bound).toBeUndefined();

    // No screen restores a client; the counts follow the row if it ever is.
    await db().run(sql`update patients set deleted_at = null where id = ${c.patient.id}`);
    expect((await totals(manager)).api).toBe(before.api + 3);
    const { stored, recount } = await countsAndRecount();
    expect(stored).toEqual(recount);
  });

  it("another location's notes are not in a user's totals; an admin's totals count every location", async () => {
    const there = await createLocation();
    const far = await createPatient({ locationId: there.id });
    const dn = dayNumber(day(-1))!;
    await db().run(
      sql`insert into notes (type, patient_id, location_id, provider_id, cpt_code, session_date, start1_at, end1_at, start_at, end_at, minutes, units)
          values ('rbt', ${far.id}, ${there.id}, ${manager.id}, '97153', ${day(-1)}, ${dn * 1440 + 600}, ${dn * 1440 + 660}, ${dn * 1440 + 600}, ${dn * 1440 + 660}, 60, 4)`,
    );
    const mine = await totals(manager);
    const outsider = await staff(["view_notes"], [there.id]);
    expect(await totals(outsider)).toEqual({ api: 1, screen: "1", dashboard: 1 });
    const admin = await createUser({ role: "ADMIN" });
    const adminTotals = await totals({ token: await apiToken(admin), cookie: await signInCookie(admin) });
    const all = await db().all<{ n: number }>(sql`select count(*) as n from notes n join patients p on p.id = n.patient_id where n.deleted_at is null and p.deleted_at is null and n.type = 'rbt'`);
    expect(adminTotals.api).toBe(all[0]!.n);
    expect(adminTotals.api).toBeGreaterThanOrEqual(mine.api + 1);
  });
});

describe("capped totals for other filters", () => {
  it("more than 10,000 matching notes: '10,000+' on the screen, total_is_lower_bound in the API, and paging goes on past it", async () => {
    const loc = await createLocation();
    const user = await staff(["view_notes"], [loc.id]);
    const p = await createPatient({ locationId: loc.id });
    // 10,030 pending RBT notes, one a minute apart (the rules are not this test's business), and 5 ok ones.
    await db().run(
      sql`insert into notes (type, patient_id, location_id, provider_id, cpt_code, session_date, start_at, end_at, minutes, units, status)
          with recursive seq(i) as (select 0 union all select i + 1 from seq where i < 10034)
          select 'rbt', ${p.id}, ${loc.id}, ${user.id}, '97153', date('2026-01-01', '+' || (i % 300) || ' days'), i, i + 1, 1, 0, case when i < 10030 then 'pending' else 'ok' end from seq`,
    );

    // No filter but the type: exact, from the counters.
    const all = await call(user.token, "GET", "/v2/notes-rbt");
    expect(all.json).toMatchObject({ total: 10_035, last_page: 402 });
    expect(all.json.total_is_lower_bound).toBeUndefined();

    // A status filter: counted up to 10,000.
    const pending = await call(user.token, "GET", "/v2/notes-rbt?status=pending");
    expect(pending.json).toMatchObject({ total: 10_000, total_is_lower_bound: true, page: 1, last_page: 401 });
    expect(pending.json.data).toHaveLength(25);
    const screen = await (await request("/notes-list?status=pending", { cookie: user.cookie })).text();
    expect(/Showing 1 to 25 of 10,000\+ entries/.test(screen)).toBe(true);
    expect(/href="\/notes-list\?status=pending&amp;page=2">Next</.test(screen)).toBe(true);

    // Past the cap the count reaches the page asked for: page 401 still knows a page 402 exists …
    const p401 = await call(user.token, "GET", "/v2/notes-rbt?status=pending&page=401");
    expect(p401.json).toMatchObject({ total: 10_025, total_is_lower_bound: true, page: 401, last_page: 402 });
    expect(p401.json.data).toHaveLength(25);
    // … and the last page is exact again.
    const p402 = await call(user.token, "GET", "/v2/notes-rbt?status=pending&page=402");
    expect(p402.json).toMatchObject({ total: 10_030, page: 402, last_page: 402 });
    expect(p402.json.total_is_lower_bound).toBeUndefined();
    expect(p402.json.data).toHaveLength(5);

    // A filter under the cap is exact.
    const ok = await call(user.token, "GET", "/v2/notes-rbt?status=ok");
    expect(ok.json).toMatchObject({ total: 5, last_page: 1 });
    const screenOk = await (await request("/notes-list?status=ok", { cookie: user.cookie })).text();
    expect(/Showing 1 to 5 of 5 entries/.test(screenOk)).toBe(true);
  });
});
