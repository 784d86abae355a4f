import { data, redirect, type AppLoadContext } from "@remix-run/cloudflare";
import { valueOf, type FormValues } from "~/components/notes/note-fields";
import { NOTE_TYPE_PATHS, type NoteFormOptions } from "~/components/notes/types";
import type { NoteHistoryEntry as ViewHistoryEntry } from "~/components/notes/note-view";
import { versionChanges } from "~/components/notes/note-history";
import { GOAL_MEASURES, measuredRowsOnly, noteBodyToFormFields, noteFormToBody, providerNameFor } from "~/domain/note-form";
import { noteDraftKey, SERVER_DRAFT_CHANGED_SINCE } from "~/domain/note-drafts";
import { CANNOT_SUPERVISE, PA_DELETED, todayIn } from "~/domain/note-rules";
import { unitsLeftText } from "~/domain/pa-pacing";
import { dollarsOf } from "~/domain/billing";
import { posText } from "~/domain/locations";
import { goneStaffLabel, CLIENT_NOT_FOUND } from "~/domain/patients";
import { minuteOfDay, type NoteJson, type NoteType } from "~/domain/notes";
import { can, type Actor } from "~/domain/permissions";
import { ListQuery } from "~/domain/paging";
import { parseWith, pathId, searchText } from "~/domain/validation";
import * as v from "valibot";
import { DEFAULT_INTERVENTIONS } from "~/domain/bip-defaults";
import { clientChoices } from "~/models/bips.server";
import { countersignNote, createNote, deleteNote, NOTE_DELETED, getNoteView, noteAsInput, noteConfig, noteEditForm, noteItemsByClient, noteSummaryDisclosure, setNoteModifiers, setNoteStatus, updateNote, type NoteConfig } from "~/models/notes.server";
import { flashParts, flashWithWarning } from "~/domain/flash";
import type { ModelContext } from "~/models/context";
import type { ModelResult } from "~/models/results";
import { AI_SUMMARY_ERROR, MISSING_FIELDS_INTRO } from "~/domain/note-summary";
import { generateNoteSummary } from "./ai-summary.server";
import { auditClientsRead, auditWho } from "./audit.server";
import { randomToken } from "./crypto.server";
import { formValues, formVersion, modelContextFor, parentInAddress, requireDeleteConfirmed, withFormVersion } from "./forms.server";
import { endedSessionUser, forbidden, getSigned, notFound, requireId, requirePermission } from "./guard.server";
import { draftFieldsOf, keepDraft, takeDraft, type DraftFields } from "./note-drafts.server";

/**
 * The note screens' loaders and actions (RBT, BCBA and combined alike; docs/decisions/025). The route
 * modules are thin: each calls one factory here with its note type. Guard first (view_notes; the model
 * decides what needs manage_notes), then the model; a refused save re-renders the form with every typed
 * value and each message beside its field; a note form posted after the session ended is kept as a
 * server-side draft for its user and restored after signing in again.
 */

export const NOTE_GUARD = "view_notes" as const;

/** A note form as the screen renders it: its options, the typed values, the messages. */
export interface NoteFormData {
  kind: "form";
  options: NoteFormOptions;
  values: FormValues;
  errors: Record<string, string>;
  message: string | null;
  notice: string | null;
  formToken: string | null;
  version: number | null;
  mode: "create" | "edit" | "amend";
  action: string;
  draftKey: string;
  summaryError: string | null;
  /** A stale save's answer (409): the stored values and version are shown. */
  conflict?: boolean;
  /** A stale save's answer (409): what was typed and not saved, listed beside the stored values. */
  unsaved?: FormValues;
  /** The edited note (edit and amend). */
  note: { id: number; signed_at: string | null; patient_id: number } | null;
}

export interface ClientChoiceData {
  kind: "choose-client";
  type: NoteType;
  choices: { id: number; identifier: string | null; name: string }[];
  search: string;
  notice: string | null;
}

/* ------------------------------------------------------------------ helpers */

/**
 * The form an action answered in place (a refused save, "Update the form", a summary), by request. The note screens
 * do not hydrate (decision 006): a form post is one document request that runs the action and then the loaders, and
 * the screen shows the action's answer. Its options were read (and the read audited) by the action, so the loader
 * answers the same form instead of reading and auditing them a second time: one screen answer, one read row (decision
 * 019). Keyed by the request's `context.app`, as the guard's per-request session read is (guard.server.ts).
 */
