/**
 * What an update changed, for its audit row's `detail` (decision 019, 2026-11-28 stop 43; stop 44). One helper for
 * every model that writes an `update` row (employees, PA services, clients; parents, roles, rate records, prices and
 * the settings), so the trail can tell a privilege grant from a phone change without copying anyone's personal or
 * clinical data:
 *
 * - `changed`: the names of the fields whose written value differs from the stored one, in the caller's order;
 * - `from` / `to`: the stored and the new value, only for the fields the caller lists as `shown` (ids, codes, dates,
 *   units and statuses that decide who may do what or what is billed). Every other field is named only.
 */
export type ChangeDetail = {
  changed: string[];
  from?: Record<string, unknown>;
  to?: Record<string, unknown>;
};

/** No value, as shown: undefined, null and a blank text. */
const blank = (x: unknown) => (x === undefined || x === "" ? null : x);

/**
 * No value, as compared: also an unticked flag and an empty list, which a form's save writes over a detail the
 * stored record never had (the same answer to the user, so not a change).
 */
const empty = (x: unknown) => (x === false || (Array.isArray(x) && x.length === 0) ? null : blank(x));

/** Two stored/written values are the same when their JSON is. */
function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(empty(a)) === JSON.stringify(empty(b));
}

/**
 * The change between `stored` and `written` (the values the update writes, keyed by field name). Only the keys of
 * `written` are compared: a field the update does not write did not change. Lists must be given in a fixed order
 * (sorted ids), so that the same set reads the same.
 */
export function changeDetail(stored: Record<string, unknown>, written: Record<string, unknown>, shown: readonly string[]): ChangeDetail {
  const changed = Object.keys(written).filter((k) => !same(stored[k], written[k]));
  const valued = changed.filter((k) => shown.includes(k));
  if (!valued.length) return { changed };
  return {
    changed,
    from: Object.fromEntries(valued.map((k) => [k, blank(stored[k])])),
    to: Object.fromEntries(valued.map((k) => [k, blank(written[k])])),
  };
}

/**
 * Whether an update leaves the record as stored (decision 017, 2026-11-29 stop 44): no field it writes differs from
 * the stored one, as `changeDetail` compares them. The one rule for every versioned resource's update: such an
 * update answers "Nothing to change" (`nothingToChange`), writes nothing, adds no audit row and keeps the version, so
 * a client that sends back a record it read does not make another client's next save stale.
 */
export function changesNoField(change: ChangeDetail): boolean {
  return change.changed.length === 0;
}

/** What a screen says after a save that changed nothing (`formResult`): success-looking, nothing written. */
export const NOTHING_CHANGED_NOTICE = "Nothing to change.";

/** The same question for an update that writes no change detail: `written` against `stored`, by `written`'s keys. */
export function leavesAsStored(stored: Record<string, unknown>, written: Record<string, unknown>): boolean {
  return changesNoField(changeDetail(stored, written, []));
}

/** One value of a change in words: a list joined, an `{id, name}` as "#8 MANAGER", no value as "none". */
function valueText(x: unknown): string {
  if (x === null || x === undefined || x === "") return "none";
  if (Array.isArray(x)) return x.length ? `[${x.map(valueText).join(", ")}]` : "[]";
  if (typeof x === "object") {
    const o = x as { id?: unknown; name?: unknown };
    return o.id !== undefined ? `#${String(o.id)}${typeof o.name === "string" ? ` ${o.name}` : ""}` : JSON.stringify(x);
  }
  return String(x);
}

/**
 * An audit row's change detail (its stored JSON text) in words, for the logs report: "roles: [#3 RBT] → [#3 RBT,
 * #8 MANAGER]; phone". Empty for a row whose detail holds no change list (a read, a sign-in) or is not JSON.
 */
export function changeText(detail: string | null | undefined): string {
  if (!detail) return "";
  let d: unknown;
  try {
    d = JSON.parse(detail);
  } catch {
    return "";
  }
  if (!d || typeof d !== "object" || !Array.isArray((d as ChangeDetail).changed)) return "";
  const { changed, from = {}, to = {} } = d as ChangeDetail;
  if (!changed.length) return "no field changed";
  return changed.map((k) => (Object.hasOwn(to, k) ? `${k}: ${valueText(from[k])} → ${valueText(to[k])}` : k)).join("; ");
}
