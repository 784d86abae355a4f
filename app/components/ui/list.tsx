import { Form, Link, useSearchParams } from "@remix-run/react";
import type { ReactNode } from "react";
import { pageWindow, showingText, type Paged } from "~/domain/paging";

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

/** One filter of a SearchForm: a labelled select whose value is kept in the URL (the current one preselected). */
export function FilterSelect({ name, label, any, options }: { name: string; label: string; any: string; options: readonly { value: string | number; label: string }[] }) {
  const [params] = useSearchParams();
  return (
    <>
      <label className="visually-hidden" htmlFor={`f-${name}`}>
        {label}
      </label>
      <select id={`f-${name}`} name={name} defaultValue={params.get(name) ?? ""}>
        <option value="">{any}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </>
  );
}

/** 'Showing x to y of n entries' and a window of five page links that keep the other query values. */
export function Pagination({ page }: { page: Pick<Paged<unknown>, "page" | "per_page" | "total" | "last_page" | "total_is_lower_bound"> }) {
  const [params] = useSearchParams();
  const href = (n: number) => {
    const next = new URLSearchParams(params);
    next.set("page", String(n));
    return `?${next.toString()}`;
  };
  return (
    <nav className="pagination" aria-label="Pages">
      <span>{showingText(page)}</span>
      {page.last_page > 1 ? (
        <span className="pages">
          {page.page > 1 ? <Link to={href(page.page - 1)}>Previous</Link> : null}
          {pageWindow(page.page, page.last_page).map((n) =>
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
          {page.page < page.last_page ? <Link to={href(page.page + 1)}>Next</Link> : null}
        </span>
      ) : null}
    </nav>
  );
}
