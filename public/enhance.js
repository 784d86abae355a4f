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

  window.__baselinePoll = poll; // lets the browser tests run a poll without waiting 90 s
  window.__baselineEnhanced = true;
})();
