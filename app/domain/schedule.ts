import * as v from "valibot";
import { FilterId } from "./list-filters";
import { numberOrNaN, optionalId, requiredDate } from "./fields";
import { firstRefusal, inZone, localMinute, timesOf, NOTE_MESSAGES, overlaps, sessionEndRefusal, todayIn, withinUnits, ZONE_SPREAD_MINUTES, type NoteIntervals, type StoredPair, type Refusal, type SessionTimes } from "./note-rules";
import { minuteOfDay, NOTE_CPT_CODES, tidyTime } from "./notes";
import { unitCount, unitsLeftText } from "./pa-pacing";
import { localDateTime, zoneOffsetMinutes, zonePlace } from "./time";
import { addDays, dateOfDay, dayNumber, isProductDate, weekdayOfDay, weekEndingOn, weekStartOf } from "./weeks";

/**
 * Scheduled sessions and the calendar (issue 12 "Calendar and scheduled sessions", decision 037), pure:
 * the booking schema, the weekly series' occurrences, the booking rules (the notes' rules of
 * app/domain/note-rules.ts, run over written notes AND scheduled sessions), the PA units warning, and the
 * month / week / day grids (Sunday-first weeks of app/domain/weeks.ts).
 *
 * Times are the location's local wall time; an instant is a local minute since 1970-01-01 exactly as on
 * notes (dayNumber × 1440 + minute), so a 9:00 session in Denver is 9:00 on Denver's calendar.
 */

/** At most this many occurrences in one weekly series (a year and a day). */
export const MAX_OCCURRENCES = 53;

/** Every CPT code a note may carry (a scheduled session becomes an RBT or BCBA note). */
export const SCHEDULE_CPT_CODES: readonly string[] = [...new Set([...NOTE_CPT_CODES.rbt, ...NOTE_CPT_CODES.bcba])].sort();