const answeredInPlace = new WeakMap<object, NoteFormData>();

function answerInPlace(context: AppLoadContext, answer: NoteFormData, status: number) {
  answeredInPlace.set(context.app, answer);
  return data(answer, { status });
}

/** The form's own path: where it posts, where its drafts belong. */
function createPath(type: NoteType, patientId: number): string {
  return `${NOTE_TYPE_PATHS[type]}?patient_id=${patientId}`;
}
function editPath(type: NoteType, id: number): string {
  return `${NOTE_TYPE_PATHS[type]}/edit/${id}`;
}

/** May the actor write this note? Their own with view_notes; anyone's with manage_notes (decision 023). */
export function mayWriteNote(actor: Actor, note: Pick<NoteJson, "provider_id">): boolean {
  return note.provider_id === actor.id || can(actor, "manage_notes");
}

/** Form values as the form reads them (repeated names become lists). */
function valuesOfPairs(pairs: Iterable<readonly [string, string]>): FormValues {
  const out: FormValues = {};
  for (const [k, val] of pairs) {
    const cur = out[k];
    if (cur === undefined) out[k] = k.endsWith("[]") ? [val] : val;
    else out[k] = Array.isArray(cur) ? [...cur, val] : [cur, val];
  }
  return out;
}

/** A stored note as form values: a combined note's price in dollars, as the form asks for it (`unit_price`, "29.75"). */
function noteValues(note: NoteJson): FormValues {
  const { unit_price_cents, ...input } = noteAsInput(note);
  const price = note.type === "combined" ? { unit_price: unit_price_cents === null ? "" : dollarsOf(unit_price_cents) } : {};
  return valuesOfPairs(noteBodyToFormFields({ ...input, ...price } as unknown as Record<string, unknown>));
}

const TEXT_LISTS = new Set(["interventions", "demonstrated_replacement_protocols", "demonstrated_intervention_protocols", "discussed_behaviors"]);

/**
 * The rules' field names → the form's: a list entry's field (`content.maladaptives.frequency`) is shown on
 * its list, a list of text on its checkboxes (`content.interventions[]`).
 */
export function formErrors(errors: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, m] of Object.entries(errors)) {
    const entry = /^content\.([a-z0-9_]+)\.[a-z0-9_.]+$/.exec(k);
    let name = entry ? `content.${entry[1]}` : k;
    const list = /^content\.([a-z0-9_]+)$/.exec(name);
    if (list && TEXT_LISTS.has(list[1]!)) name = `content.${list[1]}[]`;
    out[name] ??= m;
  }
  return out;
}

/**
 * The body the model takes from a posted note form. The form lists every active goal of the client; a goal
 * row left blank was not measured this session and is left out (measuredRowsOnly; the browser module disables
 * such rows too, so the AI summary's pre-check sees the same).
 */
export function bodyOf(type: NoteType, form: FormData): Record<string, unknown> {
  const fields = [...form.entries()] as [string, FormDataEntryValue][];
  const body = noteFormToBody(measuredRowsOnly(fields));
  const content = body.content as Record<string, unknown>;
  // A goal list posted with every row blank is an empty list (nothing measured), not a list left out.
  for (const [name] of fields) {
    const list = /^content\.([a-z0-9_]+)\[\d+\]\./.exec(name)?.[1];
    if (list && list in GOAL_MEASURES) content[list] ??= [];
  }
  return { ...body, type };
}

/**
 * The form's options from the model's noteConfig, or null when the client is not in the actor's scope. An edited
 * note's stored supervisor stays in the Supervisor select even when they cannot supervise (marked), so saving
 * unchanged keeps them (decision 017's rule: only a changed supervisor is checked). So does a supervisor the
 * refused form named (`typedSupervisor`), by name, when they are staff of the client's location. Its stored provider
 * and supervisor who left the note's location, were made inactive or were deleted, stay in their own fields, named with why.
 */
