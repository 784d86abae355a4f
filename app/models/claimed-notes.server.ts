import { sql, type SQL } from "drizzle-orm";
import type { notes } from "~/db/schema";
import type { ClaimedLine } from "~/domain/billing";

/**
 * `from` and `where` of the claims a note is on that are not rejected (draft, generated, sent, accepted): while
 * one holds the note, what the claim billed — its modifiers, billed flag, date, times, units, CPT, place of service,
 * PA service, provider, price — is the claim's, and the note cannot be deleted (decisions 030, 032). Rejecting
 * (voiding) the claim frees it. One place for the billing save and the notes' own calls.
 */
export function liveClaimOf(noteId: SQL | typeof notes.id | number): SQL {
  // Aliases written out: in a one-table statement (the insert's select) drizzle would leave columns unqualified.
  return sql`claim_line_notes cln join claim_lines cl on cl.id = cln.claim_line_id join claims c on c.id = cl.claim_id where cln.note_id = ${noteId} and c.status <> 'rejected'`;
}

/** "C0000003 (sent)": the note's live claim, for messages; null when none. A scalar subquery. */
export function liveClaimLabel(noteId: SQL | typeof notes.id | number): SQL<string | null> {
  return sql<string | null>`(select c.claim_number || ' (' || c.status || ')' from ${liveClaimOf(noteId)} limit 1)`;
}

/**
 * The line of the generated, sent or accepted claim that bills the note, as JSON `[unit_price_cents, multiplier,
 * charge_cents, units, xp_multiplier]` (`claimedLine` reads it), or null: a draft is priced again when generated and a rejected claim
 * frees its notes, so those are priced as today. A scalar subquery, to ride in the read that already selects the note
 * (billing rows, the billing save): what the claim charged is what they show and save (decision 030, stop 34).
 */
export function claimedLineOf(noteId: SQL | typeof notes.id | number): SQL<string | null> {
  return sql<string | null>`(select json_array(cl.unit_price_cents, cl.multiplier, cl.charge_cents, cl.units, cl.xp_multiplier) from ${liveClaimOf(noteId)} and c.status <> 'draft' limit 1)`;
}

/** `claimedLineOf`'s JSON as the price function takes it (app/domain/billing.ts `claimedPrice`). */
export function claimedLine(json: string | null | undefined): ClaimedLine | null {
  if (!json) return null;
  const [unitPriceCents, multiplier, chargeCents, units, xpMultiplier] = JSON.parse(json) as [number, number | null, number, number, number | null | undefined];
  return { unitPriceCents, multiplier, chargeCents, units, xpMultiplier: xpMultiplier ?? null };
}