export const SCHEDULE_MESSAGES = {
  patient: NOTE_MESSAGES.patient,
  provider: NOTE_MESSAGES.provider,
  providerOutOfScope: NOTE_MESSAGES.providerOutOfScope,
  otherProvider: "Only a user with manage_notes may schedule or cancel sessions for another provider.",
  paService: NOTE_MESSAGES.paService,
  cpt: `Choose a CPT code (${SCHEDULE_CPT_CODES.join(", ")}).`,
  time: NOTE_MESSAGES.time,
  timeIn: "Enter the time in.",
  timeOut: "Enter the time out.",
  endBeforeStart: NOTE_MESSAGES.endBeforeStart,
  repeat: "Choose whether the session repeats: once or weekly.",
  until: "Enter the date the weekly series ends.",
  untilBeforeStart: "The series must end on or after the first session's date.",
  tooMany: (max: number, lastAllowed: string) => `A weekly series has at most ${max} sessions: choose an end date on or before ${lastAllowed}.`,
  past: (today: string) => `A session can be scheduled from today (${today}) on.`,
  /** Today, but the time in has passed at the location (decision 037, stop 42); a series names its first session. */
  started: (timeIn: string, now: string, place: string, firstOfSeries: string | null) =>
    firstOfSeries === null
      ? `A session can be scheduled from now on: ${timeIn} has passed at ${place} (it is ${now} there).`
      : `A session can be scheduled from now on: the series' first session, ${firstOfSeries} at ${timeIn}, has passed at ${place} (it is ${now} there).`,
  onDates: (message: string, dates: readonly string[]) => (dates.length === 1 ? `On ${dates[0]}: ${message}` : `On ${dates.join(", ")}: ${message}`),
  /** `left` below 0: the authorization is already over by that much (probe 8956: it said "only 0 units left"); the note form's words (unitsLeftText). */
  paWarning: (needed: number, left: number, sessions: number) => {
    const what = sessions === 1 ? `This session needs ${unitCount(needed)}` : `These ${sessions} sessions need ${unitCount(needed)}`;
    return `${what} but the PA service ${left < 0 ? "is" : "has only"} ${unitsLeftText(left)} after the notes written and the sessions already scheduled.`;
  },
  cancelFrom: "Enter the date from which the rest of the series is cancelled.",
  notInSeries: "This session is not part of a weekly series.",
  /** The cancel's confirm step (decision 037, stop 37): what the confirmed cancel will do, said before it does. */
  confirmCancel: (date: string, timeIn: string, timeOut: string) => `Cancel the session of ${longDate(date)}, ${timeIn}–${timeOut}?`,
  /** `n` is counted by the same condition the cancel writes with (`restOfSeries` in app/models/schedule.server.ts). */
  confirmCancelRest: (n: number, from: string) => `Cancel the ${n === 1 ? "1 remaining session" : `${n} remaining sessions`} of this series from ${longDate(from)}?`,
  nothingLeftInSeries: "No scheduled session of this series is left on or after that date.",
  notScheduled: "This session is no longer scheduled (cancelled or written).",
  raced: "Other sessions changed while this was booked. Book again.",
  inactiveClient: "This client is inactive: make the client active before scheduling sessions.",
  /** A deleted note's session whose PA service has since been deleted (decision 037, 2026-11-28). */
  paGone: "The PA service it was booked under no longer exists.",
  inactiveProvider: NOTE_MESSAGES.providerInactive,
  futureCancelled: (n: number) => `${n} future session${n === 1 ? " was" : "s were"} cancelled.`,
  /** A client delete's confirm step (probe 8972): what the delete will cancel, said before it does. */
  futureToCancel: (n: number) => `${n === 1 ? "Its 1 future scheduled session" : `Its ${n} future scheduled sessions`} will be cancelled.`,
  noteOnceEnded: (time: string) => `The note can be written once the session ends at ${time}.`,
  noteOnceEndedOn: (date: string, time: string) => `The note can be written once the session ends, on ${date} at ${time}.`,
  /** The client has moved to a location of another zone since the booking: its note is written there (decision 037, stop 30). */
  noteInOtherZone: (timeIn: string, timeOut: string, zone: string) =>
    `The client has since moved to a location on ${zonePlace(zone)} time (${zone}): the note is written there, for ${timeIn}–${timeOut} ${zonePlace(zone)} time, and can be written once that has ended.`,
} as const;

/**
 * The date "cancel the rest of the series" starts from, as typed: "" when absent or empty (the occurrence's own
 * date), the date when valid, null when refused (SCHEDULE_MESSAGES.cancelFrom). The screen checks it before its
 * confirm step, the model before it writes.
 */
export function cancelFromInput(raw: unknown): string | null {
  if (raw == null || raw === "") return "";
  if (typeof raw !== "string" || !raw.trim()) return null;
  const from = raw.trim();
  return dayNumber(from) === null ? null : from;
}

/**
 * Why a change cancelled future bookings that no longer fit (decision 037, 2026-11-27 probe 8931): the change's
 * audit row names it (`detail.cancelled_future_sessions`); scheduled_sessions has no field for a reason.
 */
export type UnfitReason = "client_deleted" | "client_moved" | "client_inactive" | "provider_inactive" | "provider_deleted" | "provider_left_location";

/** A change's success message, followed by how many future sessions it cancelled (nothing when none). */
export function withCancelledCount(message: string, cancelled: number): string {
  return cancelled > 0 ? `${message} ${SCHEDULE_MESSAGES.futureCancelled(cancelled)}` : message;
}

const idOf = (message: string) =>
  v.pipe(
    v.optional(v.union([v.string(message), v.number(message)], message), ""),
    v.transform((x: string | number) => numberOrNaN(x)),
    v.check((n) => Number.isSafeInteger(n) && n > 0, message),
  );

