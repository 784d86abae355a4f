import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../app/db/client.server";
import { bips, locations, notes, paServices, patients, plans } from "../app/db/schema";
import { NOTE_LIMITS, timeOfMinute, unitsForMinutes, type NoteContent, type NoteType } from "../app/domain/notes";
import { zonedDate, zoneOffsetAtLocal } from "../app/domain/time";
import { addDays, dateOfDay, dayNumber, weekdayOfDay, weekEndingDay } from "../app/domain/weeks";

/**
 * Demo session notes (issue 10 "Seed"): about six weeks of RBT (97153) and BCBA (97151, 97155, 97156)
 * notes for every demo client that has a plan and an authorization, written the way a clinic would —
 * one or two time pairs (the second after the first: the rule of probe 8985 §3), units from `unitsForMinutes`, content from the client's active plans, older
 * notes signed — and placed so that no rule is broken: no overlap per client or provider, the 15-minute
 * provider buffer (a provider's sessions compared as moments, with each note's utc_offset), 10 hours a day and 40 a week per client, the units of each PA service, providers who
 * work at the client's location. The planner is greedy and checks each rule before it places a session;
 * test/unit/demo-notes.test.ts checks the stored rows again, independently.
 *
 * Notes have fixed ids and are written once: a second seed run changes nothing (a row that still has no
 * times — a placeholder of an earlier seed — is replaced).
 */

export const DEMO_NOTE_DAYS = 42;

/** Who writes a client's notes: the RBT (97153) and the BCBA (97151, 97155, 97156, and RBT supervision). */
export interface DemoStaff {
  rbt: { id: number; name: string };
  bcba: { id: number; name: string };
}

interface ClientIn {
  id: number;
  locationId: number;
  /** The location's time zone: a provider's sessions are kept apart as moments (utc_offset), as the rules do. */
  timeZone: string;
  bipId: number | null;
  staff: DemoStaff;
}
interface PaIn {
  id: number;
  patientId: number;
  cpt: string;
  nUnits: number;
  startDate: string;
  endDate: string;
}
interface PlanIn {
  id: number;
  patientId: number;
  category: string;
  name: string;
}

export type DemoNoteRow = typeof notes.$inferInsert;

/** Deterministic pseudo-random numbers (mulberry32), so every run plans the same caseload. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Interval = [number, number];
interface Proposal {
  type: NoteType;
  cpt: string;
  subtype: "observation" | "report" | null;
  provider: { id: number; name: string };
  supervisor: { id: number; name: string } | null;
  /** Minutes after midnight of each pair's start, and each pair's length. */
  pairs: { start: number; length: number }[];
}

const INTERVENTIONS = ["Differential reinforcement (DRA)", "Functional communication training", "Most-to-least prompting", "Visual schedule", "Token economy", "Premack principle", "Planned ignoring", "Choice making"];
const APPEARED = ["Calm", "Happy", "Engaged", "Tired", "Irritable at arrival", "Cooperative"];
const EVIDENCED = ["smiling and following instructions", "approaching the therapist and the materials", "yawning and resting his head on the table", "protesting transitions at first, then joining the activity", "requesting preferred items with words"];
const ENVIRONMENT = ["No changes in the environment.", "A new sibling was at home during the session.", "Session moved to the living room; fewer distractions.", "New furniture in the therapy area.", "The caregiver was on a phone call for part of the session."];

/**
 * Plans the demo notes: pure (no I/O), deterministic for a given `today`. Sessions are proposed day by day
 * and placed at the first start time where every rule holds; a session that fits nowhere is left out.
 */
