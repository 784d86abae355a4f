import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import * as v from "valibot";
import { beforeAll, describe, expect, it } from "vitest";
import { notes, patients, users } from "~/db/schema";
import { ListQuery } from "~/domain/paging";
import { getUserActor } from "~/models/actors.server";
import type { ModelContext } from "~/models/context";
import type { Permission } from "~/domain/permissions";
import { listBips } from "~/models/bips.server";
import { listEmployees } from "~/models/employees.server";
import { notesPage, PER_LOCATION_PAGE_MAX } from "~/models/notes.server";
import { listPatients } from "~/models/patients.server";
import { countingDb, createBip, createLocation, createPatient, createUser, db } from "./helpers";

/**
 * The lists that read a page in index order instead of sorting every row of their scope (decision 043,
 * 2026-11-28 (stop 41)): the notes list of a user limited to some locations, the employees list, the clients
 * list of a location and the BIPs that need attention. Each page is the same as before (same rows, same order),
 * and the statement's plan is an index's order.
 */

/** The steps of a statement's plan, as D1's SQLite picks it (its parameters bound to null: the plan does not depend on them). */
async function planOf(statement: string, topOnly = false): Promise<string[]> {
  const params = (statement.match(/\?/g) ?? []).map(() => null);
  const plan = await env.DB.prepare(`explain query plan ${statement}`)
    .bind(...params)
    .all<{ detail: string; parent: number }>();
  // topOnly: the statement's own steps, without those of its per-row subqueries (the client's time zone, an employee's roles).
  return plan.results.filter((r) => !topOnly || (r.parent === 0 && !r.detail.startsWith("CORRELATED"))).map((r) => r.detail);
}

async function actorCtx(permissions: Permission[], at: number[], database = db()): Promise<ModelContext> {
  const user = await createUser({ permissions, locations: at });
  return { db: database, actor: (await getUserActor(db(), user.id))!, ip: "203.0.113.9", now: () => new Date() };
}

/** The statements a model call sends (their SQL text), for their plans. */
async function statementsOf(ctx: ModelContext, call: (ctx: ModelContext) => Promise<{ ok: boolean }>): Promise<string[]> {
  const counting = countingDb();
  expect((await call({ ...ctx, db: counting.db })).ok).toBe(true);
  return counting.queries();
}

const query = (over: Record<string, string> = {}) => v.parse(ListQuery, { page: "1", per_page: "25", ...over });

