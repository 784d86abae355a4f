import { describe, expect, it } from "vitest";
import { firstConflict, firstRefusal, inZone, localMinute, NOTE_MESSAGES, scanWindow, sessionTimes, ZONE_SPREAD_MINUTES, zoneShift, type NoteIntervals, type SessionTimes, type Surroundings } from "~/domain/note-rules";
import { checkBooking, occurrenceTimes, SCHEDULE_MESSAGES, type BookedSession, type PaFacts } from "~/domain/schedule";
import { zoneOffsetAtLocal } from "~/domain/time";

/**
 * A provider who works in several time zones is judged on moments (decision 024, 2026-11-26): a session stores its
 * location's UTC offset at its first start, and the provider rules move another session onto this one's clock by
 * the offsets' difference (zoneShift; ZONE_SHIFT_SQL mirrors it in RULES_SQL). NULL (rows from before the offsets)
 * compares local minutes, as before. The client's overlap compares moments too (stop 32, probe 8953 §1).
 */

const NY = "America/New_York";
const LA = "America/Los_Angeles";
const at = (date: string, time: string) => localMinute(date, time)!;

/** The times at a location in `zone` (inZone), for times the zone can read. */
function withUtcOffset(times: SessionTimes, zone: string, date = "2026-01-15"): SessionTimes {
  const r = inZone(times, zone, date);
  if (!r.ok) throw new Error(r.refusals[0]!.message);
  return r.times;
}

function occurrence(date: string, timeIn: string, timeOut: string, zone?: string): SessionTimes {
  const r = occurrenceTimes(date, timeIn, timeOut, zone);
  if (!r.ok) throw new Error(r.refusals[0]!.message);
  return r.times;
}

describe("zoneOffsetAtLocal: the zone's UTC offset when its clocks read a local minute", () => {
  it.each<[string, string, string, number]>([
    ["New York in winter", NY, "2026-01-15 09:00", -300],
    ["New York in summer", NY, "2026-07-15 09:00", -240],
    ["Los Angeles in winter", LA, "2026-01-15 09:00", -480],
    ["Los Angeles in summer", LA, "2026-07-15 09:00", -420],
    ["Phoenix keeps standard time", "America/Phoenix", "2026-07-15 09:00", -420],
    ["UTC", "UTC", "2026-07-15 09:00", 0],
    ["Kolkata, half an hour", "Asia/Kolkata", "2026-07-15 09:00", 330],
    ["the easternmost offset", "Pacific/Kiritimati", "2026-07-15 09:00", 840],
    ["the westernmost offset", "Etc/GMT+12", "2026-07-15 09:00", -720],
    ["New York before the spring change", NY, "2026-03-08 01:30", -300],
    ["New York after the spring change", NY, "2026-03-08 03:30", -240],
    ["New York before the autumn change", NY, "2026-11-01 00:30", -240],
    ["New York after the autumn change", NY, "2026-11-01 03:00", -300],
    ["Berlin before the spring change", "Europe/Berlin", "2026-03-29 01:30", 60],
    ["Berlin after the spring change", "Europe/Berlin", "2026-03-29 03:30", 120],
  ])("%s", (_label, zone, when, offset) => {
    const [date, time] = when.split(" ");
    expect(zoneOffsetAtLocal(at(date!, time!), zone)).toBe(offset);
  });

  it("two offsets never differ by more than the provider scans' spread", () => {
    const day = "2026-07-15";
    expect(zoneOffsetAtLocal(at(day, "09:00"), "Pacific/Kiritimati") - zoneOffsetAtLocal(at(day, "09:00"), "Etc/GMT+12")).toBeLessThanOrEqual(ZONE_SPREAD_MINUTES);
  });

  it("withUtcOffset takes the offset at the session's first start, for both pairs; sessionTimes alone knows none", () => {
    const r = sessionTimes({ session_date: "2026-11-01", time_in: "00:30", time_out: "01:00", time_in2: "09:00", time_out2: "10:00" });
    if (!r.ok) throw new Error("bad times");
    expect(r.times.utcOffset).toBeNull();
    // 00:30 is still daylight time in New York that night; 09:00 is standard time, but the first start decides.
    expect(withUtcOffset(r.times, NY, "2026-11-01").utcOffset).toBe(-240);
    expect(occurrence("2026-11-01", "09:00", "10:00", NY).utcOffset).toBe(-300);
    expect(occurrence("2026-11-01", "09:00", "10:00").utcOffset).toBeNull();
  });
});