async function formOptions(ctx: ModelContext, type: NoteType, patientId: number, edited: { id: number; provider_id: number | null; supervisor_id: number | null } | null = null, typedSupervisor: FormDataEntryValue | null = null): Promise<NoteFormOptions | null> {
  // Every PA service of the client for the type's codes: the form offers those covering the date and CPT. Their
  // weekly meter leaves the edited note out (its own units are not counted twice).
  const result = await noteConfig(ctx, type, { patient_id: patientId }, { editedNoteId: edited?.id ?? null });
  if (!result.ok) {
    if (result.status === 404 || result.status === 422) return null;
    throw forbidden(result.message);
  }
  return optionsOf(ctx, type, result.data, edited, typedSupervisor);
}

/**
 * The edit form of a note the actor may write (mayWriteNote; 403 otherwise, 404 out of scope), with its options: ONE
 * audit row, the note's read, with the options in its batch (decision 019: session, note, batch = 3 round trips).
 */
async function editForm(ctx: ModelContext, type: NoteType, id: number, typedSupervisor: FormDataEntryValue | null = null): Promise<{ note: NoteJson; options: NoteFormOptions }> {
  const result = await noteEditForm(ctx, type, id, (note) => mayWriteNote(ctx.actor, note));
  if (!result.ok) {
    if (result.status === 403) throw forbidden();
    throw notFound("Note not found.");
  }
  const { note, config } = result.data;
  const options = optionsOf(ctx, type, config, note, typedSupervisor);
  if (!options) throw notFound("Note not found.");
  return { note, options };
}

/** A note form's options from its config (noteConfig): the client's staff, PA services, goals and interventions. */
function optionsOf(ctx: ModelContext, type: NoteType, config: NoteConfig, edited: { id: number; provider_id: number | null; supervisor_id: number | null } | null, typedSupervisor: FormDataEntryValue | null): NoteFormOptions | null {
  const c = config.client;
  if (!c) return null;
  const staff = c.providers.map((x) => ({ value: x.id, label: x.name }));
  const kept = new Set([edited?.supervisor_id ?? null, pathId(typeof typedSupervisor === "string" ? typedSupervisor : undefined)]);
  const storedOnly = staff.filter((x) => kept.has(x.value) && !c.supervisors.some((y) => y.id === x.value)).map((x) => ({ ...x, label: `${x.label} ${CANNOT_SUPERVISE}` }));
  // The edited note's provider or supervisor who left its location, was made inactive or was deleted: in their own field only, named with why.
  const departed = (id: number | null | undefined) => (c.departed ?? []).filter((x) => x.id === id).map((x) => ({ value: x.id, label: goneStaffLabel(x.name, x.gone) }));
  return {
    type,
    patient: { id: c.patient_id, name: c.patient_name, identifier: null, time_zone: c.time_zone },
    self: { id: ctx.actor.id, name: `${ctx.actor.name} ${ctx.actor.surname}`.trim() },
    canManage: can(ctx.actor, "manage_notes"),
    providers: [...staff, ...departed(edited?.provider_id)],
    supervisors: [...c.supervisors.map((x) => ({ value: x.id, label: x.name })), ...storedOnly, ...departed(edited?.supervisor_id)],
    paServices: c.pa_services.map((s) => ({
      id: s.id,
      // The edited note's own PA service, deleted since: kept so an untouched save keeps it (the scrubber still reports it).
      label: s.deleted ? `${s.pa_service} · ${s.cpt} · ${s.start_date} to ${s.end_date} · ${PA_DELETED}` : `${s.pa_service} · ${s.cpt} · ${s.start_date} to ${s.end_date} · ${unitsLeftText(s.available_units, s.n_units)}`,
      cpt: s.cpt,
      start_date: s.start_date,
      end_date: s.end_date,
      meter: s.meter,
    })),
    pos: c.pos_codes.map((code) => ({ value: code, label: posText(code) })),
    cptCodes: config.cpt_codes,
    maladaptives: c.maladaptives.map((g) => ({ plan_id: g.plan_id, name: g.name })),
    replacements: c.replacements.map((g) => ({ plan_id: g.plan_id, name: g.name })),
    caregiverGoals: c.caregiver_goals.map((g) => ({ plan_id: g.plan_id, name: g.name })),
    // The interventions of the client's BIPs, then those of the BIP defaults (clinical §3 "Default clinical
    // content") not already named, each once.
    interventions: [...new Set([...c.interventions, ...DEFAULT_INTERVENTIONS.map((i) => i.title ?? "").filter(Boolean)])],
    bipId: c.bips[0]?.id ?? null,
    today: c.today,
  };
}