describe("the notes list of a user limited to some locations", () => {
  const locs: number[] = [];
  type Seeded = { id: number; location: number; patient: number; type: string; status: string; date: string; name: string };
  const seeded: Seeded[] = [];
  const tag = `Plan${Date.now().toString(36)}`;
  let gone = 0;
  // Identifiers of digits only: the default (`P-` and a base-36 time) can hold "bo", which the search below would then
  // find in every client's identifier (the list searches identifiers too), a run in a thousand.
  const digitsOnly = (k: number) => `P-${Date.now()}${k}`;

  beforeAll(async () => {
    for (let i = 0; i < 4; i++) locs.push((await createLocation({ title: `${tag} ${i}` })).id);
    const clients = [
      await createPatient({ locationId: locs[0]!, lastName: `${tag}Ames`, patientIdentifier: digitsOnly(1) }),
      await createPatient({ locationId: locs[0]!, lastName: `${tag}Boyd`, patientIdentifier: digitsOnly(2) }),
      await createPatient({ locationId: locs[1]!, lastName: `${tag}Cole`, patientIdentifier: digitsOnly(3) }),
      await createPatient({ locationId: locs[2]!, lastName: `${tag}Dunn`, patientIdentifier: digitsOnly(4) }),
      await createPatient({ locationId: locs[3]!, lastName: `${tag}Eads`, patientIdentifier: digitsOnly(5) }),
    ];
    const goneClient = await createPatient({ locationId: locs[0]!, lastName: `${tag}Gone`, patientIdentifier: digitsOnly(6) });
    gone = goneClient.id;
    const all = [...clients, goneClient];
    const provider = (await createUser({ permissions: ["view_notes"], locations: locs })).id;
    // Few dates, many notes a date: the order within a day (id desc) matters as much as the date's.
    const dates = ["2026-10-01", "2026-10-02", "2026-10-02", "2026-10-05", "2026-10-05", "2026-10-05", "2026-10-09", "2026-10-12"];
    const values: (typeof notes.$inferInsert)[] = [];
    for (let i = 0; i < 60; i++) {
      const c = all[(i * 7) % all.length]!;
      values.push({
        type: (["rbt", "bcba", "combined"] as const)[i % 3]!,
        patientId: c.id,
        // A note may be written at another location than its client's own.
        locationId: i % 5 === 0 ? locs[(i / 5) % 4]! : c.locationId,
        providerId: provider,
        cptCode: "97153",
        sessionDate: dates[(i * 5) % dates.length]!,
        minutes: 30,
        units: 2,
        status: i % 4 === 0 ? "ok" : "pending",
        deletedAt: i % 11 === 0 ? "2026-11-01T00:00:00.000Z" : null,
      });
    }
    for (let i = 0; i < values.length; i += 4) {
      const rows = await db().insert(notes).values(values.slice(i, i + 4)).returning();
      for (const r of rows) {
        if (r.deletedAt) continue;
        const c = all.find((x) => x.id === r.patientId)!;
        seeded.push({ id: r.id, location: r.locationId, patient: r.patientId, type: r.type, status: r.status ?? "pending", date: r.sessionDate, name: c.lastName });
      }
    }
    await db().update(patients).set({ deletedAt: "2026-11-05T00:00:00.000Z" }).where(eq(patients.id, gone));
  });

  async function ctxAt(at: number[]): Promise<ModelContext> {
    const user = await createUser({ permissions: ["view_notes"], locations: at });
    return { db: db(), actor: (await getUserActor(db(), user.id))!, ip: "203.0.113.9", now: () => new Date() };
  }

  /** What the list must show: live notes of live clients in the scope, the filters, newest session first (then newest id). */
  function expected(scope: number[], f: { status?: string; type?: string; date_from?: string; date_to?: string; search?: string }) {
    return seeded
      .filter(
        (n) =>
          scope.includes(n.location) &&
          n.patient !== gone &&
          (!f.status || n.status === f.status) &&
          (!f.type || n.type === f.type) &&
          (!f.date_from || n.date >= f.date_from) &&
          (!f.date_to || n.date <= f.date_to) &&
          (!f.search || n.name.toLowerCase().includes(f.search.toLowerCase())),
      )
      .sort((a, b) => (a.date === b.date ? b.id - a.id : a.date < b.date ? 1 : -1))
      .map((n) => n.id);
  }

  const filters = [{}, { status: "pending" }, { status: "ok" }, { type: "bcba" }, { date_from: "2026-10-02", date_to: "2026-10-05" }, { search: "boyd" }, { status: "pending", date_from: "2026-10-05" }];
  const scopes = [[0], [0, 1], [1, 2], [0, 1, 2]];

  it.each(scopes.map((picked) => [picked]))("every page is the scope's notes in the list's order (locations %j)", async (picked) => {
    const scope = picked.map((i) => locs[i]!);
    const ctx = await ctxAt(scope);
    for (const f of filters) {
      const want = expected(scope, f);
      const got: number[] = [];
      for (let page = 1; page <= Math.ceil(want.length / 4) + 1; page++) {
        const { search, date_from, date_to, ...raw } = f as Record<string, string>;
        const query = v.parse(ListQuery, { page: String(page), per_page: "4", search: search ?? "", date_from: date_from ?? "", date_to: date_to ?? "" });
        const result = await notesPage(ctx, query, raw);
        if (!result.ok) throw new Error(JSON.stringify(result));
        expect(result.data.total, JSON.stringify(f)).toBe(want.length);
        got.push(...result.data.data.map((n) => n.id));
      }
      expect(got, JSON.stringify({ scope: picked, f })).toEqual(want);
      expect(want.length, "the case lists something").toBeGreaterThan(0);
    }
  });

  it("each location's page is read in (session_date, id) order from notes_location_date_idx: no sort of the scope's notes", async () => {
    const ctx = await ctxAt([locs[0]!, locs[1]!]);
    for (const raw of [{}, { status: "pending" }]) {
      const counting = countingDb();
      const query = v.parse(ListQuery, { page: "3", per_page: "4" });
      expect((await notesPage({ ...ctx, db: counting.db }, query, raw)).ok).toBe(true);
      const page = counting.queries().find((q) => q.includes("union all"))!;
      expect(page, "the page is read location by location").toBeTruthy();
      const steps = await planOf(page);
      // One search of the date index per location, in its order; the sorts left are of those few rows only.
      expect(steps.filter((s) => s.includes("USING INDEX notes_location_date_idx (location_id=?)")).length, steps.join(" | ")).toBe(2);
      expect(steps.some((s) => /notes_location_type_idx|SCAN notes/.test(s)), steps.join(" | ")).toBe(false);
    }
  });

  it("twelve locations: read location by location in unions of at most five terms (D1's limit), with the same rows; with a search, a status and dates (past D1's 100 parameters) as one statement", async () => {
    const twelve = [...locs];
    while (twelve.length < 12) twelve.push((await createLocation()).id);
    const ctx = await ctxAt(twelve);
    for (const page of ["1", "2", "3"]) {
      const plain = countingDb();
      const result = await notesPage({ ...ctx, db: plain.db }, v.parse(ListQuery, { page, per_page: "7" }), {});
      if (!result.ok) throw new Error(JSON.stringify(result));
      expect(plain.queries().some((q) => q.includes("union all"))).toBe(true);
      expect(result.data.data.map((n) => n.id)).toEqual(expected(locs, {}).slice((Number(page) - 1) * 7, Number(page) * 7));
    }
    const f = { status: "pending", date_from: "2026-10-01", date_to: "2026-10-12", search: "bo" };
    const counting = countingDb();
    const result = await notesPage({ ...ctx, db: counting.db }, v.parse(ListQuery, { page: "1", per_page: "100", search: f.search, date_from: f.date_from, date_to: f.date_to }), { status: f.status });
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(counting.queries().some((q) => q.includes("union all"))).toBe(false);
    expect(result.data.data.map((n) => n.id)).toEqual(expected(locs, f));
    expect(expected(locs, f).length, "the case lists something").toBeGreaterThan(0);
  });

  it("a scope larger than PER_LOCATION_PAGE_MAX is read as one statement, with the same rows", async () => {
    const many = [...locs];
    for (let i = many.length; i <= PER_LOCATION_PAGE_MAX; i++) many.push((await createLocation()).id);
    const ctx = await ctxAt(many);
    const counting = countingDb();
    const query = v.parse(ListQuery, { page: "1", per_page: "100" });
    const result = await notesPage({ ...ctx, db: counting.db }, query, {});
    expect(counting.queries().some((q) => q.includes("union all"))).toBe(false);
    if (!result.ok) throw new Error("not ok");
    expect(result.data.data.map((n) => n.id)).toEqual(expected(locs, {}));
  });
});