describe("zoneShift: minutes that put another session on this session's clock", () => {
  it.each<[string, number | null | undefined, number | null | undefined, number]>([
    ["Los Angeles onto New York (winter)", -300, -480, 180],
    ["New York onto Los Angeles (winter)", -480, -300, -180],
    ["the same zone", -300, -300, 0],
    ["the other's offset unknown (NULL): local, as before", -300, null, 0],
    ["the other's offset absent", -300, undefined, 0],
    ["my offset unknown: local", null, -480, 0],
  ])("%s", (_label, own, other, shift) => {
    expect(zoneShift(own, other)).toBe(shift);
  });

  it("the provider's scan window is wider by the spread", () => {
    expect(scanWindow({ startAt: 10_000, endAt: 10_060 }, 15, ZONE_SPREAD_MINUTES)).toEqual({ from: 10_000 - 1440 - 15 - ZONE_SPREAD_MINUTES, to: 10_060 + 15 + ZONE_SPREAD_MINUTES });
  });

  it("firstConflict moves the other session, and names it on its own clock", () => {
    const day = "2026-01-15";
    const la = { id: 1, pairs: [{ start: at(day, "09:00"), end: at(day, "10:00") }], utcOffset: -480 };
    const noon = { start: at(day, "12:00"), end: at(day, "13:00") };
    expect(firstConflict([noon], [la], 0, -300)).toMatchObject({ mine: 0, other: la.pairs[0] });
    expect(firstConflict([noon], [la])).toBeNull();
    expect(firstConflict([{ start: at(day, "09:00"), end: at(day, "10:00") }], [la], 15, -300)).toBeNull();
  });
});

describe("firstRefusal: the provider rules and the client's overlap compare moments", () => {
  const day = "2026-01-15";
  const pa = { cpt: "97153", start_date: "2026-01-01", end_date: "2026-12-31", n_units: 1000, spent_units: 0 };
  const quiet: Surroundings = { clientNotes: [], providerNotes: [], dayMinutes: 0, weekMinutes: 0, pa };
  /** A session at the client's location in New York (−300 in January), or with no offset known. */
  const miami = (timeIn: string, timeOut: string, date = day, zone: string | null = NY): SessionTimes => {
    const r = sessionTimes({ session_date: date, time_in: timeIn, time_out: timeOut, time_in2: null, time_out2: null });
    if (!r.ok) throw new Error("bad times");
    return zone ? withUtcOffset(r.times, zone, date) : r.times;
  };
  /** Another session of the provider in Los Angeles (−480 in January), or an old row with a NULL offset. */
  const la = (timeIn: string, timeOut: string, date = day, utcOffset: number | null = -480): NoteIntervals => ({ id: 9, pairs: [{ start: at(date, timeIn), end: at(date, timeOut) }], utcOffset });

  it.each<[string, SessionTimes, Partial<Surroundings>, { field: string; message: string } | null]>([
    ["Miami 12:00 and Los Angeles 09:00 are the same moment", miami("12:00", "13:00"), { providerNotes: [la("09:00", "10:00")] }, { field: "time_in", message: NOTE_MESSAGES.providerOverlap("09:00", "10:00") }],
    ["Miami 09:00 and Los Angeles 09:00 are three hours apart", miami("09:00", "10:00"), { providerNotes: [la("09:00", "10:00")] }, null],
    ["10 minutes after a Los Angeles session ends", miami("13:10", "14:00"), { providerNotes: [la("09:00", "10:00")] }, { field: "time_in", message: NOTE_MESSAGES.providerBuffer("09:00", "10:00", 15) }],
    ["exactly 15 minutes after it", miami("13:15", "14:00"), { providerNotes: [la("09:00", "10:00")] }, null],
    ["10 minutes before a Los Angeles session starts", miami("10:00", "11:50"), { providerNotes: [la("09:00", "10:00")] }, { field: "time_in", message: NOTE_MESSAGES.providerBuffer("09:00", "10:00", 15) }],
    ["across midnight: Los Angeles 22:00–23:00 the day before is Miami 01:00–02:00", miami("02:10", "03:00"), { providerNotes: [la("22:00", "23:00", "2026-01-14")] }, { field: "time_in", message: NOTE_MESSAGES.providerBuffer("22:00", "23:00", 15, " on 2026-01-14") }],
    ["an old row (NULL offset) at the same clock time: refused, as before", miami("09:00", "10:00"), { providerNotes: [la("09:00", "10:00", day, null)] }, { field: "time_in", message: NOTE_MESSAGES.providerOverlap("09:00", "10:00") }],
    ["an old row (NULL offset) three hours of clock apart: accepted, as before", miami("12:00", "13:00"), { providerNotes: [la("09:00", "10:00", day, null)] }, null],
    ["no offset known for the new session: clock times, as before", miami("09:00", "10:00", day, null), { providerNotes: [la("09:00", "10:00")] }, { field: "time_in", message: NOTE_MESSAGES.providerOverlap("09:00", "10:00") }],
    ["a client's session before a move, three hours of clock apart: no overlap", miami("09:00", "10:00"), { clientNotes: [la("09:30", "10:30")] }, null],
    ["a client's session before a move, at the same moment: the client's overlap", miami("12:45", "13:15"), { clientNotes: [la("09:30", "10:30")] }, { field: "time_in", message: NOTE_MESSAGES.clientOverlap("09:30", "10:30") }],
    ["the client on a spring night: 03:00 EDT is inside 01:00–03:30", miami("03:00", "03:20", "2026-03-08"), { clientNotes: [{ id: 9, pairs: [{ start: at("2026-03-08", "01:00"), end: at("2026-03-08", "02:30") }], utcOffset: -300 }] }, { field: "time_in", message: NOTE_MESSAGES.clientOverlap("01:00", "02:30") }],
    ["the client on an autumn night: 03:15 EST is after 00:30–03:00", miami("03:15", "04:15", "2026-11-01"), { clientNotes: [{ id: 9, pairs: [{ start: at("2026-11-01", "00:30"), end: at("2026-11-01", "04:00") }], utcOffset: -240 }] }, null],
  ])("%s", (_label, times, over, expected) => {
    const r = firstRefusal({ session_date: day, cpt_code: "97153" }, times, { ...quiet, ...over });
    expect(r && { field: r.field, message: r.message }).toEqual(expected);
  });
});

