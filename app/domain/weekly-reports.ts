import { MOVE_MESSAGES } from "./references";
import * as v from "valibot";
import { NOTES_WEEKLY_FLASH, NOTES_WEEKLY_TITLE } from "./notes-weekly";
import { isProductDate, isSaturday, weekEndingOn, weekStartOf } from "./weeks";
import { MAX_PDF_MONTHS, monthsBefore } from "./plan-pdf";
import { hasVisibleText, MESSAGES } from "./fields";
import { cellToIsoDate, MAX_UNZIPPED_BYTES, type Cell, type SheetRow } from "./xlsx";
import { isDecimalText, isOneLine, isPlainText, MAX_AMOUNT, parseWith, type Parsed } from "./validation";
import { FILTER_ID_MESSAGE, givenOnceMessage } from "./list-filters";
import { DATE_MESSAGE, IsoDate } from "./paging";
import { roundMeasure } from "./measure";
import { NOTHING_CHANGED_NOTICE } from "./audit-changes";

/**
 * Weekly reports and chart comments (clinical §3, §5, §8, §9): the rules and the messages, once, for the
 * API, the goal screen's forms and the .xlsx import. Pure.
 */

/** A notice as the spec words it: a title and a text. */
export interface Notice {
  title: string;
  text: string;
}

export const WEEKLY_REPORT_NOTICES = {
  missing: { title: "Required Fields Missing", text: "You must fill out all required fields before proceeding." },
  saturday: { title: "Invalid Date Selection", text: "Please select a Saturday for the weekly report date." },
  added: { title: "Add Weekly Report", text: "Weekly report added successfully" },
  updated: { title: "Update Weekly Report", text: "Value updated successfully" },
  deleted: { title: "Delete Weekly Report", text: "Weekly report deleted successfully" },
  confirmDelete: { title: "Are you sure you want to delete this weekly report", text: "This action cannot be undone." },
} as const satisfies Record<string, Notice>;

export const CHART_COMMENT_NOTICES = {
  missing: { title: "Required Fields Missing", text: "You must select a date and enter a comment (max 50 characters)." },
  dateRequired: { title: "Comment Date Required", text: "Please select a comment date before saving." },
  commentRequired: { title: "Comment Required", text: "Please enter a comment before saving." },
  invalid: { title: "Invalid Comment", text: "Please provide a valid date and comment (max 50 characters)." },
  added: { title: "Add Comment", text: "Comment added successfully" },
  updated: { title: "Update Comment", text: "Comment updated successfully" },
  deleted: { title: "Delete Comment", text: "Comment deleted successfully" },
  confirmDelete: { title: "Are you sure you want to delete this comment?", text: "This action cannot be undone." },
} as const satisfies Record<string, Notice>;

/** Texts of rules the spec does not word. */
export const WEEKLY_REPORT_MESSAGES = {
  valueNumber: "Value must be a number.",
  valueMin: "Value must be 0 or more.",
  totalUnitsNumber: "Total units must be a number.",
  totalUnitsMin: "Total units must be 0 or more.",
  weekStart: "week_start must be six days before week_end (the Sunday of that week).",
  weekEndReadOnly: "The week of a weekly report cannot be changed: delete it and add the other week.",
  planReadOnly: MOVE_MESSAGES.reportGoal,
  duplicate: (weekEnd: string) => `A weekly report for the week ending ${usDate(weekEnd)} already exists. Change its value in the Update Weekly Reports table instead.`,
  weekAfterCurrent: (latest: string) => `That week has not started yet. The latest week a report can record is the current one, ending ${usDate(latest)}.`,
  weekTooOld: (firstWeekEnd: string) => `That week is more than ${MAX_PDF_MONTHS / 12} years ago. The earliest week a report can record ends on ${usDate(firstWeekEnd)} or later.`,
  commentAfterCurrent: (latest: string) => `A comment can be dated no later than the end of the current week (${usDate(latest)}).`,
  commentTooOld: (earliest: string) => `A comment can be dated no earlier than ${usDate(earliest)} (${MAX_PDF_MONTHS / 12} years back).`,
} as const;

