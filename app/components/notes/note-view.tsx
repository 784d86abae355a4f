import { Form, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ConfirmDelete } from "~/components/goals/objectives-table";
import { MODIFIERS, modifierChoicesFor, modifierInfo } from "~/domain/insurance";
import { posText } from "~/domain/locations";
import { NOTE_STATUSES, noteSpecFields, noteStaffName, type NoteContext, type NoteJson } from "~/domain/notes";
import { zonedDate } from "~/domain/time";
import { isSignatureImage } from "~/domain/signature-image";
import { DELETE_CONFIRMED } from "~/domain/validation";
import { useNonce } from "../nonce";
import type { NoteVersionField } from "./note-history";
import { ASSET_URLS } from "~/assets";
import { Field, FormMessage, describedBy } from "../ui/field";
import { StaleNotice } from "../ui/stale-notice";
import { CPT_LABELS, NOTE_TYPE_LABELS, NOTE_TYPE_PATHS } from "./types";
import { DataTable, type Column } from "~/components/ui/data-list";

/**
 * A note as read (clinical §3, issue 10): every field, its times, minutes and units, status and modifiers,
 * the signatures (drawn ones as images), the history of versions, the PDF link and — for manage_notes — the
 * status and modifier forms (plain POST → 303 → GET, with or without JavaScript).
 */

export interface NoteHistoryEntry {
  version: number;
  reason: string;
  by: string;
  at: string;
  /** The fields in which this earlier version differs from the one that replaced it, with the earlier text. */
  changes: NoteVersionField[];
}

const HISTORY_COLUMNS: Column<NoteHistoryEntry>[] = [
  { header: "Version", cell: (h) => h.version },
  { header: "Amended by", cell: (h) => h.by },
  { header: "When", cell: (h) => `${h.at.replace("T", " ").slice(0, 16)} UTC` },
  { header: "Reason", className: "pre-line", cell: (h) => h.reason },
];

export interface NoteViewProps {
  note: NoteJson;
  context: NoteContext;
  history: NoteHistoryEntry[];
  canManage: boolean;
  canEdit: boolean;
  flash: string | null;
  /** A refused form's answer; `conflict`: a stale modifier change (409), shown beside the stored codes. */
  error: { intent: string; message: string; errors: Record<string, string>; values?: Record<string, string>; conflict?: boolean } | null;
  /** Set when the actor is the note's supervisor and may countersign it now: their name and today, to start with. */
  countersign: { name: string; today: string } | null;
  /** localStorage keys of this note's form drafts, cleared after a successful save (decision 025). */
  clearDrafts: string[];
}

const MODIFIER_FIELDS = ["md", "md2", "md3"] as const;
type ModifierField = (typeof MODIFIER_FIELDS)[number];

/** A sent modifier as its select's option names it (codes are stored in capitals). */
const shownCode = (sent: string | undefined) => (sent ? (modifierInfo(sent)?.code ?? sent.trim()) : "");

/**
 * A modifier select's codes: those that fit the note and its stored code (modifierChoicesFor), and the code a refused
 * change sent when it is not among them (a misfit, or a code the table does not have), so the select shows it.
 */
function modifierOptions(type: NoteJson["type"], stored: string | null, shown: string): { code: string; meaning: string }[] {
  const choices = modifierChoicesFor(type, stored);
  if (!shown || choices.some((m) => m.code === shown)) return choices;
  const sent = modifierInfo(shown);
  return sent ? MODIFIERS.filter((m) => m === sent || choices.includes(m)) : [...choices, { code: shown, meaning: "" }];
}

const text = (v: unknown) => (v === null || v === undefined || v === "" ? "—" : String(v));

function Row({ label, value }: { label: string; value: unknown }) {
  return (
    <div className="dl-row">
      <dt>{label}</dt>
      <dd>{text(value)}</dd>
    </div>
  );
}

function TextBlock({ label, value }: { label: string; value: string | undefined }) {
  if (!value) return null;
  return (
    <div className="dl-row dl-block">
      <dt>{label}</dt>
      <dd className="pre-line">{value}</dd>
    </div>
  );
}