describe("checkBooking: a booking's provider rules compare moments too", () => {
  const pa: PaFacts = { cpt: "97153", start_date: "2026-01-01", end_date: "2027-12-31", n_units: 1000, used_units: 0 };
  const booked = (date: string, timeIn: string, timeOut: string, utcOffset: number | null, patientId = 2): BookedSession => ({
    key: `scheduled:${date}${timeIn}`,
    patientId,
    providerId: 10,
    date,
    pairs: [{ start: at(date, timeIn), end: at(date, timeOut) }],
    minutes: at(date, timeOut) - at(date, timeIn),
    utcOffset,
  });
  const input = (over: Partial<Parameters<typeof checkBooking>[0]> = {}) => ({ patientId: 1, providerId: 10, cpt: "97153", dates: ["2026-12-01"], timeIn: "12:00", timeOut: "13:00", timeZone: NY, ...over });

  it.each<[string, Partial<Parameters<typeof checkBooking>[0]>, BookedSession[], { field: string; message: string } | null]>([
    ["Miami 12:00 against Los Angeles 09:00: the same moment", {}, [booked("2026-12-01", "09:00", "10:00", -480)], { field: "time_in", message: NOTE_MESSAGES.providerOverlap("09:00", "10:00") }],
    ["Miami 09:00 against Los Angeles 09:00: three hours apart", { timeIn: "09:00", timeOut: "10:00" }, [booked("2026-12-01", "09:00", "10:00", -480)], null],
    ["10 minutes apart across zones", { timeIn: "13:10", timeOut: "14:00" }, [booked("2026-12-01", "09:00", "10:00", -480)], { field: "time_in", message: NOTE_MESSAGES.providerBuffer("09:00", "10:00", 15) }],
    ["exactly 15 minutes apart across zones", { timeIn: "13:15", timeOut: "14:00" }, [booked("2026-12-01", "09:00", "10:00", -480)], null],
    ["an old session (NULL offset) at the same clock time: refused, as before", { timeIn: "09:00", timeOut: "10:00" }, [booked("2026-12-01", "09:00", "10:00", null)], { field: "time_in", message: NOTE_MESSAGES.providerOverlap("09:00", "10:00") }],
    ["an old session (NULL offset) three hours of clock apart: booked, as before", {}, [booked("2026-12-01", "09:00", "10:00", null)], null],
    ["without the zone (no offset): clock times, as before", { timeZone: undefined, timeIn: "09:00", timeOut: "10:00" }, [booked("2026-12-01", "09:00", "10:00", -480)], { field: "time_in", message: NOTE_MESSAGES.providerOverlap("09:00", "10:00") }],
    ["the client's own sessions are moments too: three hours of clock apart", { timeIn: "09:00", timeOut: "10:00" }, [booked("2026-12-01", "09:30", "10:30", -480, 1)], null],
    ["the client's own sessions are moments too: the same moment", { timeIn: "12:45", timeOut: "13:15" }, [booked("2026-12-01", "09:30", "10:30", -480, 1)], { field: "time_in", message: NOTE_MESSAGES.clientOverlap("09:30", "10:30") }],
  ])("%s", (_label, over, list, refusal) => {
    expect(checkBooking(input(over), list, pa).refusal).toEqual(refusal);
  });

  it("a weekly series takes each date's offset: New York leaves daylight time on 1 November, Phoenix does not", () => {
    // Phoenix 09:00–10:00 (−420) is 12:00–13:00 in New York in October (−240) and 11:00–12:00 in November (−300).
    const phoenix = [booked("2026-10-27", "09:00", "10:00", -420), booked("2026-11-03", "09:00", "10:00", -420)];
    const r = checkBooking(input({ dates: ["2026-10-27", "2026-11-03"], timeIn: "11:00", timeOut: "11:45" }), phoenix, pa);
    expect(r.refusal).toEqual({ field: "time_in", message: SCHEDULE_MESSAGES.onDates(NOTE_MESSAGES.providerOverlap("09:00", "10:00"), ["2026-11-03"]) });
  });
});

