import { describe, expect, it } from "vitest";
import * as v from "valibot";
import {
  amendedSignatureRefusal,
  canSupervise,
  changesNothing,
  supervisorRefusal,
  checkSessionDate,
  continuesAtMidnight,
  firstConflict,
  firstRefusal,
  halfSignatureRefusal,
  inZone,
  isSigning,
  localMinute,
  NOTE_MESSAGES,
  NoteBody,
  noteBodyErrors,
  noteBodyInput,
  overlaps,
  scanWindow,
  sessionEndRefusal,
  sessionTimes,
  todayIn,
  weekOf,
  withinCap,
  withinUnits,
  withoutPreviousSignature,
  type Interval,
  type Surroundings,
} from "~/domain/note-rules";
import { NOTE_LIMITS, typedMinutes, unitsForMinutes, type NoteInput } from "~/domain/notes";
import { parseWith } from "~/domain/validation";
import { BILLING_MESSAGES } from "~/domain/client-reports";

const DAY = 20_000; // any day number

describe("units: minutes of both pairs, whole 15-minute blocks, plus one from 8 minutes", () => {
  it.each([
    [0, 0],
    [7, 0],
    [8, 1],
    [14, 1],
    [15, 1],
    [22, 1],
    [23, 2],
    [60, 4],
    [90, 6],
    [120, 8],
    [135, 9],
    [143, 10],
    [600, 40],
  ])("%i minutes → %i units", (minutes, units) => {
    expect(unitsForMinutes(minutes)).toBe(units);
  });

  it("adds the minutes of both pairs before rounding (7 + 8 = 15 → 1, not 0 + 1)", () => {
    const r = sessionTimes({ session_date: "2026-03-02", time_in: "09:00", time_out: "09:07", time_in2: "13:00", time_out2: "13:08" });
    expect(r.ok && r.times).toMatchObject({ minutes1: 7, minutes2: 8, minutes: 15, units: 1 });
  });
});