const DRAFT_RESTORED = "Your session had ended before this note was saved. Everything you typed has been restored: check it and save.";
const DRAFT_GONE = "The note you were writing when your session ended could not be restored (it is kept for 24 hours, once, for the user who wrote it).";

/** The values of a server-side draft on this form for this user, once (decision 025). */
async function restoredDraft(context: AppLoadContext, request: Request, actor: Actor, path: string): Promise<{ fields: DraftFields | null; notice: string | null }> {
  const id = new URL(request.url).searchParams.get("draft");
  if (!id) return { fields: null, notice: null };
  const { db, env, now } = context.app;
  const taken = await takeDraft(db, env, id, actor.id, path, now());
  return taken.ok ? { fields: taken.fields, notice: DRAFT_RESTORED } : { fields: null, notice: DRAFT_GONE };
}

/**
 * A note form posted without an active session: keep its fields for the user of the ended session, then
 * send them to unlock or sign in, back to the form with the draft (decision 025). When no user can be
 * told from the request, nothing is kept and the sign-in page says so.
 */
async function keepForLater(request: Request, context: AppLoadContext, path: string): Promise<never> {
  const ended = await endedSessionUser(request, context);
  if (!ended) throw redirect(`/login?redirectTo=${encodeURIComponent(path)}&draft=lost`, 303);
  const { db, env, now } = context.app;
  const id = await keepDraft(db, env, ended.userId, path, draftFieldsOf(await request.formData()), now());
  const back = id ? `${path}${path.includes("?") ? "&" : "?"}draft=${id}` : path;
  if (ended.locked) throw redirect(`/lock-screen?redirectTo=${encodeURIComponent(back)}`, 303);
  throw redirect(`/login?redirectTo=${encodeURIComponent(back)}&draft=${id ? "kept" : "lost"}`, 303);
}

/** The guard of a note form's action: with no active session the form is kept first (see keepForLater). */
async function requireNoteAction(request: Request, context: AppLoadContext, path: string) {
  if (!(await getSigned(request, context))) await keepForLater(request, context, path);
  return requirePermission(request, context, NOTE_GUARD);
}

function redirectToView(type: NoteType, id: number, message: string | undefined) {
  return redirect(`${NOTE_TYPE_PATHS[type]}/view/${id}?flash=${encodeURIComponent(message ?? "Saved.")}`, 303);
}

/** A model refusal on a form: 403/404 thrown; 409/422 re-render with the values and messages. */
function refusal<T>(result: Exclude<ModelResult<T>, { ok: true }>) {
  if (result.status === 404) throw notFound(result.message);
  if (result.status === 403) throw forbidden(result.message);
  return result;
}

/**
 * The no-JavaScript summary: the built-in (or configured) summariser over the typed form, with the client's names
 * and details looked up to be scrubbed and the request audited (`noteSummaryDisclosure`): a new note's client is the
 * page's, an edited note's is the stored note's, never the posted one. A field beyond a note's bounds answers
 * its errors, which the form shows beside the field as a refused save does.
 */
async function summaryFor(context: AppLoadContext, ctx: ModelContext, type: NoteType, form: FormData, about: { noteId: number } | { patientId: number | null }): Promise<{ summary: string } | { message: string; missing?: string[] } | { message: string; errors: Record<string, string> }> {
  // A new note's client is its page's (posted, or in the address); an edited note's is the stored note's (decision 026).
  const body = "patientId" in about && about.patientId !== null ? { ...bodyOf(type, form), patient_id: about.patientId } : bodyOf(type, form);
  const noteId = "noteId" in about ? about.noteId : null;
  const result = await generateNoteSummary(context.app.env, body, { type, disclose: (note, provider) => noteSummaryDisclosure(ctx, note, provider, noteId) });
  if (result.ok) return { summary: result.summary };
  if (result.status === 404) throw notFound(result.message);
  if (result.status === 422) return "missing" in result ? { message: result.message, missing: result.missing } : { message: result.message, errors: result.errors };
  return { message: result.message || AI_SUMMARY_ERROR };
}

/* ------------------------------------------------------------------ create */

/**
 * The note form's values taken from the address when it is opened from a scheduled session ("Write the
 * note", decision 037): times (HH:MM), the PA service, the provider (only for manage_notes; otherwise the
 * writer is the provider) and the scheduled session's id. Anything malformed is left out; the save checks all.
 */
