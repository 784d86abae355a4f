import { NOTE_SUBTYPES, TIME_OUT_FIELD, typedMinutes, unitsForMinutes } from "~/domain/notes";
import { Label } from "~/components/ui/field";
import { fieldId, ListError, NoteCheckbox, NoteCheckboxList, NoteFormProvider, NoteInput, NoteSelect, NoteTextarea, UnshownErrors, useFieldError, useNoteForm, valueOf, type FormValues } from "./note-fields";
import { CPT_LABELS, type NoteFormOptions } from "./types";
import { METER_MESSAGES, meterState, meterText, unitsOverAvailableText, unitWord, minuteWord, type MeterState } from "~/domain/pa-pacing";
import { AI_SUMMARY_BUTTON } from "~/domain/note-summary";

/**
 * The note form (RBT, BCBA, combined; clinical §3, issue 10 "Notes"), one component for the three types and
 * for create, edit and amend. Plain HTML that works with JavaScript off: the session date and CPT decide the
 * PA service options and the CPT's fields; "Update the form" re-renders with every typed value kept. With
 * JavaScript (app/client/note-form.ts) the same happens live, the units follow the times, signatures can be
 * drawn, and the draft is kept in the browser as it is typed.
 */

/** The combined note's own price: dollars, and what a blank one means (priceNote). */
export const UNIT_PRICE_HINT = "In dollars, for example 29.75. Leave blank to bill the insurer's price for the CPT.";

export type NoteFormMode = "create" | "edit" | "amend";

export interface NoteFormProps {
  options: NoteFormOptions;
  values: FormValues;
  errors: Record<string, string>;
  mode: NoteFormMode;
  /** One-time token of this form load (create), so a resend lands on the first note. */
  formToken: string | null;
  version: number | null;
  /** Where the form posts (its own path). */
  action: string;
  /** The browser draft's key: user and path (app/client/note-form.ts). */
  draftKey: string;
  /** The summary generator's message when it failed (no JavaScript path). */
  summaryError?: string | null;
  /** A stale save's answer (409): the stored values are shown, so a browser draft restored here is saved on purpose. */
  conflict?: boolean;
  /** The stored note being edited or amended: its summary is about that note's client (decision 026, stop 41). */
  noteId?: number | null;
}

export function NoteForm(props: NoteFormProps) {
  const { options, values, errors, mode } = props;
  const cpt = valueOf(values, "cpt_code") || (options.cptCodes.length === 1 ? options.cptCodes[0]! : "");
  const shown = { ...values, cpt_code: cpt };
  return (
    <NoteFormProvider values={shown} errors={errors}>
      <form method="post" action={props.action} noValidate className="note-form" data-note-form data-draft-key={props.draftKey} data-mode={mode} data-refused={Object.keys(errors).length ? "" : undefined} data-conflict={props.conflict ? "" : undefined}
        // A new note's provider name follows the Provider select (providerNameFor, app/client/note-form.ts).
        data-self-id={mode === "create" ? options.self.id : undefined}
        data-self-name={mode === "create" ? options.self.name : undefined}
      >
        {props.formToken ? <input type="hidden" name="form_token" value={props.formToken} /> : null}
        {props.version !== null ? <input type="hidden" name="version" value={props.version} /> : null}
        <input type="hidden" name="type" value={options.type} />
        {/* Opened from a scheduled session ("Write the note", decision 037): the saved note marks it written. */}
        {mode === "create" && /^\d{1,15}$/.test(valueOf(values, "scheduled_id")) ? <input type="hidden" name="scheduled_id" value={valueOf(values, "scheduled_id")} /> : null}
        {options.patient ? <input type="hidden" name="patient_id" value={options.patient.id} /> : null}
        {options.bipId !== null ? <input type="hidden" name="bip_id" value={valueOf(values, "bip_id") || options.bipId} /> : null}

        <SessionSection options={options} cpt={cpt} />
        <TimesSection options={options} />
        {options.cptCodes.map((code) => (
          <fieldset key={code} className="note-section" data-cpt-section={code} disabled={code !== cpt || undefined} hidden={code !== cpt || undefined}>
            <legend>{CPT_LABELS[code] ?? code}</legend>
            {code === cpt ? (
              <CptFields code={code} options={options} />
            ) : (
              // Another CPT's fields (shown by the browser module when the CPT changes): values, but no errors.
              <NoteFormProvider values={shown} errors={{}} idPrefix={`cpt${code}-`}>
                <CptFields code={code} options={options} />
              </NoteFormProvider>
            )}
          </fieldset>
        ))}
        {cpt === "" ? <p className="hint">Choose the CPT code and update the form to see its fields.</p> : null}
        <SummarySection error={props.summaryError ?? null} noteId={props.noteId ?? null} />
        <SignaturesSection />
        {mode === "amend" ? (
          <section className="note-section" aria-labelledby="amend-head">
            <h2 id="amend-head">Amendment</h2>
            <p className="hint">This note is signed. Saving keeps the signed version in the note's history and records your reason.</p>
            <NoteTextarea label="Reason for the amendment" name="amendment_reason" required maxLength={1000} />
          </section>
        ) : null}
        <UnshownErrors />
        <div className="form-actions note-actions">
          <button className="btn btn-primary btn-large" type="submit" name="intent" value={mode === "amend" ? "amend" : "save"} data-pending="Saving…">
            {mode === "amend" ? "Save amendment" : "Save note"}
          </button>
          <button className="btn" type="submit" name="intent" value="options" formNoValidate data-refresh-options>
            Update the form for this date and CPT
          </button>
        </div>
      </form>
    </NoteFormProvider>
  );
}