function ListBlock({ label, items }: { label: string; items: string[] | undefined }) {
  if (!items || items.length === 0) return null;
  return (
    <div className="dl-row dl-block">
      <dt>{label}</dt>
      <dd>
        <ul>
          {items.map((i) => (
            <li key={i}>{i}</li>
          ))}
        </ul>
      </dd>
    </div>
  );
}

function Content({ note }: { note: NoteJson }) {
  const c = note.content ?? {};
  return (
    <dl className="note-dl">
      {note.cpt_code === "97151" ? <Row label="Assessment type" value={note.subtype === "report" ? "Report" : "Observation"} /> : null}
      <TextBlock label="Participants" value={c.participants} />
      <TextBlock label="Environmental changes" value={c.environmental_changes} />
      <TextBlock label="Procedure" value={c.procedure} />
      <TextBlock label="Assessment tools" value={c.assessment_tools} />
      <TextBlock label="Intake and outcome measurements" value={c.intake_outcome} />
      {c.maladaptives?.length ? (
        <div className="dl-row dl-block">
          <dt>Maladaptive behaviors</dt>
          <dd>
            <ul>
              {c.maladaptives.map((m, i) => (
                <li key={i}>{`${m.name}: ${text(m.frequency)} ${m.frequency === 1 ? "time" : "times"}`}</li>
              ))}
            </ul>
          </dd>
        </div>
      ) : null}
      {c.replacements?.length ? (
        <div className="dl-row dl-block">
          <dt>Replacement behaviors</dt>
          <dd>
            <ul>
              {c.replacements.map((r, i) => (
                <li key={i}>{`${r.name}: ${text(r.correct_responses)} correct of ${text(r.total_trials)} trials${typeof r.percent === "number" ? ` (${r.percent}%)` : ""}`}</li>
              ))}
            </ul>
          </dd>
        </div>
      ) : null}
      {(["replacement_percentages", "caregiver_goals"] as const).map((k) =>
        c[k]?.length ? (
          <div className="dl-row dl-block" key={k}>
            <dt>{k === "caregiver_goals" ? "Caregiver goals" : "Replacements (% achieved)"}</dt>
            <dd>
              <ul>
                {c[k]!.map((g, i) => (
                  <li key={i}>{`${g.name}: ${g.percent === null ? "—" : `${g.percent}%`}`}</li>
                ))}
              </ul>
            </dd>
          </div>
        ) : null,
      )}
      {c.protocol_modifications?.length ? (
        <div className="dl-row dl-block">
          <dt>Protocol modifications</dt>
          <dd>
            <ul>
              {c.protocol_modifications.map((p, i) => (
                <li key={i}>{`${p.name}: ${[p.assessed && "assessed", p.modified && "modified", p.demonstrated && "demonstrated"].filter(Boolean).join(", ") || "—"}`}</li>
              ))}
            </ul>
          </dd>
        </div>
      ) : null}
      <TextBlock label="Other protocol" value={c.other_protocol} />
      <TextBlock label="Other protocol: details" value={c.other_protocol_details} />
      <TextBlock label="Why was the protocol modified or not modified" value={c.why_was_the_protocol_modified_or_not_modified} />
      <TextBlock label="Protocol modifications in detail" value={c.describe_in_detail_the_protocol_modifications} />
      <ListBlock label="Demonstrated replacement protocols" items={c.demonstrated_replacement_protocols} />
      <ListBlock label="Demonstrated intervention protocols" items={c.demonstrated_intervention_protocols} />
      <ListBlock label="Behaviors discussed" items={c.discussed_behaviors} />
      <ListBlock label="Interventions" items={c.interventions} />
      <TextBlock label="Client appeared (mood)" value={c.client_appeared} />
      <TextBlock label="As evidenced by" value={c.as_evidenced_by} />
      <TextBlock label="RBT modeled and demonstrated to caregiver" value={c.rbt_modeled_and_demonstrated_to_caregiver} />
      <TextBlock label="Client's response to treatment this session" value={c.client_response_to_treatment_this_session} />
      <TextBlock label="Progress noted this session compared to previous session" value={c.progress_noted_this_session_compared_to_previous_session} />
      <TextBlock label="Next session is scheduled for" value={c.next_session_is_scheduled_for} />
      {noteSpecFields(c).map((f) => (f.list ? <ListBlock key={f.label} label={f.label} items={f.lines} /> : <TextBlock key={f.label} label={f.label} value={f.lines[0]} />))}
      <TextBlock label="Summary" value={note.summary_note || c.summary_note} />
    </dl>
  );
}