/**
 * A row of the Update tables after a stale save (409, decision 009) shows the stored values again, with the version
 * they carry; its error names what was typed and not saved ("Not saved: 9"), so the user sees both and re-enters a
 * value to overwrite. Each part is a field as typed and as stored, named unless it is the row's main value; null when
 * everything typed is what is stored (nothing was lost).
 */
export function notSavedText(parts: readonly { typed: unknown; stored: unknown; name?: string }[]): string | null {
  const shown = (x: unknown) => (x === null || x === undefined ? "" : String(x).trim());
  const lost = parts.filter((p) => shown(p.typed) !== shown(p.stored)).map((p) => `${p.name ? `${p.name} ` : ""}${shown(p.typed) || "empty"}`);
  return lost.length ? `Not saved: ${lost.join(", ")}` : null;
}

/**
 * The dates weekly data may carry on `today` (the client's location's date, todayIn): from ten years back — the
 * longest window a PDF shows (MAX_PDF_MONTHS, decision 017) — through the Saturday that ends the current week (the
 * product's Sunday–Saturday week). A mistyped year is refused instead of driving the goal's figures (decision 009).
 * `latest` also bounds what counts as data already there: the goal screen's "latest vs target" badge and the
 * attention screen's stale check leave out weeks after it (rows stored before this rule); the PDFs' window ends on
 * it (pdfWindow).
 */
export function weeklyDataRange(today: string): { earliest: string; latest: string } {
  return { earliest: monthsBefore(today, MAX_PDF_MONTHS), latest: weekEndingOn(today) };
}

/**
 * The window of weekly data and comments a PDF shows (the plan PDF's charts and Monitoring table, a goal's
 * weekly-report and chart-comment PDFs): the last `months` months before `today` (the client's location's date)
 * through the Saturday that ends the current week — weeklyDataRange's `latest`, the last week a report may be
 * entered for — so the current week's report, which the goal screen charts, is in the PDF too (decision 009, stop 32).
 */
export function pdfWindow(today: string, months: number): { from: string; to: string } {
  return { from: monthsBefore(today, months), to: weeklyDataRange(today).latest };
}

/** Why a weekly report's week_end or a chart comment's comment_date is out of weeklyDataRange, or null. */
export function weeklyDataDateRefusal(what: "report" | "comment", date: string, today: string): string | null {
  const { earliest, latest } = weeklyDataRange(today);
  const M = WEEKLY_REPORT_MESSAGES;
  if (date > latest) return what === "report" ? M.weekAfterCurrent(latest) : M.commentAfterCurrent(latest);
  // A report's week is named by its Saturday: the first one on or after `earliest` (a comment may fall on any day).
  if (date < earliest) return what === "report" ? M.weekTooOld(weekEndingOn(earliest)) : M.commentTooOld(earliest);
  return null;
}

/** The goal and objective dates goalDateErrors bounds, with their form labels. */
export const GOAL_DATE_LABELS = { baseline_date: "Baseline date", initial_date: "Initial date", end_date: "End date" } as const;
export type GoalDateField = keyof typeof GOAL_DATE_LABELS;

export const GOAL_DATE_MESSAGES = {
  tooOld: (label: string, earliest: string) => `${label} can be no earlier than ${usDate(earliest)} (${MAX_PDF_MONTHS / 12} years back).`,
  afterCurrent: (label: string, latest: string) => `${label} can be no later than the end of the current week (${usDate(latest)}).`,
  tooFar: (label: string, latest: string) => `${label} can be no later than ${usDate(latest)} (${MAX_PDF_MONTHS / 12} years ahead).`,
} as const;