function SessionSection({ options, cpt }: { options: NoteFormOptions; cpt: string }) {
  const { values } = useNoteForm();
  const date = valueOf(values, "session_date");
  const chosenPa = valueOf(values, "pa_service_id");
  // A supervisor is never the note's provider (decision 023): the provider chosen is not offered, unless it is
  // what the form holds (a refused save shows its message beside it). The browser module follows the Provider select.
  const provider = options.canManage ? valueOf(values, "provider_id") : String(options.self.id);
  const supervisor = valueOf(values, "supervisor_id");
  const supervisors = options.supervisors.map((s) => ({ ...s, off: String(s.value) === provider && String(s.value) !== supervisor }));
  const covering = (p: NoteFormOptions["paServices"][number]) => (!cpt || p.cpt === cpt) && (!date || (p.start_date <= date && date <= p.end_date));
  return (
    <section className="note-section" aria-labelledby="session-head">
      <h2 id="session-head">Session</h2>
      <div className="note-grid">
        {options.canManage ? (
          <NoteSelect label="Provider" name="provider_id" options={options.providers} placeholder="Choose the provider" />
        ) : (
          <div className="field">
            <span className="label">Provider</span>
            <p className="static">{options.self.name}</p>
            <input type="hidden" name="provider_id" value={options.self.id} />
          </div>
        )}
        <NoteSelect label="Supervisor" name="supervisor_id" options={supervisors} placeholder="None" />
        <NoteInput label="Session date" name="session_date" type="date" max={options.today} required />
        <NoteSelect
          label="CPT code"
          name="cpt_code"
          options={options.cptCodes.map((c) => ({ value: c, label: CPT_LABELS[c] ?? c }))}
          placeholder={options.cptCodes.length > 1 ? "Choose the CPT code" : undefined}
          required
        />
        <div className="field">
          <NoteSelectPa options={options} chosen={chosenPa} covering={covering} />
        </div>
        <NoteSelect label="Place of service (POS)" name="pos" options={options.pos} placeholder="Choose the place of service" required />
        <NoteInput label="Diagnosis code" name="diagnosis_code" maxLength={20} autoComplete="off" />
        <NoteCheckbox label="Telehealth session" name="is_telehealth" />
        {/* A combined note's own price is a billing fact: only manage_notes sets it (decision 023, probe 8922 §2). */}
        {/* In dollars as every price field and the API's unit_price (decision 025, stop 41): one money rule, optionalMoney. */}
        {options.type === "combined" && options.canManage ? <NoteInput label="Unit price" name="unit_price" inputMode="decimal" autoComplete="off" hint={UNIT_PRICE_HINT} /> : null}
      </div>
    </section>
  );
}

