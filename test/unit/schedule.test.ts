import { describe, expect, it } from "vitest";
import { localMinute, todayIn } from "~/domain/note-rules";
import type { Refusal } from "~/domain/note-rules";
import { BookingSchema, bookingRuleOf, bookingStartRefusal, calendarGrid, calendarTodayWindow, checkBooking, entryTimes, MAX_OCCURRENCES, noteNotYetWritable, RangeQuery, SCHEDULE_MESSAGES, weeklyDates, writeNoteHref, type BookedSession, type PaFacts } from "~/domain/schedule";
import { parseWith } from "~/domain/validation";

describe("weeklyDates: a weekly series' occurrences", () => {
  it.each<[string, string, string[]]>([
    ["2026-12-01", "2026-12-01", ["2026-12-01"]],
    ["2026-12-01", "2026-12-07", ["2026-12-01"]],
    ["2026-12-01", "2026-12-08", ["2026-12-01", "2026-12-08"]],
    ["2026-12-29", "2027-01-12", ["2026-12-29", "2027-01-05", "2027-01-12"]],
    ["2028-02-22", "2028-03-07", ["2028-02-22", "2028-02-29", "2028-03-07"]],
  ])("%s until %s", (start, until, dates) => {
    expect(weeklyDates(start, until)).toEqual({ ok: true, dates });
  });

  it("at most 53 occurrences; more is refused on `until` naming the last end date that fits", () => {
    const ok = weeklyDates("2026-01-01", "2026-12-31");
    expect(ok.ok && ok.dates.length).toBe(MAX_OCCURRENCES);
    expect(weeklyDates("2026-01-01", "2027-01-07")).toEqual({ ok: false, refusal: { field: "until", message: "A weekly series has at most 53 sessions: choose an end date on or before 2026-12-31." } });
  });

  it("an end before the start is refused", () => {
    expect(weeklyDates("2026-12-08", "2026-12-01")).toMatchObject({ ok: false, refusal: { field: "until" } });
  });
});

describe("BookingSchema", () => {
  const base = { patient_id: "3", cpt_code: "97153", pa_service_id: "4", session_date: "2026-12-01", time_in: "9:00", time_out: "10:30" };
  it("normalises times and defaults to once with the actor as provider", () => {
    const r = parseWith(BookingSchema, base);
    expect(r).toEqual({ ok: true, data: { patient_id: 3, provider_id: null, cpt_code: "97153", pa_service_id: 4, session_date: "2026-12-01", time_in: "09:00", time_out: "10:30", repeat: "once", until: null } });
  });
  it.each<[string, Record<string, unknown>, string]>([
    ["no client", { patient_id: "" }, "patient_id"],
    ["a bad CPT", { cpt_code: "99999" }, "cpt_code"],
    ["no PA service", { pa_service_id: undefined }, "pa_service_id"],
    ["a bad date", { session_date: "2026-02-30" }, "session_date"],
    ["a bad time", { time_in: "25:00" }, "time_in"],
    ["time out before in", { time_out: "08:00" }, "time_out"],
    ["an unknown repeat", { repeat: "daily" }, "repeat"],
    ["weekly without until", { repeat: "weekly" }, "until"],
    ["weekly ending before it starts", { repeat: "weekly", until: "2026-11-01" }, "until"],
  ])("refuses %s on its field", (_label, over, field) => {
    const r = parseWith(BookingSchema, { ...base, ...over });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(Object.keys(r.errors)).toContain(field);
  });
});

const pa: PaFacts = { cpt: "97153", start_date: "2026-01-01", end_date: "2027-12-31", n_units: 100, used_units: 0 };
function session(key: string, patientId: number, providerId: number, date: string, from: string, to: string): BookedSession {
  const s = localMinute(date, from)!;
  const e = localMinute(date, to)!;
  return { key, patientId, providerId, date, pairs: [{ start: s, end: e }], minutes: e - s };
}
const input = (over: Partial<Parameters<typeof checkBooking>[0]> = {}) => ({ patientId: 1, providerId: 10, cpt: "97153", dates: ["2026-12-01"], timeIn: "09:00", timeOut: "10:00", ...over });