/**
 * A goal's baseline date and an objective's initial and end dates drive the goal's chart and summary as weekly data
 * does (decision 008: the x range reaches objective end dates), so a mistyped year is refused the same way (decision
 * 009, 2026-11-28 stop 42): none earlier than weeklyDataRange's `earliest` (ten years back); a baseline, a
 * measurement, none after its `latest` (the current week's end); an objective's dates, which look ahead to a target,
 * none more than ten years after `today` (the client's location's date). Only a date the save sets is checked
 * (`stored`: the record's values, null for a new one): a date stored before this rule stays while other fields change.
 */
export function goalDateErrors(input: Partial<Record<GoalDateField, unknown>>, today: string, stored: Partial<Record<GoalDateField, unknown>> | null = null): Record<string, string> {
  const { earliest, latest } = weeklyDataRange(today);
  const ahead = monthsBefore(today, -MAX_PDF_MONTHS);
  const errors: Record<string, string> = {};
  for (const field of Object.keys(GOAL_DATE_LABELS) as GoalDateField[]) {
    const date = input[field];
    if (typeof date !== "string" || !date || (stored && stored[field] === date)) continue;
    const label = GOAL_DATE_LABELS[field];
    if (date < earliest) errors[field] = GOAL_DATE_MESSAGES.tooOld(label, earliest);
    else if (field === "baseline_date" && date > latest) errors[field] = GOAL_DATE_MESSAGES.afterCurrent(label, latest);
    else if (date > ahead) errors[field] = GOAL_DATE_MESSAGES.tooFar(label, ahead);
  }
  return errors;
}

export const COMMENT_MAX_LENGTH = 50;
/** 4 units = 1 hour (clinical §9). */
export const UNITS_NOTE = "4 units = 1 hour";
/** Page size of the editors, and the most the API list gives at once (clinical §7, §9). */
export const EDITOR_PER_PAGE = 500;
export const API_MAX_PER_PAGE = 2500;

/** An editor's page from the address (`reports_page`, `comments_page`): a whole number from 1, else null (the first page). */
export function editorPageParam(raw: string | null): number | null {
  const text = raw?.trim() ?? "";
  return /^[1-9]\d{0,6}$/.test(text) ? Number(text) : null;
}

/**
 * An Update of a report or a comment that leaves it as stored: nothing is written (decision 017, stop 45). Not a
 * failure, so not under 'Error'; the same flash for both, so neither's 'Update …' title.
 */
export const UNCHANGED_NOTICE: Notice = { title: "No Changes", text: NOTHING_CHANGED_NOTICE };

const TITLES = new Map<string, string>([...Object.values(WEEKLY_REPORT_NOTICES), ...Object.values(CHART_COMMENT_NOTICES), UNCHANGED_NOTICE].map((n) => [n.text, n.title]));

/** The spec's title for a message text; 'Error' for any other (clinical §8: failures show in a dialog titled 'Error'). */
export function noticeTitle(text: string): string {
  if (NOTES_WEEKLY_FLASH.test(text)) return NOTES_WEEKLY_TITLE;
  return TITLES.get(text) ?? "Error";
}

/** yyyy-mm-dd → mm/dd/yyyy (how the screens show week endings). */
export function usDate(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return m ? `${m[2]}/${m[3]}/${m[1]}` : iso;
}

/* ------------------------------------------------------------------ weekly reports */

const blank = (x: unknown) => x === undefined || x === null || (typeof x === "string" && x.trim() === "");
const MISSING = WEEKLY_REPORT_NOTICES.missing.text;

/** A required number ≥ 0 from a form string (plain decimal text, isDecimalText) or a JSON number. */
function requiredMeasure(numberMessage: string, minMessage: string) {
  return v.pipe(
    v.optional(v.unknown(), ""),
    v.check((x) => !blank(x), MISSING),
    v.check((x) => blank(x) || typeof x === "number" || (typeof x === "string" && isDecimalText(x)), numberMessage),
    v.transform((x) => (typeof x === "number" ? x : Number(String(x).trim()))),
    v.check((n) => Number.isFinite(n), numberMessage),
    v.minValue(0, minMessage),
    v.maxValue(MAX_AMOUNT, MEASURE_TOO_LARGE),
    // Stored to 2 decimals on every write path (app/domain/measure.ts, decision 029).
    v.transform((n) => roundMeasure(n)),
  );
}

