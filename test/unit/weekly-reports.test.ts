import { describe, expect, it } from "vitest";
import { parseWith } from "~/domain/validation";
import {
  CHART_COMMENT_NOTICES,
  chartWindow,
  ChartCommentInput,
  ChartCommentUpdate,
  IMPORT_MAX_ROWS,
  IMPORT_MESSAGES,
  importReason,
  noticeTitle,
  notSavedText,
  sheetToReports,
  usDate,
  WEEKLY_REPORT_MESSAGES,
  WEEKLY_REPORT_NOTICES,
  parseWeeklyListFilters,
  WeeklyReportInput,
  WeeklyReportUpdate,
  weeklyDataDateRefusal,
  weeklyDataRange,
} from "~/domain/weekly-reports";
import { isoToExcelSerial, type SheetRow } from "~/domain/xlsx";

const W = WEEKLY_REPORT_NOTICES;
const C = CHART_COMMENT_NOTICES;
const M = WEEKLY_REPORT_MESSAGES;

describe("WeeklyReportInput", () => {
  it.each([
    // week ending: a Saturday, else the spec's message (impossible dates and other shapes too)
    ["2026-01-10", "2026-01-04", null],
    ["2024-02-24", "2024-02-18", null],
    ["2026-01-03", "2025-12-28", null], // the week runs across a year end
    ["2026-01-06", null, W.saturday.text], // a Tuesday
    ["2026-01-11", null, W.saturday.text], // a Sunday
    ["2026-01-09", null, W.saturday.text], // a Friday
    ["2026-02-30", null, W.saturday.text],
    ["2026-13-07", null, W.saturday.text],
    ["01/10/2026", null, W.saturday.text],
    ["not a date", null, W.saturday.text],
    ["3000-01-04", null, "Enter a valid date (YYYY-MM-DD)."], // a Saturday past the product's last year (probe 8895, stop 25)
    ["9999-12-25", null, "Enter a valid date (YYYY-MM-DD)."],
    ["", null, W.missing.text],
    ["   ", null, W.missing.text],
  ])("week_end %j → week_start %j, error %j", (weekEnd, weekStart, error) => {
    const r = parseWith(WeeklyReportInput, { week_end: weekEnd, value: "3" });
    if (error === null) {
      expect(r).toEqual({ ok: true, data: { week_end: weekEnd, week_start: weekStart, value: 3, total_units: null } });
    } else {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors.week_end).toBe(error);
    }
  });

  it("needs week_end and value: a missing one is 'Required Fields Missing'", () => {
    expect(parseWith(WeeklyReportInput, {})).toEqual({ ok: false, errors: { week_end: W.missing.text, value: W.missing.text } });
    expect(parseWith(WeeklyReportInput, { week_end: "2026-01-10", value: null })).toEqual({ ok: false, errors: { value: W.missing.text } });
    expect(noticeTitle(W.missing.text)).toBe("Required Fields Missing");
    expect(noticeTitle(W.saturday.text)).toBe("Invalid Date Selection");
    // An Update that changes nothing is no failure (decision 017, stop 45).
    expect(noticeTitle("Nothing to change.")).toBe("No Changes");
  });

  it.each([
    [{ value: "0" }, { value: 0, total_units: null }],
    [{ value: 0 }, { value: 0, total_units: null }],
    [{ value: "2.5" }, { value: 2.5, total_units: null }],
    [{ value: " 7 " }, { value: 7, total_units: null }],
    [{ value: 12, total_units: "" }, { value: 12, total_units: null }],
    [{ value: 12, total_units: null }, { value: 12, total_units: null }],
    [{ value: 12, total_units: undefined }, { value: 12, total_units: null }],
    [{ value: 12, total_units: "0" }, { value: 12, total_units: 0 }],
    [{ value: 12, total_units: 80 }, { value: 12, total_units: 80 }],
    [{ value: 12, total_units: "33.5" }, { value: 12, total_units: 33.5 }],
  ])("accepts %j", (input, out) => {
    const r = parseWith(WeeklyReportInput, { week_end: "2026-01-10", ...input });
    expect(r.ok && { value: r.data.value, total_units: r.data.total_units }).toEqual(out);
  });

  it.each([
    [{ value: "-1" }, "value", M.valueMin],
    [{ value: -0.5 }, "value", M.valueMin],
    [{ value: "abc" }, "value", M.valueNumber],
    [{ value: "1e999" }, "value", M.valueNumber],
    [{ value: true }, "value", M.valueNumber],
    [{ value: "" }, "value", W.missing.text],
    [{ value: 3, total_units: "-4" }, "total_units", M.totalUnitsMin],
    [{ value: 3, total_units: "four" }, "total_units", M.totalUnitsNumber],
    [{ value: 3, week_start: "2026-01-03" }, "week_start", M.weekStart],
    [{ value: 3, week_start: "2026-01-05" }, "week_start", M.weekStart],
  ])("refuses %j on %s", (input, field, message) => {
    const r = parseWith(WeeklyReportInput, { week_end: "2026-01-10", ...input });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[field]).toBe(message);
  });

  // Text in a number field must be a plain decimal: Number() alone reads "0x10" as 16 and "1e2" as 100 (probe 8883 #5).
  it.each([
    ["7", 7],
    [" 7 ", 7],
    ["2.5", 2.5],
    [".5", 0.5],
    ["5.", 5],
    ["+3", 3],
    ["007", 7],
    ["0x10", M.valueNumber],
    ["0X1a", M.valueNumber],
    ["0b11", M.valueNumber],
    ["0o7", M.valueNumber],
    ["1e2", M.valueNumber],
    ["1E-2", M.valueNumber],
    ["1e309", M.valueNumber],
    ["Infinity", M.valueNumber],
    ["-Infinity", M.valueNumber],
    ["NaN", M.valueNumber],
    ["1,000", M.valueNumber],
    ["1 000", M.valueNumber],
    ["1..2", M.valueNumber],
    [".", M.valueNumber],
    ["-", M.valueNumber],
    ["٣", M.valueNumber], // Arabic-Indic digit
    ["-1", M.valueMin], // a negative is a number, refused by its range
    ["-0.5", M.valueMin],
    ["", W.missing.text],
    ["  ", W.missing.text],
    [12, 12], // a JSON number stays accepted
    [1e2, 100],
    [Number.POSITIVE_INFINITY, M.valueNumber],
    [Number.NaN, M.valueNumber],
  ])("value %j → %j", (value, out) => {
    const r = parseWith(WeeklyReportInput, { week_end: "2026-01-10", value });
    if (typeof out === "number") expect(r.ok && r.data.value).toBe(out);
    else expect(r).toEqual({ ok: false, errors: { value: out } });
  });

  it.each([
    ["8", 8],
    [" 33.5 ", 33.5],
    ["", null],
    ["   ", null],
    ["0x10", M.totalUnitsNumber],
    ["1e2", M.totalUnitsNumber],
    ["Infinity", M.totalUnitsNumber],
    ["-4", M.totalUnitsMin],
    [80, 80],
    [Number.POSITIVE_INFINITY, M.totalUnitsNumber],
  ])("total_units %j → %j (in a new report and an update alike)", (total_units, out) => {
    for (const schema of [WeeklyReportInput, WeeklyReportUpdate]) {
      const r = parseWith(schema, { week_end: "2026-01-10", value: 1, total_units });
      if (typeof out === "string") expect(r).toEqual({ ok: false, errors: { total_units: out } });
      else expect(r.ok && r.data.total_units).toBe(out);
    }
  });

  it("accepts a week_start that agrees with week_end", () => {
    expect(parseWith(WeeklyReportInput, { week_end: "2026-01-10", week_start: "2026-01-04", value: 1 }).ok).toBe(true);
  });
});

