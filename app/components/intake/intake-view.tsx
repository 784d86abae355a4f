import { Fragment } from "react";
import { displayValue, INTAKE_SECTIONS, rowsOf, valueAt, type IntakeSection } from "~/domain/intake";
import { ScrollTable } from "~/components/ui/scroll-table";

/** The intake assessment read-only, section by section (lists as tables). */

function Rows({ section, intake }: { section: IntakeSection; intake: Record<string, unknown> }) {
  const rows = rowsOf(intake, section.id);
  if (rows.length === 0) return <p className="muted">None recorded.</p>;
  return (
    <ScrollTable caption={section.label}>
      <thead>
        <tr>
          {section.fields.map((f) => (
            <th key={f.name}>{f.label}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => (
          <tr key={i}>
            {section.fields.map((f) => (
              <td key={f.name}>{displayValue(f, row[f.name])}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
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