/** An optional number ≥ 0: empty, null or left out is null (clinical §5). */
function optionalMeasure(numberMessage: string, minMessage: string) {
  return v.pipe(
    v.optional(v.unknown(), ""),
    v.check((x) => blank(x) || typeof x === "number" || (typeof x === "string" && isDecimalText(x)), numberMessage),
    v.transform((x): number | null => (blank(x) ? null : typeof x === "number" ? x : Number(String(x).trim()))),
    v.check((n) => n === null || Number.isFinite(n), numberMessage),
    v.check((n) => n === null || n >= 0, minMessage),
    v.check((n) => n === null || n <= MAX_AMOUNT, MEASURE_TOO_LARGE),
    v.transform((n) => roundMeasure(n)),
  );
}

/** No week has a million incidents, minutes or units: a bigger number is a typing slip. */
const MEASURE_TOO_LARGE = `Values are at most ${MAX_AMOUNT.toLocaleString("en-US")}.`;

/** A week ending: required, a real date, a Saturday. */
const WeekEnd = v.pipe(
  v.optional(v.unknown(), ""),
  v.check((x) => !blank(x), MISSING),
  v.check((x) => typeof x === "string" && isSaturday(x.trim()), WEEKLY_REPORT_NOTICES.saturday.text),
  // A product date (1900–2999, decision 017): a week in the year 3000 stretched the goal's chart to 11 MB (probe 8895, stop 25).
  v.check((x) => isProductDate(String(x).trim()), MESSAGES.date),
  v.transform((x) => String(x).trim()),
);

const Value = requiredMeasure(WEEKLY_REPORT_MESSAGES.valueNumber, WEEKLY_REPORT_MESSAGES.valueMin);
const TotalUnits = optionalMeasure(WEEKLY_REPORT_MESSAGES.totalUnitsNumber, WEEKLY_REPORT_MESSAGES.totalUnitsMin);

/**
 * A new weekly report (plan_id is resolved by the model first). week_start is computed from week_end;
 * a client that sends one that disagrees is told so.
 */
export const WeeklyReportInput = v.pipe(
  v.object({
    week_end: WeekEnd,
    week_start: v.optional(v.unknown()),
    value: Value,
    total_units: TotalUnits,
  }),
  v.forward(
    v.check((x) => blank(x.week_start) || (typeof x.week_start === "string" && x.week_start.trim() === weekStartOf(x.week_end)), WEEKLY_REPORT_MESSAGES.weekStart),
    ["week_start"],
  ),
  v.transform((x) => ({ week_end: x.week_end, week_start: weekStartOf(x.week_end), value: x.value, total_units: x.total_units })),
);
export type WeeklyReportInput = v.InferOutput<typeof WeeklyReportInput>;

/** A change from the Update Weekly Reports table: the value (and total units); the week stays. */
export const WeeklyReportUpdate = v.object({
  value: Value,
  total_units: TotalUnits,
});
export type WeeklyReportUpdate = v.InferOutput<typeof WeeklyReportUpdate>;

/* ------------------------------------------------------------------ chart comments */

/**
 * Text as sent, trimmed; a missing key or null is "" (not given). Any other kind is refused as 'Invalid Comment':
 * a number was stored as its JavaScript text ("Infinity" for 1e309, probe 8913).
 */
const trimmed = v.pipe(
  v.optional(v.nullable(v.string(CHART_COMMENT_NOTICES.invalid.text)), ""),
  v.transform((x) => (x ?? "").trim()),
);

type CommentFields = { comment_date: string; comment: string };

