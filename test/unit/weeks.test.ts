import { describe, expect, it } from "vitest";
import { addDays, dateOfDay, dayNumber, daysBetween, FIRST_YEAR, isProductDate, isSaturday, parseIsoDate, weekdayOfDay, weekEndingDay, weekEndingOn, weekStartOf } from "~/domain/weeks";

/** The week rules of clinical §9 (Sunday to Saturday, named by the Saturday) on integer day numbers. */
describe("day numbers", () => {
  it.each([
    ["1970-01-01", 0],
    ["1969-12-31", -1],
    ["2000-02-29", 11_016],
    ["2024-02-29", 19_782],
    ["2026-11-21", 20_778],
    ["0100-01-01", -683_003],
    ["9999-12-31", 2_932_896],
  ])("%s is day %i and back", (date, day) => {
    expect(dayNumber(date)).toBe(day);
    expect(dateOfDay(day)).toBe(date);
  });

  it.each(["2023-02-29", "2100-02-29", "2024-02-30", "2024-04-31", "2024-13-01", "2024-00-10", "2024-01-00", "2024-4-01", "2024-04-01T00:00", "0099-12-31", "", "yesterday"])(
    "%j is not a calendar date",
    (date) => {
      expect(dayNumber(date)).toBeNull();
      expect(parseIsoDate(date)).toBeNull();
    },
  );

  it("agrees with JavaScript's Date on every day from 1900 to 2200", () => {
    const DAY = 86_400_000;
    const wrong: string[] = [];
    for (let day = dayNumber("1900-01-01")!; day <= dayNumber("2200-12-31")!; day++) {
      const iso = new Date(day * DAY).toISOString().slice(0, 10);
      if (dateOfDay(day) !== iso || dayNumber(iso) !== day || weekdayOfDay(day) !== new Date(day * DAY).getUTCDay()) wrong.push(iso);
    }
    expect(wrong).toEqual([]);
  });

  it("drops a fraction of a day (the phase line sits half a week between Saturdays)", () => {
    expect(dateOfDay(dayNumber("2026-11-21")! + 3.5)).toBe("2026-11-24");
  });
});

describe("a date the product accepts (decision 017)", () => {
  it.each(["1900-01-01", "2026-11-26", "2024-02-29", "2999-12-31"])("%s is accepted", (date) => {
    expect(isProductDate(date)).toBe(true);
  });
  it.each(["0050-01-01", "0099-12-31", "0100-01-01", "1899-12-31", "3000-01-01", "9999-12-31", "2026-02-30", "2026-1-01", ""])("%j is refused", (date) => {
    expect(isProductDate(date)).toBe(false);
  });
  it("leaves room for the arithmetic around it: the week and month before the first accepted day", () => {
    expect(dayNumber(addDays(`${FIRST_YEAR}-01-01`, -40))).not.toBeNull();
  });
});

describe("weeks", () => {
  it.each([
    ["2026-11-15", "2026-11-21"], // Sunday
    ["2026-11-18", "2026-11-21"], // Wednesday
    ["2026-11-21", "2026-11-21"], // Saturday
    ["2024-12-29", "2025-01-04"], // across a new year
    ["2024-02-25", "2024-03-02"], // across a leap day
  ])("the week of %s ends on %s", (date, saturday) => {
    expect(weekEndingOn(date)).toBe(saturday);
    expect(dateOfDay(weekEndingDay(dayNumber(date)!))).toBe(saturday);
    expect(isSaturday(saturday)).toBe(true);
  });

  it("week_start is six days before the Saturday", () => {
    expect(weekStartOf("2026-11-21")).toBe("2026-11-15");
  });

  it.each([
    ["2026-11-21", true],
    ["2026-11-24", false],
    ["2026-02-30", false],
  ])("isSaturday(%s) is %s", (date, saturday) => {
    expect(isSaturday(date)).toBe(saturday);
  });

  it("adds days and counts them across months and years", () => {
    expect(addDays("2024-02-28", 1)).toBe("2024-02-29");
    expect(addDays("2025-02-28", 1)).toBe("2025-03-01");
    expect(addDays("2026-01-03", -7)).toBe("2025-12-27");
    expect(daysBetween("2025-12-27", "2026-01-03")).toBe(7);
    expect(() => addDays("2026-02-30", 1)).toThrow("Not a date");
  });
});