export function planDemoNotes(input: { today: string; clients: readonly ClientIn[]; paServices: readonly PaIn[]; plans: readonly PlanIn[]; firstId?: number }): DemoNoteRow[] {
  const rand = random(2026);
  const todayDay = dayNumber(input.today)!;
  /** A provider's sessions in UTC minutes (local − utc_offset): a provider may work in several time zones. */
  const providerBusy = new Map<number, Interval[]>();
  const clientBusy = new Map<number, Interval[]>();
  const clientDay = new Map<string, number>();
  const clientWeek = new Map<string, number>();
  const paLeft = new Map(input.paServices.map((p) => [p.id, p.nUnits]));
  const rows: DemoNoteRow[] = [];
  let id = input.firstId ?? 1;

  const free = (list: Interval[] | undefined, [s, e]: Interval, gap: number) => !(list ?? []).some(([a, b]) => s < b + gap && a < e + gap);
  const push = (map: Map<number, Interval[]>, key: number, iv: Interval) => map.set(key, [...(map.get(key) ?? []), iv]);

  for (let day = todayDay - DEMO_NOTE_DAYS; day < todayDay; day++) {
    const date = dateOfDay(day);
    const weekday = weekdayOfDay(day); // 0 = Sunday
    const week = weekEndingDay(day);
    const age = todayDay - day;
    for (const [c, client] of input.clients.entries()) {
      const proposals: Proposal[] = [];
      const { rbt, bcba } = client.staff;
      // RBT direct therapy three weekdays a week: one long pair, or a morning and an afternoon pair.
      if (weekday >= 1 && weekday <= 5 && (weekday + c) % 5 !== 0 && (weekday + c) % 5 !== 2) {
        const split = rand() < 0.25;
        const first = [120, 150, 165, 135, 128][Math.floor(rand() * 5)]!;
        proposals.push({
          type: "rbt",
          cpt: "97153",
          subtype: null,
          provider: rbt,
          supervisor: bcba,
          pairs: split ? [{ start: 0, length: 90 }, { start: 90 + 45 + 15 * Math.floor(rand() * 3), length: [60, 75, 90][Math.floor(rand() * 3)]! }] : [{ start: 0, length: first }],
        });
      }
      // Protocol modification (97155) once a week; caregiver training (97156) every other Saturday.
      if (weekday === (c % 4) + 1) proposals.push({ type: "bcba", cpt: "97155", subtype: null, provider: bcba, supervisor: null, pairs: [{ start: 0, length: [60, 75, 90][c % 3]! }] });
      if (weekday === 6 && Math.floor(day / 7) % 2 === c % 2) proposals.push({ type: "bcba", cpt: "97156", subtype: null, provider: bcba, supervisor: null, pairs: [{ start: 0, length: 60 }] });
      // The reassessment (97151) in the first week of the window: an observation, then a report.
      let observation = todayDay - DEMO_NOTE_DAYS + (c % 5);
      if (weekdayOfDay(observation) === 0) observation++;
      if (day === observation) {
        proposals.push({ type: "bcba", cpt: "97151", subtype: "observation", provider: bcba, supervisor: null, pairs: [{ start: 0, length: 120 }] });
      }
      if (day === observation + 7) {
        proposals.push({ type: "bcba", cpt: "97151", subtype: "report", provider: bcba, supervisor: null, pairs: [{ start: 0, length: 90 }] });
      }

      for (const p of proposals) {
        const minutes = p.pairs.reduce((n, x) => n + x.length, 0);
        const units = unitsForMinutes(minutes);
        const dayKey = `${client.id}:${day}`;
        const weekKey = `${client.id}:${week}`;
        if ((clientDay.get(dayKey) ?? 0) + minutes > NOTE_LIMITS.clientDayMinutes) continue;
        if ((clientWeek.get(weekKey) ?? 0) + minutes > NOTE_LIMITS.clientWeekMinutes) continue;
        const pa = input.paServices.find((x) => x.patientId === client.id && x.cpt === p.cpt && x.startDate <= date && date <= x.endDate && (paLeft.get(x.id) ?? 0) >= units);
        if (!pa) continue;
        // Start times from 08:00 to 17:00 in quarter hours: the RBT's day fills from the morning (first
        // fit); the BCBA's visits start at a different hour for each client.
        const shift = p.type === "rbt" ? 0 : 4 + (c % 6) * 4;
        const starts = Array.from({ length: 37 }, (_, k) => 8 * 60 + ((k + shift) % 37) * 15);
        let placed: Interval[] | null = null;
        let utcOffset = 0;
        for (const s of starts) {
          const ivs = p.pairs.map((x): Interval => [day * 1440 + s + x.start, day * 1440 + s + x.start + x.length]);
          if (ivs[ivs.length - 1]![1] > day * 1440 + 19 * 60) continue;
          const offset = zoneOffsetAtLocal(ivs[0]![0], client.timeZone);
          if (ivs.every(([a, b]) => free(clientBusy.get(client.id), [a, b], 0) && free(providerBusy.get(p.provider.id), [a - offset, b - offset], NOTE_LIMITS.providerBufferMinutes))) {
            placed = ivs;
            utcOffset = offset;
            break;
          }
        }
        if (!placed) continue;
        for (const [a, b] of placed) {
          push(clientBusy, client.id, [a, b]);
          push(providerBusy, p.provider.id, [a - utcOffset, b - utcOffset]);
        }
        clientDay.set(dayKey, (clientDay.get(dayKey) ?? 0) + minutes);
        clientWeek.set(weekKey, (clientWeek.get(weekKey) ?? 0) + minutes);
        paLeft.set(pa.id, paLeft.get(pa.id)! - units);

        const clientPlans = input.plans.filter((x) => x.patientId === client.id);
        const signed = age > 7;
        const local = (m: number) => timeOfMinute(m - day * 1440);
        const [a, b] = placed;
        rows.push({
          id: id++,
          type: p.type,
          patientId: client.id,
          locationId: client.locationId,
          providerId: p.provider.id,
          supervisorId: p.supervisor?.id ?? null,
          bipId: client.bipId,
          paServiceId: pa.id,
          cptCode: p.cpt,
          subtype: p.subtype,
          diagnosisCode: "F84.0",
          pos: p.type === "rbt" && weekday === 3 && client.locationId !== 2 ? "03" : "12",
          isTelehealth: false,
          sessionDate: date,
          timeIn: local(a![0]),
          timeOut: local(a![1]),
          timeIn2: b ? local(b[0]) : null,
          timeOut2: b ? local(b[1]) : null,
          start1At: a![0],
          end1At: a![1],
          start2At: b ? b[0] : null,
          end2At: b ? b[1] : null,
          startAt: a![0],
          endAt: (b ?? a)![1],
          utcOffset,
          minutes,
          units,
          md: p.type === "rbt" ? "HM" : "HO",
          md2: null,
          md3: null,
          unitPriceCents: null,
          // Older notes have been reviewed for billing; a few are still waiting.
          status: age > 14 && rand() < 0.85 ? "ok" : "pending",
          billed: false,
          paid: false,
          providerName: p.provider.name,
          providerSignature: null,
          providerSignedOn: signed ? date : null,
          supervisorName: p.supervisor?.name ?? "",
          supervisorSignature: null,
          supervisorSignedOn: signed && p.supervisor ? addDays(date, 1) : null,
          signedAt: signed ? `${addDays(date, 1)}T01:00:00.000Z` : null,
          summaryNote: summaryOf(p, placed.length, rand),
          content: JSON.stringify(contentOf(p, clientPlans, age, rand)),
          formToken: null,
          createdBy: p.provider.id,
          createdAt: `${addDays(date, 1)}T00:30:00.000Z`,
          updatedAt: `${addDays(date, 1)}T01:00:00.000Z`,
        });
      }
    }
  }
  // Each RBT note names the client's next RBT session (clinical §3 next_session_is_scheduled_for).
  for (const [i, row] of rows.entries()) {
    if (row.type !== "rbt") continue;
    const next = rows.slice(i + 1).find((r) => r.type === "rbt" && r.patientId === row.patientId);
    const content = JSON.parse(row.content!) as NoteContent;
    content.next_session_is_scheduled_for = next ? `${next.sessionDate} ${next.timeIn}` : "To be scheduled with the caregiver";
    row.content = JSON.stringify(content);
  }
  return rows;
}