function Signature({ label, name, signedOn, image }: { label: string; name: string; signedOn: string | null; image: string | null }) {
  return (
    <div className="signature-view">
      <h3>{label}</h3>
      {image && image.startsWith("data:image/png;base64,") ? <img className="signature-img" src={image} alt={`${label}'s signature`} /> : null}
      <p>
        {name || "—"}
        {signedOn ? <span className="muted"> · signed {signedOn}</span> : <span className="muted"> · not signed</span>}
      </p>
    </div>
  );
}

export function NoteView({ note, context, history, canManage, canEdit, flash, error, clearDrafts, countersign }: NoteViewProps) {
  const nonce = useNonce();
  const base = NOTE_TYPE_PATHS[note.type];
  const [params] = useSearchParams();
  const client = `${context.patient.first_name} ${context.patient.last_name}`;
  const times = [
    note.time_in || note.time_out ? `${text(note.time_in)}–${text(note.time_out)}` : null,
    note.time_in2 || note.time_out2 ? `${text(note.time_in2)}–${text(note.time_out2)}` : null,
  ].filter(Boolean);
  const modifiers = [note.md, note.md2, note.md3].filter(Boolean) as string[];
  const statusError = error?.intent === "status" ? error : null;
  const modifierError = error?.intent === "modifiers" ? error : null;
  const countersignError = error?.intent === "countersign" ? error : null;
  // A refused change (422) shows the codes the user sent, so the message is about what the form shows; a stale one
  // (409) shows the stored codes with the stored version, the codes sent listed beside them (decision 030).
  const sentModifiers = modifierError && !modifierError.conflict ? modifierError.values : undefined;
  const shownModifiers = Object.fromEntries(MODIFIER_FIELDS.map((k) => [k, sentModifiers ? shownCode(sentModifiers[k]) : (note[k] ?? "")])) as Record<ModifierField, string>;
  // A refusal on another field shows the form again with the drawing made (decision 040's rule); a drawing refused itself starts empty.
  const postedDrawing = countersignError?.values?.supervisor_signature;
  const drawn = !countersignError?.errors.supervisor_signature && typeof postedDrawing === "string" && isSignatureImage(postedDrawing) ? postedDrawing : "";
  return (
    <section className="card note-view">
      {flash && clearDrafts.length ? (
        // The save went through: the browser drafts of this note's forms are no longer needed.
        <script
          nonce={nonce}
          dangerouslySetInnerHTML={{ __html: `try{${clearDrafts.map((k) => `localStorage.removeItem(${JSON.stringify(k).replace(/</g, "\\u003c")});`).join("")}}catch(e){}` }}
        />
      ) : null}
      <div className="page-head">
        <h1>
          {`${NOTE_TYPE_LABELS[note.type]} · ${client} `}
          <span className={`status status-${note.status}`}>{note.status === "ok" ? "OK" : "Pending"}</span>
        </h1>
        <span className="head-links">
          <a href={`${base}/pdf/${note.id}`} target="_blank" rel="noopener">
            PDF
          </a>
          {canEdit ? (
            <>
              {" · "}
              <Link to={`${base}/edit/${note.id}`}>{note.signed_at ? "Amend" : "Edit"}</Link>
            </>
          ) : null}
          {" · "}
          <Link to={`${base}/listbyclient/${note.patient_id}`}>{`Client's ${NOTE_TYPE_LABELS[note.type]}s`}</Link>
        </span>
      </div>
      <FormMessage success={flash} />
      {error && !statusError && !modifierError && !(countersignError && countersign) ? <FormMessage error={error.errors.form ?? error.message} /> : null}
      {note.signed_at ? <p className="alert alert-info">Signed on {zonedDate(new Date(note.signed_at), context.location.time_zone)}. This note is read-only; corrections are amendments kept in its history.</p> : null}

      <dl className="note-dl">
        <Row label="Client" value={`${context.patient.first_name} ${context.patient.last_name}${context.patient.patient_identifier ? ` (${context.patient.patient_identifier})` : ""}`} />
        <Row label="Location" value={`${context.location.title} (${context.location.time_zone})`} />
        <Row label="Provider" value={noteStaffName(context.provider, note.provider_name)} />
        <Row label="Supervisor" value={noteStaffName(context.supervisor, note.supervisor_name)} />
        <Row label="Session date" value={note.session_date} />
        <Row label="Times (local)" value={times.join(", ")} />
        <Row label="Total minutes" value={note.total_minutes} />
        <div className="dl-row">
          <dt>Units</dt>
          <dd data-testid="note-units">
            <strong>{note.total_units}</strong>
          </dd>
        </div>
        <Row label="CPT code" value={CPT_LABELS[note.cpt_code] ?? note.cpt_code} />
        <Row label="PA service" value={context.pa_service ? `${context.pa_service.pa_service} (${context.pa_service.cpt}, ${context.pa_service.start_date} to ${context.pa_service.end_date})` : null} />
        <Row label="Place of service" value={posText(note.pos)} />
        <Row label="Diagnosis code" value={note.diagnosis_code} />
        <Row label="Telehealth" value={note.is_telehealth ? "Yes" : "No"} />
        <Row label="Modifiers" value={modifiers.join(", ")} />
        {note.type === "combined" ? <Row label="Unit price" value={note.unit_price_cents === null ? null : `$${(note.unit_price_cents / 100).toFixed(2)}`} /> : null}
      </dl>

      <h2>Session</h2>
      <Content note={note} />

      <h2>Signatures</h2>
      <div className="note-grid">
        <Signature label="Provider" name={note.provider_name} signedOn={note.provider_signed_on} image={note.provider_signature} />
        <Signature label="Supervisor" name={note.supervisor_name} signedOn={note.supervisor_signed_on} image={note.supervisor_signature} />
      </div>
      {countersign ? (
        <section aria-labelledby="countersign-head" className="note-manage">
          <h2 id="countersign-head">Countersign as supervisor</h2>
          <p className="hint">You are this note's supervisor. Countersigning does not change the note.</p>
          {countersignError ? <FormMessage error={countersignError.errors.form ?? countersignError.message} /> : null}
          <Form method="post" noValidate data-countersign="" aria-label="Countersign this note">
            <input type="hidden" name="intent" value="countersign" />
            <input type="hidden" name="version" value={note.version} />
            <Field label="Your name" name="supervisor_name" id="cs-name" maxLength={120} autoComplete="name" defaultValue={countersignError?.values?.supervisor_name ?? countersign.name} error={countersignError?.errors.supervisor_name} />
            <Field label="Date" name="supervisor_signed_on" id="cs-date" type="date" max={countersign.today} defaultValue={countersignError?.values?.supervisor_signed_on ?? countersign.today} error={countersignError?.errors.supervisor_signed_on} />
            <input type="hidden" name="supervisor_signature" defaultValue={drawn} data-signature-input />
            {drawn ? <img className="signature-img" src={drawn} alt="Your drawn signature" data-signature-preview /> : null}
            {/* With JavaScript, a drawing pad appears here (app/client/consent-sign.ts). */}
            <div data-signature-pad="supervisor_signature" data-label="Draw your signature (optional)" />
            {countersignError?.errors.supervisor_signature ? (
              <p className="field-error" role="alert">
                {countersignError.errors.supervisor_signature}
              </p>
            ) : null}
            <button className="btn btn-primary" type="submit" data-pending="Countersigning…">
              Countersign
            </button>
          </Form>
          <script type="module" src={ASSET_URLS.consentSignJs} />
        </section>
      ) : null}

      {canManage ? (
        <section aria-labelledby="manage-head" className="note-manage">
          <h2 id="manage-head">Status and modifiers</h2>
          <Form method="post" className="search-form" aria-label="Change status">
            <input type="hidden" name="intent" value="status" />
            <label htmlFor="f-status">Status</label>
            <select id="f-status" name="status" defaultValue={note.status} aria-invalid={statusError ? true : undefined} aria-describedby={statusError ? "f-status-error" : undefined}>
              {NOTE_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s === "ok" ? "OK" : "Pending"}
                </option>
              ))}
            </select>
            <button className="btn" type="submit" data-pending="Saving…">
              Save status
            </button>
            {statusError ? (
              <p id="f-status-error" className="field-error" role="alert">
                {statusError.message}
              </p>
            ) : null}
          </Form>
          <Form method="post" className="search-form" aria-label="Change modifiers">
            <input type="hidden" name="intent" value="modifiers" />
            {/* The version the codes shown were read with: a form opened before another save of the note is refused (409). */}
            <input type="hidden" name="version" value={note.version} />
            {MODIFIER_FIELDS.map((k, i) => {
              const fieldError = modifierError?.errors[k];
              const errorId = `f-${k}-error`;
              return (
                <div key={k}>
                  <label htmlFor={`f-${k}`}>Modifier {i + 1}</label>{" "}
                  <select id={`f-${k}`} name={k} defaultValue={shownModifiers[k]} aria-invalid={fieldError ? true : undefined} aria-errormessage={fieldError ? errorId : undefined} aria-describedby={describedBy(fieldError && errorId)}>
                    <option value="">None</option>
                    {modifierOptions(note.type, note[k], shownModifiers[k]).map((m) => (
                      <option key={m.code} value={m.code}>
                        {m.meaning ? `${m.code} — ${m.meaning}` : m.code}
                      </option>
                    ))}
                  </select>
                  {fieldError ? (
                    <p id={errorId} className="field-error" role="alert">
                      {fieldError}
                    </p>
                  ) : null}
                </div>
              );
            })}
            <button className="btn" type="submit" data-pending="Saving…">
              Save modifiers
            </button>
            {modifierError?.conflict ? (
              <StaleNotice
                message={modifierError.message}
                version={note.version}
                shownBy="The modifiers below show"
                // "None" named as the select names it, so a code the user took away is listed too.
                unsaved={modifierError.values ? Object.fromEntries(MODIFIER_FIELDS.map((k) => [k, shownCode(modifierError.values?.[k]) || "None"])) : null}
                stored={Object.fromEntries(MODIFIER_FIELDS.map((k) => [k, note[k] || "None"]))}
                labels={{ md: "Modifier 1", md2: "Modifier 2", md3: "Modifier 3" }}
              />
            ) : modifierError && !MODIFIER_FIELDS.some((k) => modifierError.errors[k]) ? (
              // A refusal that names none of the three selects (the form's version, say): under the button.
              <p className="field-error" role="alert">
                {modifierError.errors.version ?? modifierError.message}
              </p>
            ) : null}
          </Form>
          <h3 id="delete-note">Delete this note</h3>
          {params.get("confirm") === "delete" ? (
            <ConfirmDelete
              question={`Are you sure you want to delete the ${NOTE_TYPE_LABELS[note.type]} of ${client} on ${note.session_date}?`}
              detail={`The note leaves every list and its ${note.total_units} units go back to its PA service.`}
              intent="delete"
              fields={DELETE_CONFIRMED}
              cancelTo={`${base}/view/${note.id}`}
              busy={false}
            />
          ) : (
            <Link className="btn btn-danger" to="?confirm=delete#delete-note">
              Delete this note…
            </Link>
          )}
        </section>
      ) : null}

      <section aria-labelledby="history-head">
        <h2 id="history-head">History</h2>
        <DataTable rows={history} columns={HISTORY_COLUMNS} rowKey={(h) => h.version} empty="No amendments." emptyClassName="muted" caption="Amendment history" />
        {history.map((h) => (
          <details key={h.version} className="note-version">
            <summary>{`Version ${h.version} as it was: ${h.changes.length} ${h.changes.length === 1 ? "field" : "fields"} changed on ${h.at.replace("T", " ").slice(0, 16)} UTC`}</summary>
            {h.changes.length === 0 ? (
              <p className="muted">No field differs from the version that replaced it.</p>
            ) : (
              <dl className="note-dl">
                {h.changes.map((c) => (
                  <div className="dl-row" key={c.label}>
                    <dt>{c.label}</dt>
                    <dd className="pre-line">{c.was}</dd>
                  </div>
                ))}
              </dl>
            )}
          </details>
        ))}
      </section>
    </section>
  );
}
