import type { ModelContext } from "~/models/context";
import { scrubNotes, type ScrubOverrides } from "~/models/scrubber.server";

/**
 * The pre-billing scrubber's reasons per note as readable text, as the billing screens and API need them:
 * the billing table shows them per row, and a save that marks a note billed is refused when there are any
 * (scrubbed with the modifiers it saves, `overrides`). One D1 round trip for a page of rows (scrubNotes reads
 * up to 1,000 notes at once).
 */
export async function scrubReasons(ctx: ModelContext, noteIds: readonly number[], overrides?: ScrubOverrides): Promise<Map<number, string[]>> {
  const found = await scrubNotes(ctx, [...noteIds], overrides);
  return new Map([...found].map(([id, reasons]) => [id, reasons.map((r) => r.message)]));
}
