import { Form } from "@remix-run/react";
import { formatMeasure } from "~/domain/measure";
import { Link } from "~/components/ui/link";
import type { ReactNode } from "react";
import { Field } from "~/components/ui/field";
import { CHART_COMMENT_NOTICES, COMMENT_MAX_LENGTH, notSavedText, UNITS_NOTE, usDate, WEEKLY_REPORT_NOTICES } from "~/domain/weekly-reports";
import type { EditorComment, EditorPage, EditorReport } from "~/models/charts.server";
import type { FormAnswer } from "~/services/forms.server";
import { Notice } from "./notice";
import { DataTable, type Column } from "~/components/ui/data-list";
import { Pagination } from "~/components/ui/list";

/**
 * The four blocks of the weekly chart's edit mode (clinical §2): Add Weekly Report, Update Weekly
 * Reports, Add Comment, Update Comments. Plain forms told apart by `intent`; each works without
 * JavaScript. A row's inputs belong to its form through the `form` attribute (a form cannot wrap a
 * table row). Bad input comes back in `answer` with the typed values; a stale save, with the stored ones.
 */
type Answer = FormAnswer | null | undefined;

const text = (x: unknown) => (x === null || x === undefined ? "" : String(x));

/** The answer when it belongs to this form (intent and, for a row, its id). */
export function answerFor(answer: Answer, intent: string, idField?: string, id?: number): FormAnswer | null {
  if (!answer || answer.values.intent !== intent) return null;
  if (idField && Number(answer.values[idField]) !== id) return null;
  return answer;
}

/**
 * A row's message. After a stale save (409) the row shows the stored values with their new version (a second click
 * does not overwrite the other save unseen), and the message adds what was typed and not saved.
 */
function withNotSaved(a: FormAnswer | null, notSaved: string | null): string | null | undefined {
  return a?.current && notSaved ? `${a.message} ${notSaved}` : a?.message;
}

/** A row is drawn anew when it is saved or its answer changes, so its inputs show the values that came back. */
const rowKey = ({ r, a }: { r: { id: number; version: number }; a: FormAnswer | null }) => `${r.id}:${r.version}:${JSON.stringify(a?.values ?? null)}`;

/** One of the four blocks, a region named by its heading. */
function Block({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="weekly-block">
      <h3 id={id}>{title}</h3>
      {children}
    </section>
  );
}

/**
 * An editor's pager (decision 009, stop 32): 'Showing x to y of n entries' and the page links, above the table so
 * the count is seen first; shown when there is more than one page. Page 1 holds the newest rows.
 */
function EditorPager({ page, param, label, what }: { page: EditorPage; param: string; label: string; what: string }) {
  if (page.last_page <= 1 && page.page <= 1) return null;
  return (
    <>
      <p className="hint">{`Page 1 holds the newest ${what}; each page lists its ${what} oldest first.`}</p>
      <Pagination page={page} param={param} label={label} />
    </>
  );
}

/** The add button; while the post is on its way it reads the spec's progress message (public/enhance.js). */
function SaveButton({ label, busy }: { label: string; busy: boolean }) {
  return (
    <div className="form-actions">
      <button className="btn btn-primary" type="submit" disabled={busy} data-pending="Please wait while your changes are being saved">
        {label}
      </button>
    </div>
  );
}

/** A row's Update form (its inputs join it through `form`), its Delete link (to the confirm step) and its message. */
function RowActions(p: { formId: string; intent: string; idField: string; row: { id: number; version: number }; what: string; deleteHref: string; message: string | null | undefined; busy: boolean }) {
  return (
    <>
      <Form method="post" id={p.formId} className="inline-form" noValidate>
        <input type="hidden" name="intent" value={p.intent} />
        <input type="hidden" name={p.idField} value={p.row.id} />
        <input type="hidden" name="version" value={p.row.version} />
        <button className="btn btn-small" type="submit" disabled={p.busy} aria-label={`Update ${p.what}`} data-row-update="">
          Update
        </button>
      </Form>{" "}
      <Link className="link-button" to={p.deleteHref} aria-label={`Delete ${p.what}`}>
        Delete
      </Link>
      <Notice text={p.message} tone="danger" />
    </>
  );
}

/**
 * The Add Weekly Report form. A week that already has a report (409) is told at the date, with a link to its row
 * (`rowHref`: the editor's page that holds it).
 */