/** A time of a booking (as the notes' optionalTime); a time out (`asEnd`) may be "24:00" (minuteOfDay). */
const time = (missing: string, asEnd: boolean) =>
  v.pipe(
    v.union([v.string(missing), v.null(missing)], missing),
    v.transform((x) => {
      return tidyTime(x ?? "");
    }),
    v.nonEmpty(missing),
    v.check((s) => minuteOfDay(s, asEnd) !== null, SCHEDULE_MESSAGES.time),
  );

/** A booking (form or API JSON): client, provider (empty = the actor), CPT, PA service, date, times, repeat. */
export const BookingSchema = v.pipe(
  v.object({
    patient_id: idOf(SCHEDULE_MESSAGES.patient),
    provider_id: optionalId,
    cpt_code: v.pipe(v.optional(v.nullable(v.string(SCHEDULE_MESSAGES.cpt)), ""), v.transform((x) => (x ?? "").trim()), v.picklist(SCHEDULE_CPT_CODES as string[], SCHEDULE_MESSAGES.cpt)),
    pa_service_id: idOf(SCHEDULE_MESSAGES.paService),
    session_date: requiredDate("Session date"),
    time_in: v.optional(time(SCHEDULE_MESSAGES.timeIn, false), ""),
    time_out: v.optional(time(SCHEDULE_MESSAGES.timeOut, true), ""),
    repeat: v.pipe(v.optional(v.nullable(v.string(SCHEDULE_MESSAGES.repeat)), "once"), v.transform((x) => (x ?? "").trim() || "once"), v.picklist(["once", "weekly"], SCHEDULE_MESSAGES.repeat)),
    until: v.pipe(
      v.optional(v.nullable(v.string(SCHEDULE_MESSAGES.until)), null),
      v.transform((x) => (typeof x === "string" && x.trim() ? x.trim() : null)),
      v.nullable(v.pipe(v.string(), v.check(isProductDate, "Enter a valid date (YYYY-MM-DD)."))),
    ),
  }),
  v.forward(
    v.check((b) => minuteOfDay(b.time_out, true)! > minuteOfDay(b.time_in)!, SCHEDULE_MESSAGES.endBeforeStart),
    ["time_out"],
  ),
  v.forward(
    v.check((b) => b.repeat === "once" || b.until !== null, SCHEDULE_MESSAGES.until),
    ["until"],
  ),
  v.forward(
    v.check((b) => b.repeat === "once" || b.until === null || b.until >= b.session_date, SCHEDULE_MESSAGES.untilBeforeStart),
    ["until"],
  ),
);
export type Booking = v.InferOutput<typeof BookingSchema>;

/* ------------------------------------------------------------------ occurrences */

/**
 * The dates of a weekly series: the start date and every 7 days after it, through `until` inclusive.
 * More than MAX_OCCURRENCES is refused (on `until`) with the last end date that fits.
 */
export function weeklyDates(startsOn: string, until: string, max = MAX_OCCURRENCES): { ok: true; dates: string[] } | { ok: false; refusal: Refusal } {
  const a = dayNumber(startsOn);
  const b = dayNumber(until);
  if (a === null) return { ok: false, refusal: { field: "session_date", message: "Enter a valid date (YYYY-MM-DD)." } };
  if (b === null) return { ok: false, refusal: { field: "until", message: SCHEDULE_MESSAGES.until } };
  if (b < a) return { ok: false, refusal: { field: "until", message: SCHEDULE_MESSAGES.untilBeforeStart } };
  const count = Math.floor((b - a) / 7) + 1;
  if (count > max) return { ok: false, refusal: { field: "until", message: SCHEDULE_MESSAGES.tooMany(max, dateOfDay(a + 7 * (max - 1))) } };
  return { ok: true, dates: Array.from({ length: count }, (_, i) => dateOfDay(a + 7 * i)) };
}

/** The dates a booking asks for: one, or the weekly series. */
export function bookingDates(b: Pick<Booking, "session_date" | "repeat" | "until">): { ok: true; dates: string[] } | { ok: false; refusal: Refusal } {
  return b.repeat === "weekly" ? weeklyDates(b.session_date, b.until ?? "") : { ok: true, dates: [b.session_date] };
}

