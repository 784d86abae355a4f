import { sql } from "drizzle-orm";
import { insurances, locations } from "~/db/schema";
import { claimedPrice, priceNote } from "~/domain/billing";
import type { NoteType } from "~/domain/notes";
import { reportHours } from "~/domain/report-operations";
import { priceServicesQuery } from "../billing-prices.server";
import { claimedLine } from "../claimed-notes.server";
import type { LocationCptRow } from "~/domain/report-defs/operations";
import type { ModelContext } from "../context";
import { claimedNoteCptSums, noteCptSums, type NoteReportFilters, type Window, dbBatch, type ReadBatch } from "./note-scope.server";

/**
 * Units and charges by location and CPT (decision 039). Charges come only from the one price function
 * (`priceNote`): SQLite sums units per everything the price depends on — location, CPT, note type, the two
 * billing modifiers, a combined note's own unit price and the payer (the PA service's insurer, else the
 * client's) — and each such group is priced once, as a note of that many units would be. Every day of the
 * period comes from note_day_cpt_totals (`noteCptSums`); a provider or client filter reads the notes. A note held by a
 * generated, sent or accepted claim is charged as billing charges it, at its claim line's price (`claimedPrice`,
 * decision 030, stop 34): those notes come apart (`claimedNoteCptSums`), are taken out of their group's units before
 * the group is priced, and each is charged by its line. One batch: the groups, the claimed notes and the insurers'
 * services.
 */
export type { LocationCptRow };

export interface LocationCptReport {
  rows: LocationCptRow[];
  total: number;
  totals: { units: number; charges_cents: number; unpriced_units: number };
}

export async function locationCptReport(ctx: ModelContext, f: NoteReportFilters, page: Window, batch: ReadBatch = dbBatch(ctx)): Promise<LocationCptReport> {
  const src = noteCptSums(ctx, f);
  const [groups, services, claimed] = await batch([
    ctx.db
      .select({
        locationId: src.locationId,
        location: locations.title,
        cpt: src.cptCode,
        type: src.type,
        md: src.md,
        md2: src.md2,
        ownPrice: src.ownPrice,
        payer: sql<number | null>`nullif(${src.payerId}, 0)`,
        sessions: sql<number>`sum(${src.n})`,
        units: sql<number>`sum(${src.units})`,
        minutes: sql<number>`sum(${src.minutes})`,
      })
      .from(src)
      .leftJoin(locations, sql`${locations.id} = ${src.locationId}`)
      .groupBy(sql`${src.locationId}`, sql`${src.cptCode}`, sql`${src.type}`, sql`${src.md}`, sql`${src.md2}`, sql`${src.ownPrice}`, sql`${src.payerId}`),
    priceServicesQuery(ctx, sql`(select ${insurances.id} from ${insurances})`),
    claimedNoteCptSums(ctx, f),
  ]);
  type Key = { locationId: number; cpt: string; type: string; md: string; md2: string; ownPrice: number; payer: number | null };
  // The day sums are not kept per provider, so a group is priced by its note type (decision 030,
  // 2026-11-26 (issue 11 review): the one difference from the billing rows, claims and the scrubber).
  const priceOf = (g: Key, units: number) =>
    priceNote(services, { type: g.type as NoteType, cptCode: g.cpt, units, modifiers: [g.md, g.md2], locationId: g.locationId, insurerId: g.payer, providerCredential: null, unitPriceCents: g.ownPrice });
  const priceKey = (g: Key) => JSON.stringify([g.locationId, g.cpt, g.type, g.md, g.md2, Number(g.ownPrice), g.payer ?? 0]);
  // The claimed notes of each group: their units, and their charges at their claim lines' prices, note by note.
  const onClaims = new Map<string, { units: number; chargesCents: number }>();
  for (const c of claimed) {
    const g: Key = { locationId: c.locationId, cpt: c.cptCode, type: c.type, md: c.md, md2: c.md2, ownPrice: Number(c.ownPrice), payer: Number(c.payerId) || null };
    const units = Number(c.units);
    const n = Number(c.n);
    const price = claimedPrice(priceOf(g, units), units, claimedLine(c.line));
    const k = priceKey(g);
    const sum = onClaims.get(k) ?? { units: 0, chargesCents: 0 };
    sum.units += units * n;
    sum.chargesCents += price.chargesCents * n;
    onClaims.set(k, sum);
  }
  const byKey = new Map<string, LocationCptRow>();
  for (const gr of groups) {
    const units = Number(gr.units);
    const g: Key = { locationId: gr.locationId, cpt: gr.cpt, type: gr.type, md: gr.md, md2: gr.md2, ownPrice: Number(gr.ownPrice), payer: gr.payer ?? null };
    const held = onClaims.get(priceKey(g)) ?? { units: 0, chargesCents: 0 };
    // The notes no such claim holds are priced as today, once for the group's units.
    const free = Math.max(0, units - held.units);
    const price = priceOf(g, free);
    const k = `${gr.locationId}\u0000${gr.cpt}`;
    let row = byKey.get(k);
    if (!row) {
      row = {
        location_id: gr.locationId,
        location: gr.location ?? "",
        cpt_code: gr.cpt,
        sessions: 0,
        units: 0,
        minutes: 0,
        hours: 0,
        charges_cents: 0,
        unpriced_units: 0,
      };
      byKey.set(k, row);
    }
    row.sessions += Number(gr.sessions);
    row.units += units;
    row.minutes += Number(gr.minutes);
    row.charges_cents += price.chargesCents + held.chargesCents;
    // A claimed note is priced by its claim: only the others can lack a price.
    if (price.unitPriceCents === 0) row.unpriced_units += free;
  }
  const rows = [...byKey.values()].sort((a, b) => a.location.localeCompare(b.location) || a.location_id - b.location_id || a.cpt_code.localeCompare(b.cpt_code));
  const totals = { units: 0, charges_cents: 0, unpriced_units: 0 };
  for (const r of rows) {
    r.hours = reportHours(r.minutes);
    totals.units += r.units;
    totals.charges_cents += r.charges_cents;
    totals.unpriced_units += r.unpriced_units;
  }
  return {
    rows: rows.slice(page.offset, page.offset + page.limit),
    total: rows.length,
    totals,
  };
}
