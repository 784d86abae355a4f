import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { BillingListQuery, defaultPeriod, filterNames, LIST_PERIOD, noteTypesOf, periodInput, REPORT_PERIOD, ReportQuery, reportQueryInput, savedFields, saveInputOf, SavePayload, totalsWeek } from "~/domain/client-reports";

/** Billing by client's rules (decision 030): the save payload, the week of the totals, filters. */

const save = (raw: Record<string, unknown>) => saveInputOf(v.parse(SavePayload, raw));

describe("the save payload names one note and takes that role's fields", () => {
  it.each([
    ["an RBT note: md, md2, billed, pay", { note_rbt_id: 5, md: "hm", md2: "XP", billed: true, pay: "true" }, { noteId: 5, role: "rbt", sent: { md: "HM", md2: "XP", billed: true, pay: true } }],
    ["a BCBA note: mdbcba, md2bcba, billedbcba, paybcba", { note_bcba_id: "7", mdbcba: "HO", billedbcba: "on", md: "HM" }, { noteId: 7, role: "bcba", sent: { md: "HO", billed: true } }],
    ["note_id with the BCBA fields", { note_id: 9, mdbcba: "GT" }, { noteId: 9, role: "bcba", sent: { md: "GT" } }],
    ["note_id with a BCBA flag sent false", { note_id: 9, billedbcba: false }, { noteId: 9, role: "bcba", sent: { billed: false } }],
    ["note_id alone: the RBT names", { note_id: 9, md: "TS" }, { noteId: 9, role: "rbt", sent: { md: "TS" } }],
    // Whichever id names the note, the names sent are read (decision 030, stop 35; probe 8984 M1).
    ["note_bcba_id with the RBT names", { note_bcba_id: 9, md: "XE", md2: "GT", billed: true, pay: false }, { noteId: 9, role: "rbt", sent: { md: "XE", md2: "GT", billed: true, pay: false } }],
    ["note_rbt_id with the BCBA names", { note_rbt_id: 9, mdbcba: "HO", billedbcba: true }, { noteId: 9, role: "bcba", sent: { md: "HO", billed: true } }],
    ["note_rbt_id with both sets: the RBT names", { note_rbt_id: 9, md: "HM", mdbcba: null, billed: true, billedbcba: false }, { noteId: 9, role: "rbt", sent: { md: "HM", billed: true } }],
    ["note_id with both sets: the BCBA names", { note_id: 9, md: "HM", mdbcba: "HO" }, { noteId: 9, role: "bcba", sent: { md: "HO" } }],
    ["note_bcba_id with no field: its role", { note_bcba_id: 9, pa_number: "PA-1" }, { noteId: 9, role: "bcba", sent: { paNumber: "PA-1" } }],
    ["versions as text", { note_id: 1, version: "3", note_version: "4" }, { version: 3, noteVersion: 4 }],
    ["an empty NPI, PA number and modifier are none", { note_id: 1, npi: "", pa_number: "  ", md: "" }, { sent: { npi: null, paNumber: null, md: null } }],
    ["null NPI, PA number and modifier are none", { note_id: 1, npi: null, pa_number: null, md2: null }, { sent: { npi: null, paNumber: null, md2: null } }],
    ["a form's unticked box (blank) is false", { note_id: 1, billed: "", pay: "" }, { sent: { billed: false, pay: false } }],
  ])("%s", (_l, raw, expected) => {
    const r = save(raw);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.input).toMatchObject(expected);
  });

  it("a field the body leaves out is not sent (it keeps the stored value)", () => {
    const r = save({ note_id: 1, pa_number: "PA-49" });
    expect(r.ok && r.input.sent).toEqual({ paNumber: "PA-49" });
  });

  it.each([
    ["no note", {}, "note_id"],
    ["two notes", { note_rbt_id: 1, note_bcba_id: 2 }, "note_id"],
    ["a zero id", { note_id: 0 }, "note_id"],
  ])("%s is refused on %s", (_l, raw, field) => {
    const r = save(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(Object.keys(r.errors)).toEqual([field]);
  });

  it.each([
    ["an unknown modifier", { note_id: 1, md: "ZZ" }],
    ["an NPI of 9 digits", { note_id: 1, npi: "123456789" }],
    ["a PA number over 50 characters", { note_id: 1, pa_number: "x".repeat(51) }],
    ["a control character", { note_id: 1, pa_number: "A\u0007" }],
  ])("%s does not parse", (_l, raw) => {
    expect(v.safeParse(SavePayload, raw).success).toBe(false);
  });
});