describe("the employees list, the clients list of a location and the BIPs that need attention", () => {
  it("the employees list and the staff select walk users_live_name_idx in (surname, name, id) order; roles and locations are read for the page's rows only", async () => {
    const loc = (await createLocation()).id;
    const tag = `Emp${Date.now().toString(36)}`;
    const made = [];
    for (const [name, surname] of [["Zoe", `${tag}Adams`], ["Amy", `${tag}Baker`], ["Amy", `${tag}Adams`], ["Amy", `${tag}Adams`]] as const) made.push(await createUser({ permissions: ["view_employees"], locations: [loc], name }).then(async (u) => (await db().update(users).set({ surname }).where(eq(users.id, u.id)), u.id)));
    const admin = await actorCtx(["view_employees", "access_all_locations"], [loc]);
    const listed = await listEmployees(admin, query({ search: tag }));
    if (!listed.ok) throw new Error("not ok");
    expect(listed.data.data.map((e) => e.id)).toEqual([made[2], made[3], made[0], made[1]]);
    for (const ctx of [admin, await actorCtx(["view_employees"], [loc])]) {
      const [page] = await statementsOf(ctx, (c) => listEmployees(c, query()));
      const top = await planOf(page!, true);
      expect(top[0], top.join(" | ")).toBe("SCAN users USING INDEX users_live_name_idx");
      // No sort of the list itself: the only sorts are inside each row's role and location subqueries, which SQLite
      // evaluates for the rows it hands back (the page), not for every employee before a sort.
      expect(top.some((s) => s.includes("TEMP B-TREE")), top.join(" | ")).toBe(false);
    }
    const select = await planOf("select id, name, surname from users where deleted_at is null order by surname, name limit 201");
    expect(select).toEqual(["SCAN users USING INDEX users_live_name_idx"]);
  });

  it("the clients of one location are read in (last_name, first_name, id) order from patients_location_name_idx", async () => {
    const here = (await createLocation()).id;
    const there = (await createLocation()).id;
    const tag = `Cli${Date.now().toString(36)}`;
    const c = [
      await createPatient({ locationId: here, lastName: `${tag}B`, firstName: "Ann" }),
      await createPatient({ locationId: here, lastName: `${tag}A`, firstName: "Zed" }),
      await createPatient({ locationId: there, lastName: `${tag}A`, firstName: "Amy" }),
      await createPatient({ locationId: here, lastName: `${tag}A`, firstName: "Zed" }),
    ];
    for (const [ctx, filters] of [
      [await actorCtx(["view_clients", "access_all_locations"], [here]), { location_id: String(here) }],
      [await actorCtx(["view_clients"], [here]), {}],
    ] as const) {
      const listed = await listPatients(ctx, query({ search: tag }), filters);
      if (!listed.ok) throw new Error("not ok");
      expect(listed.data.data.map((p) => p.id)).toEqual([c[1]!.id, c[3]!.id, c[0]!.id]);
      const [page] = await statementsOf(ctx, (x) => listPatients(x, query(), filters));
      const steps = await planOf(page!, true);
      expect(steps, steps.join(" | ")).toEqual(["SEARCH patients USING INDEX patients_location_name_idx (location_id=?)"]);
    }
    // A scope of several locations reads each location in order, and sorts those clients (decision 043, stop 41).
    const two = await actorCtx(["view_clients"], [here, there]);
    const [page] = await statementsOf(two, (x) => listPatients(x, query()));
    expect(await planOf(page!, true)).toEqual(["SEARCH patients USING INDEX patients_location_name_idx (location_id=?)", "USE TEMP B-TREE FOR ORDER BY"]);
  });

  it("the BIPs that need attention and their count read bips_attention_idx, newest first, not every plan", async () => {
    const loc = (await createLocation()).id;
    const patient = await createPatient({ locationId: loc });
    const flagged = [await createBip(patient, { attention: true }), await createBip(patient), await createBip(patient, { attention: true }), await createBip(patient, { attention: true, deletedAt: "2026-11-01T00:00:00.000Z" })];
    const ctx = await actorCtx(["view_bips"], [loc]);
    const listed = await listBips(ctx, query(), { needs_attention: "true" });
    if (!listed.ok) throw new Error("not ok");
    expect(listed.data.data.map((b) => b.id)).toEqual([flagged[2]!.id, flagged[0]!.id]);
    expect(listed.data.total).toBe(2);
    const [page, total] = await statementsOf(ctx, (x) => listBips(x, query(), { needs_attention: "true" }));
    for (const statement of [page!, total!]) {
      const steps = await planOf(statement, true);
      expect(steps[0], steps.join(" | ")).toBe("SEARCH bips USING INDEX bips_attention_idx (attention=?)");
      expect(steps.some((s) => s.includes("TEMP B-TREE") || s.startsWith("SCAN bips")), steps.join(" | ")).toBe(false);
    }
  });
});