describe("WeeklyReportUpdate", () => {
  it.each([
    [{ value: "4" }, { value: 4, total_units: null }],
    [{ value: "0", total_units: "8" }, { value: 0, total_units: 8 }],
    [{ value: "" }, W.missing.text],
    [{}, W.missing.text],
    [{ value: "-2" }, M.valueMin],
  ])("%j → %j", (input, out) => {
    const r = parseWith(WeeklyReportUpdate, input);
    if (typeof out === "string") expect(r).toEqual({ ok: false, errors: { value: out } });
    else expect(r).toEqual({ ok: true, data: out });
  });
});

describe("chart comments", () => {
  const fifty = "x".repeat(50);
  const fiftyOne = "x".repeat(51);
  it.each([
    ["2026-01-07", "New medication", { comment_date: "2026-01-07", comment: "New medication" }],
    ["2026-01-07", `  ${fifty}  `, { comment_date: "2026-01-07", comment: fifty }], // 50 after trimming
    ["2026-01-07", fifty, { comment_date: "2026-01-07", comment: fifty }],
    ["2026-01-07", "\u200bOK", { comment_date: "2026-01-07", comment: "\u200bOK" }], // one visible character is enough
  ])("accepts %s %j", (date, comment, out) => {
    expect(parseWith(ChartCommentInput, { comment_date: date, comment })).toEqual({ ok: true, data: out });
    expect(parseWith(ChartCommentUpdate, { comment_date: date, comment })).toEqual({ ok: true, data: out });
  });

  it.each([
    [{}, { comment_date: C.missing.text, comment: C.missing.text }],
    [{ comment_date: "", comment: "   " }, { comment_date: C.missing.text, comment: C.missing.text }],
    [{ comment: "Sick week" }, { comment_date: C.dateRequired.text }],
    [{ comment_date: "2026-01-07" }, { comment: C.commentRequired.text }],
    [{ comment_date: "2026-01-07", comment: "   " }, { comment: C.commentRequired.text }],
    [{ comment_date: "2026-01-07", comment: fiftyOne }, { comment: C.invalid.text }],
    [{ comment_date: "2026-02-30", comment: "ok" }, { comment_date: C.invalid.text }],
    [{ comment_date: "01/07/2026", comment: "ok" }, { comment_date: C.invalid.text }],
    [{ comment: fiftyOne }, { comment_date: C.dateRequired.text, comment: C.invalid.text }],
    [{ comment_date: "2026-01-07", comment: 12 }, { comment: C.invalid.text }],
    // Text with no visible character is no comment (a blank marker on the chart otherwise).
    [{ comment_date: "2026-01-07", comment: "\u200b" }, { comment: C.commentRequired.text }],
    [{ comment_date: "2026-01-07", comment: " \u200b\u200c\u200d\u2060 " }, { comment: C.commentRequired.text }],
    [{ comment_date: "2026-01-07", comment: "\u00a0\u00a0" }, { comment: C.commentRequired.text }],
    [{ comment_date: "2026-01-07", comment: "\u00ad\ufeff\u202f\u3000" }, { comment: C.commentRequired.text }],
    [{ comment_date: "2026-01-07", comment: "\u3164\u2800" }, { comment: C.commentRequired.text }],
    [{ comment_date: "", comment: "\u200b" }, { comment_date: C.missing.text, comment: C.missing.text }],
  ])("a new comment %j is refused with %j", (input, errors) => {
    expect(parseWith(ChartCommentInput, input)).toEqual({ ok: false, errors });
  });

  it.each([
    [{}, { comment_date: C.invalid.text, comment: C.invalid.text }],
    [{ comment_date: "2026-01-07", comment: "" }, { comment: C.invalid.text }],
    [{ comment_date: "", comment: "ok" }, { comment_date: C.invalid.text }],
    [{ comment_date: "2026-01-07", comment: fiftyOne }, { comment: C.invalid.text }],
    // A number is not text: it was stored as its JavaScript text ("Infinity" for 1e309, probe 8913).
    [{ comment_date: "2026-01-07", comment: Infinity }, { comment: C.invalid.text }],
    [{ comment_date: "2026-01-07", comment: 9007199254740993 }, { comment: C.invalid.text }],
    [{ comment_date: "2026-01-07", comment: ["ok"] }, { comment: C.invalid.text }],
    [{ comment_date: "2026-01-07", comment: "\u200b" }, { comment: C.invalid.text }],
    [{ comment_date: "2026-01-07", comment: "\u00a0\u2060" }, { comment: C.invalid.text }],
  ])("a changed row %j is 'Invalid Comment' %j", (input, errors) => {
    expect(parseWith(ChartCommentUpdate, input)).toEqual({ ok: false, errors });
  });

  it("titles and success texts are the spec's", () => {
    expect([C.missing, C.dateRequired, C.commentRequired, C.invalid].map((n) => [noticeTitle(n.text), n.text])).toEqual([
      ["Required Fields Missing", "You must select a date and enter a comment (max 50 characters)."],
      ["Comment Date Required", "Please select a comment date before saving."],
      ["Comment Required", "Please enter a comment before saving."],
      ["Invalid Comment", "Please provide a valid date and comment (max 50 characters)."],
    ]);
    expect([C.added.text, C.updated.text, C.deleted.text]).toEqual(["Comment added successfully", "Comment updated successfully", "Comment deleted successfully"]);
    expect([W.added.title, W.deleted.title, W.updated.text]).toEqual(["Add Weekly Report", "Delete Weekly Report", "Value updated successfully"]);
    expect(noticeTitle("Something the server said.")).toBe("Error");
  });
});

