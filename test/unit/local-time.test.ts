import { describe, expect, it } from "vitest";
import { localDate, localDateTime, localDayBounds, zonedDate, zonedMidnight } from "~/domain/time";

/**
 * A stored instant read on the actor's clock (decision 039): the one helper every screen uses to print when a row was
 * created, updated, signed or imported. Near midnight UTC the date differs from the UTC one in the Americas.
 */
describe("localDateTime: an instant on the actor's clock", () => {
  it.each<[string, string, string | null, string]>([
    // 19:00 in Denver is 02:00 the next day in UTC: the screen says the Denver day.
    ["19:00 in Denver (MST)", "2026-11-28T02:00:00.000Z", "America/Denver", "2026-11-27 19:00"],
    ["21:00 in New York (EST)", "2026-11-28T02:00:00.000Z", "America/New_York", "2026-11-27 21:00"],
    ["16:00 in Honolulu", "2026-11-28T02:00:00.000Z", "Pacific/Honolulu", "2026-11-27 16:00"],
    ["no location: UTC", "2026-11-28T02:00:00.000Z", null, "2026-11-28 02:00"],
    ["an explicit UTC", "2026-11-28T02:00:00.000Z", "UTC", "2026-11-28 02:00"],
    // The last and the first minute of a Denver day.
    ["23:59 in Denver", "2026-11-28T06:59:00.000Z", "America/Denver", "2026-11-27 23:59"],
    ["00:00 in Denver", "2026-11-28T07:00:00.000Z", "America/Denver", "2026-11-28 00:00"],
    // Spring forward (8 March 2026): 01:59 MST is followed by 03:00 MDT; a day later midnight is an hour earlier in UTC.
    ["Denver, the minute before the spring change", "2026-03-08T08:59:00.000Z", "America/Denver", "2026-03-08 01:59"],
    ["Denver, the minute of the spring change", "2026-03-08T09:00:00.000Z", "America/Denver", "2026-03-08 03:00"],
    ["Denver, midnight before it (MST)", "2026-03-08T07:00:00.000Z", "America/Denver", "2026-03-08 00:00"],
    ["Denver, 23:59 after it (MDT)", "2026-03-09T05:59:00.000Z", "America/Denver", "2026-03-08 23:59"],
    ["Denver, the next midnight (MDT)", "2026-03-09T06:00:00.000Z", "America/Denver", "2026-03-09 00:00"],
    // Fall back (1 November 2026): 01:30 happens twice in New York; the days end at 04:00 and 05:00 UTC.
    ["New York, 23:59 on 31 October (EDT)", "2026-11-01T03:59:00.000Z", "America/New_York", "2026-10-31 23:59"],
    ["New York, the first 01:30 (EDT)", "2026-11-01T05:30:00.000Z", "America/New_York", "2026-11-01 01:30"],
    ["New York, the second 01:30 (EST)", "2026-11-01T06:30:00.000Z", "America/New_York", "2026-11-01 01:30"],
    ["New York, 23:59 on 1 November (EST)", "2026-11-02T04:59:00.000Z", "America/New_York", "2026-11-01 23:59"],
    // Honolulu keeps one offset all year.
    ["Honolulu in July, 23:59", "2026-07-01T09:59:00.000Z", "Pacific/Honolulu", "2026-06-30 23:59"],
    ["Honolulu in July, midnight", "2026-07-01T10:00:00.000Z", "Pacific/Honolulu", "2026-07-01 00:00"],
    // Seconds and milliseconds as SQLite's default writes them do not matter; an ISO time without them neither.
    ["an instant without milliseconds", "2026-11-28T02:00:59Z", "America/Denver", "2026-11-27 19:00"],
    ["a zone the runtime does not know reads as UTC", "2026-11-28T02:00:00.000Z", "Mars/Olympus_Mons", "2026-11-28 02:00"],
    ["a value that is not an instant is shown as it is", "not a time", "America/Denver", "not a time"],
  ])("%s", (_label, at, zone, shown) => {
    expect(localDateTime(at, zone)).toBe(shown);
  });

  it("takes a Date as well", () => {
    expect(localDateTime(new Date("2026-11-28T02:00:00.000Z"), "America/Denver")).toBe("2026-11-27 19:00");
  });
});

