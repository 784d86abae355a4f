/**
 * The note form's browser module (docs/decisions/025), loaded only by the note form screens and bundled by
 * scripts/build-assets.mjs. Everything here is an enhancement of a form that works without it:
 * - the draft: the form's fields are kept in localStorage as they are typed (debounced), keyed by user and
 *   form, with the note's version they were typed against; after a reload, a crash or a closed tab the form
 *   offers "Restore your unsaved note from 10:42?" (and warns when the note was saved again since); restoring
 *   puts that version back, so the save meets the version check; drafts older than 24 hours are dropped;
 *   the view screen clears it after a successful save (an inline script there: app/components/notes/note-view.tsx),
 *   and Logout clears the user's (public/enhance.js);
 * - live units from the two time pairs (the one units function, app/domain/notes.ts), and the weekly units meter
 *   of the chosen PA service (app/domain/pa-pacing.ts);
 * - the CPT's fields and the PA services covering the date and CPT, without a round trip;
 * - signature pads (pointer drawing → PNG data URL in the hidden input);
 * - the AI summary button (app/client/note-summary.ts) when that module is present.
 */
import { typedMinutes, unitsForMinutes } from "../domain/notes";
import { providerNameFor } from "../domain/note-form";
import { draftExpired, draftOfferText, NOTE_DRAFT_PREFIX } from "../domain/note-drafts";
import { meterState, meterText, unitsOverAvailableText, unitWord } from "../domain/pa-pacing";
import { attachAiSummary } from "./note-summary";
import { signaturePads } from "./signature-pad";
export { SIGNATURE_MAX_CHARS } from "./signature-pad";

/** Fields the page owns: never written back from a draft (the version only as the draft's own, below). */
const PAGE_FIELDS = new Set(["form_token", "version", "type", "patient_id", "intent"]);

/** `version`: the note's version the fields were typed against (edit and amend forms; none on a new note). */
type Draft = { at: number; version?: string; fields: [string, string][] };

const versionInput = (form: HTMLFormElement) => form.elements.namedItem("version") as HTMLInputElement | null;

function fieldsOf(form: HTMLFormElement): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, value] of new FormData(form)) if (typeof value === "string" && !PAGE_FIELDS.has(name)) out.push([name, value]);
  return out;
}

const same = (a: [string, string][], b: [string, string][]) => JSON.stringify(a) === JSON.stringify(b);

function readDraft(key: string): Draft | null {
  try {
    const raw = localStorage.getItem(key);
    const d = raw ? (JSON.parse(raw) as Draft) : null;
    return d && typeof d.at === "number" && Array.isArray(d.fields) ? d : null;
  } catch {
    return null;
  }
}

/** Drafts past the server copy's 24 hours (decision 025), of every user of this browser, are dropped. */
function dropOldDrafts() {
  try {
    const now = Date.now();
    const keys = Array.from({ length: localStorage.length }, (_, i) => localStorage.key(i) ?? "");
    for (const k of keys) {
      if (!k.startsWith(NOTE_DRAFT_PREFIX)) continue;
      const d = readDraft(k);
      if (!d || draftExpired(d.at, now)) localStorage.removeItem(k);
    }
  } catch {
    /* storage refused: nothing is kept either */
  }
}

function restore(form: HTMLFormElement, fields: [string, string][]) {
  const byName = new Map<string, string[]>();
  for (const [n, v] of fields) byName.set(n, [...(byName.get(n) ?? []), v]);
  for (const el of Array.from(form.elements)) {
    if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement)) continue;
    if (!el.name || PAGE_FIELDS.has(el.name)) continue;
    const vals = byName.get(el.name) ?? [];
    if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) el.checked = vals.includes(el.value);
    else if (el instanceof HTMLInputElement && el.type === "hidden" && !el.hasAttribute("data-signature-input")) continue;
    else el.value = vals.shift() ?? "";
    if (vals.length && !(el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio"))) byName.set(el.name, vals);
  }
  form.dispatchEvent(new Event("input", { bubbles: true }));
  form.dispatchEvent(new Event("change", { bubbles: true }));
}