describe("list filters", () => {
  it.each([
    [{ plan_id: "4" }, { plan_id: 4, bip_id: "", date_start: "", date_end: "" }],
    [{ bip_id: 9, date_from: "2026-01-01", date_to: "2026-03-31" }, { plan_id: "", bip_id: 9, date_start: "2026-01-01", date_end: "2026-03-31" }],
    [{ plan_id: "4", date_start: "2026-01-01", date_from: "2026-01-01" }, { plan_id: 4, bip_id: "", date_start: "2026-01-01", date_end: "" }],
  ])("%j", (raw, out) => {
    expect(parseWeeklyListFilters(raw)).toEqual({ ok: true, data: out });
  });

  it.each([
    [{}, "plan_id", "plan_id or bip_id is required."],
    [{ plan_id: "x" }, "plan_id", "Filters take a record id."],
    [{ plan_id: "0" }, "plan_id", "Filters take a record id."],
    [{ plan_id: "1", date_start: "2026-02-30" }, "date_start", "Dates must be real dates like 2026-01-31."],
    [{ plan_id: "4", date_start: "2026-01-01", date_from: "2020-01-01" }, "date_start", "Give date_start once (date_from is the same filter)."],
    [{ plan_id: "4", date_end: "2026-01-01", date_to: "2020-01-01" }, "date_end", "Give date_end once (date_to is the same filter)."],
    [{ plan_id: "1", date_start: "2026-03-01", date_end: "2026-01-01" }, "date_end", "date_end must be on or after date_start."],
  ])("%j is refused on %s", (raw, field, message) => {
    const r = parseWeeklyListFilters(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[field]).toBe(message);
  });
});

