import type { ModelContext } from "~/models/context";

/**
 * The pre-billing scrubber's reasons per note, as the billing screens and API need them (one place to
 * plug it in: the billing table shows them per row, and a save that marks a note billed is refused when
 * there are any).
 */
export async function scrubReasons(_ctx: ModelContext, _noteIds: readonly number[]): Promise<Map<number, string[]>> {
  return new Map();
}
