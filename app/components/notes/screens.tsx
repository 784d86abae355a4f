import type { MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ASSET_URLS } from "~/assets";
import type { NoteJson } from "~/domain/notes";
import type { Paged } from "~/domain/paging";
import type { ClientChoiceData, NoteFormData } from "~/services/note-screens.server";
import { actionsColumn, DataList, type Column } from "../ui/data-list";
import { FormMessage } from "../ui/field";
import { StaleNotice } from "../ui/stale-notice";
import { NoteForm } from "./note-form";
import { NoteView, type NoteViewProps } from "./note-view";
import { CPT_LABELS, NOTE_TYPE_LABELS, NOTE_TYPE_PATHS } from "./types";

/** The screens of the note routes (one set for RBT, BCBA and combined notes; the route modules are thin). */

function ChooseClient({ data }: { data: ClientChoiceData }) {
  const base = NOTE_TYPE_PATHS[data.type];
  return (
    <section className="card">
      <div className="page-head">
        <h1>{`New ${NOTE_TYPE_LABELS[data.type]}`}</h1>
        <Link to="/notes-list">Notes</Link>
      </div>
      <FormMessage error={data.notice} />
      <p>Choose the client of the session.</p>
      <Form method="get" className="search-form" role="search">
        <label htmlFor="f-search">Find the client</label>
        <input id="f-search" type="search" name="search" defaultValue={data.search} placeholder="Name or identifier" />
        <button className="btn" type="submit">
          Search
        </button>
      </Form>
      {data.choices.length === 0 ? (
        <p>No data to display.</p>
      ) : (
        <ul className="choice-list" aria-label="Clients">
          {data.choices.map((c) => (
            <li key={c.id}>
              <Link className="btn btn-block choice" to={`${base}?patient_id=${c.id}`}>
                {`${c.name}${c.identifier ? ` (${c.identifier})` : ""}`}
              </Link>
            </li>
          ))}
        </ul>
      )}
      {/* The form's module, fetched with the chooser while the user picks a client (decision 035: on a slow
          connection it is a second round trip when the form opens). A module preload is fetched at once in the
          module script's own request mode, so the form's <script type="module"> finds it in the cache; an idle
          prefetch was still in flight (or in the wrong mode) when the user clicked. Nothing runs until the form
          loads it. */}
      <link rel="modulepreload" href={ASSET_URLS.noteFormJs} />
    </section>
  );
}

/** The note form's own fields, never listed as typed changes (signatures and tokens never are: StaleNotice). */
const NOTE_FORM_OWN_FIELDS = ["intent", "version", "type", "patient_id", "bip_id", "scheduled_id"];

/** The note form's heading: "New RBT note", "Edit BCBA note", "Amend Combined note". */
function noteFormHeading(d: NoteFormData): string {
  const label = NOTE_TYPE_LABELS[d.options.type];
  return d.mode === "create" ? `New ${label}` : d.mode === "amend" ? `Amend ${label}` : `Edit ${label}`;
}

/**
 * The note form's title names its client as its h1 does (decision 021: two tabs of two clients' notes tell apart):
 * "New RBT note · <client> · Baseline"; `fallback` ("New RBT note") while no client is chosen.
 */
export const noteFormMeta =
  (fallback: string): MetaFunction =>
  ({ data }) => {
    const d = data as NoteFormData | ClientChoiceData | undefined;
    if (!d || d.kind !== "form") return [{ title: `${fallback} · Baseline` }];
    return [{ title: `${noteFormHeading(d)}${d.options.patient ? ` · ${d.options.patient.name}` : ""} · Baseline` }];
  };