describe("sheetToReports", () => {
  const rows = (...cells: SheetRow["cells"][]): SheetRow[] => cells.map((c, i) => ({ row: i + 1, cells: c }));

  it("reads serial and text dates, values and total units, and says why a row is refused", () => {
    const r = sheetToReports(
      rows(
        ["Week Ending", "Value", "Total Units"],
        [isoToExcelSerial("2026-01-10"), 4, 80],
        ["2026-01-17", "5", null],
        ["01/24/2026", 0, ""],
        ["01/27/2026", 3, 10], // a Tuesday
        ["2026-01-31", -1],
        ["2026-02-07", null],
        ["2026-01-17", 9], // the same week again
        ["soon", 1],
        [null, 1],
      ),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.rows.map((x) => [x.row, x.week_end, x.value, x.total_units, importReason(x)])).toEqual([
      [2, "2026-01-10", 4, 80, null],
      [3, "2026-01-17", 5, null, null],
      [4, "2026-01-24", 0, null, null],
      [5, "2026-01-27", null, null, W.saturday.text],
      [6, "2026-01-31", null, null, M.valueMin],
      [7, "2026-02-07", null, null, W.missing.text],
      [8, "2026-01-17", 9, null, IMPORT_MESSAGES.repeated(3)],
      [9, null, null, null, W.saturday.text],
      [10, null, null, null, W.missing.text],
    ]);
    expect(r.rows[0]!.raw).toEqual({ week_end: "2026-01-10", value: "4", total_units: "80" });
    expect(r.rows[7]!.raw.week_end).toBe("soon");
  });

  it("finds the columns by their header, in any order, case and spacing ignored; Total Units may be left out", () => {
    const r = sheetToReports(rows(["value", " WEEK   ENDING "], [2, "2026-01-10"]));
    expect(r.ok && r.rows.map((x) => [x.week_end, x.value, x.total_units])).toEqual([["2026-01-10", 2, null]]);
    const aliases = sheetToReports(rows(["week_end", "Value", "total_units"], ["2026-01-10", 2, 8]));
    expect(aliases.ok && aliases.rows[0]!.total_units).toBe(8);
  });

  // Decision 009: case, spaces, `-` and `_` ignored (probe 8883 #4: "Week_Ending" was refused).
  it.each([
    ["Week Ending", "Value", "Total Units"],
    ["Week_Ending", "Value", "Total_Units"],
    ["week-ending", "VALUE", "total-units"],
    [" WEEK ENDING ", " Value ", " TOTAL UNITS "],
    ["WeekEnding", "value", "TotalUnits"],
    ["week_end", "Value", "total_units"],
    ["Week-End", "Value", "Units"],
    ["Week_Ending_Date", "Value", "Total__Units"],
    ["Date", "_Value_", "total units"],
    ["week\tending", "Value", "Total\u00a0Units"],
  ])("reads the header %j | %j | %j", (week, value, units) => {
    const r = sheetToReports(rows([week, value, units], ["2026-01-10", 2, 8]));
    expect(r.ok && r.rows.map((x) => [x.week_end, x.value, x.total_units, importReason(x)])).toEqual([["2026-01-10", 2, 8, null]]);
  });

  it.each([["Week.Ending"], ["Weekending1"], ["Week/Ending"]])("still refuses a header that is another word: %j", (week) => {
    expect(sheetToReports(rows([week, "Value"], ["2026-01-10", 2]))).toEqual({ ok: false, message: IMPORT_MESSAGES.noHeader });
  });

  // A column named twice: reading the first and dropping the other lost the second column's data without a word.
  it.each([
    [["Value", "Week Ending", "Value"], IMPORT_MESSAGES.repeatedColumn("Value", [{ letter: "A", text: "Value" }, { letter: "C", text: "Value" }])],
    [["Week Ending", "Value", "Week End"], IMPORT_MESSAGES.repeatedColumn("Week Ending", [{ letter: "A", text: "Week Ending" }, { letter: "C", text: "Week End" }])],
    [["Date", "Value", "week_ending"], IMPORT_MESSAGES.repeatedColumn("Week Ending", [{ letter: "A", text: "Date" }, { letter: "C", text: "week_ending" }])],
    [["Week Ending", "Value", "Total Units", "Units"], IMPORT_MESSAGES.repeatedColumn("Total Units", [{ letter: "C", text: "Total Units" }, { letter: "D", text: "Units" }])],
    [["Week Ending", "VALUE", null, " value "], IMPORT_MESSAGES.repeatedColumn("Value", [{ letter: "B", text: "VALUE" }, { letter: "D", text: "value" }])],
  ] as [SheetRow["cells"], string][])("refuses the header %j, naming the repeated column", (header, message) => {
    expect(sheetToReports(rows(header, ["2026-11-28", 1, 9, 4]))).toEqual({ ok: false, message });
  });

  it("words the repeated-column message for the user", () => {
    expect(IMPORT_MESSAGES.repeatedColumn("Value", [{ letter: "A", text: "Value" }, { letter: "C", text: "Value" }])).toBe(
      'The header names Value more than once (column A "Value", column C "Value"). Keep one Value column and upload the file again.',
    );
  });

  it("refuses text number cells that are not plain decimals, as a form would", () => {
    const r = sheetToReports(rows(["Week Ending", "Value", "Total Units"], ["2026-07-11", "0x10", null], ["2026-07-04", " 7 ", "1e2"], ["2026-06-27", " 7 ", " 12.5 "]));
    expect(r.ok && r.rows.map((x) => [x.value, x.total_units, importReason(x)])).toEqual([
      [null, null, M.valueNumber],
      [null, null, M.totalUnitsNumber],
      [7, 12.5, null],
    ]);
  });

  it("reads 1904-system serial dates", () => {
    const r = sheetToReports(rows(["Week Ending", "Value"], [isoToExcelSerial("2026-01-10") - 1462, 1]), true);
    expect(r.ok && r.rows[0]!.week_end).toBe("2026-01-10");
  });

  const refused: [SheetRow["cells"][], string][] = [
    [[], IMPORT_MESSAGES.noHeader],
    [[["Date of week", "Amount"]], IMPORT_MESSAGES.noHeader],
    [[["Week Ending"], ["2026-01-10"]], IMPORT_MESSAGES.noHeader],
    [[["Week Ending", "Value", "Total Units"]], IMPORT_MESSAGES.noRows],
  ];
  it.each(refused)("refuses a sheet without a header or rows: %j", (cells, message) => {
    expect(sheetToReports(rows(...cells))).toEqual({ ok: false, message });
  });

  it(`takes at most ${IMPORT_MAX_ROWS} rows`, () => {
    const body = Array.from({ length: IMPORT_MAX_ROWS }, () => ["2026-01-10", 1] as SheetRow["cells"]);
    expect(sheetToReports(rows(["Week Ending", "Value"], ...body)).ok).toBe(true);
    expect(sheetToReports(rows(["Week Ending", "Value"], ...body, ["2026-01-17", 1]))).toEqual({ ok: false, message: IMPORT_MESSAGES.tooManyRows });
  });
});

