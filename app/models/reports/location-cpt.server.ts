import { sql } from "drizzle-orm";
import { insurances, locations } from "~/db/schema";
import { priceNote } from "~/domain/billing";
import type { NoteType } from "~/domain/notes";
import { reportHours } from "~/domain/report-operations";
import { priceServicesQuery } from "../billing-prices.server";
import type { LocationCptRow } from "~/domain/report-defs/operations";
import type { ModelContext } from "../context";
import { noteCptSums, type NoteReportFilters, type Window, dbBatch, type ReadBatch } from "./note-scope.server";

/**
 * Units and charges by location and CPT (decision 039). Charges come only from the one price function
 * (`priceNote`): SQLite sums units per everything the price depends on — location, CPT, note type, the two
 * billing modifiers, a combined note's own unit price and the payer (the PA service's insurer, else the
 * client's) — and each such group is priced once, as a note of that many units would be. Every day of the
 * period comes from note_day_cpt_totals (`noteCptSums`); a provider or client filter reads the notes. One batch: the priced groups and the
 * insurers' services.
 */
export type { LocationCptRow };

export interface LocationCptReport {
  rows: LocationCptRow[];
  total: number;
  totals: { units: number; charges_cents: number; unpriced_units: number };
}

export async function locationCptReport(ctx: ModelContext, f: NoteReportFilters, page: Window, batch: ReadBatch = dbBatch(ctx)): Promise<LocationCptReport> {
  const src = noteCptSums(ctx, f);
  const [groups, services] = await batch([
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
  ]);
  const byKey = new Map<string, LocationCptRow>();
  for (const gr of groups) {
    const units = Number(gr.units);
    const price = priceNote(services, {
      type: gr.type as NoteType,
      cptCode: gr.cpt,
      units,
      modifiers: [gr.md, gr.md2],
      locationId: gr.locationId,
      insurerId: gr.payer ?? null,
      // The day sums are not kept per provider, so a group is priced by its note type (decision 030,
      // 2026-11-26 (issue 11 review): the one difference from the billing rows, claims and the scrubber).
      providerCredential: null,
      unitPriceCents: gr.ownPrice,
    });
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
    row.charges_cents += price.chargesCents;
    if (price.unitPriceCents === 0) row.unpriced_units += units;
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
