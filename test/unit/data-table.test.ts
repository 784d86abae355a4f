import { createElement as h } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { DataTable, type Column } from "~/components/ui/data-list";

/** What a screen's plain tables need of the one column-driven list (decision 028, stop 30). */
type Row = { id: number; name: string; status: string };
const ROWS: Row[] = [
  { id: 1, name: "STO1", status: "met" },
  { id: 2, name: "LTO", status: "active" },
];
const COLUMNS: Column<Row>[] = [
  { header: "Objective", rowHeader: true, cell: (r) => r.name },
  { header: "Status", cell: (r) => r.status },
  { header: "Actions", hideHeader: true, className: "actions", cell: (r) => `Edit ${r.name}` },
];
const render = (props: Partial<Parameters<typeof DataTable<Row>>[0]>) => renderToStaticMarkup(h(DataTable<Row>, { rows: ROWS, columns: COLUMNS, caption: "Objectives", ...props }));
const HEAD = '<thead><tr><th>Objective</th><th>Status</th><th><span class="visually-hidden">Actions</span></th></tr></thead>';

describe("DataTable's options for a screen's tables", () => {
  const cases: [string, Partial<Parameters<typeof DataTable<Row>>[0]>, string[], string[]][] = [
    ["a list with no rows says so in a paragraph", { rows: [] }, ["<p>No data to display.</p>"], ["<table"]],
    ["the empty text can be muted", { rows: [], empty: "No objectives yet.", emptyClassName: "muted" }, ['<p class="muted">No objectives yet.</p>'], ["<table"]],
    ["keepHeader keeps the columns and tells the empty text across them", { rows: [], empty: "No services.", keepHeader: true }, [HEAD, '<tbody><tr><td colSpan="3">No services.</td></tr></tbody>'], ["<p>"]],
    ["keepHeader with no empty text leaves the body empty", { rows: [], empty: null, keepHeader: true }, [HEAD, "<tbody></tbody>"], ["<p>", "<td"]],
    ["a row-header column writes th scope=row", {}, ['<tr><th scope="row">STO1</th><td>met</td><td class="actions">Edit STO1</td></tr>'], []],
    ["rowData puts data attributes on each row", { rowData: (r) => ({ "data-testid": `objective-${r.id}` }) }, ['<tr data-testid="objective-2"><th scope="row">LTO</th>'], []],
    ["the caption is for screen readers unless showCaption", {}, ['class="visually-hidden">Objectives</caption>'], []],
    ["showCaption shows it", { showCaption: true }, ['">Objectives</caption>'], ["visually-hidden\">Objectives"]],
  ];
  it.each(cases)("%s", (_, props, has, hasNot) => {
    const html = render(props);
    for (const s of has) expect(html).toContain(s);
    for (const s of hasNot) expect(html).not.toContain(s);
  });
});
