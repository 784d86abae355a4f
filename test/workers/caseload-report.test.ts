import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notes, patients } from "~/db/schema";
import { canSeeLocation, locationScope } from "~/domain/permissions";
import { getUserActor } from "~/models/actors.server";
import { caseloadReport } from "~/models/reports/caseload.server";
import type { ModelContext } from "~/models/context";
import type { NoteReportFilters } from "~/models/reports/note-scope.server";
import { countingDb, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * Provider-clients (caseload, decision 039, 2026-11-26): providers in name order (surname, first name, id), the
 * sessions without a provider last; per provider the distinct clients (once however many sessions), sessions
 * and hours, computed for the page's providers only; the number of providers from the month sums plus the
 * edge days. Held against a plain count over the notes for several periods, filters and pages.
 */

let admin: ModelContext;
let local: ModelContext;
let here: number;
let there: number;
const staff: Record<string, number> = {};
let clients: { id: number; locationId: number; lastName: string | null; firstName: string | null; patientIdentifier: string | null }[] = [];
let deleted: number;

interface Expected {
  provider_id: number | null;
  clients: number;
  sessions: number;
  minutes: number;
  patient_ids: number[];
}

/** The reference: the period's live notes of live clients in the actor's scope, counted per provider in SQL, sorted as the report says. */
async function expected(ctx: ModelContext, f: NoteReportFilters): Promise<Expected[]> {
  const scope = locationScope(ctx.actor);
  if (f.locationId !== null && !canSeeLocation(ctx.actor, f.locationId)) return [];
  const rows = await db().all<{ provider_id: number | null; patient_id: number; n: number; m: number; surname: string | null; name: string | null; last: string | null; first: string | null }>(sql`
    select n.provider_id, n.patient_id, count(*) as n, sum(n.minutes) as m, u.surname, u.name, p.last_name as last, p.first_name as first
    from notes n join patients p on p.id = n.patient_id left join users u on u.id = n.provider_id
    where n.deleted_at is null and p.deleted_at is null and n.session_date between ${f.from} and ${f.to}
      ${f.locationId !== null ? sql`and n.location_id = ${f.locationId}` : sql``}
      ${scope !== null ? sql`and n.location_id in (${sql.raw(scope.join(",") || "0")})` : sql``}
      ${f.providerId !== null ? sql`and n.provider_id = ${f.providerId}` : sql``}
      ${f.patientId !== null ? sql`and n.patient_id = ${f.patientId}` : sql``}
    group by n.provider_id, n.patient_id
    order by p.last_name, p.first_name, n.patient_id`);
  const by = new Map<number | null, Expected & { surname: string | null; name: string | null }>();
  for (const r of rows) {
    const e = by.get(r.provider_id) ?? { provider_id: r.provider_id, clients: 0, sessions: 0, minutes: 0, patient_ids: [], surname: r.surname, name: r.name };
    e.clients++;
    e.sessions += r.n;
    e.minutes += r.m;
    e.patient_ids.push(r.patient_id);
    by.set(r.provider_id, e);
  }
  const cmp = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);
  return [...by.values()]
    .sort((a, b) => Number(a.provider_id === null) - Number(b.provider_id === null) || cmp(a.surname, b.surname) || cmp(a.name, b.name) || (a.provider_id ?? 0) - (b.provider_id ?? 0))
    .map(({ surname: _s, name: _n, ...e }) => e);
}

const pick = (r: { provider_id: number | null; clients: number; sessions: number; minutes: number; patient_ids: number[] }): Expected => ({
  provider_id: r.provider_id,
  clients: r.clients,
  sessions: r.sessions,
  minutes: r.minutes,
  patient_ids: r.patient_ids,
});