describe("checkBooking: the notes' rules over notes and scheduled sessions", () => {
  it.each<[string, BookedSession[], Partial<Parameters<typeof checkBooking>[0]>, { field: string; message: string } | null]>([
    ["nothing booked", [], {}, null],
    ["the client's other session touching the end", [session("n1", 1, 11, "2026-12-01", "10:00", "11:00")], {}, null],
    ["the client's session overlapping", [session("n1", 1, 11, "2026-12-01", "09:30", "11:00")], {}, { field: "time_in", message: "The client already has a session from 09:30 to 11:00 that overlaps this time." }],
    ["the provider's other client overlapping", [session("s1", 2, 10, "2026-12-01", "08:00", "09:15")], {}, { field: "time_in", message: "The provider already has a session from 08:00 to 09:15 that overlaps this time." }],
    ["the provider's session 10 minutes before", [session("s1", 2, 10, "2026-12-01", "08:00", "08:50")], {}, { field: "time_in", message: "The provider needs 15 minutes between sessions; another session runs from 08:00 to 08:50." }],
    ["the provider's session 15 minutes before", [session("s1", 2, 10, "2026-12-01", "08:00", "08:45")], {}, null],
    ["another provider's other client at the same time", [session("s1", 2, 11, "2026-12-01", "09:00", "10:00")], {}, null],
    ["9.5 hours already that day", [session("n1", 1, 11, "2026-12-01", "10:00", "19:30")], {}, { field: "time_out", message: "The client would have more than 10 hours of sessions on this day." }],
    ["9 hours already that day (exactly the cap)", [session("n1", 1, 11, "2026-12-01", "10:00", "19:00")], {}, null],
    [
      "39.5 hours already that week",
      ["2026-11-29", "2026-11-30", "2026-12-02", "2026-12-03"].map((d, i) => session(`n${i}`, 1, 11, d, "08:00", "17:52")).concat([session("n9", 1, 11, "2026-12-05", "08:00", "08:02")]),
      {},
      { field: "time_out", message: "The client would have more than 40 hours of sessions in this week (Sunday to Saturday)." },
    ],
    ["a CPT the PA service does not cover", [], { cpt: "97155" }, { field: "pa_service_id", message: "The PA service does not cover CPT 97155 on 2026-12-01." }],
  ])("%s", (_label, booked, over, refusal) => {
    expect(checkBooking(input(over), booked, pa).refusal).toEqual(refusal);
  });

  it("a series is refused as a whole, naming every date the same rule refuses", () => {
    // The same rule (the client's overlap) against another session on each date: both dates are named.
    const booked = [session("n1", 1, 11, "2026-12-08", "09:00", "10:00"), session("n2", 1, 11, "2026-12-22", "09:30", "10:30")];
    const r = checkBooking(input({ dates: ["2026-12-01", "2026-12-08", "2026-12-15", "2026-12-22"] }), booked, pa);
    expect(r.refusal).toEqual({ field: "time_in", message: "On 2026-12-08, 2026-12-22: The client already has a session from 09:00 to 10:00 that overlaps this time." });
    const same = checkBooking(input({ dates: ["2026-12-01", "2026-12-08", "2026-12-15", "2026-12-22"] }), [session("n1", 1, 11, "2026-12-08", "09:00", "10:00"), session("n2", 1, 11, "2026-12-22", "09:00", "10:00")], pa);
    expect(same.refusal?.message).toBe("On 2026-12-08, 2026-12-22: The client already has a session from 09:00 to 10:00 that overlaps this time.");
  });

  const weekly = ["2026-12-01", "2026-12-08", "2026-12-15", "2026-12-22", "2026-12-29"];
  it.each<[string, BookedSession[], Partial<Parameters<typeof checkBooking>[0]>, { field: string; message: string }]>([
    [
      "the provider's overlap with a different session on each date",
      [session("s1", 2, 10, "2026-12-08", "08:30", "09:30"), session("s2", 3, 10, "2026-12-15", "09:45", "11:00"), session("s3", 4, 10, "2026-12-29", "08:00", "09:05")],
      {},
      { field: "time_in", message: "On 2026-12-08, 2026-12-15, 2026-12-29: The provider already has a session from 08:30 to 09:30 that overlaps this time." },
    ],
    [
      "the provider's buffer before and after, other sessions and times",
      [session("s1", 2, 10, "2026-12-01", "07:00", "08:50"), session("s2", 3, 10, "2026-12-22", "10:10", "11:00")],
      {},
      { field: "time_in", message: "On 2026-12-01, 2026-12-22: The provider needs 15 minutes between sessions; another session runs from 07:00 to 08:50." },
    ],
    [
      "another rule on a later date is not named (the client's overlap first, the provider's overlap later)",
      [session("n1", 1, 11, "2026-12-08", "09:30", "10:30"), session("s1", 2, 10, "2026-12-15", "09:00", "10:00"), session("n2", 1, 12, "2026-12-29", "08:00", "09:30")],
      {},
      { field: "time_in", message: "On 2026-12-08, 2026-12-29: The client already has a session from 09:30 to 10:30 that overlaps this time." },
    ],
    [
      "the day cap on several dates with different amounts already booked",
      [session("n1", 1, 11, "2026-12-08", "10:00", "19:30"), session("n2", 1, 11, "2026-12-22", "10:00", "20:00")],
      {},
      { field: "time_out", message: "On 2026-12-08, 2026-12-22: The client would have more than 10 hours of sessions on this day." },
    ],
  ])("a series refused by one rule against different sessions names every date it refuses: %s", (_label, booked, over, refusal) => {
    expect(checkBooking(input({ dates: weekly, ...over }), booked, pa).refusal).toEqual(refusal);
  });

  it("a series past the PA service's end names every uncovered date (its message names a date, the rule is the same)", () => {
    const r = checkBooking(input({ dates: ["2027-12-24", "2027-12-31", "2028-01-07", "2028-01-14"] }), [], pa);
    expect(r.refusal).toEqual({ field: "pa_service_id", message: "On 2028-01-07, 2028-01-14: The PA service does not cover CPT 97153 on 2028-01-07." });
  });

  it.each<[string, Refusal, string]>([
    ["client overlap", { field: "time_in", message: "The client already has a session from 09:30 to 11:00 that overlaps this time.", rule: "client_overlap" }, "time_in:client_overlap"],
    ["provider overlap", { field: "time_in", message: "The provider already has a session from 08:00 to 09:15 that overlaps this time.", rule: "provider_overlap" }, "time_in:provider_overlap"],
    ["provider buffer on the second pair", { field: "time_in2", message: "The provider needs 15 minutes between sessions; another session runs from 08:00 to 08:50.", rule: "provider_buffer" }, "time_in2:provider_buffer"],
    ["day cap", { field: "time_out", message: "The client would have more than 10 hours of sessions on this day.", rule: "day_cap" }, "time_out:day_cap"],
    ["PA not covering", { field: "pa_service_id", message: "The PA service does not cover CPT 97155 on 2026-12-01.", rule: "pa_not_covering" }, "pa_service_id:pa_not_covering"],
    ["a refusal without a rule is its own rule", { field: "time_in", message: "Something else." }, "time_in:Something else."],
  ])("bookingRuleOf: %s", (_label, refusal, rule) => {
    expect(bookingRuleOf(refusal)).toBe(rule);
  });

  it("a series past the PA service's end is refused on the first uncovered date", () => {
    const r = checkBooking(input({ dates: ["2027-12-24", "2027-12-31", "2028-01-07"] }), [], pa);
    expect(r.refusal).toEqual({ field: "pa_service_id", message: "On 2028-01-07: The PA service does not cover CPT 97153 on 2028-01-07." });
  });

  it.each<[number, number, string | null]>([
    [0, 100, null],
    [96, 100, null],
    [97, 100, "This session needs 4 units but the PA service has only 3 units left after the notes written and the sessions already scheduled."],
    [100, 100, "This session needs 4 units but the PA service has only 0 units left after the notes written and the sessions already scheduled."],
    [120, 100, "This session needs 4 units but the PA service is already 20 units over its authorized units after the notes written and the sessions already scheduled."],
    [101, 100, "This session needs 4 units but the PA service is already 1 unit over its authorized units after the notes written and the sessions already scheduled."],
  ])("units used %i of %i: warning %s (never a refusal)", (used, n, warning) => {
    const r = checkBooking(input(), [], { ...pa, n_units: n, used_units: used });
    expect(r.refusal).toBeNull();
    expect(r.units).toBe(4);
    expect(r.warning).toBe(warning);
  });

  it("no PA service of the client: refused on the PA service", () => {
    expect(checkBooking(input(), [], null).refusal?.field).toBe("pa_service_id");
  });
});

