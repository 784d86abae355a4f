/**
 * List sections of a plan document (clinical §4 list-and-form; "lists are re-indexed in order"). Every
 * list item carries a 1-based `index` equal to its position; each operation returns a new list with the
 * indexes renumbered 1..n. Pure: the model applies them to the stored document, the tests drive them
 * from tables.
 */

export type Indexed<T> = T & { index: number };

/** `unchanged`: the operation leaves the list as it is (a move past either end); what to say instead of saving. */
export type ListOpResult<T> = { ok: true; items: Indexed<T>[]; unchanged?: string } | { ok: false; error: string };

export const LIST_MESSAGES = {
  /** clinical §5 Other: an add whose validity check fails. */
  incomplete: "Please enter all fields",
  noSuchItem: "That item is no longer in the list. Reload the page and try again.",
  badOrder: "The new order must name every item of the list exactly once.",
  alreadyFirst: "Already first.",
  alreadyLast: "Already last.",
  sameOrder: "Already in that order.",
} as const;

/** Indexes 1..n in list order. */
export function renumber<T extends object>(items: readonly T[]): Indexed<T>[] {
  return items.map((item, i) => ({ ...item, index: i + 1 }));
}

function has(items: readonly unknown[], index: number): boolean {
  return Number.isInteger(index) && index >= 1 && index <= items.length;
}

/** Saving an item: with no index it is appended, otherwise it replaces the item at that index. */
export function saveItem<T extends object>(items: readonly T[], item: Omit<T, "index">, index?: number | null): ListOpResult<T> {
  const added = item as T;
  if (index === undefined || index === null) return { ok: true, items: renumber([...items, added]) };
  if (!has(items, index)) return { ok: false, error: LIST_MESSAGES.noSuchItem };
  return { ok: true, items: renumber(items.map((x, i) => (i === index - 1 ? added : x))) };
}

/** Deletes the item at `index`; the remaining indexes are renumbered. */
export function deleteItem<T extends object>(items: readonly T[], index: number): ListOpResult<T> {
  if (!has(items, index)) return { ok: false, error: LIST_MESSAGES.noSuchItem };
  return { ok: true, items: renumber(items.filter((_, i) => i !== index - 1)) };
}

/** Moves the item at `index` one place up or down; at either end it stays where it is and the result says so. */
export function moveItem<T extends object>(items: readonly T[], index: number, direction: "up" | "down"): ListOpResult<T> {
  if (!has(items, index)) return { ok: false, error: LIST_MESSAGES.noSuchItem };
  const target = direction === "up" ? index - 1 : index + 1;
  if (target < 1 || target > items.length) return { ok: true, items: renumber(items), unchanged: direction === "up" ? LIST_MESSAGES.alreadyFirst : LIST_MESSAGES.alreadyLast };
  const out = [...items];
  [out[index - 1], out[target - 1]] = [out[target - 1]!, out[index - 1]!];
  return { ok: true, items: renumber(out) };
}

/** Puts the items in the order given by their current indexes (a permutation of 1..n); the same order is `unchanged`. */
export function reorderItems<T extends object>(items: readonly T[], order: readonly number[]): ListOpResult<T> {
  const seen = new Set(order);
  if (order.length !== items.length || seen.size !== order.length || !order.every((i) => has(items, i))) return { ok: false, error: LIST_MESSAGES.badOrder };
  const out = renumber(order.map((i) => items[i - 1]!));
  return order.every((i, k) => i === k + 1) ? { ok: true, items: out, unchanged: LIST_MESSAGES.sameOrder } : { ok: true, items: out };
}