/** The PA service select: every PA service of the client, those not covering the date and CPT disabled. */
function NoteSelectPa({ options, chosen, covering }: { options: NoteFormOptions; chosen: string; covering: (p: NoteFormOptions["paServices"][number]) => boolean }) {
  const name = "pa_service_id";
  const hintId = `${fieldId(name)}-hint`;
  // Its error sits beside it and, as every control's, takes the focus when it is the first (probe 8923).
  const f = useFieldError(name, hintId);
  const any = options.paServices.some(covering);
  return (
    <>
      <Label htmlFor={f.id} required>
        PA service
      </Label>
      <select id={f.id} name={name} defaultValue={chosen} {...f.attrs} data-pa-select required>
        <option value="">Choose the PA service</option>
        {options.paServices.map((p) => {
          const fits = covering(p);
          return (
            <option
              key={p.id}
              value={p.id}
              data-cpt={p.cpt}
              data-start={p.start_date}
              data-end={p.end_date}
              data-used={p.meter.used_units_this_week}
              data-average={p.meter.average_units_per_week}
              data-available={p.meter.available_units}
              disabled={!fits && String(p.id) !== chosen ? true : undefined}
            >
              {p.label}
            </option>
          );
        })}
      </select>
      <small id={hintId} className="hint" data-pa-hint>
        {any ? "The client's PA services that cover the session date and CPT." : "No PA service of this client covers the session date and CPT."}
      </small>
      {f.node}
    </>
  );
}

/** The session date and time pairs as typed (empty as null). */
function timesTyped(values: FormValues) {
  const time = (name: string) => valueOf(values, name) || null;
  return { session_date: valueOf(values, "session_date"), time_in: time("time_in"), time_out: time("time_out"), time_in2: time("time_in2"), time_out2: time("time_out2") };
}

function TimesSection({ options }: { options: NoteFormOptions }) {
  const { values } = useNoteForm();
  const total = typedMinutes(timesTyped(values), options.patient?.time_zone);
  const units = unitsForMinutes(total);
  const chosen = options.paServices.find((p) => String(p.id) === valueOf(values, "pa_service_id"));
  const meter = meterState(chosen?.meter ?? null, units);
  const zone = options.patient ? `local to the client's location (${options.patient.time_zone.replace(/_/g, " ")})` : "local to the client's location";
  return (
    <section className="note-section" aria-labelledby="times-head" data-times>
      <h2 id="times-head">Session times</h2>
      <p className="hint" id="times-zone">
        Times are {zone}. Fill in one or both pairs.
      </p>
      <div className="note-grid note-times">
        <NoteInput label="Morning: time in" name="time_in" type="time" />
        <NoteInput label="Morning: time out" name="time_out" {...TIME_OUT_FIELD} />
        <NoteInput label="Afternoon: time in" name="time_in2" type="time" />
        <NoteInput label="Afternoon: time out" name="time_out2" {...TIME_OUT_FIELD} />
      </div>
      <p className="note-totals" aria-live="polite">
        Total:{" "}
        <output data-total-minutes data-time-zone={options.patient?.time_zone} htmlFor="f-time_in f-time_out f-time_in2 f-time_out2">
          {total}
        </output>{" "}
        <span data-minutes-word>{minuteWord(total)}</span> ·{" "}
        <strong className={meter?.overAvailable ? "units-over" : undefined} data-units-display>
          <output data-units>{units}</output> <span data-units-word>{unitWord(units)}</span>
        </strong>
        <span className="units-over" data-units-over hidden={!meter?.overAvailable || undefined}>
          {" "}
          — <span data-units-over-text>{unitsOverAvailableText(chosen?.meter.available_units ?? 0)}</span>
        </span>
      </p>
      <UnitsMeter meter={meter} week={options.paServices[0] ? `${options.paServices[0].meter.week_start_date} to ${options.paServices[0].meter.week_end_date}` : ""} />
    </section>
  );
}

/**
 * The weekly units meter (clinical §2, §5, §8; decision 031): this week's units of the chosen PA service plus
 * the note's projected units against the authorization's weekly average. Rendered by the server from the
 * typed values (JavaScript off) and kept live by app/client/note-form.ts with the same functions.
 */
function UnitsMeter({ meter, week }: { meter: MeterState | null; week: string }) {
  return (
    <div className="pa-meter" data-pa-meter data-week={week} aria-live="polite">
      <p>
        <span data-meter-text>{meterText(meter)}</span> <span className="hint" data-meter-week>{meter && week ? `Week ${week}.` : ""}</span>
      </p>
      <p className="meter-exceeded" data-meter-exceeded hidden={!meter?.exceeded || undefined}>
        {METER_MESSAGES.exceeded}
      </p>
    </div>
  );
}