const pick = <T>(xs: readonly T[], rand: () => number) => xs[Math.floor(rand() * xs.length)]!;

function contentOf(p: Proposal, clientPlans: readonly PlanIn[], age: number, rand: () => number): NoteContent {
  const of = (category: string) => clientPlans.filter((x) => x.category === category);
  // Progress over the six weeks: behaviours fall and skills rise as the session gets more recent.
  const progress = 1 - age / (DEMO_NOTE_DAYS + 7);
  const maladaptives = of("maladaptive").map((x) => ({ plan_id: x.id, name: x.name, frequency: Math.max(0, Math.round(8 - 5 * progress + rand() * 3 - 1)) }));
  const percent = () => Math.min(100, Math.round(30 + 50 * progress + rand() * 10));
  if (p.cpt === "97153") {
    return {
      participants: "Client and RBT; caregiver present at the start and the end",
      environmental_changes: pick(ENVIRONMENT, rand),
      maladaptives,
      replacements: of("replacement").map((x) => {
        const trials = 10 + Math.floor(rand() * 11);
        return { plan_id: x.id, name: x.name, total_trials: trials, correct_responses: Math.min(trials, Math.round((trials * percent()) / 100)) };
      }),
      interventions: INTERVENTIONS.filter(() => rand() < 0.5).slice(0, 4),
      client_appeared: pick(APPEARED, rand),
      as_evidenced_by: pick(EVIDENCED, rand),
      rbt_modeled_and_demonstrated_to_caregiver: "Modeled the functional communication prompts and the reinforcement of the replacement behavior",
      client_response_to_treatment_this_session: rand() < 0.7 ? "Responded well; fewer prompts were needed than in the last session" : "Moderate progress; needed frequent breaks",
    };
  }
  if (p.cpt === "97155") {
    return {
      participants: "BCBA, RBT and client",
      environmental_changes: pick(ENVIRONMENT, rand),
      maladaptives,
      replacement_percentages: of("replacement").map((x) => ({ plan_id: x.id, name: x.name, percent: percent() })),
      protocol_modifications: of("replacement").map((x, k) => ({ name: x.name, assessed: true, modified: k === 0 && rand() < 0.5, demonstrated: true })),
      why_was_the_protocol_modified_or_not_modified: "Data show steady progress; prompts were faded where the client responded independently.",
      describe_in_detail_the_protocol_modifications: "Moved from a full physical prompt to a gestural prompt for requests; reinforcement stays on a fixed ratio of 2.",
      progress_noted_this_session_compared_to_previous_session: "Fewer episodes of the target behaviors and more independent requests than in the previous session.",
    };
  }
  if (p.cpt === "97156") {
    return {
      participants: "BCBA and caregiver; client present",
      environmental_changes: pick(ENVIRONMENT, rand),
      caregiver_goals: of("caregiver_training")
        .slice(0, 3 + Math.floor(rand() * 2))
        .map((x) => ({ plan_id: x.id, name: x.name, percent: percent() })),
      demonstrated_replacement_protocols: of("replacement").map((x) => x.name),
      demonstrated_intervention_protocols: INTERVENTIONS.slice(0, 2),
      discussed_behaviors: of("maladaptive").map((x) => x.name),
    };
  }
  return {
    participants: "BCBA, client and caregiver",
    environmental_changes: pick(ENVIRONMENT, rand),
    procedure: p.subtype === "report" ? "Scored the assessments, analysed the data and wrote the treatment plan update." : "Direct observation across two activities and a structured caregiver interview.",
    assessment_tools: "VB-MAPP, FAST, ABC data collection",
    intake_outcome: "Goals updated for the next authorization period; current level of service recommended.",
  };
}