describe("time pairs", () => {
  const base = { session_date: "2026-03-02", time_in: null, time_out: null, time_in2: null, time_out2: null };
  it.each([
    ["start without end", { time_in: "09:00" }, "time_out", NOTE_MESSAGES.missingOut],
    ["end without start", { time_out: "10:00" }, "time_in", NOTE_MESSAGES.missingIn],
    ["second start without end", { time_in: "09:00", time_out: "10:00", time_in2: "13:00" }, "time_out2", NOTE_MESSAGES.missingOut],
    ["second end without start", { time_in: "09:00", time_out: "10:00", time_out2: "14:00" }, "time_in2", NOTE_MESSAGES.missingIn],
    ["end before start", { time_in: "10:00", time_out: "09:00" }, "time_out", NOTE_MESSAGES.endBeforeStart],
    ["end equal to start", { time_in: "10:00", time_out: "10:00" }, "time_out", NOTE_MESSAGES.endBeforeStart],
    ["no pair at all", {}, "time_in", NOTE_MESSAGES.noTimes],
    ["pairs overlapping each other", { time_in: "09:00", time_out: "11:00", time_in2: "10:30", time_out2: "12:00" }, "time_in2", NOTE_MESSAGES.pairsOverlap],
  ] as const)("%s is refused on the field at fault", (_name, times, field, message) => {
    const r = sessionTimes({ ...base, ...times });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.refusals[0]).toEqual({ field, message });
  });

  // The second pair is the "Afternoon" one: it starts when or after the "Morning" pair ends (probe 8985 §3).
  it.each<[string, Record<string, string>, { field: string; message: string } | null]>([
    ["afternoon wholly before the morning", { time_in: "15:00", time_out: "16:00", time_in2: "09:00", time_out2: "10:00" }, { field: "time_in2", message: NOTE_MESSAGES.pairsOrder("16:00") }],
    ["the probe's 18:00–19:00 then 16:00–17:00", { time_in: "18:00", time_out: "19:00", time_in2: "16:00", time_out2: "17:00" }, { field: "time_in2", message: NOTE_MESSAGES.pairsOrder("19:00") }],
    ["afternoon ending as the morning starts", { time_in: "10:00", time_out: "11:00", time_in2: "09:00", time_out2: "10:00" }, { field: "time_in2", message: NOTE_MESSAGES.pairsOrder("11:00") }],
    ["00:00–01:00 after 23:00–24:00 of the same date", { time_in: "23:00", time_out: "24:00", time_in2: "00:00", time_out2: "01:00" }, { field: "time_in2", message: NOTE_MESSAGES.pairsOrder("24:00") }],
    ["a time typed as 9:30 is read as 09:30", { time_in: "10:00", time_out: "11:00", time_in2: "8:00", time_out2: "9:30" }, { field: "time_in2", message: NOTE_MESSAGES.pairsOrder("11:00") }],
    ["overlapping from before the morning: the overlap", { time_in: "10:00", time_out: "12:00", time_in2: "09:00", time_out2: "11:00" }, { field: "time_in2", message: NOTE_MESSAGES.pairsOverlap }],
    ["afternoon after the morning", { time_in: "09:00", time_out: "10:00", time_in2: "15:00", time_out2: "16:00" }, null],
    ["afternoon starting as the morning ends", { time_in: "09:00", time_out: "12:00", time_in2: "12:00", time_out2: "13:00" }, null],
    ["afternoon to midnight", { time_in: "09:00", time_out: "10:00", time_in2: "23:00", time_out2: "24:00" }, null],
    ["morning to 23:00, afternoon 23:00–24:00", { time_in: "22:00", time_out: "23:00", time_in2: "23:00", time_out2: "24:00" }, null],
    ["the afternoon alone", { time_in2: "09:00", time_out2: "10:00" }, null],
  ])("order of the pairs: %s", (_name, times, refusal) => {
    const parsed = parseWith(NoteBody, { type: "rbt", patient_id: 1, provider_id: 1, pa_service_id: 1, cpt_code: "97153", session_date: base.session_date, ...times });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const r = sessionTimes(parsed.data);
    expect(r.ok ? null : r.refusals[0]).toEqual(refusal);
  });

  // An edit passes the stored times: a note stored the other way round keeps its pairs until a write changes a time.
  const reversed = { time_in: "18:00", time_out: "19:00", time_in2: "16:00", time_out2: "17:00" };
  const ordered = { time_in: "09:00", time_out: "10:00", time_in2: "15:00", time_out2: "16:00" };
  it.each<[string, typeof reversed, typeof reversed, boolean]>([
    ["a stored reversed note, its times unchanged", reversed, reversed, true],
    ["a stored reversed note, a time changed but still reversed", reversed, { ...reversed, time_out2: "17:30" }, false],
    ["a stored reversed note put in order", reversed, { time_in: "16:00", time_out: "17:00", time_in2: "18:00", time_out2: "19:00" }, true],
    ["a stored reversed note, the morning moved", reversed, { ...reversed, time_in: "18:15" }, false],
    ["a stored ordered note reversed", ordered, { ...ordered, time_in2: "07:00", time_out2: "08:00" }, false],
  ])("edit: %s", (_name, stored, typed, ok) => {
    const r = sessionTimes({ session_date: base.session_date, ...typed }, stored);
    expect(r.ok ? null : r.refusals[0]).toEqual(ok ? null : { field: "time_in2", message: NOTE_MESSAGES.pairsOrder(typed.time_out) });
  });

  it("the order message says when the morning ends", () => {
    expect(NOTE_MESSAGES.pairsOrder("11:30")).toBe("The afternoon session must start after the morning session ends (at 11:30).");
  });

  it("only the second pair is enough (clinical §5)", () => {
    const r = sessionTimes({ ...base, time_in2: "13:00", time_out2: "14:30" });
    expect(r.ok && r.times).toMatchObject({ pair1: null, minutes1: 0, minutes2: 90, minutes: 90, units: 6 });
  });

  it("pairs that touch are fine; instants are dayNumber × 1440 + minute", () => {
    const r = sessionTimes({ ...base, time_in: "09:00", time_out: "12:00", time_in2: "12:00", time_out2: "13:00" });
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.times.startAt).toBe(localMinute("2026-03-02", "09:00"));
      expect(r.times.endAt).toBe(localMinute("2026-03-02", "13:00"));
      expect(r.times.minutes).toBe(240);
    }
    expect(localMinute("1970-01-02", "00:30")).toBe(1440 + 30);
  });
});