/**
 * What is wrong with a chart comment, field by field, in the order the messages are shown. A new
 * comment gets the spec's message for what is missing; a changed row that is not valid gets 'Invalid
 * Comment' (clinical §5). The text is trimmed first; at most 50 characters remain, and text with no visible
 * character (`hasVisibleText`) counts as none.
 */
export function commentProblems(x: CommentFields, mode: "create" | "update"): [keyof CommentFields, string][] {
  const C = CHART_COMMENT_NOTICES;
  const out: [keyof CommentFields, string][] = [];
  // Text with no visible character (a zero-width space, no-break spaces) is no comment: it would show as a blank marker.
  const given = hasVisibleText(x.comment);
  if (mode === "create" && !x.comment_date && !given) return [["comment_date", C.missing.text], ["comment", C.missing.text]];
  if (mode === "create" && !x.comment_date) out.push(["comment_date", C.dateRequired.text]);
  else if (!isProductDate(x.comment_date)) out.push(["comment_date", C.invalid.text]);
  if (mode === "create" && !given) out.push(["comment", C.commentRequired.text]);
  else if (!given || x.comment.length > COMMENT_MAX_LENGTH || !isPlainText(x.comment) || !isOneLine(x.comment)) out.push(["comment", C.invalid.text]);
  return out;
}

export function chartCommentSchema(mode: "create" | "update") {
  return v.pipe(
    v.object({ comment_date: trimmed, comment: trimmed }),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const x = dataset.value;
      for (const [key, message] of commentProblems(x, mode)) addIssue({ message, path: [{ type: "object", origin: "value", input: x, key, value: x[key] }] });
    }),
  );
}

export const ChartCommentInput = chartCommentSchema("create");
export const ChartCommentUpdate = chartCommentSchema("update");
export type ChartCommentInput = v.InferOutput<typeof ChartCommentInput>;

/* ------------------------------------------------------------------ list filters */

const Id = v.pipe(v.string(), v.regex(/^\d{1,15}$/, FILTER_ID_MESSAGE), v.transform(Number), v.minValue(1, FILTER_ID_MESSAGE));

/** plan_id or bip_id (one is required), date_start/date_end (date_from/date_to are the same filters: weeklyListFilters). */
export const WeeklyListFilters = v.pipe(
  v.object({
    plan_id: v.optional(v.union([v.literal(""), Id], FILTER_ID_MESSAGE), ""),
    bip_id: v.optional(v.union([v.literal(""), Id], FILTER_ID_MESSAGE), ""),
    date_start: v.optional(v.union([v.literal(""), IsoDate], DATE_MESSAGE), ""),
    date_end: v.optional(v.union([v.literal(""), IsoDate], DATE_MESSAGE), ""),
  }),
  v.forward(
    v.check((q) => q.plan_id !== "" || q.bip_id !== "", "plan_id or bip_id is required."),
    ["plan_id"],
  ),
  v.forward(
    v.check((q) => !q.date_start || !q.date_end || q.date_start <= q.date_end, "date_end must be on or after date_start."),
    ["date_end"],
  ),
);
export type WeeklyListFilters = v.InferOutput<typeof WeeklyListFilters>;

/** The two names of each date filter: C §7's, then the generic v2 list's (P §7). */
const DATE_NAMES = { date_start: "date_from", date_end: "date_to" } as const;

/** The filters as WeeklyListFilters reads them, each date under either of its names. */
export function weeklyListFilters(raw: Record<string, unknown>) {
  const pick = (a: string, b?: string) => {
    const x = raw[a] ?? (b ? raw[b] : undefined);
    return typeof x === "number" ? String(x) : typeof x === "string" ? x.trim() : "";
  };
  return { plan_id: pick("plan_id"), bip_id: pick("bip_id"), date_start: pick("date_start", "date_from"), date_end: pick("date_end", "date_to") };
}