/**
 * One occurrence's local-minute times, as the notes' rules take them (one time pair); with the location's
 * `timeZone`, its UTC offset on that date (a weekly series may cross a daylight-saving change) and the time that
 * passes on a change night (inZone: a clock time the night skips is refused at its field).
 */
export function occurrenceTimes(date: string, timeIn: string, timeOut: string, timeZone?: string): { ok: true; times: SessionTimes } | { ok: false; refusals: Refusal[] } {
  const times = timesOf({ start: localMinute(date, timeIn)!, end: localMinute(date, timeOut, true)! }, null, null);
  return timeZone ? inZone(times, timeZone, date) : { ok: true, times };
}

/* ------------------------------------------------------------------ the rules */

/** A session already on the books (a live note or a scheduled session) as the booking rules see it. */
export interface BookedSession {
  /** "note:12" or "scheduled:7": an id unique across both kinds. */
  key: string;
  patientId: number;
  providerId: number;
  date: string;
  pairs: StoredPair[];
  minutes: number;
  /** Its location's UTC offset (utc_offset); null or absent: unknown, compared on local time (note-rules zoneShift). */
  utcOffset?: number | null;
  /** Its location's time zone (named in a refusal when it is not the booking's clock). */
  zone?: string | null;
  /** A note whose client was deleted: it still takes the provider's time, and a refusal says whose it is (NoteIntervals). */
  clientDeleted?: boolean;
}

export interface PaFacts {
  cpt: string;
  start_date: string;
  end_date: string;
  n_units: number;
  /** Units of live notes plus units of sessions still scheduled on it. */
  used_units: number;
}

export interface BookingCheck {
  /** Null: every occurrence may be booked. Else the first rule that refuses, naming the dates it refuses. */
  refusal: Refusal | null;
  /** The rule of note-rules' firstRefusal that refuses (client_overlap, provider_buffer, day_cap, …), never sent in an answer. */
  rule: string | null;
  /** A warning (not a refusal): the PA service has fewer units left than the booking needs. */
  warning: string | null;
  units: number;
}

/**
 * A booking must not have started yet (decision 037, stop 42): the mirror of the note's "the session has ended"
 * (sessionEndRefusal). `date` is the first occurrence's (a later one of a weekly series is a week on at least); its
 * start is compared with now as moments, at the minute (09:30 may be booked until 09:30:59), on the location's clock.
 * Null when it has not started, or when the zone cannot read the time (checkBooking refuses that one).
 */
export function bookingStartRefusal(
  b: { date: string; timeIn: string; timeOut: string; weekly: boolean },
  now: Date,
  timeZone: string,
  place: string,
): Refusal | null {
  const timed = occurrenceTimes(b.date, b.timeIn, b.timeOut, timeZone);
  const start = timed.ok ? timed.times.pair1?.start : undefined;
  if (!timed.ok || start === undefined) return null;
  const offset = timed.times.utcOffset ?? zoneOffsetMinutes(now, timeZone);
  if (start - offset >= Math.floor(now.getTime() / 60_000)) return null;
  const clockNow = localDateTime(now, timeZone).slice(11);
  return { field: "time_in", message: SCHEDULE_MESSAGES.started(b.timeIn, clockNow, place, b.weekly ? b.date : null) };
}

/** Which booking rule a refusal of firstRefusal comes from: "<field>:<rule>" (one without a rule is its own). */
export function bookingRuleOf(refusal: Refusal): string {
  return `${refusal.field}:${refusal.rule ?? refusal.message}`;
}

/**
 * Runs the notes' rules (firstRefusal of app/domain/note-rules.ts: the PA service covering the CPT and
 * date, the client's overlap, the provider's overlap and 15-minute buffer, the 10 h/day and 40 h/week caps
 * of the client) for every occurrence, against `booked` (written notes and scheduled sessions of the client
 * and of the provider) plus the series' own earlier occurrences. The PA units are not a refusal here: when
 * the booking needs more than the service has left, `warning` says so.
 */
