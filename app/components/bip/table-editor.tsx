import { Form } from "@remix-run/react";
import type { Table, TableField } from "~/domain/bip-document";
import { TABLE_FIELDS } from "~/domain/bip-document";
import type { FormAnswer } from "~/services/forms.server";
import { ScrollTable } from "~/components/ui/scroll-table";

/**
 * A schedule table (headers and rows) as one form that works without JavaScript: every header and cell
 * is an input; one blank row is offered for adding; a row left entirely blank is removed on save.
 */
export function TableEditor({ field, table, version, answer, isDefault }: { field: TableField; table: Table; version: number; answer: FormAnswer | null; isDefault: boolean }) {
  const label = TABLE_FIELDS.find((f) => f.name === field)!.label;
  const mine = answer && answer.values.intent === "save-table" && answer.values.section === field ? answer : null;
  const typed = (name: string, fallback: string) => (mine ? String(mine.values[name] ?? "") : fallback);
  const rows = [...table.table_rows, table.table_headers.map(() => "")];
  return (
    <section className="card" aria-labelledby={`table-${field}`} id={field}>
      <h3 id={`table-${field}`}>{label}</h3>
      {isDefault ? <p className="muted">Default table. Saving stores it as this plan's own.</p> : null}
      {mine ? (
        <p className="alert alert-danger" role="alert">
          {mine.message}
        </p>
      ) : null}
      <Form method="post" key={JSON.stringify([mine?.values ?? null, table])}>
        <input type="hidden" name="intent" value="save-table" />
        <input type="hidden" name="section" value={field} />
        <input type="hidden" name="version" value={version} />
        <ScrollTable caption={label}>
          <thead>
            <tr>
              {table.table_headers.map((h, c) => (
                <th key={c}>
                  <label className="visually-hidden" htmlFor={`${field}-h-${c}`}>
                    Column {c + 1} heading
                  </label>
                  <input id={`${field}-h-${c}`} name={`header.${c}`} defaultValue={typed(`header.${c}`, h)} size={10} />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, r) => (
              <tr key={r}>
                {row.map((cell, c) => (
                  <td key={c}>
                    <label className="visually-hidden" htmlFor={`${field}-${r}-${c}`}>
                      Row {r + 1}, {table.table_headers[c] || `column ${c + 1}`}
                    </label>
                    <input id={`${field}-${r}-${c}`} name={`cell.${r}.${c}`} defaultValue={typed(`cell.${r}.${c}`, cell)} size={10} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </ScrollTable>
        <p className="hint">The last row is blank for adding one; clear every cell of a row to remove it.</p>
        <button className="btn btn-primary" type="submit" data-pending="Saving…">
          Save {label.toLowerCase()}
        </button>
      </Form>
    </section>
  );
}
