/**
 * The note form's 'Generate AI Summary' button when JavaScript runs (clinical §2, §4, §5, §8; docs/decisions/026).
 *
 * `attachAiSummary(form)` finds `button[data-ai-summary]` (a submit button `name="intent" value="generate-summary"`,
 * which without JavaScript submits the form to its own action). On click it runs the pre-check on the form's
 * fields (the same `summaryPrecheck` the server runs) and shows the 'Missing Required Fields' dialog, or sets the
 * button to 'Generating...' (disabled), posts the form to `/notes/generate-summary` (or the button's
 * `data-ai-summary` URL), writes the summary into `textarea[name="content.summary_note"]` and restores the button;
 * a failure shows the 'Error' dialog with the server's message or the default one.
 */
import { noteFormToBody } from "~/domain/note-form";
import {
  AI_SUMMARY_BUTTON_BUSY,
  AI_SUMMARY_ERROR,
  AI_SUMMARY_ERROR_TITLE,
  MISSING_FIELDS_INTRO,
  MISSING_FIELDS_TITLE,
  summaryPrecheck,
} from "~/domain/note-summary";

export const SUMMARY_FIELD = "content.summary_note";
export const SUMMARY_URL = "/notes/generate-summary";

let dialogs = 0;

/** A modal dialog (native <dialog>: Escape closes it, focus stays inside); focus returns to `returnTo` on close. */
function showDialog(title: string, intro: string | null, items: readonly string[], returnTo: HTMLElement, warning: boolean): void {
  const id = `ai-summary-dialog-${++dialogs}`;
  const dialog = document.createElement("dialog");
  dialog.className = warning ? "dialog dialog-warning" : "dialog";
  dialog.setAttribute("role", "alertdialog");
  dialog.setAttribute("aria-labelledby", `${id}-title`);
  dialog.setAttribute("aria-describedby", `${id}-text`);
  const heading = document.createElement("h2");
  heading.id = `${id}-title`;
  heading.textContent = title;
  const text = document.createElement("div");
  text.id = `${id}-text`;
  if (intro) {
    const p = document.createElement("p");
    p.textContent = intro;
    text.appendChild(p);
  }
  if (items.length) {
    const list = document.createElement("ul");
    for (const item of items) {
      const li = document.createElement("li");
      li.textContent = item;
      list.appendChild(li);
    }
    text.appendChild(list);
  }
  const close = document.createElement("button");
  close.type = "button";
  close.className = "btn btn-primary";
  close.textContent = "Close";
  close.addEventListener("click", () => dialog.close());
  dialog.appendChild(heading);
  dialog.appendChild(text);
  dialog.appendChild(close);
  dialog.addEventListener("close", () => {
    dialog.remove();
    returnTo.focus();
  });
  document.body.appendChild(dialog);
  if (typeof dialog.showModal === "function") {
    dialog.showModal();
    close.focus();
  } else {
    dialog.remove();
    window.alert([title, intro, ...items].filter(Boolean).join("\n"));
  }
}

/** The form's text fields as a urlencoded body (files, e.g. a signature upload, are not needed for a summary). */
function formFields(form: HTMLFormElement): [string, string][] {
  const out: [string, string][] = [];
  new FormData(form).forEach((value, name) => {
    if (typeof value === "string") out.push([name, value]);
  });
  return out;
}

export function attachAiSummary(form: HTMLFormElement): void {
  const button = form.querySelector<HTMLButtonElement>("button[data-ai-summary]");
  if (!button || button.dataset.aiSummaryAttached) return;
  button.dataset.aiSummaryAttached = "1";
  const url = button.dataset.aiSummary || SUMMARY_URL;

  button.addEventListener("click", async (event) => {
    event.preventDefault();
    if (button.disabled) return;
    const fields = formFields(form);
    const missing = summaryPrecheck(noteFormToBody(fields));
    if (missing.length) return showDialog(MISSING_FIELDS_TITLE, MISSING_FIELDS_INTRO, missing, button, true);

    const label = button.textContent;
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    button.textContent = AI_SUMMARY_BUTTON_BUSY;
    let failure: { title: string; intro: string | null; items: string[]; warning: boolean } | null = null;
    try {
      const res = await fetch(url, {
        method: "POST",
        body: new URLSearchParams(fields),
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      });
      const answer = (await res.json().catch(() => null)) as { summary?: unknown; message?: unknown; missing?: unknown } | null;
      if (res.ok && answer && typeof answer.summary === "string") {
        const target = form.querySelector<HTMLTextAreaElement>(`textarea[name="${SUMMARY_FIELD}"]`);
        if (target) {
          target.value = answer.summary;
          // Draft keeping and counters listen for input.
          target.dispatchEvent(new Event("input", { bubbles: true }));
        }
      } else if (res.status === 422 && answer && Array.isArray(answer.missing)) {
        failure = { title: MISSING_FIELDS_TITLE, intro: MISSING_FIELDS_INTRO, items: answer.missing.map(String), warning: true };
      } else {
        const message = answer && typeof answer.message === "string" && answer.message ? answer.message : AI_SUMMARY_ERROR;
        failure = { title: AI_SUMMARY_ERROR_TITLE, intro: message, items: [], warning: false };
      }
    } catch {
      failure = { title: AI_SUMMARY_ERROR_TITLE, intro: AI_SUMMARY_ERROR, items: [], warning: false };
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
      button.textContent = label;
    }
    if (failure) showDialog(failure.title, failure.intro, failure.items, button, failure.warning);
  });
}

/** The module standalone (noteSummaryJs): every note form on the page with a summary button. */
export function attachAll(root: ParentNode = document): void {
  root.querySelectorAll<HTMLFormElement>("form").forEach((form) => {
    if (form.querySelector("button[data-ai-summary]")) attachAiSummary(form);
  });
}