export function checkBooking(
  input: { patientId: number; providerId: number; cpt: string; dates: readonly string[]; timeIn: string; timeOut: string; /** The client's location's: the provider rules then compare moments. */ timeZone?: string },
  booked: readonly BookedSession[],
  pa: PaFacts | null,
): BookingCheck {
  const own: BookedSession[] = [];
  let first: Refusal | null = null;
  const refusedOn: string[] = [];
  let units = 0;
  for (const date of input.dates) {
    const timed = occurrenceTimes(date, input.timeIn, input.timeOut, input.timeZone);
    if (!timed.ok) {
      const refusal = timed.refusals[0]!;
      if (!first) first = refusal;
      if (bookingRuleOf(refusal) === bookingRuleOf(first)) refusedOn.push(date);
      continue;
    }
    const times = timed.times;
    units += times.units;
    const all = [...booked, ...own];
    const week = { start: weekStartOf(weekEndingOn(date)), end: weekEndingOn(date) };
    const near = (s: BookedSession, spread = 0) => s.pairs.some((p) => overlaps(p, { start: times.startAt, end: times.endAt }, 1440 + spread));
    const asIntervals = (list: BookedSession[]): NoteIntervals[] =>
      list.map((s, i) => ({ id: i, pairs: s.pairs, utcOffset: s.utcOffset, zone: s.zone, clientDeleted: s.clientDeleted, sameClient: s.patientId === input.patientId }));
    const clientOnes = all.filter((s) => s.patientId === input.patientId);
    const refusal = firstRefusal(
      { session_date: date, cpt_code: input.cpt },
      times,
      {
        // The client's and the provider's on any offset: another offset's clock may read up to ZONE_SPREAD_MINUTES apart.
        clientNotes: asIntervals(clientOnes.filter((s) => near(s, ZONE_SPREAD_MINUTES))),
        providerNotes: asIntervals(all.filter((s) => s.providerId === input.providerId && near(s, ZONE_SPREAD_MINUTES))),
        dayMinutes: clientOnes.filter((s) => s.date === date).reduce((n, s) => n + s.minutes, 0),
        weekMinutes: clientOnes.filter((s) => s.date >= week.start && s.date <= week.end).reduce((n, s) => n + s.minutes, 0),
        // Units are a warning for a booking, not a refusal: the rules see an authorization without a ceiling.
        pa: pa ? { cpt: pa.cpt, start_date: pa.start_date, end_date: pa.end_date, n_units: Number.MAX_SAFE_INTEGER, spent_units: 0 } : null,
      },
    );
    if (refusal) {
      if (!first) first = refusal;
      // Every date the first refusal's rule refuses, whichever session it collides with (not only the same words).
      if (bookingRuleOf(refusal) === bookingRuleOf(first)) refusedOn.push(date);
    }
    own.push({ key: `new:${date}`, patientId: input.patientId, providerId: input.providerId, date, pairs: [{ ...times.pair1!, typed: { in: input.timeIn, out: input.timeOut } }], minutes: times.minutes, utcOffset: times.utcOffset });
  }
  const refusal = first ? { field: first.field, message: input.dates.length > 1 ? SCHEDULE_MESSAGES.onDates(first.message, refusedOn) : first.message } : null;
  const warning = pa && !withinUnits(pa.used_units, units, pa.n_units) ? SCHEDULE_MESSAGES.paWarning(units, pa.n_units - pa.used_units, input.dates.length) : null;
  return { refusal, rule: first?.rule ?? null, warning, units };
}

/** A calendar entry's times as shown: "08:00–09:30", or both pairs of a note ("08:00–09:30, 10:45–11:45"). */
export function entryTimes(e: { time_in: string | null; time_out: string | null; time_in2?: string | null; time_out2?: string | null }): string {
  const pair = (a: string | null | undefined, b: string | null | undefined) => (a ? `${a}${b ? `–${b}` : ""}` : "");
  return [pair(e.time_in, e.time_out), pair(e.time_in2, e.time_out2)].filter(Boolean).join(", ");
}