describe("usDate", () => {
  it.each([
    ["2026-01-10", "01/10/2026"],
    ["oops", "oops"],
  ])("%s → %s", (iso, us) => expect(usDate(iso)).toBe(us));
});

describe("chartWindow", () => {
  it.each([
    [{}, { from: null, to: null, error: null }],
    [{ from: "", to: " " }, { from: null, to: null, error: null }],
    [{ from: "2026-01-01" }, { from: "2026-01-01", to: null, error: null }],
    [{ from: "2026-01-01", to: "2026-01-01" }, { from: "2026-01-01", to: "2026-01-01", error: null }],
    [{ from: "2026-03-01", to: "2026-01-01" }, { from: null, to: null, error: "To must be on or after From." }],
    [{ to: "2026-02-30" }, { from: null, to: null, error: "Dates must be real dates like 2026-01-31." }],
  ])("%j → %j", (params, out) => expect(chartWindow(params)).toEqual(out));
});

describe("the dates weekly data may carry (decision 009, probe 8904 #2)", () => {
  // today 2026-11-27 is a Friday: the current week ends on Saturday 2026-11-28; ten years back is 2016-11-27.
  it.each([
    ["2026-11-27", { earliest: "2016-11-27", latest: "2026-11-28" }],
    ["2026-11-28", { earliest: "2016-11-28", latest: "2026-11-28" }],
    ["2026-11-29", { earliest: "2016-11-29", latest: "2026-12-05" }],
    ["2024-02-29", { earliest: "2014-02-28", latest: "2024-03-02" }],
  ])("on %s: %j", (today, range) => {
    expect(weeklyDataRange(today)).toEqual(range);
  });

  it.each([
    ["report", "2026-11-28", null],
    ["report", "2026-12-05", M.weekAfterCurrent("2026-11-28")],
    ["report", "2027-06-05", M.weekAfterCurrent("2026-11-28")],
    ["report", "2016-12-03", null],
    ["report", "2016-11-26", M.weekTooOld("2016-12-03")],
    ["report", "1999-01-02", M.weekTooOld("2016-12-03")],
    ["comment", "2026-11-28", null],
    ["comment", "2026-11-29", M.commentAfterCurrent("2026-11-28")],
    ["comment", "2028-11-20", M.commentAfterCurrent("2026-11-28")],
    ["comment", "2016-11-27", null],
    ["comment", "2016-11-26", M.commentTooOld("2016-11-27")],
  ] as const)("%s dated %s on 2026-11-27 → %s", (what, date, message) => {
    expect(weeklyDataDateRefusal(what, date, "2026-11-27")).toBe(message);
  });

  it("says which week is the latest and which the earliest, in the screens' date format", () => {
    expect(M.weekAfterCurrent("2026-11-28")).toContain("11/28/2026");
    expect(M.weekTooOld("2016-12-03")).toContain("10 years");
  });

  it("a week too old is told the first Saturday a report can end on, not the Sunday ten years back (probe 8952 #7)", () => {
    expect(weeklyDataDateRefusal("report", "2016-11-26", "2026-11-27")).toBe("That week is more than 10 years ago. The earliest week a report can record ends on 12/03/2016 or later.");
    // Ten years back on a Saturday: that Saturday itself.
    expect(weeklyDataDateRefusal("report", "2016-11-26", "2026-12-03")).toContain("ends on 12/03/2016 or later.");
  });
});

describe("notSavedText (a stale row save, probe 8952 #6)", () => {
  it.each([
    // [typed value, stored value, typed total units, stored total units, text]
    ["9", 8, "", null, "Not saved: 9"],
    [" 9 ", 8, undefined, null, "Not saved: 9"],
    ["9", 8, "40", 12, "Not saved: 9, total units 40"],
    ["8", 8, "40", 12, "Not saved: total units 40"],
    ["8", 8, "", 12, "Not saved: total units empty"],
    ["8", 8, "12", 12, null], // what was typed is what is stored: nothing was lost
    ["8", 8, undefined, null, null],
  ])("value %j over %j, total units %j over %j → %j", (value, storedValue, units, storedUnits, text) => {
    expect(notSavedText([{ typed: value, stored: storedValue }, { typed: units, stored: storedUnits, name: "total units" }])).toBe(text);
  });
});