describe("a session across a daylight-saving change counts the time that passed (inZone; probe 8894, stop 25)", () => {
  /** A Miami (New York) session's times at its location, or the refusal. */
  const ny = (date: string, timeIn: string, timeOut: string, timeIn2: string | null = null, timeOut2: string | null = null) => {
    const r = sessionTimes({ session_date: date, time_in: timeIn, time_out: timeOut, time_in2: timeIn2, time_out2: timeOut2 });
    if (!r.ok) throw new Error("bad times");
    return inZone(r.times, NY, date);
  };

  it.each<[string, string, string, string, number, number]>([
    ["an ordinary day: the clock's minutes", "2026-01-15", "09:00", "11:30", 150, 10],
    ["spring night, 01:00 EST to 03:30 EDT: 90 minutes pass", "2026-03-08", "01:00", "03:30", 90, 6],
    ["spring night, both after the change", "2026-03-08", "03:00", "04:00", 60, 4],
    ["spring night, 01:50 to 03:00: 10 minutes pass", "2026-03-08", "01:50", "03:00", 10, 1],
    ["autumn night, 00:30 EDT to 03:00 EST: 210 minutes pass", "2026-11-01", "00:30", "03:00", 210, 14],
    ["autumn night, both before the change", "2026-11-01", "00:00", "00:45", 45, 3],
    ["autumn night, both after it", "2026-11-01", "02:00", "03:00", 60, 4],
  ])("%s", (_label, date, timeIn, timeOut, minutes, units) => {
    const r = ny(date, timeIn, timeOut);
    if (!r.ok) throw new Error(r.refusals[0]!.message);
    expect([r.times.minutes, r.times.units]).toEqual([minutes, units]);
  });

  it("both pairs count their own time; the second pair after the change is on the first start's clock", () => {
    const r = ny("2026-03-08", "00:30", "01:30", "03:00", "04:00");
    if (!r.ok) throw new Error(r.refusals[0]!.message);
    expect([r.times.minutes1, r.times.minutes2, r.times.utcOffset]).toEqual([60, 60, -300]);
    // 03:00 EDT is 02:00 on the EST clock of the first start: 30 minutes after the first pair ends.
    expect(r.times.pair2).toEqual({ start: at("2026-03-08", "02:00"), end: at("2026-03-08", "03:00") });
  });

  it.each<[string, string, string, string | null, string | null, string]>([
    ["a start in the skipped hour", "02:30", "03:30", null, null, "time_in"],
    ["an end in the skipped hour", "01:00", "02:15", null, null, "time_out"],
    ["a second pair's start in it", "00:30", "01:00", "02:00", "04:00", "time_in2"],
  ])("%s is refused at its field, naming the night", (_label, timeIn, timeOut, timeIn2, timeOut2, field) => {
    const r = ny("2026-03-08", timeIn, timeOut, timeIn2, timeOut2);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.refusals[0]!.field).toBe(field);
    expect(r.refusals[0]!.message).toMatch(/^There is no 02:\d\d on 2026-03-08 at this location: the clocks go forward an hour that night\./);
  });

  it("the provider rules see true moments: an autumn double booking across zones is refused, a spring session after one is not", () => {
    const pa = { cpt: "97155", start_date: "2026-01-01", end_date: "2026-12-31", n_units: 1000, spent_units: 0 };
    const quiet: Surroundings = { clientNotes: [], providerNotes: [], dayMinutes: 0, weekMinutes: 0, pa };
    // Miami 00:30 EDT – 03:00 EST on 1 November is 04:30Z–08:00Z; Los Angeles 00:15–01:00 PDT is 07:15Z–08:00Z.
    const miami = ny("2026-11-01", "00:30", "03:00");
    if (!miami.ok) throw new Error("bad times");
    const laNight: NoteIntervals = { id: 2, pairs: [{ start: at("2026-11-01", "00:15"), end: at("2026-11-01", "01:00") }], utcOffset: -420 };
    expect(firstRefusal({ session_date: "2026-11-01", cpt_code: "97155" }, miami.times, { ...quiet, providerNotes: [laNight] })?.field).toBe("time_in");
    // Miami 01:00 EST – 03:30 EDT on 8 March ends at 07:30Z; 04:00–04:30 EDT (08:00Z) starts 30 minutes later.
    const spring = ny("2026-03-08", "01:00", "03:30");
    const after = ny("2026-03-08", "04:00", "04:30");
    if (!spring.ok || !after.ok) throw new Error("bad times");
    const stored: NoteIntervals = { id: 3, pairs: [spring.times.pair1!], utcOffset: spring.times.utcOffset };
    expect(firstRefusal({ session_date: "2026-03-08", cpt_code: "97155" }, after.times, { ...quiet, providerNotes: [stored] })).toBeNull();
  });

  it("a booking in the skipped hour is refused on every date of a series it falls on", () => {
    const r = checkBooking({ patientId: 1, providerId: 10, cpt: "97153", dates: ["2027-03-07", "2027-03-14", "2027-03-21"], timeIn: "02:30", timeOut: "03:30", timeZone: NY }, [], { cpt: "97153", start_date: "2027-01-01", end_date: "2027-12-31", n_units: 1000, used_units: 0 });
    expect(r.refusal?.field).toBe("time_in");
    expect(r.refusal?.message).toContain("2027-03-14");
    expect(occurrence("2027-03-21", "02:30", "03:30", NY).minutes).toBe(60);
  });
});