beforeAll(async () => {
  here = (await createLocation({ title: "Here" })).id;
  there = (await createLocation({ title: "There" })).id;
  // Created out of name order, so id order is not name order; two share a surname.
  for (const [key, name, locs] of [
    ["zed", "Zed", [here]],
    ["amy", "Amy", [here, there]],
    ["bo", "Bo", [there]],
    ["cy", "Cy", [here]],
    ["edge", "Edgar", [here]],
  ] as const)
    staff[key] = (await createUser({ permissions: ["view_notes"], locations: [...locs], name }))!.id;
  await db().run(sql`update users set surname = 'Young' where id in (${staff.zed}, ${staff.amy})`);
  await db().run(sql`update users set surname = 'Adams' where id = ${staff.cy}`);
  await db().run(sql`update users set surname = 'Moss' where id = ${staff.bo}`);
  await db().run(sql`update users set surname = 'Best' where id = ${staff.edge}`);
  for (const [loc, last] of [[here, "Ames"], [here, "Boyd"], [there, "Cole"], [here, "Dunn"], [there, "Ewer"]] as const) clients.push(await createPatient({ locationId: loc, lastName: last }));
  deleted = (await createPatient({ locationId: here, lastName: "Gone" })).id;
  const values: (typeof notes.$inferInsert)[] = [];
  const dates = ["2026-09-27", "2026-09-30", "2026-10-01", "2026-10-04", "2026-10-13", "2026-10-20", "2026-10-31", "2026-11-01", "2026-11-03", "2026-12-02"];
  const who = [staff.zed, staff.amy, staff.bo, staff.cy, null] as const;
  dates.forEach((d, i) => {
    for (let k = 0; k < 6; k++) {
      const c = clients[(i + k) % 5]!;
      // The same client again for the same provider on several days: counted once.
      values.push({ type: "rbt", patientId: c.id, locationId: c.locationId, providerId: who[(i * 2 + k) % 5]!, cptCode: "97153", sessionDate: d, minutes: 30 + ((i * 7 + k * 13) % 60), units: 2 });
    }
  });
  // Edgar works only on the edge days of "2026-09-27 … 2026-11-03" (never in October).
  values.push({ type: "rbt", patientId: clients[0]!.id, locationId: here, providerId: staff.edge, cptCode: "97153", sessionDate: "2026-09-28", minutes: 45, units: 3 });
  values.push({ type: "rbt", patientId: clients[3]!.id, locationId: here, providerId: staff.edge, cptCode: "97153", sessionDate: "2026-11-02", minutes: 50, units: 3 });
  // Never counted: a deleted note, a deleted client's note.
  values.push({ type: "rbt", patientId: clients[0]!.id, locationId: here, providerId: staff.cy, cptCode: "97153", sessionDate: "2026-10-13", minutes: 500, units: 33, deletedAt: "2026-11-01T00:00:00.000Z" });
  values.push({ type: "rbt", patientId: deleted, locationId: here, providerId: staff.edge, cptCode: "97153", sessionDate: "2026-10-13", minutes: 40, units: 3 });
  for (let i = 0; i < values.length; i += 4) await db().insert(notes).values(values.slice(i, i + 4));
  await db().update(patients).set({ deletedAt: "2026-11-05T00:00:00.000Z" }).where(eq(patients.id, deleted));
  const boss = await createUser({ permissions: ["view_notes", "manage_notes", "access_all_locations"], locations: [here] });
  const clerk = await createUser({ permissions: ["view_notes", "manage_notes"], locations: [here] });
  const ctxOf = async (id: number): Promise<ModelContext> => ({ db: db(), actor: (await getUserActor(db(), id))!, ip: "127.0.0.1", now: () => new Date("2026-11-26T12:00:00Z") });
  admin = await ctxOf(boss.id);
  local = await ctxOf(clerk.id);
});