describe("calendarGrid: Sunday-first grids", () => {
  it("a month is whole Sunday–Saturday weeks around it", () => {
    const g = calendarGrid("month", "2026-11-26");
    expect(g.from).toBe("2026-11-01");
    expect(g.to).toBe("2026-12-05");
    expect(g.weeks).toHaveLength(5);
    expect(g.weeks.every((w) => w.length === 7)).toBe(true);
    expect([g.prev, g.next, g.title, g.month]).toEqual(["2026-10-01", "2026-12-01", "November 2026", "2026-11"]);
  });
  it.each<[string, string, string, number]>([
    ["2026-02-10", "2026-02-01", "2026-02-28", 4],
    ["2026-08-15", "2026-07-26", "2026-09-05", 6],
    ["2027-01-31", "2026-12-27", "2027-02-06", 6],
  ])("month of %s runs %s to %s in %i weeks", (date, from, to, weeks) => {
    const g = calendarGrid("month", date);
    expect([g.from, g.to, g.weeks.length]).toEqual([from, to, weeks]);
  });
  it("a week runs Sunday to Saturday; a day is one date", () => {
    const w = calendarGrid("week", "2026-11-26");
    expect(w.weeks[0]).toEqual(["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28"]);
    expect([w.prev, w.next]).toEqual(["2026-11-19", "2026-12-03"]);
    const d = calendarGrid("day", "2026-12-31");
    expect([d.from, d.to, d.prev, d.next, d.title]).toEqual(["2026-12-31", "2026-12-31", "2026-12-30", "2027-01-01", "Thursday 31 December 2026"]);
  });
});

