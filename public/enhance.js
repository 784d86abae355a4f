// Progressive enhancement for screens that do not hydrate React (see docs/decisions/006). Everything
// here is optional: every form and link works without it.
(() => {
  const POLL_MS = 90_000;
  const html = document.documentElement;

  // Pending state: a submitted form's button is disabled and says so, which also stops double posts.
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || event.defaultPrevented) return;
    const button = event.submitter instanceof HTMLButtonElement ? event.submitter : form.querySelector("button[type=submit], button:not([type])");
    if (!button) return;
    form.setAttribute("aria-busy", "true");
    // Disable after the submit has captured the button's name/value.
    setTimeout(() => {
      button.disabled = true;
      if (button.dataset.pending) button.textContent = button.dataset.pending;
    }, 0);
  });

  // The header badge and the version check, every 90 s while signed in; failures are ignored.
  const badge = document.querySelector("[data-testid=ticket-badge]");
  const alertTemplate = document.getElementById("version-alert");
  async function poll() {
    try {
      if (badge) {
        const res = await fetch("/resources/notifications", { headers: { Accept: "application/json" }, credentials: "same-origin" });
        if (res.ok) badge.textContent = (await res.json()).ticketBadge;
      }
      const pageVersion = html.dataset.version;
      if (alertTemplate && pageVersion) {
        const res = await fetch("/api/version");
        if (res.ok) {
          const { version } = await res.json();
          if (version && version !== pageVersion && alertTemplate.dataset.dismissed !== version && !document.getElementById("version-mismatch")) {
            const node = alertTemplate.content.cloneNode(true);
            node.querySelector("[name=version]").value = version;
            alertTemplate.after(node);
          }
        }
      }
    } catch {
      /* polling continues */
    }
  }
  if (badge || alertTemplate) setInterval(poll, POLL_MS);
  // Character counters ("12/50") under inputs with a maxlength, e.g. the chart comment.
  for (const counter of document.querySelectorAll("[data-counter-for]")) {
    const input = document.getElementById(counter.dataset.counterFor);
    if (!input || !(input.maxLength > 0)) continue;
    const show = () => (counter.textContent = `${input.value.length}/${input.maxLength}`);
    input.addEventListener("input", show);
    show();
  }

  // Weekly report date (clinical §5): a day other than Saturday is told before sending — the warning
  // 'Invalid Date Selection' and the date cleared, the other values kept. The server holds the same rule.
  for (const input of document.querySelectorAll("input[data-saturday-text]")) {
    const form = input.form;
    if (!form) continue;
    const note = document.createElement("p");
    note.className = "field-error";
    note.setAttribute("role", "alert");
    note.hidden = true;
    input.insertAdjacentElement("afterend", note);
    const isSaturday = (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && new Date(`${v}T00:00:00Z`).getUTCDay() === 6;
    form.addEventListener(
      "submit",
      (e) => {
        if (!input.value || isSaturday(input.value)) return;
        e.preventDefault();
        e.stopImmediatePropagation();
        input.value = "";
        input.setAttribute("aria-invalid", "true");
        note.textContent = `${input.dataset.saturdayTitle}: ${input.dataset.saturdayText}`;
        note.hidden = false;
        input.focus();
      },
      true,
    );
    input.addEventListener("input", () => (note.hidden = true));
  }
  // Row Update buttons (clinical §5): enabled only once a value of the row has changed and is valid.
  for (const button of document.querySelectorAll("button[data-row-update]")) {
    const form = button.form;
    if (!form || !form.id) continue;
    const inputs = [...document.querySelectorAll(`[form="${form.id}"]`)].filter((x) => x.matches("input, textarea, select"));
    if (inputs.length === 0) continue;
    const update = () => {
      const changed = inputs.some((x) => x.value !== x.defaultValue);
      button.disabled = !(changed && inputs.every((x) => x.checkValidity()));
    };
    for (const x of inputs) x.addEventListener("input", update);
    update();
  }

  window.__baselinePoll = poll; // lets the browser tests run a poll without waiting 90 s
  window.__baselineEnhanced = true;
})();