describe("provider-clients", () => {
  const periods: [string, string, string][] = [
    ["one whole month", "2026-10-01", "2026-10-31"],
    ["a month plus edge days", "2026-09-27", "2026-11-03"],
    ["days inside one month", "2026-10-04", "2026-10-20"],
    ["three months", "2026-09-01", "2026-12-31"],
  ];
  const filters = ["none", "location", "provider", "client"] as const;
  const cases = periods.flatMap(([name, from, to]) => filters.map((filter) => [name, filter, from, to] as const));

  it.each(cases)("%s, filter %s: rows, order, paging and count equal a plain count over the notes", async (_name, filter, from, to) => {
    for (const ctx of [admin, local]) {
      const f: NoteReportFilters = {
        from,
        to,
        locationId: filter === "location" ? there : null,
        providerId: filter === "provider" ? staff.amy! : null,
        patientId: filter === "client" ? clients[0]!.id : null,
      };
      const all = await expected(ctx, f);
      for (const page of [{ limit: 25, offset: 0 }, { limit: 2, offset: 0 }, { limit: 2, offset: 2 }, { limit: 3, offset: 4 }]) {
        const r = await caseloadReport(ctx, f, page);
        expect(r.rows.map(pick), `${ctx === admin ? "admin" : "local"} ${JSON.stringify(page)}`).toEqual(all.slice(page.offset, page.offset + page.limit));
        expect(r.total).toBe(r.rows.length ? all.length : 0);
        for (const row of r.rows) {
          expect(row.client_names).toHaveLength(row.clients);
          expect(row.more_clients).toBe(0);
          expect(row.hours).toBe(Math.round((row.minutes / 60) * 100) / 100);
        }
        // Naming at most two clients per provider: the same rows, counts and paging; the first two by name named.
        const capped = await caseloadReport(ctx, f, page, undefined, { names: 2 });
        expect(capped.total).toBe(r.total);
        expect(capped.rows.map((x) => ({ ...pick(x), patient_ids: x.patient_ids, more: x.more_clients, named: x.client_names.length }))).toEqual(
          r.rows.map((x) => ({ ...pick(x), patient_ids: x.patient_ids.slice(0, 2), more: Math.max(0, x.clients - 2), named: Math.min(2, x.clients) }))
        );
        for (const [i, row] of capped.rows.entries()) expect(row.client_names).toEqual(r.rows[i]!.client_names.slice(0, 2));
      }
    }
  });

  it("name order, the sessions without a provider last; a client counts once; the edge days' provider is there", async () => {
    const r = await caseloadReport(admin, { from: "2026-09-27", to: "2026-11-03", locationId: null, providerId: null, patientId: null }, { limit: 25, offset: 0 });
    expect(r.rows.map((x) => x.provider)).toEqual(["Cy Adams", "Edgar Best", "Bo Moss", "Amy Young", "Zed Young", "Unknown provider"]);
    expect(r.total).toBe(6);
    const edgar = r.rows.find((x) => x.provider_id === staff.edge)!;
    expect({ clients: edgar.clients, sessions: edgar.sessions, minutes: edgar.minutes }).toEqual({ clients: 2, sessions: 2, minutes: 95 });
    // With one name per provider, Edgar (edge days only) is still listed with both clients counted, one named.
    const one = await caseloadReport(admin, { from: "2026-09-27", to: "2026-11-03", locationId: null, providerId: null, patientId: null }, { limit: 25, offset: 0 }, undefined, { names: 1 });
    const edgarOne = one.rows.find((x) => x.provider_id === staff.edge)!;
    expect({ clients: edgarOne.clients, sessions: edgarOne.sessions, minutes: edgarOne.minutes, more: edgarOne.more_clients, named: edgarOne.client_names }).toEqual({
      clients: 2,
      sessions: 2,
      minutes: 95,
      more: 1,
      named: [edgar.client_names[0]],
    });
    for (const row of r.rows) expect(new Set(row.patient_ids).size).toBe(row.patient_ids.length);
    expect(r.rows.some((x) => x.sessions > x.clients)).toBe(true);
    expect(r.rows.flatMap((x) => x.patient_ids)).not.toContain(deleted);
    // October alone: Edgar's only October note is a deleted client's, so he is not listed.
    const oct = await caseloadReport(admin, { from: "2026-10-01", to: "2026-10-31", locationId: null, providerId: null, patientId: null }, { limit: 25, offset: 0 });
    expect(oct.rows.map((x) => x.provider_id)).not.toContain(staff.edge);
  });

  it("a page past the end is empty; the page's providers are one round trip with the count", async () => {
    const f: NoteReportFilters = { from: "2026-09-27", to: "2026-11-03", locationId: null, providerId: null, patientId: null };
    expect((await caseloadReport(admin, f, { limit: 25, offset: 50 })).rows).toEqual([]);
    const counting = countingDb();
    await caseloadReport({ ...admin, db: counting.db }, f, { limit: 2, offset: 2 });
    expect(counting.roundTrips()).toBe(1);
  });
});