describe("RangeQuery and writeNoteHref", () => {
  // "At most 62 days" counts both ends: 62 dates pass, 63 are refused with that message.
  it.each<[Record<string, string>, boolean]>([
    [{ from: "2026-11-01", to: "2026-11-30" }, true],
    [{ from: "2026-11-28", to: "2026-11-28" }, true],
    [{ from: "2026-11-01", to: "2027-01-01" }, true],
    [{ from: "2026-11-01", to: "2027-01-02" }, false],
    [{ from: "2026-12-01", to: "2027-01-31" }, true],
    [{ from: "2026-12-01", to: "2027-02-01" }, false],
    [{ from: "2026-12-01", to: "2027-02-02" }, false],
    [{ from: "2026-11-30", to: "2026-11-01" }, false],
    [{ from: "2026-11-01", to: "2026-11-02", location_id: "x" }, false],
  ])("%j valid: %s", (q, valid) => {
    const parsed = parseWith(RangeQuery, q);
    expect(parsed.ok).toBe(valid);
    if (!parsed.ok && !q.location_id && q.to! > q.from!) expect(parsed.errors.to).toBe("A range covers at most 62 days.");
  });
  it.each(["2026-02-15", "2026-05-15", "2026-08-01", "2027-01-31", "2028-02-10"])("the month grid of %s (up to 42 dates) is a range it accepts", (date) => {
    const g = calendarGrid("month", date);
    expect(g.weeks.length * 7).toBeLessThanOrEqual(42);
    expect(parseWith(RangeQuery, { from: g.from, to: g.to }).ok).toBe(true);
  });
  it("opens the RBT form for 97153 and the BCBA form otherwise, with the session's values", () => {
    const s = { id: 7, patient_id: 3, provider_id: 10, session_date: "2026-12-01", time_in: "09:00", time_out: "10:00", cpt_code: "97153", pa_service_id: 4 };
    expect(writeNoteHref(s)).toBe("/note-rbt?patient_id=3&session_date=2026-12-01&time_in=09%3A00&time_out=10%3A00&cpt_code=97153&provider_id=10&scheduled_id=7&pa_service_id=4");
    expect(writeNoteHref({ ...s, cpt_code: "97155", pa_service_id: null })).toMatch(/^\/note-bcba\?.*cpt_code=97155/);
  });
});

