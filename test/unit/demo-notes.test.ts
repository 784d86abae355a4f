import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { libsqlDatabase, migrateLibsql } from "~/db/libsql.server";
import { NOTE_CPT_CODES, NOTE_LIMITS, NOTE_STATUSES, timeOfMinute, unitsForMinutes, type NoteContent, type NoteType } from "~/domain/notes";
import { sessionTimes } from "~/domain/note-rules";
import { zoneOffsetAtLocal } from "~/domain/time";
import { dayNumber, weekEndingOn } from "~/domain/weeks";
import { seedDemo } from "../../scripts/demo-data";

/**
 * The demo seed's notes break no rule of issue 10: the seed is loaded into a fresh database (the real
 * migrations, the libSQL driver the seed script uses) and every stored note is checked again here,
 * independently of the planner that placed it.
 */

const NOW = new Date("2026-11-25T15:00:00Z");
const TODAY = "2026-11-25";

interface NoteRow {
  id: number;
  type: NoteType;
  patient_id: number;
  location_id: number;
  provider_id: number;
  supervisor_id: number | null;
  pa_service_id: number;
  cpt_code: string;
  session_date: string;
  time_in: string;
  time_out: string;
  time_in2: string | null;
  time_out2: string | null;
  start1_at: number;
  end1_at: number;
  start2_at: number | null;
  end2_at: number | null;
  start_at: number;
  end_at: number;
  utc_offset: number | null;
  minutes: number;
  units: number;
  status: string;
  provider_name: string;
  provider_signed_on: string | null;
  signed_at: string | null;
  content: string;
  deleted_at: string | null;
}

let dir: string;
let url: string;
let rows: NoteRow[];
let query: <T>(sql: string) => Promise<T[]>;
let close: () => void;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "baseline-demo-notes-"));
  url = `file:${path.join(dir, "demo.db")}`;
  await migrateLibsql(url);
  const { db, client } = libsqlDatabase(url);
  await seedDemo(db, NOW);
  query = async <T>(sql: string) => (await client.execute(sql)).rows as unknown as T[];
  close = () => client.close();
  rows = await query<NoteRow>("select * from notes where deleted_at is null order by id");
}, 60_000);

afterAll(() => {
  close?.();
  rmSync(dir, { recursive: true, force: true });
});

/** Each note's time pairs as [start, end] local minutes. */
const pairsOf = (n: NoteRow): [number, number][] => (n.start2_at === null ? [[n.start1_at, n.end1_at]] : [[n.start1_at, n.end1_at], [n.start2_at, n.end2_at!]]);

/**
 * Every pair of distinct notes that share `key` whose sessions come closer than `gap` minutes; with `moment`,
 * compared in UTC minutes (local − utc_offset), as the provider rules do.
 */
function clashes(key: (n: NoteRow) => number, gap: number, moment = false): string[] {
  const found: string[] = [];
  const groups = new Map<number, NoteRow[]>();
  for (const n of rows) groups.set(key(n), [...(groups.get(key(n)) ?? []), n]);
  for (const list of groups.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const x = moment ? list[i]!.utc_offset! : 0;
        const y = moment ? list[j]!.utc_offset! : 0;
        for (const [a, b] of pairsOf(list[i]!)) {
          for (const [c, d] of pairsOf(list[j]!)) if (a - x < d - y + gap && c - y < b - x + gap) found.push(`notes ${list[i]!.id} and ${list[j]!.id}`);
        }
      }
    }
  }
  return found;
}