function CptFields({ code, options }: { code: string; options: NoteFormOptions }) {
  const p = `content.`;
  switch (code) {
    case "97151":
      return (
        <>
          <NoteSelect label="Assessment type" name="subtype" options={NOTE_SUBTYPES.map((s) => ({ value: s, label: s === "observation" ? "Observation" : "Report" }))} />
          <NoteTextarea label="Procedure" name={`${p}procedure`} />
          <NoteTextarea label="Assessment tools" name={`${p}assessment_tools`} />
          <NoteTextarea label="Intake and outcome measurements" name={`${p}intake_outcome`} />
        </>
      );
    case "97155":
      return (
        <>
          <SharedNarrative />
          <MaladaptiveFrequencies options={options} />
          <PercentGoals legend="Replacements (% achieved)" listKey="replacement_percentages" goals={options.replacements} />
          <ProtocolModifications options={options} />
          <NoteInput label="Other protocol" name={`${p}other_protocol`} maxLength={255} />
          <NoteTextarea label="Other protocol: details" name={`${p}other_protocol_details`} />
          <NoteTextarea label="Why was the protocol modified or not modified" name={`${p}why_was_the_protocol_modified_or_not_modified`} />
          <NoteTextarea label="Describe in detail the protocol modifications" name={`${p}describe_in_detail_the_protocol_modifications`} />
          <NoteTextarea label="Progress noted this session compared to previous session" name={`${p}progress_noted_this_session_compared_to_previous_session`} />
        </>
      );
    case "97156":
      return (
        <>
          <SharedNarrative />
          <PercentGoals legend="Caregiver goals (% achieved)" listKey="caregiver_goals" goals={options.caregiverGoals} />
          <NoteCheckboxList legend="Demonstrated replacement protocols" name={`${p}demonstrated_replacement_protocols[]`} options={options.replacements.map((g) => g.name)} />
          <NoteCheckboxList legend="Demonstrated intervention protocols" name={`${p}demonstrated_intervention_protocols[]`} options={options.interventions} />
          <NoteCheckboxList legend="Behaviors discussed" name={`${p}discussed_behaviors[]`} options={options.maladaptives.map((g) => g.name)} />
          <NoteTextarea label="Progress noted this session compared to previous session" name={`${p}progress_noted_this_session_compared_to_previous_session`} />
        </>
      );
    case "97153":
      return (
        <>
          <SharedNarrative />
          <MaladaptiveFrequencies options={options} />
          <ReplacementTrials options={options} />
          <NoteCheckboxList legend="Interventions" name={`${p}interventions[]`} options={options.interventions} />
          <NoteInput label="Client appeared (mood)" name={`${p}client_appeared`} maxLength={255} />
          <NoteTextarea label="As evidenced by" name={`${p}as_evidenced_by`} />
          <NoteTextarea label="RBT modeled and demonstrated to caregiver" name={`${p}rbt_modeled_and_demonstrated_to_caregiver`} />
          <NoteTextarea label="Client's response to treatment this session (progress noted)" name={`${p}client_response_to_treatment_this_session`} />
          <NoteInput label="Next session is scheduled for" name={`${p}next_session_is_scheduled_for`} maxLength={255} />
        </>
      );
    default:
      return null;
  }
}

function SharedNarrative() {
  return (
    <>
      <NoteTextarea label="Participants" name="content.participants" rows={2} />
      <NoteTextarea label="Environmental changes" name="content.environmental_changes" rows={2} />
    </>
  );
}

/** Goals of a list: the client's active-plan goals first, then any entries typed before that are not among them. */
function useGoalRows(listKey: string, goals: { plan_id: number; name: string }[]) {
  const { values } = useNoteForm();
  const rows: { plan_id: string; name: string }[] = goals.map((g) => ({ plan_id: String(g.plan_id), name: g.name }));
  // Entries already in the values (a stored note, a refused save) keep their index.
  const typed = new Map<number, { plan_id: string; name: string }>();
  for (const key of Object.keys(values)) {
    const m = new RegExp(`^content\\.${listKey}\\[(\\d+)\\]\\.(plan_id|name)$`).exec(key);
    if (!m) continue;
    const i = Number(m[1]);
    const row = typed.get(i) ?? { plan_id: "", name: "" };
    row[m[2] as "plan_id" | "name"] = valueOf(values, key);
    typed.set(i, row);
  }
  if (typed.size === 0) return rows;
  // Each typed entry stays at its own index, and the goals not typed fill the gaps in their order, then follow. With
  // JavaScript the blank rows are not sent (measuredRowsOnly), so a refused save comes back with gaps (0 and 2 of
  // three): filling them keeps every row where the user saw it (probe, stop 24: the "Other" row used to jump up).
  const extra = rows.filter((r) => ![...typed.values()].some((t) => t.plan_id === r.plan_id && t.name === r.name));
  const out: { plan_id: string; name: string }[] = [];
  const last = Math.max(...typed.keys());
  for (let i = 0; i <= last; i++) {
    const row = typed.get(i) ?? extra.shift();
    if (row) out.push(row);
  }
  return [...out, ...extra];
}