describe("a save keeps what the body leaves out (absent is not cleared)", () => {
  const stored = { md: "HM", md2: null, billed: true, pay: true, paNumber: "PA-1", npi: "1234567890" };
  const fields = (raw: Record<string, unknown>, from = stored) => {
    const r = save(raw);
    if (!r.ok) throw new Error("does not parse");
    return savedFields(r.input, from);
  };

  it.each([
    ["only the PA number: the modifiers, billed and pay stay", { note_id: 1, pa_number: "PA-49" }, { ...stored, paNumber: "PA-49" }],
    ["nothing but the note: all stay", { note_id: 1 }, stored],
    ["md cleared, md2 set: the flags stay", { note_id: 1, md: null, md2: "XP" }, { ...stored, md: null, md2: "XP" }],
    ["billed and pay cleared together", { note_id: 1, billed: false, pay: false }, { ...stored, billed: false, pay: false }],
    ["pay cleared alone: still billed", { note_id: 1, pay: false }, { ...stored, pay: false }],
    ["a BCBA field name", { note_bcba_id: 1, md2bcba: "HO" }, { ...stored, md2: "HO" }],
  ])("%s", (_l, raw, expected) => {
    expect(fields(raw)).toEqual({ ok: true, fields: expected });
  });

  it.each([
    ["pay sent on an unbilled note", { note_rbt_id: 1, pay: true }, { ...stored, billed: false, pay: false }, "pay"],
    ["pay sent with billed false", { note_rbt_id: 1, pay: true, billed: false }, stored, "pay"],
    ["a BCBA pay without billed", { note_bcba_id: 1, paybcba: true }, { ...stored, billed: false, pay: false }, "paybcba"],
    ["billed cleared on a paid note, pay not sent", { note_rbt_id: 1, billed: false }, stored, "billed"],
  ])("%s is refused on %s's field", (_l, raw, from, field) => {
    const r = fields(raw, from);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toEqual({ [field]: "A note is paid only after it is billed." });
  });
});

describe("Week Total: the Sunday–Saturday week that ends the filtered period", () => {
  it.each([
    ["the To date's week", "2026-03-05", "2026-01-01", { start: "2026-03-01", end: "2026-03-07" }],
    ["else the latest note's week", "", "2026-03-10", { start: "2026-03-08", end: "2026-03-14" }],
    ["a Saturday ends its own week", "2026-03-14", null, { start: "2026-03-08", end: "2026-03-14" }],
    ["a Sunday starts one", "", "2026-03-08", { start: "2026-03-08", end: "2026-03-14" }],
    ["a week across a year", "", "2026-01-01", { start: "2025-12-28", end: "2026-01-03" }],
    ["no note, no To: none", "", null, null],
  ])("%s", (_l, to, latest, expected) => {
    expect(totalsWeek(to, latest)).toEqual(expected);
  });
});

