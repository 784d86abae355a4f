import { Form, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { withoutFlash } from "~/domain/flash";
import type { ReactNode } from "react";
import { pageLinks, showingText, type Paged } from "~/domain/paging";

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
 * the select and describes it.
 */
export function FilterSelect({
  name,
  label,
  any,
  options,
  value,
  visible = false,
  hint,
}: {
  name: string;
  label: string;
  any: string;
  options: readonly { value: string | number; label: string }[];
  value?: string;
  visible?: boolean;
  hint?: string;
}) {
  const [params] = useSearchParams();
  return (
    <>
      <label className={visible ? undefined : "visually-hidden"} htmlFor={`f-${name}`}>
        {label}
      </label>
      <select id={`f-${name}`} name={name} defaultValue={value ?? params.get(name) ?? ""} aria-describedby={hint ? `f-${name}-hint` : undefined}>
        <option value="">{any}</option>
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
    </>
  );
}

/** From and To dates of a filter form (`date_from`, `date_to` unless named otherwise), kept in the URL. */
export function DateRangeFilter({ from, to, names = ["date_from", "date_to"] }: { from?: string; to?: string; names?: readonly [string, string] }) {
  const [params] = useSearchParams();
  return (
    <>
      <label htmlFor={`f-${names[0]}`}>From</label>
      <input id={`f-${names[0]}`} type="date" name={names[0]} defaultValue={from ?? params.get(names[0]) ?? ""} />
      <label htmlFor={`f-${names[1]}`}>To</label>
      <input id={`f-${names[1]}`} type="date" name={names[1]} defaultValue={to ?? params.get(names[1]) ?? ""} />
    </>
  );
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

/** 'Showing x to y of n entries' and a window of five page links that keep the other query values (not the flash). */
export function Pagination({ page }: { page: Pick<Paged<unknown>, "page" | "per_page" | "total" | "last_page" | "total_is_lower_bound"> }) {
  const [params] = useSearchParams();
  const href = (n: number) => {
    const next = linkParams(params);
    next.set("page", String(n));
    return `?${next.toString()}`;
  };
  // Past the last page (an old bookmark) the links still lead back: Previous to the last page, the window to page 1.
  const links = pageLinks(page.page, page.last_page);
  return (
    <nav className="pagination" aria-label="Pages">
      <span>{showingText(page)}</span>
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