export function scheduledPrefill(params: URLSearchParams, manages: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  const id = /^\d{1,15}$/;
  for (const k of ["time_in", "time_out"] as const) {
    const x = params.get(k) ?? "";
    if (minuteOfDay(x, k === "time_out") !== null) out[k] = x;
  }
  for (const k of ["pa_service_id", "scheduled_id"] as const) {
    const x = params.get(k) ?? "";
    if (id.test(x)) out[k] = x;
  }
  const provider = params.get("provider_id") ?? "";
  if (manages && id.test(provider)) out.provider_id = provider;
  return out;
}

export function createNoteLoader(type: NoteType) {
  return async ({ request, context }: { request: Request; context: AppLoadContext }): Promise<NoteFormData | ClientChoiceData> => {
    const { actor, auditTail } = await requirePermission(request, context, NOTE_GUARD);
    const answered = answeredInPlace.get(context.app);
    if (answered) return answered;
    const ctx = modelContextFor(context, actor);
    const url = new URL(request.url);
    const patientId = pathId(url.searchParams.get("patient_id") ?? undefined);
    const options = patientId === null ? null : await formOptions(ctx, type, patientId);
    // Another location's client (or none such) answers 404, as every record out of scope does.
    if (patientId !== null && !options) throw notFound(CLIENT_NOT_FOUND);
    if (!options) {
      const searched = parseWith(searchText(), url.searchParams.get("search") ?? "");
      const search = searched.ok ? searched.data : "";
      const choices = searched.ok ? await clientChoices(ctx, search) : [];
      // The clients named on the page are a read of client data (decision 019): one audit row names them.
      await auditClientsRead(context.app.db, auditWho(ctx), "patient", choices.map((c) => c.id), auditTail);
      return {
        kind: "choose-client",
        type,
        choices,
        search: searched.ok ? search : (url.searchParams.get("search") ?? "").slice(0, 100),
        notice: !searched.ok ? searched.errors.form! : null,
      };
    }
    const path = createPath(type, options.patient!.id);
    const restored = await restoredDraft(context, request, actor, path);
    const fresh = (): FormValues => {
      const v: FormValues = {
        session_date: url.searchParams.get("session_date") ?? options.today,
        cpt_code: url.searchParams.get("cpt_code") ?? (options.cptCodes.length === 1 ? options.cptCodes[0]! : ""),
        // The writer is the provider unless a manager picks another.
        provider_id: String(actor.id),
        // "Write the note" from a scheduled session (decision 037): its times, PA service, provider and id.
        ...scheduledPrefill(url.searchParams, can(actor, "manage_notes")),
      };
      // The provider's typed name starts as the writer's only when they are the provider (the note is signed only
      // once the signature's date is given too).
      return { ...v, provider_name: providerNameFor(valueOf(v, "provider_id"), "", options.self) };
    };
    const values: FormValues = restored.fields ? valuesOfPairs(restored.fields) : fresh();
    const token = typeof values.form_token === "string" && values.form_token ? values.form_token : randomToken(18);
    return {
      kind: "form",
      options,
      values,
      errors: {},
      message: null,
      notice: restored.notice,
      formToken: token,
      version: null,
      mode: "create",
      action: path,
      draftKey: noteDraftKey(actor.id, path),
      summaryError: null,
      note: null,
    };
  };
}

