import { useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { Children, Fragment, type Key, type ReactNode } from "react";
import { pastEndText, type Paged } from "~/domain/paging";
import { linkParams, Pagination } from "./list";
import { ScrollTable } from "./scroll-table";

/**
 * One column-driven list for every list screen (decision 028): a screen declares its columns as data and
 * this renders the filter form it is given, the table (or the empty text) and the pagination. Plain links
 * and GET forms only, so it works the same with JavaScript off.
 */

/** What every list shows when there is nothing to list (clinical §2). */
export const EMPTY_TEXT = "No data to display.";
/** What a list shows in place of its rows when its filters were refused (unshownFilterError, app/components/ui/list.tsx). */
export const FILTERS_REFUSED_TEXT = "Nothing is listed until the filters marked above are corrected.";

export interface Column<T> {
  /** The header text; also the cell's label for assistive technology. */
  header: string;
  /** Keep the header for screen readers only (an actions column). */
  hideHeader?: boolean;
  /** What the cell shows for one row. */
  cell: (row: T) => ReactNode;
  /** A class on the cells of this column ("actions" for the links column). */
  className?: string;
  /** When set, the header links to `?sort=<key>&dir=asc|desc` (the loader decides what the key means). */
  sort?: string;
  /** Show this column only when true (a column that depends on a permission or on the screen). */
  when?: boolean;
  /** The cells of this column name their row: `<th scope="row">` in place of `<td>` (an objective's label). */
  rowHeader?: boolean;
}

type Row = object;

function keyOf<T extends Row>(row: T, index: number, rowKey?: (row: T) => Key): Key {
  if (rowKey) return rowKey(row);
  const id = (row as { id?: unknown }).id;
  return typeof id === "number" || typeof id === "string" ? id : index;
}

/** The links of a row ('View · Edit · PDF'); empty entries (a link the actor may not use) are left out. */
export function RowActions({ children }: { children: ReactNode }) {
  // toArray already drops null, undefined and booleans (a link behind a permission check).
  const items = Children.toArray(children).filter((c) => c !== "");
  return (
    <>
      {items.map((c, i) => (
        <Fragment key={i}>
          {i > 0 ? " · " : null}
          {c}
        </Fragment>
      ))}
    </>
  );
}

/** The usual last column: its header hidden, its cell the row's links. */
export function actionsColumn<T>(links: (row: T) => ReactNode, when = true): Column<T> {
  return { header: "Actions", hideHeader: true, className: "actions", when, cell: (row) => <RowActions>{links(row)}</RowActions> };
}

function SortHeader({ column }: { column: { header: string; sort: string } }) {
  const [params] = useSearchParams();
  const current = params.get("sort") === column.sort;
  const dir = current && params.get("dir") !== "desc" ? "asc" : current ? "desc" : null;
  const next = linkParams(params);
  next.set("sort", column.sort);
  next.set("dir", dir === "asc" ? "desc" : "asc");
  next.delete("page");
  return (
    <th aria-sort={dir === "asc" ? "ascending" : dir === "desc" ? "descending" : undefined}>
      <Link to={`?${next.toString()}`}>
        {column.header}
        {dir ? <span aria-hidden="true">{dir === "asc" ? " ▲" : " ▼"}</span> : null}
      </Link>
    </th>
  );
}

/** Data attributes a row carries (a test's handle, a status the styles read). */
export type RowData = Partial<Record<`data-${string}`, string>>;

/**
 * The table of a list: a header row from the columns, one row per record, or the empty text. The caption (for
 * screen readers) also names the scroll box (ScrollTable). Options for the tables of a screen (not a list screen):
 * - `emptyClassName`: a class on the empty text's paragraph ("muted");
 * - `keepHeader`: with no rows the table stays, its body one row with `empty` across every column, or no row
 *   when `empty` is null (a table whose columns tell what would be there);
 * - `showCaption`: the caption is shown on screen (a table under no heading of its own);
 * - `rowData`: data attributes of a row;
 * - a column's `rowHeader`: its cells are the row's header cells.
 * Cells are keyed by position, so headers built from data may repeat.
 */
export function DataTable<T extends Row>({
  rows,
  columns,
  rowKey,
  empty = EMPTY_TEXT,
  emptyClassName,
  keepHeader = false,
  caption,
  showCaption,
  rowData,
}: {
  rows: readonly T[];
  columns: readonly Column<T>[];
  rowKey?: (row: T) => Key;
  empty?: ReactNode;
  emptyClassName?: string;
  keepHeader?: boolean;
  caption: string;
  showCaption?: boolean;
  rowData?: (row: T) => RowData;
}) {
  if (rows.length === 0 && !keepHeader) return <p className={emptyClassName}>{empty}</p>;
  const shown = columns.filter((c) => c.when !== false);
  return (
    <ScrollTable caption={caption} showCaption={showCaption}>
      <thead>
        <tr>
          {shown.map((c, i) =>
            c.sort ? (
              <SortHeader key={i} column={{ header: c.header, sort: c.sort }} />
            ) : (
              <th key={i}>{c.hideHeader ? <span className="visually-hidden">{c.header}</span> : c.header}</th>
            ),
          )}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && empty !== null ? (
          <tr>
            <td colSpan={shown.length}>{empty}</td>
          </tr>
        ) : null}
        {rows.map((row, i) => (
          <tr key={keyOf(row, i, rowKey)} {...rowData?.(row)}>
            {shown.map((c, j) =>
              c.rowHeader ? (
                <th key={j} scope="row" className={c.className}>
                  {c.cell(row)}
                </th>
              ) : (
                <td key={j} className={c.className}>
                  {c.cell(row)}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
}

/**
 * A page past the last one (pastEndText): empty, but the list is not. The pagination says which page is last, and the
 * list's empty text ("Every note … can be billed.", "No data to display.") would say something false (probe 8984
 * §L1): a screen that draws its own table leaves it out on such a page.
 */
export function isPastEnd(page: Pick<Paged<unknown>, "data" | "page" | "last_page" | "total_is_lower_bound">): boolean {
  return page.data.length === 0 && pastEndText(page) !== null;
}

/** A paged list screen's body: the filter form (a `<Form method="get">`, e.g. SearchForm), the table, the pages. */
export function DataList<T extends Row>({
  page,
  columns,
  rowKey,
  empty,
  filters,
  caption,
  keep,
}: {
  page: Paged<T>;
  columns: readonly Column<T>[];
  rowKey?: (row: T) => Key;
  empty?: ReactNode;
  filters?: ReactNode;
  caption: string;
  /** Query values the page links keep besides the address's (Pagination's `keep`). */
  keep?: Record<string, string>;
}) {
  return (
    <>
      {filters}
      {isPastEnd(page) ? null : <DataTable rows={page.data} columns={columns} rowKey={rowKey} empty={empty} caption={caption} />}
      <Pagination page={page} keep={keep} />
    </>
  );
}