describe("the note form's total minutes, as typed, are what the save counts (the live total too; stop 26)", () => {
  const NY = "America/New_York";
  const typed = (date: string, p1: [string, string] | null, p2: [string, string] | null = null) => ({ session_date: date, time_in: p1?.[0] ?? null, time_out: p1?.[1] ?? null, time_in2: p2?.[0] ?? null, time_out2: p2?.[1] ?? null });
  it.each<[string, ReturnType<typeof typed>, string | undefined, number]>([
    ["an ordinary day", typed("2026-01-15", ["09:00", "10:00"]), NY, 60],
    ["both pairs", typed("2026-01-15", ["09:00", "10:00"], ["13:00", "14:30"]), NY, 150],
    ["spring night: 01:00–03:30 is 1½ hours", typed("2026-03-08", ["01:00", "03:30"]), NY, 90],
    ["autumn night: 00:30–03:00 is 3½ hours", typed("2026-11-01", ["00:30", "03:00"]), NY, 210],
    ["spring night, second pair across the change", typed("2026-03-08", ["00:00", "00:30"], ["01:30", "04:00"]), NY, 120],
    ["no time zone yet: the clock's minutes", typed("2026-03-08", ["01:00", "03:30"]), undefined, 150],
    ["a date the form cannot read yet: the clock's minutes", typed("2026-02-30", ["09:00", "10:00"]), NY, 60],
    ["an incomplete pair counts nothing", typed("2026-01-15", ["09:00", ""]), NY, 0],
    ["a reversed pair counts nothing", typed("2026-01-15", ["10:00", "09:00"]), NY, 0],
    ["to midnight: 22:37–24:00 is 83 minutes (probe 8953 §2)", typed("2026-11-20", ["22:37", "24:00"]), NY, 83],
    ["to midnight without a zone", typed("2026-11-20", ["22:37", "24:00"]), undefined, 83],
    ["to midnight in the afternoon pair", typed("2026-11-20", ["09:00", "10:00"], ["23:00", "24:00"]), NY, 120],
    ["24:00 is no time in", typed("2026-11-20", ["24:00", "24:00"]), NY, 0],
    ["to midnight where the next midnight is skipped (Santiago, 2026-09-06 00:00 → 01:00)", typed("2026-09-05", ["22:00", "24:00"]), "America/Santiago", 120],
    ["a time out typed as 9:30 counts as the save reads it (09:30)", typed("2026-01-15", ["08:00", "9:30"]), NY, 90],
    ["and as 09:30:00", typed("2026-01-15", ["08:00", "09:30:00"]), NY, 90],
  ])("%s", (_, input, zone, minutes) => {
    expect(typedMinutes(input, zone)).toBe(minutes);
  });

  it.each<[string, [string, string], [string, string] | null, string?]>([
    ["2026-03-08", ["01:00", "03:30"], ["04:00", "05:00"]],
    ["2026-11-01", ["00:30", "03:00"], null],
    ["2026-11-01", ["00:10", "00:50"], ["03:00", "06:00"]],
    ["2026-07-04", ["08:00", "11:55"], ["12:10", "18:00"]],
    ["2026-11-20", ["22:37", "24:00"], null],
    // Zones whose clocks move at midnight: 24:00 is the end of the session date all the same.
    ["2026-09-05", ["22:00", "24:00"], null, "America/Santiago"],
    ["2026-03-07", ["23:00", "24:00"], null, "America/Havana"],
  ])("equals the save's count (sessionTimes, inZone) on %s", (date, p1, p2, zone = NY) => {
    const input = typed(date, p1, p2);
    const timed = sessionTimes(input);
    if (!timed.ok) throw new Error("valid times");
    const saved = inZone(timed.times, zone, date);
    if (!saved.ok) throw new Error(saved.refusals[0]!.message);
    expect(typedMinutes(input, zone)).toBe(saved.times.minutes);
  });

  it("24:00 is a time out only: the end of the session date", () => {
    const ok = sessionTimes(typed("2026-11-20", ["22:37", "24:00"]));
    expect(ok.ok && [ok.times.pair1, ok.times.minutes, ok.times.units]).toEqual([{ start: localMinute("2026-11-20", "22:37"), end: localMinute("2026-11-21", "00:00") }, 83, 6]);
    expect(sessionTimes(typed("2026-11-20", ["24:00", "24:00"]))).toEqual({ ok: false, refusals: [{ field: "time_in", message: NOTE_MESSAGES.time }] });
    expect(sessionTimes(typed("2026-11-20", ["09:00", "10:00"], ["24:00", "24:00"]))).toEqual({ ok: false, refusals: [{ field: "time_in2", message: NOTE_MESSAGES.time }] });
  });
});