function draftBanner(form: HTMLFormElement, key: string) {
  // A refused save shows the form again with what was just sent, which is what the draft saved on submit: nothing
  // to restore (the rows may come back in another order, so comparing the fields would not tell).
  if (form.hasAttribute("data-refused")) return;
  const draft = readDraft(key);
  if (!draft || same(draft.fields, fieldsOf(form))) return;
  const version = versionInput(form);
  // A draft of an edit form kept before drafts recorded their version: what it was typed against is unknown.
  if (version && draft.version === undefined) return localStorage.removeItem(key);
  const changedSince = !!version && draft.version !== version.value;
  const box = document.createElement("div");
  box.className = "alert alert-info draft-offer";
  box.setAttribute("role", "alertdialog");
  box.setAttribute("aria-label", "Unsaved note");
  box.innerHTML = `<p></p><button type="button" class="btn btn-primary" data-restore>Restore</button> <button type="button" class="btn" data-discard>Discard</button>`;
  box.querySelector("p")!.textContent = draftOfferText(draft.at, Date.now(), changedSince);
  box.querySelector("[data-restore]")!.addEventListener("click", () => {
    restore(form, draft.fields);
    // The save is then checked against the version the draft was typed against: changes saved since answer
    // 409 with the stored values. On that answer (data-conflict) the user has seen them: restoring keeps its
    // version, so saving the draft then is their choice.
    if (version && !form.hasAttribute("data-conflict")) version.value = draft.version!;
    box.remove();
    form.querySelector<HTMLElement>("input:not([type=hidden]), select, textarea")?.focus();
  });
  box.querySelector("[data-discard]")!.addEventListener("click", () => {
    localStorage.removeItem(key);
    box.remove();
  });
  form.parentNode?.insertBefore(box, form);
  (box.querySelector("[data-restore]") as HTMLElement).focus();
}

function keepDrafts(form: HTMLFormElement, key: string) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const initial = JSON.stringify(fieldsOf(form));
  // Logout removes the user's drafts as its form is sent (public/enhance.js): nothing is saved after it.
  let signedOut = false;
  document.addEventListener("submit", (event) => {
    if (!(event.target instanceof HTMLFormElement && event.target.hasAttribute("data-clear-drafts"))) return;
    signedOut = true;
    clearTimeout(timer);
  });
  const save = () => {
    if (signedOut) return;
    const fields = fieldsOf(form);
    // Nothing typed yet (the form as it loaded): keep no draft, and never overwrite one still on offer.
    if (JSON.stringify(fields) === initial) return;
    try {
      localStorage.setItem(key, JSON.stringify({ at: Date.now(), version: versionInput(form)?.value, fields } satisfies Draft));
    } catch {
      /* storage full or refused: the server-side paths still hold */
    }
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(save, 400);
  };
  form.addEventListener("input", later);
  form.addEventListener("change", later);
  form.addEventListener("submit", () => {
    clearTimeout(timer);
    save();
  });
  window.addEventListener("pagehide", save);
}

function liveUnits(form: HTMLFormElement) {
  const total = form.querySelector<HTMLOutputElement>("[data-total-minutes]");
  const units = form.querySelector<HTMLOutputElement>("[data-units]");
  if (!total || !units) return;
  const val = (n: string) => (form.elements.namedItem(n) as HTMLInputElement | null)?.value || null;
  const update = () => {
    // The same count as the page without JavaScript and the save: across a daylight-saving change, the time that passes.
    const minutes = typedMinutes({ session_date: val("session_date") ?? "", time_in: val("time_in"), time_out: val("time_out"), time_in2: val("time_in2"), time_out2: val("time_out2") }, total.dataset.timeZone);
    total.value = String(minutes);
    const projected = unitsForMinutes(minutes);
    units.value = String(projected);
    const minutesWord = form.querySelector("[data-minutes-word]");
    if (minutesWord) minutesWord.textContent = minutes === 1 ? "minute" : "minutes";
    const unitsWord = form.querySelector("[data-units-word]");
    if (unitsWord) unitsWord.textContent = unitWord(projected);
    liveMeter(form, projected);
  };
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  update();
}

/**
 * The weekly units meter (decision 031): the chosen PA service's facts ride on its <option> (this week's units
 * and the units left, without the note being edited, and the weekly average), so the meter follows the times
 * and the PA service with no request, computed by the same functions as the server's.
 */