describe("filters", () => {
  it.each([
    ["", ["rbt", "bcba", "combined"]],
    ["rbt", ["rbt"]],
    ["bcba", ["bcba", "combined"]],
  ] as const)("note type %j keeps %j", (filter, types) => {
    expect(noteTypesOf(filter)).toEqual(types);
  });

  it.each([
    ["All", ""],
    ["all", ""],
    ["ALL", ""],
    ["", ""],
    ["Rbt", "rbt"],
    ["RBT", "rbt"],
    ["rbt", "rbt"],
    ["Bcba", "bcba"],
    [" bCbA ", "bcba"],
  ])("noteType %j is the filter %j (All is no filter)", (noteType, filter) => {
    expect(v.parse(ReportQuery, { noteType }).noteType).toBe(filter);
  });

  it.each(["Combined", "parent", "allx", "Rbts"])("noteType %j is refused with the choices", (noteType) => {
    const r = v.safeParse(ReportQuery, { noteType });
    expect(r.success).toBe(false);
    if (!r.success) expect(r.issues[0].message).toBe("Choose All, Rbt or Bcba.");
  });

  it("the screen's type is the API's noteType; the period's names are kept for periodInput", () => {
    expect(reportQueryInput({ from: "2026-01-01", to: "2026-01-31", type: "rbt", page: "2", flash: "x" })).toEqual({ page: "2", from: "2026-01-01", to: "2026-01-31", noteType: "rbt" });
    expect(periodInput(reportQueryInput({ from: "2026-01-01", to: "2026-01-31" }), REPORT_PERIOD).input).toEqual({ date_start: "2026-01-01", date_end: "2026-01-31" });
  });

  // Every client_report call takes the three pairs of names as the same period (probe 8912).
  const S = "2026-11-15";
  const E = "2026-11-21";
  it.each([
    ["date_start/date_end", { date_start: S, date_end: E }],
    ["date_from/date_to", { date_from: S, date_to: E }],
    ["from/to", { from: S, to: E }],
    ["mixed names", { date_from: S, to: E }],
    ["the same value under two names", { date_start: S, from: S, date_to: E, date_end: E }],
    ["an empty name beside a given one", { date_start: "", date_from: S, to: "", date_end: E }],
  ])("%s: the same period under each call's own names", (_what, raw) => {
    expect(periodInput({ page: "2", ...raw }, REPORT_PERIOD)).toEqual({ input: { page: "2", date_start: S, date_end: E }, errors: null });
    expect(periodInput({ page: "2", ...raw }, LIST_PERIOD)).toEqual({ input: { page: "2", date_from: S, date_to: E }, errors: null });
  });

  it.each([
    ["two starts", { date_start: S, date_from: "2026-11-16" }, { date_start: "Give the start of the period once." }, { date_from: "Give the start of the period once." }],
    ["two ends", { date_to: E, to: "2026-11-22" }, { date_end: "Give the end of the period once." }, { date_to: "Give the end of the period once." }],
    ["both, three names each", { date_start: S, date_from: S, from: "2026-11-01", date_end: E, date_to: "2026-11-30", to: E }, { date_start: "Give the start of the period once.", date_end: "Give the end of the period once." }, { date_from: "Give the start of the period once.", date_to: "Give the end of the period once." }],
  ])("%s with different values: an error on the call's field, none picked", (_what, raw, reportErrors, listErrors) => {
    expect(periodInput(raw, REPORT_PERIOD).errors).toEqual(reportErrors);
    expect(periodInput(raw, LIST_PERIOD).errors).toEqual(listErrors);
  });

  it("no period, or only empty names: no filter", () => {
    expect(periodInput({ noteType: "rbt" }, REPORT_PERIOD)).toEqual({ input: { noteType: "rbt" }, errors: null });
    expect(periodInput({ from: "", date_to: "" }, REPORT_PERIOD)).toEqual({ input: { date_start: "", date_end: "" }, errors: null });
  });

  it.each([
    [{}, true],
    [{ date_start: "2026-02-01", date_end: "2026-01-01" }, false],
    [{ noteType: "RBT" }, true],
    [{ noteType: "parent" }, false],
    [{ sort: "charges" }, false],
    [{ sort: "units", dir: "desc" }, true],
    [{ page: "0" }, false],
  ])("report query %j parses: %s", (raw, okay) => {
    expect(v.safeParse(ReportQuery, raw).success).toBe(okay);
  });

  it.each([
    [{ status: "billed", location_id: "3" }, true],
    [{ status: "sent" }, false],
    [{ location_id: "x" }, false],
    [{ date_from: "2026-03-01", date_to: "2026-02-01" }, false],
  ])("billing list query %j parses: %s", (raw, okay) => {
    expect(v.safeParse(BillingListQuery, raw).success).toBe(okay);
  });

  it.each([
    ["2026-02-14", { from: "2026-02-01", to: "2026-02-28" }],
    ["2028-02-01", { from: "2028-02-01", to: "2028-02-29" }],
    ["2026-12-31", { from: "2026-12-01", to: "2026-12-31" }],
  ])("the default period of %s is its month", (today, period) => {
    expect(defaultPeriod(today)).toEqual(period);
  });
});

describe("every name a filter goes by (a refused one is left out under all of them; decision 030, stop 37)", () => {
  it.each([
    ["from", ["date_start", "date_from", "from"]],
    ["date_from", ["date_start", "date_from", "from"]],
    ["date_start", ["date_start", "date_from", "from"]],
    ["to", ["date_end", "date_to", "to"]],
    ["date_to", ["date_end", "date_to", "to"]],
    ["date_end", ["date_end", "date_to", "to"]],
    ["status", ["status"]],
    ["provider_id", ["provider_id"]],
  ])("%s", (key, names) => {
    expect([...filterNames(key)]).toEqual(names);
  });
});