/**
 * The weekly list's filters, parsed. A date given under both its names with two different values (`date_start` and
 * `date_from`) is refused at the C §7 name, as a parameter given twice is: the list never picks one of two silently.
 */
export function parseWeeklyListFilters(raw: Record<string, unknown>): Parsed<WeeklyListFilters> {
  const text = (x: unknown) => (typeof x === "number" ? String(x) : typeof x === "string" ? x.trim() : "");
  const errors: Record<string, string> = {};
  for (const [name, alias] of Object.entries(DATE_NAMES)) {
    const a = text(raw[name]);
    const b = text(raw[alias]);
    if (a !== "" && b !== "" && a !== b) errors[name] = givenOnceMessage(name, alias);
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return parseWith(WeeklyListFilters, weeklyListFilters(raw));
}

/* ------------------------------------------------------------------ .xlsx import */

/**
 * The import sheet (docs/decisions/009): the first worksheet, a header row with Week Ending and Value
 * (Total Units optional, any order, case, spaces, `-` and `_` ignored), one row per week below it; one plan per
 * upload, chosen on the screen (plan_id). Empty rows are skipped.
 */
export const IMPORT_MAX_BYTES = 1024 * 1024;
export const IMPORT_MAX_ROWS = 1000;

export const IMPORT_MESSAGES = {
  noFile: "Choose an .xlsx file to upload (field 'file').",
  notXlsx: "The file is not an .xlsx workbook. Save the sheet as Excel Workbook (.xlsx) and upload it again.",
  tooLarge: `The file is larger than ${IMPORT_MAX_BYTES / 1024 / 1024} MB. Split it into smaller files.`,
  /** A small file whose zip parts unpack past the reader's limits (a zip bomb): the upload size is not the problem. */
  contentsTooLarge: `The file's contents are too large to read once unpacked (the import reads at most ${MAX_UNZIPPED_BYTES / 1024 / 1024} MB per part). Split it into smaller files.`,
  tooManyRows: `The sheet has more than ${IMPORT_MAX_ROWS} weeks. Split it into smaller files.`,
  noHeader: "The first row must be the header: Week Ending | Value | Total Units.",
  noRows: "The sheet has no weeks below the header.",
  /** The header names one column twice (the same name, or two names of it): which one to read is not ours to guess. */
  repeatedColumn: (column: string, cells: readonly { letter: string; text: string }[]) =>
    `The header names ${column} more than once (${cells.map((c) => `column ${c.letter} "${c.text}"`).join(", ")}). Keep one ${column} column and upload the file again.`,
  repeated: (row: number) => `The same week is already on row ${row} of this file.`,
} as const;

/** Headers as headerKey leaves them: "Week_Ending", "week-ending" and " WEEK ENDING " are all "weekending". */
const HEADERS: Record<"week_end" | "value" | "total_units", readonly string[]> = {
  week_end: ["weekending", "weekend", "weekendingdate", "date"],
  value: ["value"],
  total_units: ["totalunits", "units"],
};

/** How the messages name each column. */
const COLUMN_NAMES: Record<keyof typeof HEADERS, string> = { week_end: "Week Ending", value: "Value", total_units: "Total Units" };

/** 0 → "A", 25 → "Z", 26 → "AA" (a column as the spreadsheet shows it). */
function columnLetter(index: number): string {
  let out = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) out = String.fromCharCode(65 + ((n - 1) % 26)) + out;
  return out;
}

/** Case, spaces, `-` and `_` ignored (decision 009). */
const headerKey = (cell: Cell) => (typeof cell === "string" ? cell.toLowerCase().replace(/[\s_-]+/g, "") : "");

/** A row of the check: imported, refused, replacing a stored week, or the same as the stored week (nothing to write). */
export type ImportStatus = "valid" | "invalid" | "overwrite" | "unchanged";

export interface ImportRow {
  /** The sheet's row number. */
  row: number;
  week_end: string | null;
  value: number | null;
  total_units: number | null;
  /** What the sheet held, for the result table. */
  raw: { week_end: string; value: string; total_units: string };
  errors: Record<string, string>;
}