/* ------------------------------------------------------------------ grids */

export const CALENDAR_VIEWS = ["month", "week", "day"] as const;
export type CalendarView = (typeof CALENDAR_VIEWS)[number];

export interface CalendarGrid {
  view: CalendarView;
  /** The date the grid was asked for. */
  date: string;
  /** First and last date shown (inclusive). */
  from: string;
  to: string;
  /** Rows of 7 dates (month, week) or one row of one date (day). */
  weeks: string[][];
  /** For a month: the yyyy-mm it shows (dates outside it are shown dimmed). */
  month: string | null;
  prev: string;
  next: string;
  title: string;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
export const WEEKDAY_SHORT = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

function monthStart(date: string): string {
  return `${date.slice(0, 7)}-01`;
}

function addMonths(date: string, n: number): string {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7)) - 1 + n;
  const yy = y + Math.floor(m / 12);
  const mm = ((m % 12) + 12) % 12;
  return `${String(yy).padStart(4, "0")}-${String(mm + 1).padStart(2, "0")}-01`;
}

/** "Thursday 26 November 2026" */
export function longDate(date: string): string {
  const day = dayNumber(date)!;
  return `${WEEKDAYS[weekdayOfDay(day)]} ${Number(date.slice(8, 10))} ${MONTHS[Number(date.slice(5, 7)) - 1]} ${date.slice(0, 4)}`;
}

/** The grid of a view around a date: a month as whole Sunday–Saturday weeks, a week, or a day. */
export function calendarGrid(view: CalendarView, date: string): CalendarGrid {
  const day = dayNumber(date);
  if (day === null) throw new Error(`Not a date: ${date}`);
  if (view === "day") return { view, date, from: date, to: date, weeks: [[date]], month: null, prev: addDays(date, -1), next: addDays(date, 1), title: longDate(date) };
  if (view === "week") {
    const end = weekEndingOn(date);
    const start = weekStartOf(end);
    const days = Array.from({ length: 7 }, (_, i) => addDays(start, i));
    return { view, date, from: start, to: end, weeks: [days], month: null, prev: addDays(date, -7), next: addDays(date, 7), title: `Week of ${longDate(start)}` };
  }
  const first = monthStart(date);
  const last = addDays(addMonths(first, 1), -1);
  const from = weekStartOf(weekEndingOn(first));
  const to = weekEndingOn(last);
  const weeks: string[][] = [];
  for (let d = from; d <= to; d = addDays(d, 7)) weeks.push(Array.from({ length: 7 }, (_, i) => addDays(d, i)));
  return { view, date, from, to, weeks, month: first.slice(0, 7), prev: addMonths(first, -1), next: addMonths(first, 1), title: `${MONTHS[Number(first.slice(5, 7)) - 1]} ${first.slice(0, 4)}` };
}

/** The zones furthest behind (UTC−12) and ahead (UTC+14) of UTC: between them lies "today" anywhere on earth. */
const EARLIEST_ZONE = "Etc/GMT+12";
const LATEST_ZONE = "Pacific/Kiritimati";

/**
 * The dates that hold the grid of "today" at any location, whatever its time zone (the calendar with a location
 * chosen and no date: the range is read before the location's zone is known, then cut to its grid, decision 037).
 * Today is one of at most three dates anywhere (UTC−12 to UTC+14), so this is the grid of the earliest one to the grid of the latest.
 */
export function calendarTodayWindow(view: CalendarView, now: Date): { from: string; to: string } {
  return { from: calendarGrid(view, todayIn(now, EARLIEST_ZONE)).from, to: calendarGrid(view, todayIn(now, LATEST_ZONE)).to };
}

