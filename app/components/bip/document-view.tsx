import { Fragment } from "react";
import {
  BIP_TABS,
  CRISIS_PLAN_FIELDS,
  functionLabel,
  itemFields,
  NARRATIVE_FIELDS,
  SCHOOL_SERVICES_FIELDS,
  SIGNERS,
  TABLE_FIELDS,
  type BipDocument,
  type ListSectionKey,
  type Table,
} from "~/domain/bip-document";
import { LIST_SECTIONS } from "~/domain/bip-document";
import { DataTable, type Column } from "~/components/ui/data-list";

/** The plan document, read-only (the profile; later the PDF reads the same order). Text keeps its line breaks. */

const preLine = { whiteSpace: "pre-line" } as const;
const label = (key: string) => NARRATIVE_FIELDS.find((f) => f.name === key)?.label ?? TABLE_FIELDS.find((f) => f.name === key)?.label ?? key;

export function cellText(value: unknown, kind: string): string {
  if (value === null || value === undefined || value === "") return "—";
  if (Array.isArray(value)) return (kind === "functions" ? value.map((x) => functionLabel(String(x))) : value.map(String)).join(", ") || "—";
  return String(value);
}

export function ListView({ section, items }: { section: ListSectionKey; items: readonly Record<string, unknown>[] }) {
  const columns: Column<Record<string, unknown>>[] = [
    { header: "#", cell: (item) => String(item.index) },
    ...itemFields(section).map((f): Column<Record<string, unknown>> => ({ header: f.label, className: "pre-line", cell: (item) => cellText(item[f.name], f.kind) })),
  ];
  return <DataTable rows={items} columns={columns} rowKey={(item) => String(item.index)} empty="No data found" emptyClassName="muted" caption={LIST_SECTIONS[section].label} />;
}

export function TableView({ table, caption }: { table: Table; caption: string }) {
  if (!table.table_headers.length) return <p className="muted">No data found</p>;
  const columns = table.table_headers.map((h, i): Column<string[]> => ({ header: h, cell: (row) => row[i] || "—" }));
  return <DataTable rows={table.table_rows} columns={columns} empty={null} keepHeader caption={caption} />;
}

const signatureColumns = (c: BipDocument["consent_to_treatment"]): Column<(typeof SIGNERS)[number]>[] => [
  { header: "Signer", cell: (s) => s.label },
  { header: "Signature", cell: (s) => c[s.key].signature ?? (c[s.key].signature_placeholder ? "______________________" : "—") },
  { header: "Date", cell: (s) => c[s.key].signature_date ?? (c[s.key].signature_placeholder ? "____________" : "—") },
];

function Texts({ fields, values }: { fields: readonly { name: string; label: string }[]; values: Record<string, string | null> }) {
  return (
    <dl className="details">
      {fields.map((f) => (
        <Fragment key={f.name}>
          <dt>{f.label}</dt>
          <dd style={preLine}>{values[f.name] || "—"}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

function Part({ doc, field }: { doc: BipDocument; field: keyof BipDocument }) {
  switch (field) {
    case "school_services_justification":
      return (
        <>
          <h3>School services justification</h3>
          <Texts fields={SCHOOL_SERVICES_FIELDS} values={doc.school_services_justification} />
        </>
      );
    case "crisis_plan":
      return (
        <>
          <h3>Crisis plan</h3>
          <Texts fields={CRISIS_PLAN_FIELDS} values={doc.crisis_plan} />
        </>
      );
    case "consent_to_treatment": {
      const c = doc.consent_to_treatment;
      return (
        <>
          <h3>Consent to treatment</h3>
          <p style={preLine}>{c.statement}</p>
          <DataTable rows={SIGNERS} columns={signatureColumns(c)} rowKey={(s) => s.key} caption="Consent to treatment signatures" />
        </>
      );
    }
    default: {
      const value = doc[field];
      return (
        <>
          <h3>{label(field)}</h3>
          <p style={preLine}>{typeof value === "string" && value ? value : <span className="muted">—</span>}</p>
        </>
      );
    }
  }
}

/** Every tab's content in order; the identity tab's report writers go in a short list at the top. */
export function DocumentView({ doc }: { doc: BipDocument }) {
  return (
    <>
      <dl className="details">
        <dt>Report writer</dt>
        <dd>{doc.report_writer || "—"}</dd>
        <dt>Report writer 2</dt>
        <dd>{doc.report_writer_2 || "—"}</dd>
      </dl>
      {BIP_TABS.filter((t) => t.id !== "identity").map((tab) => (
        <section key={tab.id} aria-labelledby={`doc-${tab.id}`}>
          <h2 id={`doc-${tab.id}`}>{tab.label}</h2>
          {tab.fields.map((f) => (
            <Part key={f} doc={doc} field={f} />
          ))}
          {tab.tables.map((t) => (
            <Fragment key={t}>
              <h3>{label(t)}</h3>
              <TableView table={doc[t]} caption={label(t)} />
            </Fragment>
          ))}
          {tab.lists.map((l) => (
            <Fragment key={l}>
              <h3>{LIST_SECTIONS[l].label}</h3>
              <ListView section={l} items={doc[l] as unknown as Record<string, unknown>[]} />
            </Fragment>
          ))}
        </section>
      ))}
    </>
  );
}