describe("noteNotYetWritable: a scheduled session's note once the session has ended there (probe 8924 §3)", () => {
  // 2026-11-27 09:22:30 UTC: 04:22 in New York, 01:22 in Los Angeles, 18:22 in Tokyo.
  const NOW = new Date("2026-11-27T09:22:30Z");
  it.each<[string, string, string, string, string | null]>([
    ["America/New_York", "2026-11-27", "10:00", "11:00", SCHEDULE_MESSAGES.noteOnceEnded("11:00")],
    ["America/New_York", "2026-11-27", "03:30", "04:23", SCHEDULE_MESSAGES.noteOnceEnded("04:23")],
    ["America/New_York", "2026-11-27", "03:30", "04:22", null],
    ["America/New_York", "2026-11-26", "20:00", "21:00", null],
    ["America/New_York", "2026-11-28", "01:00", "02:00", SCHEDULE_MESSAGES.noteOnceEndedOn("Saturday 28 November 2026", "02:00")],
    ["America/Los_Angeles", "2026-11-27", "00:30", "01:30", SCHEDULE_MESSAGES.noteOnceEnded("01:30")],
    ["America/Los_Angeles", "2026-11-27", "00:15", "01:15", null],
    ["America/Los_Angeles", "2026-11-26", "22:00", "23:00", null],
    ["Asia/Tokyo", "2026-11-27", "17:00", "18:00", null],
    ["Asia/Tokyo", "2026-11-27", "18:00", "19:00", SCHEDULE_MESSAGES.noteOnceEnded("19:00")],
    ["Asia/Tokyo", "2026-11-28", "09:00", "10:00", SCHEDULE_MESSAGES.noteOnceEndedOn("Saturday 28 November 2026", "10:00")],
  ])("%s %s %s–%s → %s", (zone, date, timeIn, timeOut, wait) => {
    expect(noteNotYetWritable({ session_date: date, time_in: timeIn, time_out: timeOut, time_zone: zone }, NOW)).toBe(wait);
  });
});

describe("entryTimes: a calendar entry's times", () => {
  it.each([
    [{ time_in: "09:00", time_out: "10:00" }, "09:00–10:00"],
    [{ time_in: "08:00", time_out: "09:30", time_in2: "10:45", time_out2: "11:45" }, "08:00–09:30, 10:45–11:45"],
    [{ time_in: "09:00", time_out: null }, "09:00"],
    [{ time_in: null, time_out: null }, ""],
  ])("%o → %s", (entry, shown) => {
    expect(entryTimes(entry)).toBe(shown);
  });
});