function GoalHidden({ listKey, i, row }: { listKey: string; i: number; row: { plan_id: string; name: string } }) {
  return (
    <>
      <input type="hidden" name={`content.${listKey}[${i}].plan_id`} value={row.plan_id} />
      <input type="hidden" name={`content.${listKey}[${i}].name`} value={row.name} />
    </>
  );
}

function MaladaptiveFrequencies({ options }: { options: NoteFormOptions }) {
  const rows = useGoalRows("maladaptives", options.maladaptives);
  return (
    <fieldset className="field goal-rows">
      <legend>Maladaptive behaviors (frequency this session)</legend>
      <ListError name="content.maladaptives" />
      {rows.length === 0 ? <p className="muted">No maladaptive goals in the client's active plans.</p> : null}
      {rows.map((row, i) =>
        row.plan_id === "" ? (
          <OtherRow key={`other-${i}`} listKey="maladaptives" i={i} fields={[["frequency", "Frequency"]]} />
        ) : (
          <div key={`${row.plan_id}-${row.name}`} className="goal-row">
            <GoalHidden listKey="maladaptives" i={i} row={row} />
            <NoteInput label={row.name} name={`content.maladaptives[${i}].frequency`} type="number" inputMode="numeric" min={0} step={1} />
          </div>
        ),
      )}
      {rows.every((r) => r.plan_id !== "") ? <OtherRow listKey="maladaptives" i={rows.length} fields={[["frequency", "Frequency"]]} /> : null}
    </fieldset>
  );
}

function ReplacementTrials({ options }: { options: NoteFormOptions }) {
  const rows = useGoalRows("replacements", options.replacements);
  return (
    <fieldset className="field goal-rows">
      <legend>Replacement behaviors (trials and correct responses)</legend>
      <ListError name="content.replacements" />
      {rows.length === 0 ? <p className="muted">No replacement goals in the client's active plans.</p> : null}
      {rows.map((row, i) =>
        row.plan_id === "" ? (
          <OtherRow key={`other-${i}`} listKey="replacements" i={i} fields={TRIAL_FIELDS} />
        ) : (
          <div key={`${row.plan_id}-${row.name}`} className="goal-row goal-row-2">
            <GoalHidden listKey="replacements" i={i} row={row} />
            <p className="goal-name">{row.name}</p>
            <NoteInput label={<><span className="visually-hidden">{`${row.name}: `}</span>Trials</>} name={`content.replacements[${i}].total_trials`} type="number" inputMode="numeric" min={0} step={1} />
            <NoteInput label={<><span className="visually-hidden">{`${row.name}: `}</span>Correct</>} name={`content.replacements[${i}].correct_responses`} type="number" inputMode="numeric" min={0} step={1} />
          </div>
        ),
      )}
      {rows.every((r) => r.plan_id !== "") ? <OtherRow listKey="replacements" i={rows.length} fields={TRIAL_FIELDS} /> : null}
    </fieldset>
  );
}

const TRIAL_FIELDS: [string, string][] = [
  ["total_trials", "Trials"],
  ["correct_responses", "Correct"],
];

/** A behavior the client's plans do not list, typed by name (one per list; blank rows are dropped on save). */
function OtherRow({ listKey, i, fields }: { listKey: string; i: number; fields: [string, string][] }) {
  return (
    <div className={`goal-row ${fields.length > 1 ? "goal-row-2" : ""}`}>
      <NoteInput label="Other behavior (name)" name={`content.${listKey}[${i}].name`} maxLength={255} className="goal-name" />
      {fields.map(([f, label]) => (
        <NoteInput key={f} label={<><span className="visually-hidden">Other behavior: </span>{label}</>} name={`content.${listKey}[${i}].${f}`} type="number" inputMode="numeric" min={0} step={1} />
      ))}
    </div>
  );
}

function PercentGoals({ legend, listKey, goals }: { legend: string; listKey: string; goals: { plan_id: number; name: string }[] }) {
  const rows = useGoalRows(listKey, goals);
  return (
    <fieldset className="field goal-rows">
      <legend>{legend}</legend>
      <ListError name={`content.${listKey}`} />
      {rows.length === 0 ? <p className="muted">None in the client's active plans.</p> : null}
      {rows.map((row, i) => (
        <div key={`${row.plan_id}-${row.name}`} className="goal-row">
          <GoalHidden listKey={listKey} i={i} row={row} />
          <NoteInput label={`${row.name} (%)`} name={`content.${listKey}[${i}].percent`} type="number" inputMode="decimal" min={0} max={100} step="any" />
        </div>
      ))}
    </fieldset>
  );
}

function ProtocolModifications({ options }: { options: NoteFormOptions }) {
  const { values } = useNoteForm();
  const names = options.replacements.map((g) => g.name);
  const typed: string[] = [];
  for (const key of Object.keys(values)) {
    const m = /^content\.protocol_modifications\[(\d+)\]\.name$/.exec(key);
    if (m) typed[Number(m[1])] = valueOf(values, key);
  }
  const rows = [...typed.filter((x) => x !== undefined), ...names.filter((n) => !typed.includes(n))];
  return (
    <fieldset className="field goal-rows">
      <legend>Protocol modifications</legend>
      <ListError name="content.protocol_modifications" />
      {rows.length === 0 ? <p className="muted">No replacement protocols in the client's active plans.</p> : null}
      {rows.map((name, i) => (
        <div key={name} className="goal-row">
          <input type="hidden" name={`content.protocol_modifications[${i}].name`} value={name} />
          <p className="goal-name">{name}</p>
          <div className="check-line">
            <NoteCheckbox label="Assessed" name={`content.protocol_modifications[${i}].assessed`} />
            <NoteCheckbox label="Modified" name={`content.protocol_modifications[${i}].modified`} />
            <NoteCheckbox label="Demonstrated" name={`content.protocol_modifications[${i}].demonstrated`} />
          </div>
        </div>
      ))}
    </fieldset>
  );
}

function SummarySection({ error, noteId }: { error: string | null; noteId: number | null }) {
  const { errors } = useNoteForm();
  return (
    <section className="note-section" aria-labelledby="summary-head">
      <h2 id="summary-head">Summary</h2>
      <NoteTextarea label="Session summary" name="content.summary_note" rows={6} maxLength={10000} />
      {error && !errors["content.summary_note"] ? (
        <p className="field-error" role="alert" data-summary-error>
          {error}
        </p>
      ) : null}
      <button type="submit" name="intent" value="generate-summary" data-ai-summary={noteId === null ? "/notes/generate-summary" : `/notes/generate-summary?note_id=${noteId}`} formNoValidate className="btn">
        {AI_SUMMARY_BUTTON}
      </button>
    </section>
  );
}

function SignaturesSection() {
  return (
    <section className="note-section" aria-labelledby="signatures-head">
      <h2 id="signatures-head">Signatures</h2>
      <p className="hint">Giving the provider's name and the date signed signs the note: it is read-only afterwards, and corrections are amendments. The supervisor countersigns from the note's view once it is signed.</p>
      <div className="note-grid">
        <SignatureBlock who="provider" label="Provider" />
      </div>
    </section>
  );
}

/** The provider's signature (the supervisor's is their countersignature, on the note's view: decision 023). */
function SignatureBlock({ who, label }: { who: "provider"; label: string }) {
  const { values } = useNoteForm();
  const drawn = valueOf(values, `${who}_signature`);
  return (
    <fieldset className="field signature">
      <legend>{label} signature</legend>
      <NoteInput label={`${label}: typed name`} name={`${who}_name`} maxLength={150} autoComplete="name" />
      <NoteInput label={`${label}: date signed`} name={`${who}_signed_on`} type="date" />
      <input type="hidden" name={`${who}_signature`} value={drawn} data-signature-input />
      {drawn ? <img className="signature-img" src={drawn} alt={`${label}'s drawn signature`} data-signature-preview /> : null}
      {/* With JavaScript, a drawing pad appears here (app/client/note-form.ts). */}
      <div data-signature-pad={`${who}_signature`} data-label={`Draw the ${label.toLowerCase()}'s signature`} />
    </fieldset>
  );
}
