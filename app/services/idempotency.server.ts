import { getTableColumns, is, SQL, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { errorText } from "~/models/results";
import { sha256Hex } from "./crypto.server";

/**
 * One-time tokens of a create (decision 024): a screen's form carries a random `form_token` (no ':'), an API create
 * sends the `Idempotency-Key` header, which becomes a token `key:<scope>:<body>`. The record stores it in a
 * `form_token` column with a UNIQUE index, so a resend (a double click, a retried request) answers the first record
 * instead of making a second. Used by notes (decision 024), PDF jobs (decision 041), PA services,
 * consent drafts, clients and ticket responses (decision 024, stop 39).
 */

/** The longest token stored (a form's, or a key's before hashing). */
const MAX_TOKEN = 200;

/** A form's one-time token as stored: trimmed and bounded, or null when none was sent. */
export function oneTimeToken(raw: string | null | undefined): string | null {
  const token = raw?.trim();
  return token ? token.slice(0, MAX_TOKEN) : null;
}

/** The Idempotency-Key header, bounded (idempotencyToken turns it into a create's one-time token). */
export function idempotencyKey(headers: Headers | undefined): string | null {
  return oneTimeToken(headers?.get("Idempotency-Key"));
}

/**
 * The one-time token of an API create from its Idempotency-Key: `key:<scope>:<body>`, the scope a hash of the actor
 * (kind and id), the target (`target`: what the create makes, e.g. the note type, or a PDF's path and id) and the
 * key, the body a hash of the request's JSON with its keys sorted. Another user's or another target's key is another
 * scope, so it never answers their record; the same scope with another body is a reused key (idempotencyKeyReused).
 */
export async function idempotencyToken(actor: { kind: string; id: number | null }, target: readonly (string | number)[], key: string | null, body: unknown): Promise<string | null> {
  if (!key) return null;
  const sorted = JSON.stringify(body, (_k, x: unknown) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x));
  return `key:${await sha256Hex(JSON.stringify([actor.kind, actor.id, ...target, key]))}:${await sha256Hex(sorted)}`;
}

/** What a reused Idempotency-Key answers (422), naming what the key made first ("note", "PDF"). */
export const idempotencyKeyReused = (what: string) => `This Idempotency-Key was already used for a different ${what}.`;

/** An Idempotency-Key token's scope prefix (`key:<scope>:`), null for a screen's form token. */
export function keyScope(token: string): string | null {
  const m = /^(key:[0-9a-f]{64}:)[0-9a-f]{64}$/.exec(token);
  return m ? m[1]! : null;
}

/** Rows holding the token, or for an Idempotency-Key any token of its scope (a range on the column's UNIQUE index: ';' follows ':'). */
export function tokenMatch(column: SQLiteColumn, token: string): SQL {
  const scope = keyScope(token);
  return scope ? sql`(${column} > ${scope} and ${column} < ${`${scope.slice(0, -1)};`})` : sql`${column} = ${token}`;
}

/** For a conditional insert: ` and` its Idempotency-Key's scope holds no row yet (of two racing creates with other bodies, one lands). */
export function keyScopeFree(table: SQLiteTable, column: SQLiteColumn, token: string | null): SQL {
  return token && keyScope(token) ? sql` and not exists (select 1 from ${table} where ${tokenMatch(column, token)})` : sql``;
}

/** The insert lost a race with a resend of the same token: the UNIQUE index on `table.column` refused it (D1 wraps the error). */
export function isTokenRace(e: unknown, tableColumn: string): boolean {
  return errorText(e).includes(`UNIQUE constraint failed: ${tableColumn}`);
}

/**
 * A whole row of `table` as the cells of an INSERT … SELECT (a conditional insert, e.g. with keyScopeFree), in the
 * table's column order: each a value as stored (booleans as 0/1), or SQL.
 */
export function rowCells<T extends SQLiteTable>(table: T, row: Record<keyof T["$inferSelect"], unknown>): SQL {
  const cells = row as Record<string, unknown>;
  return sql.join(
    Object.keys(getTableColumns(table)).map((k) => (is(cells[k], SQL) ? (cells[k] as SQL) : sql`${typeof cells[k] === "boolean" ? Number(cells[k]) : cells[k]}`)),
    sql`, `,
  );
}