describe("overlap and buffer predicates", () => {
  const i = (start: number, end: number): Interval => ({ start: DAY * 1440 + start, end: DAY * 1440 + end });
  it.each([
    ["touching ends", i(540, 600), i(600, 660), 0, false],
    ["overlap by a minute", i(540, 601), i(600, 660), 0, true],
    ["inside", i(540, 720), i(600, 660), 0, true],
    ["buffer: exactly 15 minutes apart passes", i(540, 600), i(615, 660), 15, false],
    ["buffer: 10 minutes apart fails", i(540, 600), i(610, 660), 15, true],
    ["buffer: touching fails", i(540, 600), i(600, 660), 15, true],
    ["buffer the other way round", i(615, 660), i(540, 600), 15, false],
    ["buffer across midnight: 23:50 end, 00:05 start (15 min) passes", i(1380, 1430), i(1440 + 5, 1440 + 60), 15, false],
    ["buffer across midnight: 23:55 end, 00:05 start (10 min) fails", i(1380, 1435), i(1440 + 5, 1440 + 60), 15, true],
  ] as const)("%s", (_n, a, b, gap, expected) => {
    expect(overlaps(a, b, gap)).toBe(expected);
  });

  it("firstConflict looks at both pairs of both notes", () => {
    const mine = [i(540, 600), i(780, 840)];
    expect(firstConflict(mine, [{ id: 1, pairs: [i(300, 360), i(800, 820)] }])).toMatchObject({ mine: 1, other: i(800, 820) });
    expect(firstConflict(mine, [{ id: 1, pairs: [i(600, 780)] }])).toBeNull();
    expect(firstConflict([null, i(780, 840)], [{ id: 1, pairs: [i(540, 600)] }])).toBeNull();
  });

  it.each<[string, Interval, Interval, boolean, boolean]>([
    ["23:00–24:00, then 00:00–00:45 the next day (the same client)", i(1380, 1440), i(1440, 1485), true, false],
    ["the other way round", i(1440, 1485), i(1380, 1440), true, false],
    ["a gap of 5 minutes: the buffer", i(1380, 1440), i(1445, 1485), false, true],
    ["touching at noon, not midnight: the buffer", i(660, 720), i(720, 780), false, true],
    ["overlapping across midnight is never a continuation", i(1380, 1450), i(1440, 1485), false, true],
  ])("continuesAtMidnight: %s", (_n, a, b, continues, conflict) => {
    expect(continuesAtMidnight(a, b)).toBe(continues);
    // The provider's buffer (gap 15) spares a continuation of the same client only.
    expect(firstConflict([a], [{ id: 1, pairs: [b], sameClient: true }], 15) !== null).toBe(conflict);
    expect(firstConflict([a], [{ id: 1, pairs: [b], sameClient: false }], 15) !== null).toBe(true);
  });

  // Havana's clocks jump from 00:00 to 01:00 on 2026-03-08 (probe 8954 #2): the first half ends at 24:00 on its clock
  // (UTC−5), the second starts at 01:00 on its own (UTC−4): the same moment, so no buffer between them.
  it.each<[string, Interval, number, Interval, number, boolean]>([
    ["the first half written first, then 01:00–02:00", i(1440 + 60, 1440 + 120), -240, i(1380, 1440), -300, false],
    ["the second half written first, then 23:00–24:00", i(1380, 1440), -300, i(1440 + 60, 1440 + 120), -240, false],
    ["01:05 on that night: a gap of 5 minutes, the buffer", i(1440 + 65, 1440 + 120), -240, i(1380, 1440), -300, true],
  ])("a continuation across a midnight the clocks skip: %s", (_n, mine, mineOffset, other, otherOffset, conflict) => {
    expect(firstConflict([mine], [{ id: 1, pairs: [other], sameClient: true, utcOffset: otherOffset }], 15, mineOffset) !== null).toBe(conflict);
    expect(firstConflict([mine], [{ id: 1, pairs: [other], sameClient: false, utcOffset: otherOffset }], 15, mineOffset) !== null).toBe(true);
  });

  it("the scan window reaches a day and a buffer back", () => {
    expect(scanWindow({ startAt: 10_000, endAt: 10_060 })).toEqual({ from: 10_000 - 1440 - 15, to: 10_060 + 15 });
  });
});

describe("caps and PA units (exactly at the cap passes)", () => {
  it.each([
    [540, 60, NOTE_LIMITS.clientDayMinutes, true],
    [541, 60, NOTE_LIMITS.clientDayMinutes, false],
    [2340, 60, NOTE_LIMITS.clientWeekMinutes, true],
    [2341, 60, NOTE_LIMITS.clientWeekMinutes, false],
  ])("booked %i + new %i within %i: %s", (booked, added, cap, expected) => {
    expect(withinCap(booked, added, cap)).toBe(expected);
  });
  it.each([
    [36, 4, 40, true],
    [37, 4, 40, false],
    [0, 0, 0, true],
  ])("spent %i + new %i of %i units: %s", (spent, added, n, expected) => {
    expect(withinUnits(spent, added, n)).toBe(expected);
  });
});

