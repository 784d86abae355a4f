import { describe, expect, it } from "vitest";
import { minuteOfDay, timeOfMinute, unitsForMinutes } from "~/domain/notes";

describe("billing units of a session: whole 15-minute blocks, plus one for a remainder of 8 minutes or more", () => {
  it.each([
    [0, 0],
    [7, 0],
    [8, 1],
    [15, 1],
    [22, 1],
    [23, 2],
    [30, 2],
    [37, 2],
    [38, 3],
    [60, 4],
    [90, 6],
    [120, 8],
    [135, 9],
    [143, 10],
    [600, 40],
  ])("%i minutes → %i units", (minutes, units) => {
    expect(unitsForMinutes(minutes)).toBe(units);
  });

  it("counts nothing for no time, negative or nonsense minutes", () => {
    for (const m of [-15, Number.NaN, Number.POSITIVE_INFINITY]) expect(unitsForMinutes(m)).toBe(0);
  });
});

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