/** Create, edit and amend: the loader's form, or the action's re-render (a refused save, updated options, a summary). */
export function NoteFormScreen() {
  const loaded = useLoaderData() as unknown as NoteFormData | ClientChoiceData;
  const answer = useActionData() as unknown as NoteFormData | undefined;
  if (loaded.kind === "choose-client" && !answer) return <ChooseClient data={loaded} />;
  const d = answer ?? (loaded as NoteFormData);
  const type = d.options.type;
  const base = NOTE_TYPE_PATHS[type];
  const title = noteFormHeading(d);
  return (
    <section className="card note-screen">
      <div className="page-head">
        <h1>
          {title}
          {d.options.patient ? <span className="muted"> · {d.options.patient.name}</span> : null}
        </h1>
        <span>
          {d.note ? <Link to={`${base}/view/${d.note.id}`}>Back to the note</Link> : null}
          {d.options.patient ? (
            <>
              {d.note ? " · " : null}
              <Link to={`${base}/listbyclient/${d.options.patient.id}`}>Client's {NOTE_TYPE_LABELS[type]}s</Link>
            </>
          ) : null}
        </span>
      </div>
      {d.notice ? <p className="alert alert-info" role="status">{d.notice}</p> : null}
      {d.conflict && d.version !== null ? (
        // A stale save (409): the form shows what is stored; what was typed is listed, with JavaScript off too.
        <StaleNotice message={d.message} version={d.version} unsaved={d.unsaved ?? null} hidden={NOTE_FORM_OWN_FIELDS} stored={d.values} />
      ) : (
        <FormMessage error={d.message} />
      )}
      {/* key: a re-render after a POST starts from the answer's values, not the previous ones. */}
      <NoteForm
        key={JSON.stringify([d.values, d.version, d.errors])}
        options={d.options}
        values={d.values}
        errors={d.errors}
        mode={d.mode}
        formToken={d.formToken}
        version={d.version}
        action={d.action}
        draftKey={d.draftKey}
        summaryError={d.summaryError}
        conflict={d.conflict}
        noteId={d.note?.id ?? null}
      />
      <script type="module" src={ASSET_URLS.noteFormJs} />
    </section>
  );
}

/** A note view's title names the note, its client and its session date (decision 021, 2026-11-27 (stop 29)): "RBT note · Ava Davis · 2026-10-21". */
export const noteViewMeta: MetaFunction = ({ data }) => {
  const d = data as Pick<NoteViewProps, "note" | "context"> | undefined;
  return [{ title: d ? `${NOTE_TYPE_LABELS[d.note.type]} · ${d.context.patient.first_name} ${d.context.patient.last_name} · ${d.note.session_date} · Baseline` : "Note · Baseline" }];
};

export function NoteViewScreen() {
  const loaded = useLoaderData() as unknown as Omit<NoteViewProps, "error">;
  const answer = useActionData() as unknown as NoteViewProps["error"] | undefined;
  return <NoteView {...loaded} error={answer ?? null} />;
}

interface ByClientData {
  type: NoteJson["type"];
  patientId: number;
  clientName: string;
  page: Paged<NoteJson>;
  queryError: string | null;
  canManage: boolean;
  selfId: number;
  flash: { success: string | null; warning: string | null };
}

export function NotesByClientScreen() {
  const d = useLoaderData() as unknown as ByClientData;
  const base = NOTE_TYPE_PATHS[d.type];
  const columns: Column<NoteJson>[] = [
    { header: "Date", cell: (n) => n.session_date },
    { header: "Provider", cell: (n) => n.provider_name || "—" },
    { header: "CPT", cell: (n) => <abbr title={CPT_LABELS[n.cpt_code] ?? n.cpt_code}>{n.cpt_code}</abbr> },
    {
      header: "Times",
      cell: (n) =>
        [n.time_in && n.time_out ? `${n.time_in}–${n.time_out}` : null, n.time_in2 && n.time_out2 ? `${n.time_in2}–${n.time_out2}` : null].filter(Boolean).join(", ") || "—",
    },
    { header: "Units", cell: (n) => n.total_units },
    { header: "Status", cell: (n) => (n.status === "ok" ? "OK" : "Pending") },
    { header: "Signed", cell: (n) => (n.signed_at ? "Yes" : "No") },
    actionsColumn((n) => [
      <Link key="v" to={`${base}/view/${n.id}`} aria-label={`View the note of ${n.session_date}`}>
        View
      </Link>,
      d.canManage || n.provider_id === d.selfId ? (
        <Link key="e" to={`${base}/edit/${n.id}`} aria-label={`${n.signed_at ? "Amend" : "Edit"} the note of ${n.session_date}`}>
          {n.signed_at ? "Amend" : "Edit"}
        </Link>
      ) : null,
      <a key="p" href={`${base}/pdf/${n.id}`} target="_blank" rel="noopener" aria-label={`PDF of the note of ${n.session_date}`}>
        PDF
      </a>,
    ]),
  ];
  return (
    <section className="card">
      <div className="page-head">
        <h1>{`${NOTE_TYPE_LABELS[d.type]}s · ${d.clientName}`}</h1>
        {/* data-prefetch: the form's module, as on the notes list (decision 035). */}
        <Link className="btn btn-primary" to={`${base}?patient_id=${d.patientId}`} data-prefetch={ASSET_URLS.noteFormJs}>
          {`New ${NOTE_TYPE_LABELS[d.type]}`}
        </Link>
      </div>
      <FormMessage success={d.flash.success} warning={d.flash.warning} />
      <FormMessage error={d.queryError} />
      <DataList page={d.page} columns={columns} caption={`${NOTE_TYPE_LABELS[d.type]}s of ${d.clientName}`} />
    </section>
  );
}
