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

  it.each<[string, number | null]>([
    ["24:00", 1440],
    ["23:59", 1439],
    ["00:00", 0],
    ["24:01", null],
    ["24:30", null],
    ["25:00", null],
  ])("as a time out, %j is minute %j (24:00: the end of the session date)", (time, minute) => {
    expect(minuteOfDay(time, true)).toBe(minute);
  });

  it("minute 1440 reads back as 24:00", () => {
    expect(timeOfMinute(1440)).toBe("24:00");
  });
});