describe("session dates", () => {
  it.each([
    ["today", "2026-03-16", false, null],
    ["14 days ago", "2026-03-02", false, null],
    ["15 days ago", "2026-03-01", false, NOTE_MESSAGES.tooOld(14)],
    ["15 days ago with ignore_time_limits", "2026-03-01", true, null],
    ["a year ago with ignore_time_limits", "2025-03-16", true, null],
    ["tomorrow", "2026-03-17", false, NOTE_MESSAGES.futureDate],
    ["tomorrow with ignore_time_limits", "2026-03-17", true, NOTE_MESSAGES.futureDate],
  ] as const)("%s", (_n, date, ignore, message) => {
    const r = checkSessionDate(date, "2026-03-16", ignore);
    expect(r).toEqual(message ? { field: "session_date", message } : null);
  });

  describe("a session that has not ended yet at the client's location is refused at its time out (probe 8922 §3)", () => {
    const zoned = (date: string, zone: string, pairs: [string, string, string?, string?]) => {
      const t = sessionTimes({ session_date: date, time_in: pairs[0], time_out: pairs[1], time_in2: pairs[2] ?? null, time_out2: pairs[3] ?? null });
      if (!t.ok) throw new Error("bad times");
      const z = inZone(t.times, zone, date);
      if (!z.ok) throw new Error("bad zone");
      return z.times;
    };
    // 2026-11-27 08:12 UTC: 03:12 in New York, 00:12 in Los Angeles, 17:12 in Tokyo.
    const now = new Date("2026-11-27T08:12:30Z");
    it.each<[string, string, string, [string, string, string?, string?], { field: string; message: string } | null]>([
      ["this evening in New York", "2026-11-27", "America/New_York", ["20:00", "21:00"], { field: "time_out", message: NOTE_MESSAGES.sessionNotEnded("03:12", "Miami Clinic") }],
      ["started, not ended", "2026-11-27", "America/New_York", ["02:30", "03:30"], { field: "time_out", message: NOTE_MESSAGES.sessionNotEnded("03:12", "Miami Clinic") }],
      ["ended a minute ago", "2026-11-27", "America/New_York", ["02:11", "03:11"], null],
      ["ends this minute (03:12 has begun)", "2026-11-27", "America/New_York", ["02:12", "03:12"], null],
      ["ends next minute", "2026-11-27", "America/New_York", ["02:13", "03:13"], { field: "time_out", message: NOTE_MESSAGES.sessionNotEnded("03:12", "Miami Clinic") }],
      ["the first pair ended, the second has not", "2026-11-27", "America/New_York", ["01:00", "02:00", "09:00", "10:00"], { field: "time_out2", message: NOTE_MESSAGES.sessionNotEnded("03:12", "Miami Clinic") }],
      ["yesterday evening", "2026-11-26", "America/New_York", ["20:00", "21:00"], null],
      ["in Los Angeles it is 00:12", "2026-11-27", "America/Los_Angeles", ["00:00", "00:30"], { field: "time_out", message: NOTE_MESSAGES.sessionNotEnded("00:12", "Miami Clinic") }],
      ["in Tokyo the morning has passed", "2026-11-27", "Asia/Tokyo", ["09:00", "12:00"], null],
      ["in Tokyo the evening has not", "2026-11-27", "Asia/Tokyo", ["17:00", "18:00"], { field: "time_out", message: NOTE_MESSAGES.sessionNotEnded("17:12", "Miami Clinic") }],
    ])("%s", (_n, date, zone, pairs, expected) => {
      expect(sessionEndRefusal(zoned(date, zone, pairs), now, zone, "Miami Clinic")).toEqual(expected);
    });

    it("the message says what time it is at the location", () => {
      expect(NOTE_MESSAGES.sessionNotEnded("03:12", "Miami Clinic")).toBe("The session cannot end in the future: it is 03:12 now at Miami Clinic.");
    });
  });

  it("today is the location's: 02:00 UTC is still yesterday in New York", () => {
    const at = new Date("2026-03-17T02:00:00Z");
    expect(todayIn(at, "America/New_York")).toBe("2026-03-16");
    expect(todayIn(at, "Europe/Berlin")).toBe("2026-03-17");
  });

  it("the week is the product's Sunday–Saturday week", () => {
    expect(weekOf("2026-03-18")).toEqual({ start: "2026-03-15", end: "2026-03-21" });
    expect(weekOf("2026-03-21")).toEqual({ start: "2026-03-15", end: "2026-03-21" });
    expect(weekOf("2026-03-22")).toEqual({ start: "2026-03-22", end: "2026-03-28" });
  });
});

describe("which rule refuses (the order a user fixes them)", () => {
  const date = "2026-03-16";
  const at = (t: string) => localMinute(date, t)!;
  const times = (() => {
    const r = sessionTimes({ session_date: date, time_in: "10:00", time_out: "11:00", time_in2: null, time_out2: null });
    if (!r.ok) throw new Error("bad times");
    return r.times;
  })();
  const quiet: Surroundings = { clientNotes: [], providerNotes: [], dayMinutes: 0, weekMinutes: 0, pa: { cpt: "97153", start_date: "2026-01-01", end_date: "2026-06-30", n_units: 100, spent_units: 0 } };
  const input = { session_date: date, cpt_code: "97153" };
  it.each([
    ["nothing in the way", {}, null],
    ["PA of another client or missing", { pa: null }, { field: "pa_service_id", message: NOTE_MESSAGES.paNotOfClient }],
    ["PA for another CPT", { pa: { ...quiet.pa!, cpt: "97155" } }, { field: "pa_service_id", message: NOTE_MESSAGES.paNotCovering(date, "97153") }],
    ["PA ended before the date", { pa: { ...quiet.pa!, end_date: "2026-03-15" } }, { field: "pa_service_id", message: NOTE_MESSAGES.paNotCovering(date, "97153") }],
    ["client overlap", { clientNotes: [{ id: 9, pairs: [{ start: at("10:30"), end: at("11:30") }] }] }, { field: "time_in", message: NOTE_MESSAGES.clientOverlap("10:30", "11:30") }],
    ["provider overlap", { providerNotes: [{ id: 9, pairs: [{ start: at("09:00"), end: at("10:01") }] }] }, { field: "time_in", message: NOTE_MESSAGES.providerOverlap("09:00", "10:01") }],
    ["provider buffer 10 minutes", { providerNotes: [{ id: 9, pairs: [{ start: at("11:10"), end: at("12:00") }] }] }, { field: "time_in", message: NOTE_MESSAGES.providerBuffer("11:10", "12:00", 15) }],
    ["provider buffer 15 minutes passes", { providerNotes: [{ id: 9, pairs: [{ start: at("11:15"), end: at("12:00") }] }] }, null],
    // A deleted client's note still takes the provider's time; no screen shows it, so the message says whose it is (probe 8922 §5).
    ["provider overlap, a deleted client's note", { providerNotes: [{ id: 9, pairs: [{ start: at("09:00"), end: at("10:01") }], clientDeleted: true }] }, { field: "time_in", message: NOTE_MESSAGES.providerOverlap("09:00", "10:01", NOTE_MESSAGES.ofDeletedClient) }],
    ["provider buffer, a deleted client's note", { providerNotes: [{ id: 9, pairs: [{ start: at("11:10"), end: at("12:00") }], clientDeleted: true }] }, { field: "time_in", message: "The provider needs 15 minutes between sessions; another session runs from 11:10 to 12:00 (a note of a client who has since been deleted)." }],
    ["day cap exactly", { dayMinutes: 540 }, null],
    ["day cap over", { dayMinutes: 541 }, { field: "time_out", message: NOTE_MESSAGES.dayCap(10) }],
    ["week cap exactly", { weekMinutes: 2340 }, null],
    ["week cap over", { weekMinutes: 2341 }, { field: "time_out", message: NOTE_MESSAGES.weekCap(40) }],
    ["PA units exactly", { pa: { ...quiet.pa!, spent_units: 96 } }, null],
    ["PA units over", { pa: { ...quiet.pa!, spent_units: 97 } }, { field: "pa_service_id", message: NOTE_MESSAGES.paUnits(4, 3) }],
    ["PA units already overspent", { pa: { ...quiet.pa!, spent_units: 103 } }, { field: "pa_service_id", message: "This session needs 4 units but the PA service is already 3 units over its authorized units." }],
  ] as const)("%s", (_n, over, expected) => {
    const r = firstRefusal(input, times, { ...quiet, ...over } as Surroundings);
    expect(r && { field: r.field, message: r.message }).toEqual(expected);
    // Each refusal names its rule (a booked series groups its refused dates by it).
    if (r) expect(r.rule).toMatch(/^[a-z_]+$/);
  });
});