describe("demo notes", () => {
  it("give every demo client with a plan about six weeks of RBT and BCBA notes over all four CPT codes", async () => {
    const clients = await query<{ patient_id: number }>("select distinct patient_id from bips order by patient_id");
    expect(clients.length).toBe(14);
    for (const { patient_id } of clients) {
      const mine = rows.filter((n) => n.patient_id === patient_id);
      expect(mine.filter((n) => n.type === "rbt").length, `RBT notes of client ${patient_id}`).toBeGreaterThanOrEqual(15);
      expect(new Set(mine.filter((n) => n.type === "bcba").map((n) => n.cpt_code)), `BCBA CPTs of client ${patient_id}`).toEqual(new Set(["97151", "97155", "97156"]));
      const dates = mine.map((n) => n.session_date).sort();
      expect(dates[0]! <= "2026-10-20" && dates.at(-1)! >= "2026-11-20", `history of client ${patient_id}`).toBe(true);
    }
    // Some notes have a second (afternoon) pair; older notes are signed, recent ones not yet.
    expect(rows.some((n) => n.start2_at !== null)).toBe(true);
    expect(rows.some((n) => n.signed_at !== null) && rows.some((n) => n.signed_at === null)).toBe(true);
    expect(new Set(rows.map((n) => n.status))).toEqual(new Set(NOTE_STATUSES));
  });

  it("store times, minutes and units that agree (units from unitsForMinutes), with a CPT of the note's type", () => {
    for (const n of rows) {
      const day = dayNumber(n.session_date)!;
      const pairs = pairsOf(n);
      const minutes = pairs.reduce((m, [a, b]) => m + b - a, 0);
      expect(NOTE_CPT_CODES[n.type], `note ${n.id}`).toContain(n.cpt_code);
      expect([n.time_in, n.time_out], `note ${n.id}`).toEqual([timeOfMinute(n.start1_at - day * 1440), timeOfMinute(n.end1_at - day * 1440)]);
      if (n.start2_at !== null) expect([n.time_in2, n.time_out2]).toEqual([timeOfMinute(n.start2_at - day * 1440), timeOfMinute(n.end2_at! - day * 1440)]);
      for (const [a, b] of pairs) expect(a < b && a >= day * 1440 && b <= (day + 1) * 1440, `note ${n.id} pair within its day`).toBe(true);
      expect([n.start_at, n.end_at]).toEqual([pairs[0]![0], pairs.at(-1)![1]]);
      expect(n.minutes).toBe(minutes);
      expect(n.units, `note ${n.id}`).toBe(unitsForMinutes(minutes));
    }
  });

  it("pass the session-times rule a write runs: complete pairs, each end after its start, the afternoon pair after the morning one (probe 8985 §3)", () => {
    const refused = rows.flatMap((n) => {
      const r = sessionTimes(n);
      return r.ok ? [] : [`note ${n.id}: ${r.refusals[0]!.message}`];
    });
    expect(refused).toEqual([]);
    for (const n of rows) if (n.start2_at !== null) expect(n.start2_at, `note ${n.id}`).toBeGreaterThanOrEqual(n.end1_at);
  });

  it("never overlap for a client, and keep the 15-minute buffer between a provider's sessions (as moments, in every time zone)", async () => {
    expect(clashes((n) => n.patient_id, 0)).toEqual([]);
    expect(clashes((n) => n.provider_id, NOTE_LIMITS.providerBufferMinutes, true)).toEqual([]);
  });

  it("store the UTC offset of the client's location at the session's first start", async () => {
    const zones = new Map((await query<{ id: number; time_zone: string }>("select id, time_zone from locations")).map((l) => [l.id, l.time_zone]));
    for (const n of rows) expect(n.utc_offset, `note ${n.id}`).toBe(zoneOffsetAtLocal(n.start_at, zones.get(n.location_id)!));
    // Six weeks before 2026-11-25 cross the end of daylight saving time (1 November): both offsets of each zone.
    const offsetsIn = (zone: string) => new Set(rows.filter((n) => zones.get(n.location_id) === zone).map((n) => n.utc_offset));
    expect(offsetsIn("America/New_York")).toEqual(new Set([-240, -300]));
    expect(offsetsIn("America/Los_Angeles")).toEqual(new Set([-420, -480]));
    // The demo's scheduled sessions are booked through the model, which stores their offsets too.
    const booked = await query<{ n: number; unknown: number }>("select count(*) n, sum(utc_offset is null) unknown from scheduled_sessions");
    expect(booked[0]!.n).toBeGreaterThan(0);
    expect(booked[0]!.unknown).toBe(0);
  });

  it("stay within 10 hours a day and 40 hours a week per client, and no session date lies in the future", () => {
    const day = new Map<string, number>();
    const week = new Map<string, number>();
    for (const n of rows) {
      day.set(`${n.patient_id} ${n.session_date}`, (day.get(`${n.patient_id} ${n.session_date}`) ?? 0) + n.minutes);
      const w = `${n.patient_id} ${weekEndingOn(n.session_date)}`;
      week.set(w, (week.get(w) ?? 0) + n.minutes);
      expect(n.session_date < TODAY, `note ${n.id} date`).toBe(true);
    }
    expect(Math.max(...day.values())).toBeLessThanOrEqual(NOTE_LIMITS.clientDayMinutes);
    expect(Math.max(...week.values())).toBeLessThanOrEqual(NOTE_LIMITS.clientWeekMinutes);
  });

  it("consume units of a PA service of the same client that covers the date and CPT, never more than it authorizes", async () => {
    const bad = await query<{ id: number }>(`
      select n.id from notes n left join pa_services p on p.id = n.pa_service_id
      where n.deleted_at is null and (p.id is null or p.patient_id <> n.patient_id or p.cpt <> n.cpt_code or n.session_date < p.start_date or n.session_date > p.end_date)`);
    expect(bad).toEqual([]);
    const over = await query<{ id: number; spent: number; n_units: number }>(`
      select p.id, sum(n.units) spent, p.n_units from pa_services p join notes n on n.pa_service_id = p.id and n.deleted_at is null
      group by p.id having sum(n.units) > p.n_units`);
    expect(over).toEqual([]);
  });

  it("use PA services whose CPT their insurer covers (a live insurance service for it)", async () => {
    const uncovered = await query<{ id: number }>(`
      select p.id from pa_services p where p.deleted_at is null and p.insurance_id is not null
      and not exists (select 1 from insurance_services s where s.insurance_id = p.insurance_id and s.cpt_code = p.cpt and s.deleted_at is null)`);
    expect(uncovered).toEqual([]);
    expect((await query<{ n: number }>("select count(*) n from pa_services where insurance_id is not null"))[0]!.n).toBeGreaterThan(0);
  });

  it("are written by providers who work at the client's location, with the client's location and active plans", async () => {
    const outside = await query<{ id: number }>(`
      select n.id from notes n join patients p on p.id = n.patient_id
      where n.location_id <> p.location_id
         or not exists (select 1 from user_locations ul where ul.user_id = n.provider_id and ul.location_id = n.location_id)
         or (n.supervisor_id is not null and not exists (select 1 from user_locations ul where ul.user_id = n.supervisor_id and ul.location_id = n.location_id))`);
    expect(outside).toEqual([]);
    const active = new Set((await query<{ id: number; patient_id: number }>("select id, patient_id from plans where status = 'active'")).map((p) => `${p.patient_id}:${p.id}`));
    for (const n of rows) {
      const c = JSON.parse(n.content) as NoteContent;
      const planIds = [...(c.maladaptives ?? []), ...(c.replacements ?? []), ...(c.replacement_percentages ?? []), ...(c.caregiver_goals ?? [])].map((x) => x.plan_id);
      for (const id of planIds) expect(active.has(`${n.patient_id}:${id}`), `note ${n.id} plan ${id}`).toBe(true);
      if (n.cpt_code === "97153") expect(c.maladaptives?.length && c.replacements?.length, `note ${n.id} RBT content`).toBeTruthy();
      for (const r of c.replacements ?? []) expect(r.correct_responses! <= r.total_trials!).toBe(true);
      if (n.signed_at) expect(n.provider_name && n.provider_signed_on, `note ${n.id} signature`).toBeTruthy();
    }
  });

  it("are written once: a second seed run changes no note", async () => {
    const before = await query<Record<string, unknown>>("select * from notes order by id");
    const { db, client } = libsqlDatabase(url);
    await seedDemo(db, new Date(NOW.getTime() + 3 * 86_400_000), { force: true });
    client.close();
    expect(await query<Record<string, unknown>>("select * from notes order by id")).toEqual(before);
  }, 60_000);
});