const shown = (c: Cell | undefined) => (c === null || c === undefined ? "" : String(c));

/**
 * The sheet's rows checked against the weekly report rules (the same schema as a form or the API).
 * Dates may be Excel serial numbers or text in yyyy-mm-dd or mm/dd/yyyy.
 */
export function sheetToReports(rows: readonly SheetRow[], date1904 = false): { ok: true; rows: ImportRow[] } | { ok: false; message: string } {
  const header = rows[0];
  if (!header) return { ok: false, message: IMPORT_MESSAGES.noHeader };
  const keys = header.cells.map(headerKey);
  const at = { week_end: -1, value: -1, total_units: -1 };
  for (const k of Object.keys(HEADERS) as (keyof typeof HEADERS)[]) {
    const found = keys.flatMap((h, i) => (HEADERS[k].includes(h) ? [i] : []));
    // A column named twice (or by two of its names) is refused: reading one and dropping the other loses data silently.
    if (found.length > 1) return { ok: false, message: IMPORT_MESSAGES.repeatedColumn(COLUMN_NAMES[k], found.map((i) => ({ letter: columnLetter(i), text: shown(header.cells[i]).trim() }))) };
    at[k] = found[0] ?? -1;
  }
  if (at.week_end < 0 || at.value < 0) return { ok: false, message: IMPORT_MESSAGES.noHeader };
  const body = rows.slice(1);
  if (body.length === 0) return { ok: false, message: IMPORT_MESSAGES.noRows };
  if (body.length > IMPORT_MAX_ROWS) return { ok: false, message: IMPORT_MESSAGES.tooManyRows };

  const firstRowOfWeek = new Map<string, number>();
  return {
    ok: true,
    rows: body.map((r) => {
      const cell = (i: number) => (i < 0 ? null : (r.cells[i] ?? null));
      const dateCell = cell(at.week_end);
      const iso = cellToIsoDate(dateCell, date1904);
      const raw = { week_end: iso ?? shown(dateCell), value: shown(cell(at.value)), total_units: shown(cell(at.total_units)) };
      const parsed = v.safeParse(WeeklyReportInput, { week_end: iso ?? (dateCell === null ? "" : "not a date"), value: cell(at.value), total_units: cell(at.total_units) });
      const errors: Record<string, string> = {};
      if (!parsed.success) for (const issue of parsed.issues) errors[String(issue.path?.[0]?.key ?? "form")] ??= issue.message;
      const out: ImportRow = {
        row: r.row,
        week_end: parsed.success ? parsed.output.week_end : iso,
        value: parsed.success ? parsed.output.value : null,
        total_units: parsed.success ? parsed.output.total_units : null,
        raw,
        errors,
      };
      if (parsed.success) {
        const first = firstRowOfWeek.get(parsed.output.week_end);
        if (first !== undefined) out.errors = { week_end: IMPORT_MESSAGES.repeated(first) };
        else firstRowOfWeek.set(parsed.output.week_end, r.row);
      }
      return out;
    }),
  };
}

/** The row's first reason, for the result table. */
export function importReason(row: Pick<ImportRow, "errors">): string | null {
  return Object.values(row.errors)[0] ?? null;
}

/* ------------------------------------------------------------------ chart window */

/**
 * The From/To window of the goal screen's GET form. A bad date or a To before From is ignored (the
 * whole history is shown) and explained.
 */
export function chartWindow(params: { from?: string | null; to?: string | null }): { from: string | null; to: string | null; error: string | null } {
  const from = params.from?.trim() || null;
  const to = params.to?.trim() || null;
  if ((from && !isProductDate(from)) || (to && !isProductDate(to))) return { from: null, to: null, error: DATE_MESSAGE };
  if (from && to && from > to) return { from: null, to: null, error: "To must be on or after From." };
  return { from, to, error: null };
}
