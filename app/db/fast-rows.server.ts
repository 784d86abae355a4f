import { Column, getTableName, is, noopDecoder, SQL, Subquery } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";

/**
 * drizzle's D1 batch maps each row by checking, for every cell, what kind of field it selected (`is`, which
 * walks the prototype chain of an aliased field up to three times) and by turning D1's row object into an
 * array first. On billing by client (about 300 rows of 10 to 45 fields in one batch) that mapping was about
 * a third of the model's JavaScript (decision 042, 2026-11-26 (stop 19)).
 *
 * `fastRows(query)` is the same select in a batch, mapped by a plan made once per statement: each field's
 * path and decoder, found once, then a plain loop per row. The result is what drizzle's own mapping gives
 * (`mapResultRow`: decoders, nested objects, a left-joined table's object set to null as drizzle decides
 * it); test/workers/fast-rows.test.ts checks both on the same reads. Only a select whose rows D1 answered
 * in a batch takes this path; anything else (a write, a `.get()`, a custom mapper, another driver's
 * result) is mapped by drizzle as before. It relies on how drizzle's D1 session runs a batch item
 * (`_prepare`, `getQuery`, `stmt`, `mapResult`): an upgrade that changes it fails those tests.
 */

interface Decoder {
  mapFromDriverValue(value: unknown): unknown;
}

interface Prepared {
  getQuery(): { sql: string; params: unknown[] };
  stmt?: unknown;
  executeMethod?: string;
  fields?: { path: string[]; field: unknown }[];
  joinsNotNullableMap?: Record<string, boolean>;
  customResultMapper?: unknown;
  mapResult(result: unknown, isFromBatch?: boolean): unknown;
}

interface FieldPlan {
  path: string[];
  /** The field's decoder, or null when it answers the value as it is (drizzle's plain columns and SQL). */
  decode: ((value: unknown) => unknown) | null;
  /** The table of a column selected as `{ object: { key: column } }`, for drizzle's null-object rule. */
  table: string | null;
}

/** Decoders that return the driver's value as it is: calling them per cell is the cost this module avoids. */
const IDENTITY = new Set<unknown>([(Column.prototype as unknown as Decoder).mapFromDriverValue, (noopDecoder as Decoder).mapFromDriverValue]);

function planOf(fields: NonNullable<Prepared["fields"]>, joins: Prepared["joinsNotNullableMap"]): FieldPlan[] {
  return fields.map(({ path, field }) => {
    let decoder: Decoder;
    if (is(field, Column)) decoder = field as unknown as Decoder;
    else if (is(field, SQL)) decoder = (field as unknown as { decoder: Decoder }).decoder;
    else if (is(field, Subquery)) decoder = (field as unknown as { _: { sql: { decoder: Decoder } } })._.sql.decoder;
    else decoder = (field as { sql: { decoder: Decoder } }).sql.decoder;
    const decode = IDENTITY.has(decoder.mapFromDriverValue) ? null : (value: unknown) => decoder.mapFromDriverValue(value);
    const table = joins && is(field, Column) && path.length === 2 ? getTableName((field as Column).table) : null;
    return { path, decode, table };
  });
}

/** drizzle's mapResultRow over D1's row objects, with the per-field decisions taken once (planOf). */
function mapRows(plan: FieldPlan[], rows: Record<string, unknown>[], joins: Prepared["joinsNotNullableMap"]): Record<string, unknown>[] {
  const out = new Array<Record<string, unknown>>(rows.length);
  const nested = plan.some((f) => f.table !== null);
  for (let r = 0; r < rows.length; r++) {
    const values = Object.values(rows[r]!);
    const result: Record<string, unknown> = {};
    let nullify: Record<string, string | false> | null = null;
    for (let i = 0; i < plan.length; i++) {
      const { path, decode, table } = plan[i]!;
      let node = result;
      const last = path.length - 1;
      for (let k = 0; k < last; k++) {
        const chunk = path[k]!;
        const next = node[chunk];
        node = (next === undefined && !(chunk in node) ? (node[chunk] = {}) : next) as Record<string, unknown>;
      }
      const raw = values[i];
      const value = (node[path[last]!] = raw === null ? null : decode === null ? raw : decode(raw));
      if (nested && table !== null) {
        // drizzle's rule: an object of a joined table is null when its first column is null (and the join may miss).
        nullify ??= {};
        const object = path[0]!;
        if (!(object in nullify)) nullify[object] = value === null ? table : false;
        else if (typeof nullify[object] === "string" && nullify[object] !== table) nullify[object] = false;
      }
    }
    if (nullify) for (const object in nullify) if (typeof nullify[object] === "string" && !joins![nullify[object] as string]) result[object] = null;
    out[r] = result;
  }
  return out;
}

/** The select `query` for a D1 batch, its rows mapped by fastRows' plan (the same values as drizzle's mapping). */
export function fastRows<T extends BatchItem<"sqlite">>(query: T): T {
  const item = {
    _prepare() {
      const p = (query as unknown as { _prepare(): Prepared })._prepare();
      return {
        getQuery: () => p.getQuery(),
        get stmt() {
          return p.stmt;
        },
        mapResult(result: unknown, isFromBatch?: boolean) {
          const rows = (result as { results?: unknown } | null)?.results;
          if (!isFromBatch || p.executeMethod !== "all" || !p.fields || p.customResultMapper || !Array.isArray(rows)) return p.mapResult(result, isFromBatch);
          return mapRows(planOf(p.fields, p.joinsNotNullableMap), rows as Record<string, unknown>[], p.joinsNotNullableMap);
        },
      };
    },
  };
  return item as unknown as T;
}