describe("localDate: the day of an instant on the actor's clock", () => {
  it.each<[string, string | null, string]>([
    ["2026-11-28T02:00:00.000Z", "America/Denver", "2026-11-27"],
    ["2026-11-28T02:00:00.000Z", "America/New_York", "2026-11-27"],
    ["2026-11-28T02:00:00.000Z", "Pacific/Honolulu", "2026-11-27"],
    ["2026-11-28T02:00:00.000Z", null, "2026-11-28"],
    ["2026-11-28T12:00:00.000Z", "Pacific/Auckland", "2026-11-29"],
    ["2026-03-09T05:59:00.000Z", "America/Denver", "2026-03-08"],
    ["2026-11-02T04:59:00.000Z", "America/New_York", "2026-11-01"],
    ["2026-11-02T05:00:00.000Z", "America/New_York", "2026-11-02"],
    ["not a time", "America/Denver", "not a time"],
  ])("%s in %s is %s", (at, zone, day) => {
    expect(localDate(at, zone)).toBe(day);
  });

  it("is the day zonedDate gives for a location (one rule: the actor's today uses it too)", () => {
    for (const zone of ["America/Denver", "America/New_York", "Pacific/Honolulu", "Asia/Kolkata", "Pacific/Chatham"]) {
      for (let h = 0; h < 48; h += 0.25) {
        const at = new Date(Date.UTC(2026, 10, 27) + h * 3_600_000);
        expect(localDate(at, zone)).toBe(zonedDate(at, zone));
      }
    }
  });
});

/**
 * A list's From/To days on the actor's clock (decision 039): the UTC instants a stored timestamp is compared with,
 * `at >= start and at < before`, so a row is kept exactly when its `localDate` is in the period.
 */
describe("localDayBounds: local days as stored instants", () => {
  it.each<[string, string | null, string | null, string | null, { start: string | null; before: string | null }]>([
    ["Los Angeles (PST)", "2026-11-20", "2026-11-20", "America/Los_Angeles", { start: "2026-11-20T08:00:00.000Z", before: "2026-11-21T08:00:00.000Z" }],
    ["Auckland (NZDT)", "2026-11-20", "2026-11-20", "Pacific/Auckland", { start: "2026-11-19T11:00:00.000Z", before: "2026-11-20T11:00:00.000Z" }],
    ["no zone: UTC days", "2026-11-20", "2026-11-21", null, { start: "2026-11-20T00:00:00.000Z", before: "2026-11-22T00:00:00.000Z" }],
    ["an unknown zone: UTC days", "2026-11-20", "2026-11-20", "Mars/Olympus", { start: "2026-11-20T00:00:00.000Z", before: "2026-11-21T00:00:00.000Z" }],
    ["From alone", "2026-11-20", null, "America/Denver", { start: "2026-11-20T07:00:00.000Z", before: null }],
    ["To alone, the last day of a month", null, "2026-11-30", "America/Denver", { start: null, before: "2026-12-01T07:00:00.000Z" }],
    // Spring forward in New York (8 March 2026): that day is 23 hours long.
    ["New York, the spring-forward day", "2026-03-08", "2026-03-08", "America/New_York", { start: "2026-03-08T05:00:00.000Z", before: "2026-03-09T04:00:00.000Z" }],
    // Auckland falls back on 5 April 2026: that day is 25 hours long.
    ["Auckland, the fall-back day", "2026-04-05", "2026-04-05", "Pacific/Auckland", { start: "2026-04-04T11:00:00.000Z", before: "2026-04-05T12:00:00.000Z" }],
    // Santiago springs forward at midnight (6 September 2026: 00:00 reads 01:00): the day begins at 01:00, 04:00 UTC.
    ["Santiago, the day with no midnight", "2026-09-06", "2026-09-06", "America/Santiago", { start: "2026-09-06T04:00:00.000Z", before: "2026-09-07T03:00:00.000Z" }],
    ["Santiago, the day before it", "2026-09-05", "2026-09-05", "America/Santiago", { start: "2026-09-05T04:00:00.000Z", before: "2026-09-06T04:00:00.000Z" }],
    // Havana, too (8 March 2026).
    ["Havana, the day with no midnight", "2026-03-08", "2026-03-08", "America/Havana", { start: "2026-03-08T05:00:00.000Z", before: "2026-03-09T04:00:00.000Z" }],
  ])("%s", (_label, from, to, zone, expected) => {
    expect(localDayBounds(from, to, zone)).toEqual(expected);
  });

  it.each<[string, string, string]>([
    ["Los Angeles", "America/Los_Angeles", "2026-11-20"],
    ["Auckland", "Pacific/Auckland", "2026-11-20"],
    ["Tokyo", "Asia/Tokyo", "2026-11-20"],
    ["Santiago, the day with no midnight", "America/Santiago", "2026-09-06"],
    ["Santiago, the day before it", "America/Santiago", "2026-09-05"],
    ["Santiago, autumn at midnight", "America/Santiago", "2026-04-05"],
    ["Havana, the day with no midnight", "America/Havana", "2026-03-08"],
    ["New York, the spring-forward day", "America/New_York", "2026-03-08"],
    ["New York, the fall-back day", "America/New_York", "2026-11-01"],
  ])("in %s the bounds keep exactly the instants whose localDate is the day", (_label, zone, day) => {
    const { start, before } = localDayBounds(day, day, zone);
    for (let t = Date.parse(`${day}T00:00:00Z`) - 2 * 86_400_000; t < Date.parse(`${day}T00:00:00Z`) + 2 * 86_400_000; t += 30 * 60_000) {
      const iso = new Date(t).toISOString();
      expect(iso >= start! && iso < before!, iso).toBe(localDate(iso, zone) === day);
    }
  });
});