function summaryOf(p: Proposal, pairs: number, rand: () => number): string {
  const place = pick(["at home", "at home, in the living room", "at home with the caregiver present"], rand);
  if (p.cpt === "97153") {
    return `Met with client ${place} for ${pairs === 2 ? "a morning and an afternoon session" : "a direct therapy session"}. The client worked on requesting preferred items and on tolerating denied access. Maladaptive behaviors were recorded by frequency and followed with the planned responses. Replacement skills were taught in discrete trials with prompts faded as the client responded. The caregiver observed the reinforcement procedure at the end of the session. The client's response to treatment was positive overall.`;
  }
  if (p.cpt === "97155") return "Met with the RBT and the client to review the protocols. Data on the target behaviors were reviewed and the prompting of requests was adjusted. The RBT demonstrated the updated protocol with fidelity. Progress compared to the previous session was noted. The plan continues with the adjusted prompts.";
  if (p.cpt === "97156") return "Met with the caregiver to practise the behavior plan. The caregiver rehearsed reinforcement and the functional communication prompts. Feedback was given after each rehearsal. The caregiver's fidelity improved during the session. Home practice was agreed for the coming week.";
  return "Met with the client and the caregiver for the assessment. Observations and the caregiver's report were recorded with the assessment tools. Results were compared with the previous authorization period. Goals were updated to match the current level of skills. The recommended level of service stays the same.";
}

