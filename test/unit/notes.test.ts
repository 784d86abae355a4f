import { describe, expect, it } from "vitest";
import { minuteOfDay, timeOfMinute } from "~/domain/notes";

// The units rule's table is in note-rules.test.ts.

describe("session times are local HH:MM", () => {
  it.each([
    ["00:00", 0],
    ["09:05", 545],
    ["23:59", 1439],
  ])("%s is minute %i of the day, and back", (time, minute) => {
    expect(minuteOfDay(time)).toBe(minute);
    expect(timeOfMinute(minute)).toBe(time);
  });

  it.each(["24:00", "9:05", "12:60", "", "noon", "12:00:00"])("%j is not a time", (time) => {
    expect(minuteOfDay(time)).toBeNull();
  });
});