/** The calendar's filters (a GET form): view, date, location, provider, client; bad values are 400 field errors. */
const idFilter = FilterId;
export const CalendarQuery = v.object({
  view: v.optional(v.union([v.literal(""), v.picklist(CALENDAR_VIEWS, "Choose month, week or day.")], "Choose month, week or day."), ""),
  date: v.optional(v.union([v.literal(""), v.pipe(v.string(), v.check(isProductDate, "Enter a valid date (YYYY-MM-DD)."))], "Enter a valid date (YYYY-MM-DD)."), ""),
  location_id: idFilter,
  provider_id: idFilter,
  patient_id: idFilter,
});
export type CalendarQuery = v.InferOutput<typeof CalendarQuery>;

/** The most dates a range query covers, both ends counted (decision 037: `GET ?from&to` ≤ 62 days). */
export const RANGE_MAX_DAYS = 62;

/** The API's range query: from..to at most RANGE_MAX_DAYS dates, both ends counted, with the same filters. */
export const RangeQuery = v.pipe(
  v.object({
    from: requiredDate("From"),
    to: requiredDate("To"),
    location_id: idFilter,
    provider_id: idFilter,
    patient_id: idFilter,
    per_day: v.optional(v.union([v.literal(""), v.pipe(v.string(), v.regex(/^\d{1,3}$/, "per_day takes a whole number from 1 to 500."), v.transform(Number), v.minValue(1, "per_day takes a whole number from 1 to 500."), v.maxValue(500, "per_day takes a whole number from 1 to 500."))], "per_day takes a whole number from 1 to 500."), ""),
  }),
  v.forward(
    v.check((q) => q.to >= q.from, "The end date must be on or after the start date."),
    ["to"],
  ),
  v.forward(
    // Counted inclusively: 1 Dec to 1 Feb is 63 dates and is refused.
    v.check((q) => q.to < q.from || dayNumber(q.to)! - dayNumber(q.from)! + 1 <= RANGE_MAX_DAYS, `A range covers at most ${RANGE_MAX_DAYS} days.`),
    ["to"],
  ),
);
export type RangeQuery = v.InferOutput<typeof RangeQuery>;

/**
 * "Write the note" from a scheduled session: the note form of its CPT (97153 → RBT, else BCBA) with client,
 * date, times, CPT, provider and PA service filled in, and the session's id so the saved note marks it written.
 */
export function writeNoteHref(s: { id: number; patient_id: number; provider_id: number; session_date: string; time_in: string; time_out: string; cpt_code: string; pa_service_id: number | null }): string {
  const type = NOTE_CPT_CODES.rbt.includes(s.cpt_code) ? "rbt" : "bcba";
  const p = new URLSearchParams({
    patient_id: String(s.patient_id),
    session_date: s.session_date,
    time_in: s.time_in,
    time_out: s.time_out,
    cpt_code: s.cpt_code,
    provider_id: String(s.provider_id),
    scheduled_id: String(s.id),
  });
  if (s.pa_service_id !== null) p.set("pa_service_id", String(s.pa_service_id));
  return `/note-${type}?${p}`;
}

/**
 * Whether a scheduled session's note can be written yet (probe 8924 §3): once the session has ended in `time_zone`,
 * by the rule the note's save applies (sessionEndRefusal). Pass the zone the save checks it in, the client's current
 * location's, not the booking's (probe 8925 §3). Null when it can be written now, else the sentence saying when:
 * today, at its time out; on a later day, that day and time.
 */
export function noteNotYetWritable(s: { session_date: string; time_in: string; time_out: string; time_zone: string }, now: Date): string | null {
  const timed = occurrenceTimes(s.session_date, s.time_in, s.time_out, s.time_zone);
  // Only whether it refuses counts here, not its message (so no place is named).
  if (!timed.ok || !sessionEndRefusal(timed.times, now, s.time_zone, "")) return null;
  return s.session_date === todayIn(now, s.time_zone) ? SCHEDULE_MESSAGES.noteOnceEnded(s.time_out) : SCHEDULE_MESSAGES.noteOnceEndedOn(longDate(s.session_date), s.time_out);
}