export function AddReportForm({ answer, busy, rowHref }: { answer: Answer; busy: boolean; rowHref: (report: { id: number; week_end: string }) => string }) {
  const a = answerFor(answer, "add-report");
  const errors = a?.errors ?? {};
  const stored = a?.current as { id: number; week_end: string } | undefined;
  const weekError = errors.week_end ?? (stored ? (a?.message ?? undefined) : undefined);
  // The spec clears the date after 'Invalid Date Selection' (clinical §5); the other values stay.
  const weekValue = errors.week_end === WEEKLY_REPORT_NOTICES.saturday.text ? "" : text(a?.values.week_end);
  return (
    <Block id="add-weekly-report" title="Add Weekly Report">
      <Notice text={a?.message} tone="danger" />
      {stored ? (
        <p>
          <Link to={rowHref(stored)}>{`Go to the week ending ${usDate(stored.week_end)} in the Update Weekly Reports table`}</Link>
        </p>
      ) : null}
      <Form method="post" key={JSON.stringify(a?.values ?? null)} className="form-grid" noValidate>
        <input type="hidden" name="intent" value="add-report" />
        <Field
          id="f-week_end"
          label="Date"
          name="week_end"
          type="date"
          defaultValue={weekValue}
          error={weekError}
          hint="The Saturday that ends the week."
          // With JavaScript the same Saturday rule is told before the form is sent (public/enhance.js).
          data-saturday-title={WEEKLY_REPORT_NOTICES.saturday.title}
          data-saturday-text={WEEKLY_REPORT_NOTICES.saturday.text}
        />
        <Field id="f-value" label="Value" name="value" type="number" min={0} step="any" defaultValue={text(a?.values.value)} error={errors.value} />
        <Field id="f-total_units" label="Total Units" name="total_units" type="number" min={0} step="any" defaultValue={text(a?.values.total_units)} error={errors.total_units} hint={UNITS_NOTE} />
        <SaveButton label="Add" busy={busy} />
      </Form>
    </Block>
  );
}

export function ReportsTable({ reports, page, answer, busy, deleteHref }: { reports: EditorReport[]; page: EditorPage; answer: Answer; busy: boolean; deleteHref: (id: number) => string }) {
  const rows = reports.map((r) => {
    const a = answerFor(answer, "update-report", "report_id", r.id) ?? answerFor(answer, "delete-report", "report_id", r.id);
    const typed = a?.values.intent === "update-report" ? a.values : null;
    // Stored values as every screen shows them (formatMeasure, decision 029): an untouched Update sends them back and writes nothing.
    const stored = { value: formatMeasure(r.value), total_units: formatMeasure(r.total_units) };
    const values = typed && !a!.current ? typed : stored;
    const message = withNotSaved(a, typed && notSavedText([{ typed: typed.value, stored: stored.value }, { typed: typed.total_units, stored: stored.total_units, name: "total units" }]));
    return { r, a, values, message, formId: `report-${r.id}`, week: usDate(r.week_end) };
  });
  const columns: Column<(typeof rows)[number]>[] = [
    { header: "Week Ending", cell: ({ week }) => week },
    {
      header: "Value",
      cell: ({ a, values, formId, week }) => (
        <>
          <label className="visually-hidden" htmlFor={`${formId}-value`}>
            Value for the week ending {week}
          </label>
          <input id={`${formId}-value`} form={formId} name="value" type="number" min={0} step="any" required defaultValue={text(values.value)} aria-invalid={a?.errors.value ? true : undefined} />
        </>
      ),
    },
    {
      header: "Total Units",
      cell: ({ a, values, formId, week }) => (
        <>
          <label className="visually-hidden" htmlFor={`${formId}-total_units`}>
            Total units for the week ending {week}
          </label>
          <input id={`${formId}-total_units`} form={formId} name="total_units" type="number" min={0} step="any" defaultValue={text(values.total_units)} aria-invalid={a?.errors.total_units ? true : undefined} />
        </>
      ),
    },
    {
      header: "Actions",
      hideHeader: true,
      className: "actions",
      cell: ({ r, message, formId, week }) => <RowActions formId={formId} intent="update-report" idField="report_id" row={r} what={`the week ending ${week}`} deleteHref={deleteHref(r.id)} message={message} busy={busy} />,
    },
  ];
  return (
    <Block id="update-weekly-reports" title="Update Weekly Reports">
      <EditorPager page={page} param="reports_page" label="Pages of weekly reports" what="weeks" />
      <DataTable rows={rows} columns={columns} rowKey={rowKey} empty="No Weekly Reports" emptyClassName="muted" caption="Weekly reports" />
    </Block>
  );
}

