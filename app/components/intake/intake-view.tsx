import { Fragment } from "react";
import { displayValue, INTAKE_SECTIONS, rowsOf, valueAt, type IntakeSection } from "~/domain/intake";
import { DataTable, type Column } from "~/components/ui/data-list";

/** The intake assessment read-only, section by section (lists as tables). */

function Rows({ section, intake }: { section: IntakeSection; intake: Record<string, unknown> }) {
  const columns = section.fields.map((f): Column<Record<string, unknown>> => ({ header: f.label, cell: (row) => displayValue(f, row[f.name]) }));
  return <DataTable rows={rowsOf(intake, section.id)} columns={columns} empty="None recorded." emptyClassName="muted" caption={section.label} />;
}

export function IntakeView({ intake, bipLabel }: { intake: Record<string, unknown>; bipLabel: string | null }) {
  return (
    <>
      {INTAKE_SECTIONS.map((section) => (
        <section key={section.id} className="field-group" aria-labelledby={`view-${section.id}`}>
          <h2 id={`view-${section.id}`}>{section.label}</h2>
          {section.kind === "list" ? (
            <Rows section={section} intake={intake} />
          ) : (
            <dl className="details">
              {section.fields.map((f) => {
                const value = valueAt(intake, section.kind === "object" ? [section.id, f.name] : [f.name]);
                return (
                  <Fragment key={f.name}>
                    <dt>{f.label}</dt>
                    <dd style={{ whiteSpace: "pre-wrap" }}>{f.type === "bip" ? (bipLabel ?? "—") : displayValue(f, value)}</dd>
                  </Fragment>
                );
              })}
            </dl>
          )}
        </section>
      ))}
    </>
  );
}