describe("the note body", () => {
  const body = {
    patient_id: "3",
    provider_id: 4,
    pa_service_id: "5",
    cpt_code: "97153",
    session_date: "2026-03-16",
    time_in: "9:00",
    time_out: "10:30:00",
    participants: "Mother",
    maladaptives: [{ plan_id: "7", name: "Elopement", frequency: "3" }],
    content: { interventions: ["DRA"] },
  };
  it("parses a flat API body into NoteInput (times normalised, content gathered)", () => {
    const r = parseWith(NoteBody, noteBodyInput("rbt", body));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data).toMatchObject({
      type: "rbt",
      patient_id: 3,
      provider_id: 4,
      pa_service_id: 5,
      time_in: "09:00",
      time_out: "10:30",
      time_in2: null,
      subtype: null,
      supervisor_id: null,
      content: { participants: "Mother", maladaptives: [{ plan_id: 7, name: "Elopement", frequency: 3 }], interventions: ["DRA"] },
    });
  });

  it.each([
    ["rbt", "97155", false],
    ["rbt", "97153", true],
    ["bcba", "97153", false],
    ["bcba", "97151", true],
    ["combined", "97151", false],
    ["combined", "97156", true],
  ] as const)("a %s note with CPT %s: allowed %s", (type, cpt, allowed) => {
    const r = parseWith(NoteBody, noteBodyInput(type, { ...body, cpt_code: cpt }));
    expect(r.ok).toBe(allowed);
    if (!r.ok) expect(noteBodyErrors(type, r.errors).cpt_code).toBe(NOTE_MESSAGES.cpt(type));
  });

  it("97151 is an observation unless told", () => {
    const r = parseWith(NoteBody, noteBodyInput("bcba", { ...body, cpt_code: "97151" }));
    expect(r.ok && r.data.subtype).toBe("observation");
  });

  it.each([
    ["patient_id", { patient_id: "" }, NOTE_MESSAGES.patient],
    ["pa_service_id", { pa_service_id: null }, NOTE_MESSAGES.paService],
    ["time_in", { time_in: "25:00" }, NOTE_MESSAGES.time],
    ["session_date", { session_date: "2026-02-30" }, "Enter a valid date (YYYY-MM-DD)."],
    ["content.participants", { participants: "a\u202Eb" }, "Participants: remove control or text-direction characters."],
    ["content.maladaptives.frequency", { maladaptives: [{ name: "x", frequency: -1 }] }, "Frequency must be 0 or more."],
    ["content.replacements", { replacements: [{ name: "x", total_trials: 3, correct_responses: 4 }] }, "Correct responses cannot exceed the total trials."],
    ["provider_signature", { provider_signature: "javascript:alert(1)" }, NOTE_MESSAGES.signature],
    ["md", { md: "<b>" }, NOTE_MESSAGES.modifier],
  ] as const)("refuses a bad %s", (field, over, message) => {
    const r = parseWith(NoteBody, noteBodyInput("rbt", { ...body, ...over }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[field]).toBe(message);
  });

  it.each(["patient_id", "provider_id", "pa_service_id", "session_date"] as const)("a body without %s gets the same message as an empty one", (field) => {
    const { [field]: _dropped, ...missing } = body;
    const a = parseWith(NoteBody, noteBodyInput("rbt", missing));
    const b = parseWith(NoteBody, noteBodyInput("rbt", { ...body, [field]: "" }));
    expect(a.ok || b.ok).toBe(false);
    if (a.ok || b.ok) return;
    expect(a.errors).toEqual(b.errors);
    expect(a.errors[field]).toBe({ patient_id: NOTE_MESSAGES.patient, provider_id: NOTE_MESSAGES.provider, pa_service_id: NOTE_MESSAGES.paService, session_date: "Session date is required." }[field]);
  });

  it("bounds every text (a 5001-character narrative is refused)", () => {
    const r = v.safeParse(NoteBody, noteBodyInput("rbt", { ...body, as_evidenced_by: "x".repeat(5001) }));
    expect(r.success).toBe(false);
  });
});