describe("calendarTodayWindow (the dates read before a location's zone is known)", () => {
  const zones = ["Etc/GMT+12", "Pacific/Pago_Pago", "America/Los_Angeles", "America/Denver", "America/New_York", "UTC", "Asia/Kolkata", "Asia/Tokyo", "Pacific/Auckland", "Pacific/Chatham", "Pacific/Kiritimati"];
  const instants = ["2026-03-10T11:30:00Z", "2026-02-28T23:59:00Z", "2026-03-01T00:00:00Z", "2026-11-30T12:00:00Z", "2026-12-31T10:30:00Z", "2026-11-29T05:00:00Z", "2026-11-28T17:29:00Z"];
  it.each(instants.flatMap((at) => (["day", "week", "month"] as const).map((view) => [at, view] as const)))("at %s (%s): holds the grid of today in every zone", (at, view) => {
    const now = new Date(at);
    const window = calendarTodayWindow(view, now);
    for (const zone of zones) {
      const grid = calendarGrid(view, todayIn(now, zone));
      expect(grid.from >= window.from && grid.to <= window.to, `${zone}: ${grid.from}..${grid.to} in ${window.from}..${window.to}`).toBe(true);
    }
  });

  it("a day grid reads at most three dates, a week at most two weeks, a month at most 77 dates", () => {
    const span = (w: { from: string; to: string }) => (Date.parse(w.to) - Date.parse(w.from)) / 86_400_000 + 1;
    for (const at of instants) {
      const now = new Date(at);
      expect(span(calendarTodayWindow("day", now))).toBeLessThanOrEqual(3);
      expect(span(calendarTodayWindow("week", now))).toBeLessThanOrEqual(14);
      expect(span(calendarTodayWindow("month", now))).toBeLessThanOrEqual(77);
    }
  });
});

describe("bookingStartRefusal: a session can be booked from now on, on the location's clock", () => {
  // 2026-07-15 16:00 UTC is 12:00 in New York (EDT, UTC-4) and 09:00 in Los Angeles (PDT, UTC-7).
  const now = new Date("2026-07-15T16:00:20Z");
  const cases: Array<[string, { date: string; timeIn: string; weekly?: boolean }, string, boolean]> = [
    ["an earlier time today in New York", { date: "2026-07-15", timeIn: "11:30" }, "America/New_York", true],
    ["the current minute in New York (12:00 is bookable until 12:00:59)", { date: "2026-07-15", timeIn: "12:00" }, "America/New_York", false],
    ["a minute before now in New York", { date: "2026-07-15", timeIn: "11:59" }, "America/New_York", true],
    ["a later time today in New York", { date: "2026-07-15", timeIn: "13:00" }, "America/New_York", false],
    ["11:30 in Los Angeles, where it is 09:00", { date: "2026-07-15", timeIn: "11:30" }, "America/Los_Angeles", false],
    ["08:30 in Los Angeles", { date: "2026-07-15", timeIn: "08:30" }, "America/Los_Angeles", true],
    ["tomorrow at 06:00", { date: "2026-07-16", timeIn: "06:00" }, "America/New_York", false],
    ["a weekly series whose first session has started", { date: "2026-07-15", timeIn: "08:00", weekly: true }, "America/New_York", true],
  ];
  it.each(cases)("%s", (_label, b, zone, refused) => {
    const timeOut = `${String(Number(b.timeIn.slice(0, 2)) + 1).padStart(2, "0")}${b.timeIn.slice(2)}`;
    const r = bookingStartRefusal({ date: b.date, timeIn: b.timeIn, timeOut, weekly: b.weekly ?? false }, now, zone, "Main Street");
    expect(r !== null).toBe(refused);
    if (r) {
      expect(r.field).toBe("time_in");
      expect(r.message).toContain(b.weekly ? `first session, ${b.date} at ${b.timeIn}, has passed at Main Street` : `${b.timeIn} has passed at Main Street`);
    }
  });

  it("names the location's clock time", () => {
    const r = bookingStartRefusal({ date: "2026-07-15", timeIn: "08:30", timeOut: "09:30", weekly: false }, now, "America/Los_Angeles", "West");
    expect(r?.message).toBe("A session can be scheduled from now on: 08:30 has passed at West (it is 09:00 there).");
  });
});