export function createNoteAction(type: NoteType) {
  return async ({ request, context }: { request: Request; context: AppLoadContext }) => {
    const url = new URL(request.url);
    const patientParam = pathId(url.searchParams.get("patient_id") ?? undefined);
    const path = patientParam === null ? NOTE_TYPE_PATHS[type] : createPath(type, patientParam);
    const { actor } = await requireNoteAction(request, context, path);
    const ctx = modelContextFor(context, actor);
    const form = await request.formData();
    const intent = String(form.get("intent") ?? "save");
    const body = bodyOf(type, form);
    const patientId = pathId(String(form.get("patient_id") ?? "")) ?? patientParam;
    const formToken = String(form.get("form_token") ?? "") || null;
    const rerender = async (status: number, extra: Partial<NoteFormData>) => {
      const options = patientId === null ? null : await formOptions(ctx, type, patientId, null, form.get("supervisor_id"));
      if (!options) throw notFound(CLIENT_NOT_FOUND);
      const p = createPath(type, options.patient!.id);
      const answer: NoteFormData = {
        kind: "form",
        options,
        values: valuesOfPairs(draftFieldsOf(form)),
        errors: {},
        message: null,
        notice: null,
        formToken: formToken ?? randomToken(18),
        version: null,
        mode: "create",
        action: p,
        draftKey: noteDraftKey(actor.id, p),
        summaryError: null,
        note: null,
        ...extra,
      };
      return answerInPlace(context, answer, status);
    };
    if (intent === "options") {
      // "Update the form": the provider's typed name follows the provider chosen (never the writer's for another's note).
      const values = valuesOfPairs(draftFieldsOf(form));
      values.provider_name = providerNameFor(valueOf(values, "provider_id"), valueOf(values, "provider_name"), { id: actor.id, name: `${actor.name} ${actor.surname}`.trim() });
      return rerender(200, { values });
    }
    if (intent === "generate-summary") {
      const s = await summaryFor(context, ctx, type, form, { patientId });
      if ("summary" in s) {
        const values = valuesOfPairs(draftFieldsOf(form));
        values["content.summary_note"] = s.summary;
        return rerender(200, { values });
      }
      if ("errors" in s) return rerender(422, { errors: formErrors(s.errors), message: s.message });
      return rerender(200, { summaryError: s.missing?.length ? `${s.message}. ${MISSING_FIELDS_INTRO} ${s.missing.join("; ")}` : s.message });
    }
    if (intent !== "save") return rerender(400, { message: "Unknown action." });
    // Opened from a scheduled session, the body carries its `scheduled_id`: the note's own batch marks it written (decision 037).
    // The client is this page's address (?patient_id=): one the actor cannot see is the page's 404, not a field error.
    const result = parentInAddress(await createNote(ctx, body, { formToken }), "patient_id", CLIENT_NOT_FOUND);
    if (result.ok) return redirectToView(type, result.data.id, result.message);
    const r = refusal(result);
    if (r.status === 422 && r.errors.scheduled_id) {
      // Not a session of this client the actor may see: the message says so and the form drops it, so saving again saves the note alone.
      const values = valuesOfPairs(draftFieldsOf(form).filter(([k]) => k !== "scheduled_id"));
      return rerender(422, { values, errors: {}, message: r.message });
    }
    return rerender(r.status, { errors: r.status === 422 ? formErrors(r.errors) : {}, message: r.message });
  };
}

/* ------------------------------------------------------------------ edit and amend */

export function editNoteLoader(type: NoteType) {
  return async ({ request, context, params }: { request: Request; context: AppLoadContext; params: { id?: string } }): Promise<NoteFormData> => {
    const { actor } = await requirePermission(request, context, NOTE_GUARD);
    const answered = answeredInPlace.get(context.app);
    if (answered) return answered;
    const ctx = modelContextFor(context, actor);
    const id = requireId(params.id, "Note");
    const { note, options } = await editForm(ctx, type, id);
    const path = editPath(type, id);
    const restored = await restoredDraft(context, request, actor, path);
    const values = restored.fields ? valuesOfPairs(restored.fields) : noteValues(note);
    // A draft keeps the version it was typed against: a save over changes made since is a stale one (409).
    const version = restored.fields ? (Number(values.version) || note.version) : note.version;
    return {
      kind: "form",
      options,
      values,
      errors: {},
      message: null,
      notice: restored.fields && version !== note.version ? `${restored.notice} ${SERVER_DRAFT_CHANGED_SINCE}` : restored.notice,
      formToken: null,
      version,
      mode: note.signed_at ? "amend" : "edit",
      action: path,
      draftKey: noteDraftKey(actor.id, path),
      summaryError: null,
      note: { id: note.id, signed_at: note.signed_at, patient_id: note.patient_id },
    };
  };
}