export function AddCommentForm({ answer, busy }: { answer: Answer; busy: boolean }) {
  const a = answerFor(answer, "add-comment");
  const errors = a?.errors ?? {};
  const typed = text(a?.values.comment);
  return (
    <Block id="add-comment" title="Add Comment">
      <Notice text={a?.message} tone="danger" />
      <Form method="post" key={JSON.stringify(a?.values ?? null)} className="form-grid" noValidate>
        <input type="hidden" name="intent" value="add-comment" />
        <Field id="f-comment_date" label="Date" name="comment_date" type="date" defaultValue={text(a?.values.comment_date)} error={errors.comment_date} />
        <div>
          <Field id="f-comment" label="Comment" name="comment" type="text" maxLength={COMMENT_MAX_LENGTH} defaultValue={typed} error={errors.comment} aria-describedby="f-comment-counter" />
          <small id="f-comment-counter" className="hint" data-counter-for="f-comment" aria-live="polite">
            {typed.length}/{COMMENT_MAX_LENGTH}
          </small>
        </div>
        <SaveButton label="Add Comment" busy={busy} />
      </Form>
    </Block>
  );
}

export function CommentsTable({ comments, page, answer, busy, deleteHref }: { comments: EditorComment[]; page: EditorPage; answer: Answer; busy: boolean; deleteHref: (id: number) => string }) {
  const rows = comments.map((c) => {
    const a = answerFor(answer, "update-comment", "comment_id", c.id) ?? answerFor(answer, "delete-comment", "comment_id", c.id);
    const typed = a?.values.intent === "update-comment" ? a.values : null;
    const values = typed && !a!.current ? typed : { comment_date: c.comment_date, comment: c.comment };
    const message = withNotSaved(a, typed && notSavedText([{ typed: typed.comment, stored: c.comment }, { typed: usDate(text(typed.comment_date).trim()), stored: usDate(c.comment_date), name: "date" }]));
    return { r: c, a, values, message, formId: `comment-${c.id}` };
  });
  const columns: Column<(typeof rows)[number]>[] = [
    {
      header: "Date",
      cell: ({ r, a, values, formId }) => (
        <>
          <label className="visually-hidden" htmlFor={`${formId}-date`}>
            Date of the comment “{r.comment}”
          </label>
          <input id={`${formId}-date`} form={formId} name="comment_date" type="date" required defaultValue={text(values.comment_date)} aria-invalid={a?.errors.comment_date ? true : undefined} />
        </>
      ),
    },
    {
      header: "Comment",
      cell: ({ r, a, values, formId }) => (
        <>
          <label className="visually-hidden" htmlFor={`${formId}-text`}>
            Comment of {usDate(r.comment_date)}
          </label>
          <input id={`${formId}-text`} form={formId} name="comment" type="text" maxLength={COMMENT_MAX_LENGTH} required defaultValue={text(values.comment)} aria-invalid={a?.errors.comment ? true : undefined} />
        </>
      ),
    },
    {
      header: "Actions",
      hideHeader: true,
      className: "actions",
      cell: ({ r, message, formId }) => <RowActions formId={formId} intent="update-comment" idField="comment_id" row={r} what={`the comment of ${usDate(r.comment_date)}`} deleteHref={deleteHref(r.id)} message={message} busy={busy} />,
    },
  ];
  return (
    <Block id="update-comments" title="Update Comments">
      <EditorPager page={page} param="comments_page" label="Pages of comments" what="comments" />
      <DataTable rows={rows} columns={columns} rowKey={rowKey} empty="No Comments" emptyClassName="muted" caption="Comments" />
    </Block>
  );
}

/**
 * The delete confirmation (clinical §8) as a step of its own: a GET shows it, 'Yes, delete it' posts
 * the delete, 'Cancel' goes back. The same with JavaScript on or off.
 */
export function ConfirmDelete({ kind, id, what, cancelHref, busy }: { kind: "report" | "comment"; id: number; what: string; cancelHref: string; busy: boolean }) {
  const notice = kind === "report" ? WEEKLY_REPORT_NOTICES.confirmDelete : CHART_COMMENT_NOTICES.confirmDelete;
  return (
    <div className="dialog-backdrop">
      <section className="dialog dialog-warning" role="alertdialog" aria-modal="true" aria-labelledby="confirm-title" aria-describedby="confirm-text">
        <h2 id="confirm-title">{notice.title}</h2>
        <p>{what}</p>
        <p id="confirm-text">{notice.text}</p>
        <Form method="post" className="form-actions">
          <input type="hidden" name="intent" value={kind === "report" ? "delete-report" : "delete-comment"} />
          <input type="hidden" name={kind === "report" ? "report_id" : "comment_id"} value={id} />
          <button className="btn btn-danger" type="submit" disabled={busy}>
            Yes, delete it
          </button>
          <Link className="btn" to={cancelHref} autoFocus>
            Cancel
          </Link>
        </Form>
      </section>
    </div>
  );
}
