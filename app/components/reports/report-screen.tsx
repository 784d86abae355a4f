import { Form, useSearchParams } from "@remix-run/react";
import { BarChart } from "~/components/charts/bar-chart";
import type { ReportChart } from "~/domain/report-operations";
import { Link } from "~/components/ui/link";
import type { ReactNode } from "react";
import { DataList, FILTERS_REFUSED_TEXT, type Column } from "~/components/ui/data-list";
import { FormMessage } from "~/components/ui/field";
import { FilterButtons } from "~/components/ui/list";
import type { Paged } from "~/domain/paging";
import { CSV_MAX_ROWS, csvHref, NO_PROFILE_LINKS, type FilterOptions, type ProfileLinks, type ReportColumn, type ReportDefinition, type ReportFilter } from "~/domain/reports";
import { groupDigits } from "~/domain/validation";

/**
 * The one report screen (decision 038): title, the GET filter form built from the definition's filters (works
 * with JavaScript off; typed values and field messages kept), the notes the report said, an optional chart,
 * the table from the definition's columns (the same list the CSV writes), pagination, and the CSV link.
 */

/** A cell: a link only where the column gives one for this reader (client and employee names: `links`). */
function cellOf<R>(c: ReportColumn<R>, row: R, links: ProfileLinks): ReactNode {
  const value = c.value(row);
  const text = value === null || value === undefined ? "" : typeof value === "number" ? groupDigits(value) : String(value);
  const href = c.href?.(row, links);
  return href ? <Link to={href}>{text}</Link> : text;
}

export function screenColumns<R>(columns: readonly ReportColumn<R>[], links: ProfileLinks = NO_PROFILE_LINKS): Column<R>[] {
  return columns.map((c) => ({
    header: c.header,
    className: c.numeric ? "num" : undefined,
    cell: (row: R) => cellOf(c, row, links),
  }));
}

function FilterControl({ f, value, error, options }: { f: ReportFilter; value: string; error?: string; options: FilterOptions }) {
  const id = `f-${f.name}`;
  const errorId = `${id}-error`;
  const aria = {
    "aria-invalid": error ? true : undefined,
    "aria-errormessage": error ? errorId : undefined,
  } as const;
  const staffHint = (f.kind === "provider" || f.kind === "actor") && options.staffHint ? options.staffHint : null;
  const hints = [f.hint, staffHint].filter((h): h is string => !!h);
  let control: ReactNode;
  if (f.kind === "location" || f.kind === "provider" || f.kind === "actor" || f.kind === "select") {
    const opts = f.kind === "location" ? options.locations : f.kind === "select" ? f.options ?? [] : options.staff;
    control = (
      <select id={id} name={f.name} defaultValue={value} aria-describedby={hints.length ? `${id}-hint` : undefined} {...aria}>
        {f.any !== undefined ? <option value="">{f.any}</option> : null}
        {opts.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    );
  } else {
    const type = f.kind === "date" ? "date" : f.kind === "client" ? "number" : "text";
    control = <input id={id} name={f.name} type={type} defaultValue={value} min={f.kind === "client" ? 1 : undefined} inputMode={f.kind === "client" ? "numeric" : undefined} {...aria} />;
  }
  return (
    <span className="filter">
      <label htmlFor={id}>{f.label}</label>
      {control}
      {hints.length ? (
        <span id={`${id}-hint`} className="hint">
          {hints.join(" ")}
        </span>
      ) : null}
      {error ? (
        <span id={errorId} className="field-error" role="alert">
          {error}
        </span>
      ) : null}
    </span>
  );
}

export interface ReportScreenProps<R> {
  def: ReportDefinition<unknown, R>;
  values: Record<string, string>;
  errors: Record<string, string>;
  options: FilterOptions;
  page: Paged<R>;
  notes: string[];
  chart: ReportChart | null;
  /** What the page links and the CSV link keep so that they read what this page read (`as_of`). */
  pinned?: Record<string, string>;
  /** The profiles this reader may open: names link only to those (none when not given). */
  links?: ProfileLinks;
}

export function ReportScreen<R extends object>({ def, values, errors, options, page, notes, chart, pinned = {}, links = NO_PROFILE_LINKS }: ReportScreenProps<R>) {
  const [params] = useSearchParams();
  const hasErrors = Object.keys(errors).length > 0;
  const filters = (
    <Form method="get" className="search-form report-filters" aria-label={`${def.title} filters`}>
      {def.filters.map((f) => (
        <FilterControl key={f.name} f={f} value={values[f.name] ?? ""} error={errors[f.name]} options={options} />
      ))}
      <FilterButtons reset={`/reports/${def.key}`} />
    </Form>
  );
  return (
    <section className="card">
      <div className="page-head">
        <h1>{def.title}</h1>
        <span>
          <Link to="/reports">All reports</Link>{" "}
          {hasErrors ? null : (
            <a className="btn btn-primary" href={csvHref(def.key, params, pinned)} download>
              Export CSV
            </a>
          )}
        </span>
      </div>
      <p>{def.description}</p>
      {def.note ? <p className="hint">{def.note}</p> : null}
      <FormMessage error={hasErrors ? errors.page ?? errors.per_page ?? "Check the filters: " + Object.values(errors)[0] : null} />
      {notes.map((n) => (
        <p key={n} className={/FAILED/.test(n) ? "alert alert-danger" : "report-note"}>
          {n}
        </p>
      ))}
      {chart ? <BarChart model={chart.model} id={chart.id} /> : null}
      {hasErrors ? (
        // Nothing was read (decision 038): no empty table or "0 of 0 entries", as the billing screens say it.
        <>
          {filters}
          <p>{FILTERS_REFUSED_TEXT}</p>
        </>
      ) : (
        <DataList page={page} columns={screenColumns(def.columns, links)} rowKey={def.rowKey} filters={filters} caption={def.title} keep={pinned} />
      )}
      <p className="hint">The CSV export holds every matching row, at most {CSV_MAX_ROWS.toLocaleString("en-US")}; narrow the filters for more.</p>
    </section>
  );
}