export function editNoteAction(type: NoteType) {
  return async ({ request, context, params }: { request: Request; context: AppLoadContext; params: { id?: string } }) => {
    const id = requireId(params.id, "Note");
    const path = editPath(type, id);
    const { actor } = await requireNoteAction(request, context, path);
    const ctx = modelContextFor(context, actor);
    const form = await request.formData();
    const intent = String(form.get("intent") ?? "save");
    const typed = valuesOfPairs(draftFieldsOf(form));
    const version = formVersion(form.get("version"));
    const rerender = async (status: number, extra: Partial<NoteFormData>, current?: NoteJson) => {
      // After a stale save the stored note is known (its options are one more read); else the form is read again.
      const { note, options } = current ? { note: current, options: await formOptions(ctx, type, current.patient_id, current, form.get("supervisor_id")) } : await editForm(ctx, type, id, form.get("supervisor_id"));
      if (!options) throw notFound("Note not found.");
      const answer: NoteFormData = {
        kind: "form",
        options,
        values: typed,
        errors: {},
        message: null,
        notice: null,
        formToken: null,
        version: version ?? note.version,
        mode: note.signed_at ? "amend" : "edit",
        action: path,
        draftKey: noteDraftKey(actor.id, path),
        summaryError: null,
        note: { id: note.id, signed_at: note.signed_at, patient_id: note.patient_id },
        ...extra,
      };
      return answerInPlace(context, answer, status);
    };
    if (intent === "options") return rerender(200, {});
    if (intent === "generate-summary") {
      const s = await summaryFor(context, ctx, type, form, { noteId: id });
      if ("summary" in s) return rerender(200, { values: { ...typed, "content.summary_note": s.summary } });
      if ("errors" in s) return rerender(422, { errors: formErrors(s.errors), message: s.message });
      return rerender(200, { summaryError: s.missing?.length ? `${s.message}. ${MISSING_FIELDS_INTRO} ${s.missing.join("; ")}` : s.message });
    }
    if (intent !== "save" && intent !== "amend") return rerender(400, { message: "Unknown action." });
    const result = await withFormVersion(form.get("version"), (version) =>
      updateNote(ctx, type, id, bodyOf(type, form), { version, partial: false, keepModifiers: true, keepSpecContent: true, resend: true, amendmentReason: String(form.get("amendment_reason") ?? "") || null }),
    );
    if (result.ok) return redirectToView(type, result.data.id, result.message);
    const r = refusal(result);
    if (r.status === 409) {
      // Someone saved meanwhile: show what is stored now, with its version, and say so. The unsaved changes listed
      // leave out the goal rows left blank, as with JavaScript (where they are not posted): they were not typed.
      const current = r.current as NoteJson;
      return rerender(409, { values: noteValues(current), version: current.version, message: r.message, conflict: true, unsaved: valuesOfPairs(measuredRowsOnly(draftFieldsOf(form))) }, current);
    }
    return rerender(r.status, { errors: r.status === 422 ? formErrors(r.errors) : {}, message: r.message });
  };
}

/* ------------------------------------------------------------------ view */

export function viewNoteLoader(type: NoteType) {
  return async ({ request, context, params }: { request: Request; context: AppLoadContext; params: { id?: string } }) => {
    const { actor } = await requirePermission(request, context, NOTE_GUARD);
    const ctx = modelContextFor(context, actor);
    const id = requireId(params.id, "Note");
    const view = await getNoteView(ctx, type, id);
    if (!view) throw notFound("Note not found.");
    const flash = new URL(request.url).searchParams.get("flash");
    // Each earlier version (newest first) with the fields in which it differs from the version that replaced it.
    const history: ViewHistoryEntry[] = view.history.map((h, i) => ({
      version: h.version,
      reason: h.reason,
      by: h.amended_by_name,
      at: h.amended_at,
      changes: versionChanges(h.note, i === 0 ? view.note : view.history[i - 1]!.note),
    }));
    return {
      note: view.note,
      context: view.context,
      history,
      canManage: can(actor, "manage_notes"),
      canEdit: mayWriteNote(actor, view.note),
      // The note's supervisor countersigns it once its provider has signed (decision 023): name and today to start with.
      // Never the provider, nor someone who cannot supervise now, even on a note stored before the supervisor rule
      // that names them as its supervisor.
      countersign:
        view.note.supervisor_id === actor.id && view.note.provider_id !== actor.id && view.supervisorQualified && actor.kind === "user" && view.note.signed_at && !view.note.supervisor_signed_on
          ? { name: `${actor.name} ${actor.surname}`.trim(), today: todayIn(ctx.now(), view.context.location.time_zone) }
          : null,
      flash: flash ? flash.slice(0, 200) : null,
      clearDrafts: flash ? [noteDraftKey(actor.id, createPath(type, view.note.patient_id)), noteDraftKey(actor.id, editPath(type, id))] : [],
    };
  };
}

