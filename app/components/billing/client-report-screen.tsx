import { Form, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { DataList, DataTable, FILTERS_REFUSED_TEXT, type Column } from "~/components/ui/data-list";
import { ChoiceSelect, type Choice } from "~/components/ui/choice-select";
import { FormMessage } from "~/components/ui/field";
import { DateRangeFilter, unshownFilterError } from "~/components/ui/list";
import { ErrorText } from "~/components/ui/form-controls";
import { REPORT_NOTE_TYPE_LABELS, REPORT_NOTE_TYPES } from "~/domain/client-reports";
import { modifierChoicesFor } from "~/domain/insurance";
import { money, unitPriceText } from "~/domain/billing";
import { zonedDate } from "~/domain/time";
import { NOTE_TYPE_LABELS, noteHref } from "~/domain/note-list";
import { NOTE_STATUSES, type NoteType } from "~/domain/notes";
import type { CurrentRow } from "~/models/client-reports.server";
import type { FilterErrors, ReportScreenData, ReportScreenRow } from "~/services/billing-screens.server";

/**
 * The report-by-client screen (clinical §2): Back, the header fields, the PA services, the filters, one row
 * per note with a small form per row (status; modifiers, billed, pay and Save), the pages and the week's
 * totals. Without JavaScript every form posts and the page comes back (POST → 303 → GET); with it,
 * enhance.js posts the form in place and reloads the table (`data-fetch`).
 */

interface ActionAnswer {
  errors: Record<string, string>;
  message: string | null;
  values: Record<string, string | string[]>;
  /** A stale save or status (409): the row as it is now. */
  current?: CurrentRow | null;
}

/** What a row's forms show and send back: its billing fields and the versions they were read at. */
type RowState = Pick<ReportScreenRow, "status" | "note_version" | "md" | "md2" | "billed" | "pay" | "client_report">;

/** The 409's row in words, so the biller sees what the other person saved before saving again. */
function staleText(c: CurrentRow): string {
  const md = (label: string, code: string | null) => (code ? `${label} ${code}` : `no ${label}`);
  return `Someone else changed this row: it now reads status ${c.status}, ${md("Modifier 1", c.md)}, ${md("Modifier 2", c.md2)}, ${c.billed ? "billed" : "not billed"}, ${c.pay ? "paid" : "not paid"}. The row shows those values; make your change again and Save.`;
}

type LoaderShape = { report: ReportScreenData; filterErrors: FilterErrors };
/** The filters shown beside their fields (the model's names: the screen's From, To and Note type). */
const FILTER_FIELDS = ["date_start", "date_end", "noteType"];

/**
 * The modifier selectors' choices (clinical §2): none, then each code that fits the row's note type, and a stored
 * code that does not (an older note's), so the row shows it. One constant list per type and stored misfit (the
 * options' HTML is written once per list, ChoiceSelect).
 */
const modifierOptions = new Map<string, readonly Choice[]>();
function modifierOptionsFor(type: NoteType, value: string): readonly Choice[] {
  const codes = modifierChoicesFor(type, value || null).map((m) => m.code);
  const key = `${type} ${codes.join(" ")}`;
  let choices = modifierOptions.get(key);
  if (!choices) {
    choices = [{ value: "", label: "—" }, ...codes.map((m) => ({ value: m, label: m }))];
    modifierOptions.set(key, choices);
  }
  return choices;
}
/** The row's status choices (pending, ok). */
const STATUS_OPTIONS: readonly Choice[] = NOTE_STATUSES.map((s) => ({ value: s, label: s }));

/** A row's modifier: one of the two modifier selectors of clinical §2, saved with the row's Save. */
function ModifierSelect({ name, label, type, value, form }: { name: "md" | "md2"; label: string; type: NoteType; value: string; form: string }) {
  return <ChoiceSelect name={name} form={form} aria-label={label} choices={modifierOptionsFor(type, value)} value={value} />;
}

/**
 * `clientInQuery`: the client is named in the address (`?patient_id=…`, employee by client), so the filter form and
 * Reset keep it, with the employee when one is chosen (Provider "All" names none, decision 030).
 */
export function ClientReportScreen({ title, backTo = "/billing/list", clientInQuery = false }: { title: string; backTo?: string; clientInQuery?: boolean }) {
  const { report, filterErrors } = useLoaderData<LoaderShape>() as unknown as LoaderShape;
  // Refused filters: the report comes with no row and the typed values as its filters (the loader's).
  const errors = filterErrors ?? {};
  const answer = useActionData<ActionAnswer>() as ActionAnswer | undefined;
  const [params] = useSearchParams();
  const p = report.patient;
  const failedNote = answer?.values?.note_id;
  // A stale save (409) shows the row as it is now, its values with their versions, never the typed ones with
  // the fresh versions (a second Save would then overwrite the other person's change unseen).
  const stale = answer?.current && String(answer.current.note_id) === failedNote ? answer.current : null;
  const now: RowState | null = stale && { status: stale.status, note_version: stale.note_version, md: stale.md, md2: stale.md2, billed: stale.billed, pay: stale.pay, client_report: stale.client_report && { version: stale.client_report.version } };
  const state = (r: ReportScreenRow): RowState => (now && stale?.note_id === r.id ? now : r);
  // Bad input (422) shows the typed values again, beside the message.
  const retyped = (row: ReportScreenRow) => failedNote === String(row.id) && !stale;
  const typed = (row: ReportScreenRow, key: string, fallback: string) => (retyped(row) && typeof answer?.values[key] === "string" ? (answer.values[key] as string) : fallback);
  const typedBox = (row: ReportScreenRow, key: string, fallback: boolean) => (retyped(row) && answer?.values.intent === "save" ? answer.values[key] === "on" || answer.values[key] === "true" : fallback);
  const rowLabel = (row: ReportScreenRow) => `the ${NOTE_TYPE_LABELS[row.type]} note of ${row.session_date}`;
  // A refused save leads to its row without JavaScript too (probe 8943 D4): the refused checkbox (or else the row's
  // Save button) takes focus and names the row's message, as the forms' fields do (aria-invalid, aria-errormessage).
  const errorId = (row: ReportScreenRow) => `row-${row.id}-error`;
  const refusedAt = (row: ReportScreenRow, name: string) => failedNote === String(row.id) && !stale && answer?.values.intent === "save" && !!answer.errors && name in answer.errors;
  const refusedBox = (row: ReportScreenRow, name: string) =>
    refusedAt(row, name) ? { "aria-invalid": true, "aria-errormessage": errorId(row), autoFocus: true } : {};
  const rowShown = !!failedNote && report.page.data.some((r) => String(r.id) === failedNote);
  const refusedElsewhere = (row: ReportScreenRow) => failedNote === String(row.id) && !!answer?.message && !refusedAt(row, "billed") && !refusedAt(row, "pay");

  const columns: Column<ReportScreenRow>[] = [
    { header: "Type", sort: "type", cell: (r) => NOTE_TYPE_LABELS[r.type] },
    {
      header: "Note date",
      sort: "date",
      cell: (r) => (
        <a href={noteHref(r.type, "view", r.id)} aria-label={`View ${rowLabel(r)}`}>
          {r.session_date}
        </a>
      ),
    },
    {
      header: "Status",
      sort: "status",
      cell: (r) => (
        <form method="post" className="row-status" data-fetch="">
          <input type="hidden" name="intent" value="status" />
          <input type="hidden" name="note_id" value={r.id} />
          <input type="hidden" name="note_version" value={state(r).note_version} />
          <span className={`status status-${state(r).status}`}>{state(r).status}</span>{" "}
          <ChoiceSelect name="status" aria-label={`Status of ${rowLabel(r)}`} choices={STATUS_OPTIONS} value={state(r).status} />{" "}
          <button type="submit" className="btn btn-small">
            Set
          </button>
        </form>
      ),
    },
    { header: "POS", sort: "pos", cell: (r) => r.pos || "—" },
    { header: "Total hours", sort: "hours", cell: (r) => r.total_hours.toFixed(2) },
    { header: "CPT", sort: "cpt", cell: (r) => r.cpt_code || "—" },
    { header: "Modifier 1", cell: (r) => <ModifierSelect name="md" label={`Modifier 1 of ${rowLabel(r)}`} type={r.type} value={typed(r, "md", state(r).md ?? "")} form={`row-${r.id}`} /> },
    { header: "Modifier 2", cell: (r) => <ModifierSelect name="md2" label={`Modifier 2 of ${rowLabel(r)}`} type={r.type} value={typed(r, "md2", state(r).md2 ?? "")} form={`row-${r.id}`} /> },
    { header: "Total units", sort: "units", cell: (r) => r.total_units },
    { header: "Unit price", cell: (r) => unitPriceText(r.unit_price_cents, r.multiplier) },
    {
      header: "Charges",
      cell: (r) => (
        <>
          {money(r.charges_cents)}
          {r.xp !== null ? <small className="xp-amount">{` (XP ${money(r.xp_cents)})`}</small> : null}
        </>
      ),
    },
    { header: "Provider", sort: "provider", cell: (r) => r.provider_name || "—" },
    { header: "Billed", sort: "billed", cell: (r) => <input type="checkbox" name="billed" value="true" form={`row-${r.id}`} defaultChecked={typedBox(r, "billed", state(r).billed)} aria-label={`Billed: ${rowLabel(r)}`} {...refusedBox(r, "billed")} /> },
    { header: "Pay", sort: "pay", cell: (r) => <input type="checkbox" name="pay" value="true" form={`row-${r.id}`} defaultChecked={typedBox(r, "pay", state(r).pay)} aria-label={`Pay: ${rowLabel(r)}`} {...refusedBox(r, "pay")} /> },
    // The day at the client's location, as the note dates beside it (not the UTC day).
    { header: "Created", sort: "created", cell: (r) => zonedDate(new Date(r.created_at), p.time_zone) },
    {
      header: "Claim check",
      cell: (r) =>
        r.reasons.length ? (
          <ul className="scrub-reasons" aria-label={`Why ${rowLabel(r)} cannot be billed`}>
            {r.reasons.map((x) => (
              <li key={x}>{x}</li>
            ))}
          </ul>
        ) : (
          "Ready"
        ),
    },
    {
      header: "Save",
      hideHeader: true,
      cell: (r) => (
        <form method="post" id={`row-${r.id}`} data-fetch="">
          <input type="hidden" name="intent" value="save" />
          <input type="hidden" name="note_id" value={r.id} />
          <input type="hidden" name="note_version" value={state(r).note_version} />
          <input type="hidden" name="version" value={state(r).client_report?.version ?? ""} />
          <button type="submit" className="btn btn-small btn-primary" aria-label={`Save ${rowLabel(r)}`} data-pending="Saving…" {...(refusedElsewhere(r) ? { autoFocus: true, "aria-describedby": errorId(r) } : {})}>
            Save
          </button>
          {failedNote === String(r.id) && answer?.message ? (
            <p id={errorId(r)} className="field-error" role="alert">
              {stale ? staleText(stale) : (Object.values(answer.errors ?? {})[0] ?? answer.message)}
            </p>
          ) : null}
        </form>
      ),
    },
  ];

  return (
    <section className="card">
      <div className="page-head">
        <h1>{title}</h1>
        <Link className="btn" to={backTo}>
          Back
        </Link>
      </div>
      <dl className="report-head">
        <dt>Patient name</dt>
        <dd>{p.full_name}</dd>
        <dt>Patient id</dt>
        <dd>{p.patient_id}</dd>
        <dt>Insurer</dt>
        <dd>{p.insurer_name ?? "—"}</dd>
        <dt>Insurer rate and CPT</dt>
        <dd>{report.rates.length ? report.rates.map((r) => `${r.label}: ${unitPriceText(r.unit_price_cents, r.multiplier)}`).join(" · ") : "—"}</dd>
        {report.provider ? (
          <>
            <dt>Employee</dt>
            <dd>{report.provider.name}</dd>
          </>
        ) : null}
      </dl>
      <DataTable
        caption="PA services"
        rows={report.pa_services}
        columns={[
          { header: "PA Services", cell: (s) => s.pa_service },
          { header: "CPT", cell: (s) => s.cpt },
          { header: "Units Allowed", cell: (s) => s.n_units },
          { header: "Beginning", cell: (s) => s.start_date },
          { header: "Expiration", cell: (s) => s.end_date },
        ]}
      />
      <Form method="get" className="search-form" role="search" aria-label="Filter the notes">
        {clientInQuery ? <input type="hidden" name="patient_id" value={p.id} /> : null}
        {clientInQuery && report.provider ? <input type="hidden" name="employee_id" value={report.provider.id} /> : null}
        <DateRangeFilter names={["from", "to"]} from={report.filters.date_start} to={report.filters.date_end} errors={{ from: errors.date_start, to: errors.date_end }} />
        <label htmlFor="f-type">Note type</label>
        <select id="f-type" name="type" defaultValue={report.filters.noteType} aria-invalid={errors.noteType ? true : undefined} aria-errormessage={errors.noteType ? "f-type-error" : undefined}>
          {REPORT_NOTE_TYPES.map((t) => (
            <option key={t} value={t}>
              {REPORT_NOTE_TYPE_LABELS[t]}
            </option>
          ))}
        </select>
        <ErrorText id="f-type" error={errors.noteType} />
        {/* A new filter keeps the chosen sort (a GET form sends only its fields) and starts again at page 1 (no page field). */}
        {report.filters.sort && !errors.sort ? <input type="hidden" name="sort" value={report.filters.sort} /> : null}
        {report.filters.dir && !errors.dir ? <input type="hidden" name="dir" value={report.filters.dir} /> : null}
        <button type="submit" className="btn">
          Search
        </button>
        <Link className="btn" to={clientInQuery ? `?patient_id=${p.id}${report.provider ? `&employee_id=${report.provider.id}` : ""}` : "?"}>
          Reset
        </Link>
      </Form>
      <div data-reload="billing-table">
        {/* A refused row save answers this page at the same address: an earlier success's flash is not this answer's. */}
        <FormMessage success={answer ? null : params.get("flash")} />
        {/* A refused row's message is said once, at its row (which takes the focus); here only when that row is not shown,
            or for a stale save, whose row says what changed. */}
        <FormMessage error={unshownFilterError(filterErrors, FILTER_FIELDS) ?? (answer && !(rowShown && !stale) ? answer.message : null)} />
        {filterErrors ? (
          <p>{FILTERS_REFUSED_TEXT}</p>
        ) : (
          <>
            <DataList caption="Billing by note" page={report.page} columns={columns} />
            <p className="week-totals">
              <label>
                Week Total Hours <input readOnly value={report.week_total_hours.toFixed(2)} size={6} />
              </label>{" "}
              <label>
                Week Total Units <input readOnly value={report.week_total_units} size={6} />
              </label>{" "}
              {report.week ? (
                <small>
                  (week {report.week.start} to {report.week.end})
                </small>
              ) : null}
            </p>
          </>
        )}
      </div>
    </section>
  );
}
