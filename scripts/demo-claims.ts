import { and, asc, count, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../app/db/client.server";
import { claims, locations, notes, patients, users } from "../app/db/schema";
import { npiFrom } from "../app/domain/npi";
import { getUserActor } from "../app/models/actors.server";
import { buildClaims, generateClaims, sendClaim, setClaimStatus } from "../app/models/claims.server";
import type { ModelContext } from "../app/models/context";
import { DEMO_PATIENT_IDS, DEMO_USER_IDS } from "./demo-ids";

/**
 * Demo claims (issue 11 "Seed"; decision 032), after the demo notes: the locations' billing NPI and tax id, the
 * providers' NPIs, the subscriber details the 837P needs on every client, and claims in every status, built
 * with the claims model (so they are priced by priceNote and written by the 837P writer like real ones).
 * Touches only the demo's rows (scripts/demo-ids.ts). Runs once: when claims exist it only sets NPIs and tax ids still missing.
 */

/** Valid NPIs (check digit computed) for the three demo locations, and tax ids. */
export const DEMO_LOCATION_BILLING = [
  { id: 1, npi: npiFrom("130684945"), taxId: "591234567" },
  { id: 2, npi: npiFrom("144718297"), taxId: "841234567" },
  { id: 3, npi: npiFrom("159123456"), taxId: "951234567" },
];

/** The demo clients whose notes are claimed: at Miami (1, 2) and Denver (5), all within the MANAGER's locations. */
const CLAIM_CLIENTS = [1, 2, 5];

export async function seedDemoClaims(db: Db, now: Date): Promise<void> {
  for (const l of DEMO_LOCATION_BILLING) await db.update(locations).set({ npi: l.npi, taxId: l.taxId }).where(eq(locations.id, l.id));
  // Every demo clinician gets an NPI in their profile (rendering provider, loop 2310B); only the demo accounts,
  // and only when theirs differs (decision 002: the seed touches its own rows only).
  const staff = await db.select({ id: users.id, npi: sql<string | null>`json_extract(${users.profile}, '$.npi')` }).from(users).where(inArray(users.id, [...DEMO_USER_IDS]));
  for (const u of staff) {
    const npi = npiFrom(String(200000000 + u.id * 7919));
    if (u.npi !== npi) await db.update(users).set({ profile: sql`json_set(${users.profile}, '$.npi', ${npi})` }).where(eq(users.id, u.id));
  }
  // The subscriber of every demo client: the parent, with the member id and address a claim needs (any billed
  // demo note can be claimed: the billing seed bills notes of every demo client). Only the demo clients that have
  // no member id yet, so a value entered on a demo client's profile stays.
  await db
    .update(patients)
    .set({
      birthDate: sql`coalesce(${patients.birthDate}, printf('2015-%02d-%02d', 1 + ${patients.id} % 12, 1 + ${patients.id} % 28))`,
      details: sql`json_set(${patients.details}, '$.insuranceId', 'MBR' || (100199 + ${patients.id}), '$.insured_policy_group', 'GRP-100', '$.is_self_subscriber', json('false'),
      '$.address', (100 + ${patients.id}) || ' Palm Ave', '$.zip', case ${patients.locationId} when 2 then '80203' when 3 then '90012' else '33131' end,
      '$.parent_name', 'Maria Parent' || ${patients.id}, '$.parent_birth_date', '1986-05-14', '$.parent_gender', '2')`,
    })
    .where(and(inArray(patients.id, [...DEMO_PATIENT_IDS]), sql`json_extract(${patients.details}, '$.insuranceId') is null`));
  const [existing] = await db.select({ n: count() }).from(claims);
  if ((existing?.n ?? 0) > 0) return;

  const actor = await getUserActor(db, 1);
  if (!actor) return;
  const ctx: ModelContext = { db, actor, ip: "127.0.0.1", now: () => now };
  const noteRows = await db
    .select({ id: notes.id, patientId: notes.patientId, sessionDate: notes.sessionDate })
    .from(notes)
    .where(and(inArray(notes.patientId, CLAIM_CLIENTS), isNull(notes.deletedAt), sql`${notes.units} > 0`))
    .orderBy(asc(notes.sessionDate), asc(notes.id));
  // Oldest weeks first: one build per client and week, so each build makes its own claims.
  const weeks = new Map<string, number[]>();
  for (const n of noteRows) {
    const week = Math.floor(Date.parse(`${n.sessionDate}T00:00:00Z`) / (7 * 86_400_000));
    const key = `${n.patientId}|${week}`;
    weeks.set(key, [...(weeks.get(key) ?? []), n.id]);
  }
  const all = [...weeks.values()];
  const batches = all.slice(0, 7);
  // Billed notes on no claim yet, for the build form (and the browser tests: one day per run).
  const waiting = all.slice(7, 9).flat();
  if (waiting.length) await db.update(notes).set({ billed: true, status: "ok" }).where(inArray(notes.id, waiting));
  const built: number[][] = [];
  for (const ids of batches) {
    await db.update(notes).set({ billed: true, status: "ok" }).where(inArray(notes.id, ids));
    const result = await buildClaims(ctx, { note_ids: ids });
    if (result.ok) built.push(result.data.map((c) => c.id));
  }
  // Statuses: the newest two builds stay draft; the others are generated, and some sent, accepted or rejected.
  const [accepted, rejected, sent, sentToo, generated] = built;
  for (const group of [accepted, rejected, sent, sentToo, generated]) if (group?.length) await generateClaims(ctx, { claim_ids: group });
  for (const group of [accepted, rejected, sent, sentToo]) if (group?.[0]) await sendClaim(ctx, group[0]);
  for (const id of accepted ?? []) await setClaimStatus(ctx, id, { status: "accepted" });
  for (const id of rejected ?? []) await setClaimStatus(ctx, id, { status: "rejected" });
}