export function viewNoteAction(type: NoteType) {
  return async ({ request, context, params }: { request: Request; context: AppLoadContext; params: { id?: string } }) => {
    const { actor } = await requirePermission(request, context, NOTE_GUARD);
    const ctx = modelContextFor(context, actor);
    const id = requireId(params.id, "Note");
    const values = formValues(await request.formData());
    const intent = String(values.intent ?? "");
    if (intent === "delete") {
      // Only the confirm step's 'Yes, delete it' deletes.
      requireDeleteConfirmed(values, `${NOTE_TYPE_PATHS[type]}/view/${id}?confirm=delete#delete-note`);
      const deleted = await deleteNote(ctx, type, id);
      if (deleted.ok) {
        // When its scheduled session no longer fits and was cancelled, the list says so (decision 037, 2026-11-28).
        const cancelled = deleted.message && deleted.message !== NOTE_DELETED ? deleted.message.slice(NOTE_DELETED.length).trim() : null;
        const list = `${NOTE_TYPE_PATHS[type]}/listbyclient/${deleted.data.patient_id}`;
        return redirect(cancelled ? `${list}?flash=${encodeURIComponent(flashWithWarning(NOTE_DELETED, cancelled))}` : list, 303);
      }
      const r = refusal(deleted);
      return data({ intent, message: r.message, errors: {} as Record<string, string> }, { status: r.status });
    }
    const result =
      intent === "status"
        ? await setNoteStatus(ctx, type, id, { status: values.status })
        : intent === "modifiers"
          ? // The form shows all three codes as read with the note's version: a form opened before another save is stale (409).
            await withFormVersion(values.version, (version) => setNoteModifiers(ctx, type, id, { md: values.md || null, md2: values.md2 || null, md3: values.md3 || null }, version))
          : intent === "countersign"
            ? await countersignNote(ctx, type, id, values)
            : null;
    if (!result) return data({ intent, message: "Unknown action.", errors: {} as Record<string, string> }, { status: 400 });
    if (result.ok) return redirect(`${NOTE_TYPE_PATHS[type]}/view/${id}?flash=${encodeURIComponent(result.message ?? "Saved.")}`, 303);
    const r = refusal(result);
    // A refused countersignature keeps what was typed, and the drawing as the portal consent does (decision 040).
    // A refused modifier change keeps the codes chosen: a stale one (409) lists them beside the stored ones the loader reads.
    const typed =
      intent === "countersign"
        ? { supervisor_name: String(values.supervisor_name ?? ""), supervisor_signed_on: String(values.supervisor_signed_on ?? ""), supervisor_signature: String(values.supervisor_signature ?? "") }
        : intent === "modifiers"
          ? { md: String(values.md ?? ""), md2: String(values.md2 ?? ""), md3: String(values.md3 ?? "") }
          : undefined;
    return data({ intent, message: r.message, errors: r.status === 422 ? r.errors : ({} as Record<string, string>), values: typed, conflict: r.status === 409 }, { status: r.status });
  };
}

/* ------------------------------------------------------------------ list by client */

export function notesByClientLoader(type: NoteType) {
  return async ({ request, context, params }: { request: Request; context: AppLoadContext; params: { patientId?: string } }) => {
    const { actor } = await requirePermission(request, context, NOTE_GUARD);
    const ctx = modelContextFor(context, actor);
    const patientId = requireId(params.patientId, "Client");
    const parsed = parseWith(ListQuery, Object.fromEntries(new URL(request.url).searchParams));
    const query = parsed.ok ? parsed.data : v.parse(ListQuery, {});
    // The client with its name, the page and the audit tail in one batch, then the audit row (the model's noteItemsByClient).
    const found = await noteItemsByClient(ctx, type, patientId, query);
    if (!found) throw notFound(CLIENT_NOT_FOUND);
    return {
      type,
      patientId,
      clientName: found.clientName,
      page: found.page,
      queryError: parsed.ok ? null : Object.values(parsed.errors)[0]!,
      canManage: can(actor, "manage_notes"),
      selfId: actor.id,
      flash: flashParts(new URL(request.url).searchParams.get("flash")),
    };
  };
}