describe("a provider's name that prints nothing does not sign a note (probe 8893, stop 25)", () => {
  it.each(["\u200b\u200b", "\u2060", " \ufeff ", ""])("%j with a date is refused at the name, and is not a signature", (name) => {
    const input = { provider_name: name, provider_signed_on: "2026-11-20", provider_signature: null };
    expect(isSigning(input)).toBe(false);
    expect(halfSignatureRefusal(input)).toEqual({ provider_name: NOTE_MESSAGES.signName });
  });
  it("a visible name with its date signs", () => {
    const input = { provider_name: "Ana\u200bLopez", provider_signed_on: "2026-11-20", provider_signature: null };
    expect(isSigning(input)).toBe(true);
    expect(halfSignatureRefusal(input)).toBeNull();
  });
});

describe("who may supervise a note (decision 023, probe 8903)", () => {
  it.each([
    ["no supervisor", 8, null, "rbt", null],
    ["the provider herself", 8, 8, "bcba", NOTE_MESSAGES.supervisorIsProvider],
    ["a BCBA", 8, 6, "bcba", null],
    ["a BCaBA", 8, 7, "bcaba", null],
    ["an RBT", 8, 13, "rbt", NOTE_MESSAGES.supervisorNotQualified],
    ["staff without a credential", 8, 3, null, NOTE_MESSAGES.supervisorNotQualified],
    ["someone else, credential not read (a stored supervisor)", 8, 13, undefined, null],
  ] as const)("%s", (_label, provider, supervisor, credential, refusal) => {
    expect(supervisorRefusal(provider, supervisor, credential)).toBe(refusal);
  });

  it("a BCBA or BCaBA role (any case) can supervise; RBT, none or other roles cannot", () => {
    expect(["bcba", "BCaBA", " BCBA "].map(canSupervise)).toEqual([true, true, true]);
    expect(["rbt", "", null, undefined, "manager"].map(canSupervise)).toEqual([false, false, false, false, false]);
  });
});

describe("a new provider does not inherit the previous provider's signature (decision 023, probe 8922 §1)", () => {
  const stored = { provider_name: "Jasmine Carter", provider_signed_on: "2026-11-26", provider_signature: "data:image/png;base64,AAAA" };
  const none = { provider_name: "", provider_signed_on: null, provider_signature: null };
  it.each<[string, string | null, typeof stored | typeof none | Record<string, unknown>, Record<string, unknown>]>([
    ["a signed note: the body repeats the signature", "2026-11-26T10:00:00Z", stored, none],
    ["a signed note: the body types another name and date", "2026-11-26T10:00:00Z", { ...stored, provider_name: "Maya Thompson", provider_signed_on: "2026-11-27" }, none],
    ["an unsigned note: the typed name alone it repeats", null, { ...none, provider_name: "Jasmine Carter" }, none],
    ["an unsigned note: the new provider's name and date, newly typed", null, { ...none, provider_name: "Maya Thompson", provider_signed_on: "2026-11-27" }, { provider_name: "Maya Thompson", provider_signed_on: "2026-11-27", provider_signature: null }],
    ["an unsigned note: a new date beside the old name keeps only the date (then refused as half a signature)", null, { ...none, provider_name: " Jasmine Carter ", provider_signed_on: "2026-11-27" }, { provider_name: "", provider_signed_on: "2026-11-27", provider_signature: null }],
  ])("%s", (_n, signedAt, input, expected) => {
    const current = signedAt ? { ...stored, signed_at: signedAt } : { provider_name: "Jasmine Carter", provider_signed_on: null, provider_signature: null, signed_at: null };
    const out = withoutPreviousSignature({ provider_id: 13, ...none, ...input } as never, current);
    expect(out).toMatchObject({ provider_id: 13, ...expected });
    expect(isSigning(out)).toBe(expected.provider_name !== "" && !!expected.provider_signed_on);
  });
});