describe("provider-clients screen and CSV: the first clients named, every client counted and exported", () => {
  it("names 10 clients per provider with \"and N more\" and a link to all of them; the CSV names all 13; the audit row names the 10 shown; another location's client absent; 403", async () => {
    const loc = (await createLocation({ title: "Busy" })).id;
    const other = (await createLocation({ title: "Elsewhere" })).id;
    const busy = (await createUser({ permissions: ["view_notes"], locations: [loc], name: "Busy" }))!.id;
    const names = Array.from({ length: 13 }, (_, i) => `Zz${String.fromCharCode(77 - i)}`); // ZzM … Zz@: created out of name order
    const made = [];
    for (const last of names) made.push(await createPatient({ locationId: loc, lastName: last, firstName: "Kid" }));
    const values: (typeof notes.$inferInsert)[] = made.map((c, i) => ({ type: "rbt", patientId: c.id, locationId: loc, providerId: busy, cptCode: "97153", sessionDate: i % 2 ? "2027-03-31" : "2027-03-01", minutes: 60, units: 4 }));
    values.push({ type: "rbt", patientId: made[0]!.id, locationId: loc, providerId: busy, cptCode: "97153", sessionDate: "2027-03-15", minutes: 30, units: 2 });
    const far = await createPatient({ locationId: other, lastName: "Far" });
    values.push({ type: "rbt", patientId: far.id, locationId: other, providerId: busy, cptCode: "97153", sessionDate: "2027-03-10", minutes: 45, units: 3 });
    for (let i = 0; i < values.length; i += 4) await db().insert(notes).values(values.slice(i, i + 4));
    const viewer = await createUser({ permissions: ["view_notes", "manage_notes"], locations: [loc] });
    const cookie = await signInCookie(viewer);
    const q = "date_from=2027-03-01&date_to=2027-03-31";
    const res = await request(`/reports/provider-clients?${q}`, { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    const sorted = made.map((c) => `${c.lastName}, Kid (${c.patientIdentifier})`).sort();
    const body = html.slice(html.indexOf("<tbody"), html.indexOf("</tbody>"));
    expect(body).toContain(sorted.slice(0, 10).join("; ") + "; and 3 more");
    for (const hidden of sorted.slice(10)) expect(body).not.toContain(hidden);
    expect(body).not.toContain("Far,");
    // Exact figures: 13 clients, 14 sessions, 13.5 hours; the count links to all of them in hours by client.
    expect(body).toMatch(/>13<\/a><\/td><td class="num">14<\/td><td class="num">13\.50</);
    const href = `/reports/hours?by=client&amp;date_from=2027-03-01&amp;date_to=2027-03-31&amp;provider_id=${busy}`;
    expect(body).toContain(`href="${href}"`);
    expect(html).toContain("first 10 clients by name");
    const all = await request(href.replace(/&amp;/g, "&"), { cookie });
    expect(all.status).toBe(200);
    const allHtml = await all.text();
    for (const name of sorted) expect(allHtml).toContain(name);
    // The CSV: one row for the provider with every client named.
    const csv = await (await request(`/reports/provider-clients/export.csv?${q}`, { cookie })).text();
    const line = csv.split("\r\n").find((l) => l.startsWith("Busy User,"))!;
    expect(line).toContain(`Busy User,13,14,13.50,`);
    for (const name of sorted) expect(line).toContain(name);
    expect(line).not.toContain("more");
    // The screen's audit row names the clients shown, not the hidden ones.
    const [audit] = await db().all<{ detail: string }>(sql`select detail from audit_log where entity = 'report' and entity_id = 'provider-clients' and detail like '%"format":"screen"%' order by id desc limit 1`);
    const audited = (JSON.parse(audit!.detail) as { patients: number[] }).patients;
    const shownIds = made.filter((c) => sorted.slice(0, 10).includes(`${c.lastName}, Kid (${c.patientIdentifier})`)).map((c) => c.id);
    expect(audited).toEqual([...shownIds].sort((a, b) => a - b));
    const noPerm = await signInCookie(await createUser({ permissions: ["view_notes"], locations: [loc] }));
    expect((await request(`/reports/provider-clients?${q}`, { cookie: noPerm })).status).toBe(403);
  });
});