describe("demo billing (issue 11: every billing screen shows something real)", () => {
  it("a claimed note is paid only by the remittance: no draft, generated, sent or rejected claim holds a paid note", async () => {
    const claimed = await query<{ claim: string; status: string; note: number; paid: number; billed: number; pay: number | null; remitted: number }>(
      `select c.claim_number claim, c.status, n.id note, n.paid, n.billed, cr.pay,
              exists (select 1 from remittance_lines rl where rl.claim_id = c.id) remitted
       from claims c join claim_lines l on l.claim_id = c.id join claim_line_notes cln on cln.claim_line_id = l.id
       join notes n on n.id = cln.note_id left join client_reports cr on cr.note_id = n.id`,
    );
    expect(new Set(claimed.map((c) => c.status))).toEqual(new Set(["draft", "generated", "sent", "accepted", "rejected"]));
    for (const c of claimed) {
      expect(c.billed, `note ${c.note} on ${c.claim}`).toBe(1);
      if (!c.remitted) expect([c.note, c.claim, c.status, c.paid, c.pay ?? 0]).toEqual([c.note, c.claim, c.status, 0, 0]);
    }
    expect(claimed.some((c) => c.remitted && c.paid)).toBe(true);
  });

  it("the remittance is paid after the services it pays, and not after the seed's today", async () => {
    const [r] = await query<{ payment_date: string; last: string }>(
      `select r.payment_date, max(l.service_date) last from remittances r join remittance_lines rl on rl.remittance_id = r.id
       join claim_lines l on l.id = rl.claim_line_id group by r.id`,
    );
    expect(r!.payment_date > r!.last, `${r!.payment_date} after ${r!.last}`).toBe(true);
    expect(r!.payment_date <= TODAY).toBe(true);
  });
});