describe("an amendment of a note that stays signed (probe 8964 §1)", () => {
  const stored: { provider_name: string; provider_signed_on: string | null; session_date: string } = { provider_name: "Jasmine Carter", provider_signed_on: "2026-11-26", session_date: "2026-11-25" };
  const today = "2026-11-27";
  it.each<[string, Partial<typeof stored>, Record<string, string> | null]>([
    ["unchanged", {}, null],
    ["a corrected name", { provider_name: "Jasmine R. Carter" }, null],
    ["a date within the rule", { provider_signed_on: "2026-11-27" }, null],
    ["the session day", { provider_signed_on: "2026-11-25" }, null],
    ["2019", { provider_signed_on: "2019-01-01" }, { provider_signed_on: NOTE_MESSAGES.signDate("2026-11-25", today) }],
    ["before the session", { provider_signed_on: "2026-11-24" }, { provider_signed_on: NOTE_MESSAGES.signDate("2026-11-25", today) }],
    ["the future", { provider_signed_on: "2031-01-01" }, { provider_signed_on: NOTE_MESSAGES.signDate("2026-11-25", today) }],
    ["no date", { provider_signed_on: null }, { provider_signed_on: NOTE_MESSAGES.signedKeepsDate }],
    ["a blank name", { provider_name: " " }, { provider_name: NOTE_MESSAGES.signedKeepsName }],
    ["the session moved after the date", { session_date: "2026-11-27" }, { provider_signed_on: NOTE_MESSAGES.signDate("2026-11-27", today) }],
    ["the session moved earlier", { session_date: "2026-11-20" }, null],
  ])("%s", (_, change, refusal) => {
    expect(amendedSignatureRefusal({ ...stored, ...change }, stored, today)).toEqual(refusal);
  });

  it("a stored pair is never refused for what the amendment left as it was (a date stored before this rule, none at all)", () => {
    for (const old of [{ ...stored, provider_signed_on: "2019-01-01" }, { ...stored, provider_signed_on: null }]) expect(amendedSignatureRefusal(old, old, today)).toBeNull();
  });
});

describe("an edit that changes nothing (probe 8964 §3)", () => {
  const stored = {
    type: "rbt",
    patient_id: 13,
    provider_id: 8,
    supervisor_id: 6,
    bip_id: null,
    pa_service_id: 25,
    cpt_code: "97153",
    subtype: null,
    diagnosis_code: "",
    pos: "12",
    is_telehealth: false,
    session_date: "2026-11-25",
    time_in: "15:00",
    time_out: "16:00",
    time_in2: null,
    time_out2: null,
    md: null,
    md2: null,
    md3: null,
    provider_name: "Jasmine Carter",
    provider_signature: null,
    provider_signed_on: "2026-11-26",
    supervisor_name: "Sam Supervisor",
    supervisor_signature: null,
    supervisor_signed_on: "2026-11-27",
    unit_price_cents: null,
    content: { client_appeared: "Calm", interventions: ["Prompting"], maladaptives: [{ plan_id: 4, name: "Hitting", frequency: 2 }], summary_note: "" },
  } as unknown as NoteInput;
  it.each<[string, Record<string, unknown>, boolean]>([
    ["the same note", {}, true],
    ["blank for none, an empty list for none, content keys in another order", { diagnosis_code: null, time_in2: "", content: { summary_note: null, maladaptives: [{ frequency: 2, name: "Hitting", plan_id: 4 }], interventions: ["Prompting"], client_appeared: "Calm", replacements: [] } }, true],
    ["the supervisor's signature cleared (only the countersignature writes it)", { supervisor_name: "", supervisor_signed_on: null }, true],
    ["a time", { time_out: "16:15" }, false],
    ["the supervisor", { supervisor_id: 7 }, false],
    ["a content text", { content: { ...(stored.content as object), client_appeared: "Tired" } }, false],
    ["a list emptied", { content: { ...(stored.content as object), interventions: [] } }, false],
    ["a count", { content: { ...(stored.content as object), maladaptives: [{ plan_id: 4, name: "Hitting", frequency: 3 }] } }, false],
    ["the date signed", { provider_signed_on: "2026-11-27" }, false],
    ["the summary", { content: { ...(stored.content as object), summary_note: "Met with client." } }, false],
  ])("%s → changes nothing: %s", (_, change, same) => {
    expect(changesNothing({ ...stored, ...change } as NoteInput, stored)).toBe(same);
  });
});

describe("a note on a claim: the refusal's advice follows the claim's status (decision 032, stop 40)", () => {
  it.each([
    ["C0000001 (draft)", true],
    ["C0000002 (generated)", true],
    ["C0000003 (sent)", true],
    ["C0000004 (accepted)", false],
  ] as const)("%s: says to void the claim first: %s", (label, voidable) => {
    const note = NOTE_MESSAGES.onClaim(label);
    const billing = BILLING_MESSAGES.onClaim(label);
    expect(note).toContain(`This note is on claim ${label}`);
    expect(note.includes("Reject (void) that claim first.")).toBe(voidable);
    expect(billing.includes("Reject (void) that claim first")).toBe(voidable);
    expect(note.includes("final (paid history)")).toBe(!voidable);
    expect(billing.includes("final (paid history)")).toBe(!voidable);
  });
});