describe("a refusal names the other session's clock when it is not this one's (probe 8894, stop 25)", () => {
  const day = "2026-12-07";
  const pa = { cpt: "97153", start_date: "2026-01-01", end_date: "2027-12-31", n_units: 1000, spent_units: 0 };
  const quiet: Surroundings = { clientNotes: [], providerNotes: [], dayMinutes: 0, weekMinutes: 0, pa };
  const miami = (timeIn: string, timeOut: string, date = day) => {
    const r = sessionTimes({ session_date: date, time_in: timeIn, time_out: timeOut, time_in2: null, time_out2: null });
    if (!r.ok) throw new Error("bad times");
    return withUtcOffset(r.times, NY, date);
  };
  const other = (timeIn: string, timeOut: string, date: string, utcOffset: number, zone: string | null): NoteIntervals => ({ id: 5, pairs: [{ start: at(date, timeIn), end: at(date, timeOut) }], utcOffset, zone });

  it.each<[string, SessionTimes, NoteIntervals, string]>([
    ["a Los Angeles session: its zone", miami("13:10", "14:00"), other("09:00", "10:00", day, -480, LA), NOTE_MESSAGES.providerBuffer("09:00", "10:00", 15, " (Los Angeles time)")],
    ["the same zone: nothing added", miami("10:00", "11:00"), other("09:30", "10:30", day, -300, NY), NOTE_MESSAGES.providerOverlap("09:30", "10:30")],
    ["Los Angeles the evening before: zone and date", miami("00:30", "01:00", "2026-12-09"), other("21:00", "21:50", "2026-12-08", -480, LA), NOTE_MESSAGES.providerOverlap("21:00", "21:50", " (Los Angeles time) on 2026-12-08")],
    ["a zone not known: the offsets still move it, nothing named", miami("13:10", "14:00"), other("09:00", "10:00", day, -480, null), NOTE_MESSAGES.providerBuffer("09:00", "10:00", 15)],
  ])("%s", (_label, times, o, message) => {
    expect(firstRefusal({ session_date: day, cpt_code: "97153" }, times, { ...quiet, providerNotes: [o] })?.message).toBe(message);
  });
});