function liveMeter(form: HTMLFormElement, projected: number) {
  const box = form.querySelector<HTMLElement>("[data-pa-meter]");
  if (!box) return;
  const pa = form.querySelector("[data-pa-select]") as unknown as HTMLSelectElement | null;
  const o = pa && pa.value ? pa.selectedOptions[0] : undefined;
  const facts = o ? { used_units_this_week: Number(o.dataset.used), average_units_per_week: Number(o.dataset.average), available_units: Number(o.dataset.available) } : null;
  const state = meterState(facts, projected);
  box.querySelector("[data-meter-text]")!.textContent = meterText(state);
  const week = box.querySelector("[data-meter-week]");
  if (week) week.textContent = state && box.dataset.week ? `Week ${box.dataset.week}.` : "";
  (box.querySelector("[data-meter-exceeded]") as HTMLElement).hidden = !state?.exceeded;
  const over = !!state?.overAvailable;
  form.querySelector("[data-units-display]")?.classList.toggle("units-over", over);
  const overText = form.querySelector<HTMLElement>("[data-units-over]");
  if (overText) {
    overText.hidden = !over;
    const words = overText.querySelector("[data-units-over-text]");
    if (words && facts) words.textContent = unitsOverAvailableText(facts.available_units);
  }
}

function liveCpt(form: HTMLFormElement) {
  const cpt = form.elements.namedItem("cpt_code") as HTMLSelectElement | null;
  const date = form.elements.namedItem("session_date") as HTMLInputElement | null;
  const pa = form.querySelector("[data-pa-select]") as unknown as HTMLSelectElement | null;
  const hint = form.querySelector<HTMLElement>("[data-pa-hint]");
  const refresh = form.querySelector<HTMLElement>("[data-refresh-options]");
  if (refresh) refresh.hidden = true;
  const update = () => {
    const code = cpt?.value ?? "";
    for (const section of form.querySelectorAll<HTMLFieldSetElement>("[data-cpt-section]")) {
      const on = section.dataset.cptSection === code;
      section.disabled = !on;
      section.hidden = !on;
    }
    if (!pa) return;
    const d = date?.value ?? "";
    let any = false;
    for (const o of Array.from(pa.options)) {
      if (!o.value) continue;
      const fits = (!code || o.dataset.cpt === code) && (!d || (o.dataset.start! <= d && d <= o.dataset.end!));
      o.disabled = !fits && !o.selected;
      any ||= fits;
    }
    if (hint) hint.textContent = any ? "The client's PA services that cover the session date and CPT." : "No PA service of this client covers the session date and CPT.";
  };
  cpt?.addEventListener("change", update);
  date?.addEventListener("change", update);
  update();
}

/**
 * A manager's Provider select: the Supervisor select does not offer the provider chosen (decision 023), and on a new
 * note the provider's typed name follows it (providerNameFor: the writer's own name only on their own note).
 */
function followProvider(form: HTMLFormElement) {
  const provider = form.elements.namedItem("provider_id");
  if (!(provider instanceof HTMLSelectElement)) return;
  const supervisor = form.elements.namedItem("supervisor_id") as HTMLSelectElement | null;
  const name = form.elements.namedItem("provider_name") as HTMLInputElement | null;
  const { selfId, selfName } = form.dataset;
  provider.addEventListener("change", () => {
    for (const o of Array.from(supervisor?.options ?? [])) o.hidden = o.disabled = o.value !== "" && o.value === provider.value;
    if (supervisor?.selectedOptions[0]?.disabled) supervisor.value = "";
    if (name && selfId && selfName) name.value = providerNameFor(provider.value, name.value, { id: Number(selfId), name: selfName });
  });
}

/**
 * A goal row left blank was not measured: its hidden goal fields are disabled so the row is not sent (the save
 * and the AI summary's pre-check see only measured goals; the server drops blank rows the same way).
 */
function measuredRowsOnly(form: HTMLFormElement) {
  const rows = Array.from(form.querySelectorAll<HTMLElement>(".goal-row"));
  const update = () => {
    for (const row of rows) {
      const measures = Array.from(row.querySelectorAll<HTMLInputElement>("input[type=number], input[type=checkbox]"));
      const blank = measures.every((m) => (m.type === "checkbox" ? !m.checked : m.value.trim() === ""));
      for (const h of Array.from(row.querySelectorAll<HTMLInputElement>("input[type=hidden]"))) h.disabled = blank;
    }
  };
  form.addEventListener("input", update, true);
  form.addEventListener("change", update, true);
  update();
}

export function enhanceNoteForm(form: HTMLFormElement) {
  measuredRowsOnly(form);
  const key = form.dataset.draftKey;
  liveUnits(form);
  liveCpt(form);
  followProvider(form);
  signaturePads(form);
  attachAiSummary(form);
  if (key && key.startsWith(NOTE_DRAFT_PREFIX)) {
    dropOldDrafts();
    draftBanner(form, key);
    keepDrafts(form, key);
  }
}

for (const form of document.querySelectorAll<HTMLFormElement>("form[data-note-form]")) enhanceNoteForm(form);