/**
 * Where a local day begins: its midnight, the clock change where midnight is skipped, and, for a day the zone skips
 * whole (Apia went from 29 to 31 December 2011), the first instant after the gap, the next existing day's start.
 */
describe("zonedMidnight: the first instant of a local day", () => {
  it.each<[string, string, string, string]>([
    ["Apia, the skipped day: the gap's end", "Pacific/Apia", "2011-12-30", "2011-12-30T10:00:00.000Z"],
    ["Apia, the day before it", "Pacific/Apia", "2011-12-29", "2011-12-29T10:00:00.000Z"],
    ["Apia, the day after it", "Pacific/Apia", "2011-12-31", "2011-12-30T10:00:00.000Z"],
    ["Apia, the next day", "Pacific/Apia", "2012-01-01", "2011-12-31T10:00:00.000Z"],
    ["Santiago, the day with no midnight", "America/Santiago", "2026-09-06", "2026-09-06T04:00:00.000Z"],
    ["Havana, the day with no midnight", "America/Havana", "2026-03-08", "2026-03-08T05:00:00.000Z"],
    ["Beirut, the day with no midnight", "Asia/Beirut", "2026-03-29", "2026-03-28T22:00:00.000Z"],
    ["Cairo, the day with no midnight", "Africa/Cairo", "2026-04-24", "2026-04-23T22:00:00.000Z"],
    ["Los Angeles, an ordinary day", "America/Los_Angeles", "2026-11-20", "2026-11-20T08:00:00.000Z"],
  ])("%s", (_label, zone, day, expected) => {
    const [y, m, d] = day.split("-").map(Number) as [number, number, number];
    const start = zonedMidnight(y, m, d, zone);
    expect(start.toISOString()).toBe(expected);
    // Nothing earlier reads the day or a later one.
    expect(zonedDate(new Date(start.getTime() - 1000), zone) < day).toBe(true);
  });

  it("a period ending the evening before Apia's skipped day keeps that whole day, and the skipped day is empty", () => {
    expect(localDayBounds("2011-12-29", "2011-12-29", "Pacific/Apia")).toEqual({ start: "2011-12-29T10:00:00.000Z", before: "2011-12-30T10:00:00.000Z" });
    expect(localDayBounds("2011-12-30", "2011-12-30", "Pacific/Apia")).toEqual({ start: "2011-12-30T10:00:00.000Z", before: "2011-12-30T10:00:00.000Z" });
    for (const day of ["2011-12-28", "2011-12-29", "2011-12-31", "2012-01-01"]) {
      const { start, before } = localDayBounds(day, day, "Pacific/Apia");
      for (let t = Date.parse(`${day}T00:00:00Z`) - 2 * 86_400_000; t < Date.parse(`${day}T00:00:00Z`) + 2 * 86_400_000; t += 30 * 60_000) {
        const iso = new Date(t).toISOString();
        expect(iso >= start! && iso < before!, `${day} ${iso}`).toBe(localDate(iso, "Pacific/Apia") === day);
      }
    }
  });
});
