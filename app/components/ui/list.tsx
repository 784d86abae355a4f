import { Form, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ErrorText } from "~/components/ui/form-controls";
import { withoutFlash } from "~/domain/flash";
import type { ReactNode } from "react";
import { countLineText, pageLinks, pastEndText, type Paged } from "~/domain/paging";

/** A bookmarkable search/filter form (GET). Extra filter controls go in children. */
export function SearchForm({ placeholder = "Search", children }: { placeholder?: string; children?: ReactNode }) {
  const [params] = useSearchParams();
  return (
    <Form method="get" className="search-form" role="search">
      <label className="visually-hidden" htmlFor="f-search">
        Search
      </label>
      <input id="f-search" type="search" name="search" defaultValue={params.get("search") ?? ""} placeholder={placeholder} />
      {children}
      <button type="submit" className="btn">
        Search
      </button>
      <Link className="btn" to="?">
        Reset
      </Link>
    </Form>
  );
}

/**
 * One filter of a filter form: a labelled select whose value is kept in the URL (the current one preselected, or
 * `value` when the server chose it). The label is for screen readers only unless `visible`; `hint` is shown after
 * the select and describes it; `error` (a refused filter) is shown beside it.
 */
export function FilterSelect({
  name,
  label,
  any,
  options,
  value,
  visible = false,
  hint,
  error,
}: {
  name: string;
  label: string;
  any: string;
  options: readonly { value: string | number; label: string }[];
  value?: string;
  visible?: boolean;
  hint?: string;
  error?: string;
}) {
  const [params] = useSearchParams();
  const chosen = value ?? params.get(name) ?? "";
  // A refused value (error) stays in the form as typed, so the user sees what the list did not take.
  const typed = error && chosen !== "" && !options.some((o) => String(o.value) === chosen) ? chosen : null;
  return (
    <>
      <label className={visible ? undefined : "visually-hidden"} htmlFor={`f-${name}`}>
        {label}
      </label>
      <select
        id={`f-${name}`}
        name={name}
        defaultValue={chosen}
        aria-describedby={hint ? `f-${name}-hint` : undefined}
        aria-invalid={error ? true : undefined}
        aria-errormessage={error ? `f-${name}-error` : undefined}
      >
        <option value="">{any}</option>
        {typed !== null ? <option value={typed}>{typed}</option> : null}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {hint ? (
        <span id={`f-${name}-hint`} className="hint">
          {hint}
        </span>
      ) : null}
      <ErrorText id={`f-${name}`} error={error} />
    </>
  );
}

/**
 * From and To dates of a filter form (`date_from`, `date_to` unless named otherwise), kept in the URL; `errors`
 * (a refused filter, by the inputs' names) are shown beside them.
 */
export function DateRangeFilter({ from, to, names = ["date_from", "date_to"], errors = {} }: { from?: string; to?: string; names?: readonly [string, string]; errors?: Partial<Record<string, string>> }) {
  const [params] = useSearchParams();
  const input = (name: string, value: string | undefined) => (
    <input
      id={`f-${name}`}
      type="date"
      name={name}
      defaultValue={value ?? params.get(name) ?? ""}
      aria-invalid={errors[name] ? true : undefined}
      aria-errormessage={errors[name] ? `f-${name}-error` : undefined}
    />
  );
  return (
    <>
      <label htmlFor={`f-${names[0]}`}>From</label>
      {input(names[0], from)}
      <ErrorText id={`f-${names[0]}`} error={errors[names[0]]} />
      <label htmlFor={`f-${names[1]}`}>To</label>
      {input(names[1], to)}
      <ErrorText id={`f-${names[1]}`} error={errors[names[1]]} />
    </>
  );
}

/**
 * A filter form's refused filters (422) on a list screen: each error is shown beside its field (the form keeps
 * the typed values from the URL) and no row is shown, never the unfiltered list as if it were the result. This
 * is the message of an error no field of the form shows (a hand-edited page or sort), for above the list.
 */
export function unshownFilterError(errors: Readonly<Record<string, string>> | null | undefined, shown: readonly string[]): string | null {
  return Object.entries(errors ?? {}).find(([k]) => !shown.includes(k))?.[1] ?? null;
}

/** A filter form's Filter button and its Reset link. */
export function FilterButtons({ reset = "?" }: { reset?: string }) {
  return (
    <>
      <button type="submit" className="btn">
        Filter
      </button>
      <Link className="btn" to={reset}>
        Reset
      </Link>
    </>
  );
}

/**
 * The query of a link from this page (another page, a sort): the address's values without `flash`, the message
 * of the save that led here (the screens' own redirects drop it too, `cleanAddress`), so paging or sorting does
 * not show it again.
 */
export function linkParams(params: URLSearchParams): URLSearchParams {
  return withoutFlash(params);
}

/**
 * 'Showing x to y of n entries' and a window of five page links that keep the other query values (not the flash).
 * A screen with two paged tables names each one's query value (`param`) and pager (`label`).
 */
export function Pagination({ page, param = "page", label = "Pages", keep = {} }: { page: Pick<Paged<unknown>, "page" | "per_page" | "total" | "last_page" | "total_is_lower_bound">; param?: string; label?: string; keep?: Record<string, string> }) {
  const [params] = useSearchParams();
  const href = (n: number) => {
    const next = linkParams(params);
    // Values the server fixed on this page (a report's `as_of`), so that the next page reads what this one read.
    for (const [k, v] of Object.entries(keep)) next.set(k, v);
    next.set(param, String(n));
    return `?${next.toString()}`;
  };
  // Past the last page (an old bookmark) the links still lead back: Previous to the last page, the window to page 1.
  const links = pageLinks(page.page, page.last_page);
  const pastEnd = pastEndText(page);
  return (
    <nav className="pagination" aria-label={label}>
      {pastEnd ? (
        <p className="alert alert-danger" role="alert">
          {`${pastEnd} `}
          <Link to={href(page.last_page)}>{`Go to page ${page.last_page}`}</Link>
        </p>
      ) : null}
      <span>{countLineText(page)}</span>
      {links.numbers.length ? (
        <span className="pages">
          {links.previous !== null ? <Link to={href(links.previous)}>Previous</Link> : null}
          {links.numbers.map((n) =>
            n === page.page ? (
              <strong key={n} aria-current="page">
                {n}
              </strong>
            ) : (
              <Link key={n} to={href(n)}>
                {n}
              </Link>
            ),
          )}
          {links.next !== null ? <Link to={href(links.next)}>Next</Link> : null}
        </span>
      ) : null}
    </nav>
  );
}