/** Writes the demo notes for the seeded clients (after their PA services and plans exist). */
export async function seedDemoNotes(db: Db, now: Date, clients: readonly ClientIn[]): Promise<void> {
  const ids = clients.map((c) => c.id);
  const [pas, planRows] = await Promise.all([
    db.select({ id: paServices.id, patientId: paServices.patientId, cpt: paServices.cpt, nUnits: paServices.nUnits, startDate: paServices.startDate, endDate: paServices.endDate }).from(paServices).where(and(inArray(paServices.patientId, ids), isNull(paServices.deletedAt))).orderBy(asc(paServices.id)),
    db.select({ id: plans.id, patientId: plans.patientId, category: plans.category, name: plans.name }).from(plans).where(and(inArray(plans.patientId, ids), sql`${plans.status} = 'active'`)).orderBy(asc(plans.position), asc(plans.id)),
  ]);
  // Written once: when the first demo note already has its times, the notes are there (and may have been
  // edited since); only placeholders of an earlier seed (no times) are replaced.
  const [first] = await db.select({ startAt: notes.startAt }).from(notes).where(eq(notes.id, 1));
  if (first && first.startAt !== null) return;
  // The notes fill the days before "today" at every client's location: the earliest local date, not UTC's (which runs
  // a day ahead in an American evening), so no demo note is of a session that has not ended yet (probe 8922 §3).
  const today = clients.reduce((earliest, c) => {
    const local = zonedDate(now, c.timeZone);
    return local < earliest ? local : earliest;
  }, now.toISOString().slice(0, 10));
  const rows = planDemoNotes({ today, clients, paServices: pas, plans: planRows });
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!).filter((k) => k !== "id") as (keyof DemoNoteRow)[];
  const table = notes as unknown as Record<string, { name: string }>;
  const set = Object.fromEntries(columns.map((k) => [k, sql.raw(`excluded.${table[k]!.name}`)]));
  for (let i = 0; i < rows.length; i += 20) {
    await db
      .insert(notes)
      .values(rows.slice(i, i + 20))
      .onConflictDoUpdate({ target: notes.id, set: set as never, setWhere: isNull(notes.startAt) });
  }
}

/** The demo clients that get notes: those with a BIP among the first `maxId`, in id order. */
export async function demoNoteClients(db: Db, maxId: number, staffOf: (locationId: number, patientId: number) => DemoStaff): Promise<ClientIn[]> {
  const rows = await db
    .select({ id: patients.id, locationId: patients.locationId, timeZone: locations.timeZone, bipId: sql<number>`min(${bips.id})` })
    .from(patients)
    .innerJoin(locations, eq(locations.id, patients.locationId))
    .innerJoin(bips, eq(bips.patientId, patients.id))
    .where(sql`${patients.id} <= ${maxId}`)
    .groupBy(patients.id)
    .orderBy(asc(patients.id));
  return rows.map((r) => ({ id: r.id, locationId: r.locationId, timeZone: r.timeZone, bipId: r.bipId, staff: staffOf(r.locationId, r.id) }));
}
