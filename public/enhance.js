// Progressive enhancement for screens that do not hydrate React (see docs/decisions/006). Everything
// here is optional: every form and link works without it.
(() => {
  const POLL_MS = 90_000;
  const html = document.documentElement;

  // Pending state: a submitted form's button is disabled and says so, which also stops double posts. The
  // forms that post in place (below) use it too, and end it when they stay on the page: `pending` returns that end.
  const pending = (form, submitter) => {
    const button = submitter instanceof HTMLButtonElement ? submitter : form.querySelector("button[type=submit], button:not([type])");
    const text = button && button.textContent;
    const focused = button && document.activeElement === button;
    form.setAttribute("aria-busy", "true");
    // Disable after the submit has captured the button's name/value.
    const timer = setTimeout(() => {
      if (!button) return;
      button.disabled = true;
      if (button.dataset.pending) button.textContent = button.dataset.pending;
    }, 0);
    return () => {
      clearTimeout(timer);
      form.removeAttribute("aria-busy");
      if (button) (button.disabled = false), button.dataset.pending && (button.textContent = text);
      // Disabling the button dropped the keyboard focus (to the body): a form that stays on the page gives it back.
      if (focused && document.activeElement === document.body) button.focus();
    };
  };
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (form instanceof HTMLFormElement && !event.defaultPrevented) pending(form, event.submitter);
    // Logout: the user's note drafts (clinical text kept as typed, decision 025) leave the browser with them.
    const drafts = form instanceof HTMLFormElement && form.dataset.clearDrafts;
    if (drafts)
      try {
        for (const k of Object.keys(localStorage)) if (k.startsWith(drafts)) localStorage.removeItem(k);
      } catch {}
  });
  // A form that posts in place sends nothing more while its post runs (a double click posts once).
  const busy = (form) => form.getAttribute("aria-busy") === "true";
  // A message that answers what the user just did is read out: a live region already on the page when it is
  // shown (an in-place answer, or a page loaded after a redirect) is not, so the focus goes to it.
  const announce = (msg) => msg && (msg.setAttribute("tabindex", "-1"), msg.focus());
  // The flash of a page loaded after a save ("Response sent."), unless a field in error has the focus (probe 8923).
  const autofocus = document.querySelector("[autofocus]");
  if (!autofocus) announce(document.querySelector(".alert-success[role=status]"));
  // A page opened at a #fragment gets no autofocus from the browser (a delete's confirm step, probe 9043 §5): the
  // element that asked for it gets it here, once the page has loaded (the fragment's own focus step, which falls back
  // to the page, runs before that and would undo an earlier focus).
  else if (location.hash) {
    const give = () => document.activeElement === document.body && autofocus.focus();
    if (document.readyState === "complete") give();
    else window.addEventListener("load", give, { once: true });
  }

  // The version check (platform §2; docs/decisions/018). A page is "the app" that was started when it
  // loaded: the check runs at once, then with every poll, and again when the browser shows the page from
  // its back/forward cache. The dismissed state is cleared at start. When the server runs a newer
  // version, the browser asks 'There is a new app version - Would you like to update?'; Yes reloads the
  // page (with a cache-busting parameter), No shows the 'Version Mismatch Detected' alert, which can be
  // dismissed in place for the rest of this page's life. A failed check means no mismatch.
  const alertTemplate = document.getElementById("version-alert");
  const DISMISSED = "version_mismatch_dismissed";
  const rememberDismissed = (version) => {
    if (!alertTemplate) return;
    alertTemplate.dataset.dismissed = version;
    const secure = location.protocol === "https:" ? "; Secure" : "";
    document.cookie = version ? `${DISMISSED}=${encodeURIComponent(version)}; Path=/; SameSite=Lax; Max-Age=31536000${secure}` : `${DISMISSED}=; Path=/; SameSite=Lax; Max-Age=0${secure}`;
  };
  let asked = null; // the version the update question was asked for on this page
  async function checkVersion() {
    const pageVersion = html.dataset.version;
    if (!alertTemplate || !pageVersion) return;
    const res = await fetch("/api/version", { headers: { Accept: "application/json" } });
    if (!res.ok) return;
    const { version } = await res.json();
    if (!version || version === pageVersion || alertTemplate.dataset.dismissed === version || document.getElementById("version-mismatch")) return;
    if (asked !== version) {
      asked = version;
      if (window.confirm("There is a new app version - Would you like to update?")) {
        const url = new URL(location.href);
        url.searchParams.set("v", "reload");
        location.replace(url.href);
        return;
      }
    }
    const node = alertTemplate.content.cloneNode(true);
    node.querySelector("[name=version]").value = version;
    const form = node.querySelector("form");
    form?.addEventListener("submit", (event) => {
      event.preventDefault();
      rememberDismissed(version);
      document.getElementById("version-mismatch")?.remove();
    });
    alertTemplate.after(node);
  }

  // The ticket badges, every 90 s while signed in: the header's, and the sidebar Tickets item's for the office
  // (platform §2). Failures are ignored and polling continues.
  const badge = document.querySelector("[data-testid=ticket-badge]");
  const sidebarBadge = document.querySelector("[data-testid=sidebar-ticket-badge]");
  async function poll() {
    try {
      if (badge) {
        const res = await fetch("/resources/notifications", { headers: { Accept: "application/json" }, credentials: "same-origin" });
        if (res.ok) {
          const counts = await res.json();
          badge.textContent = counts.ticketBadge;
          if (sidebarBadge && counts.sidebarTicketBadge != null) sidebarBadge.textContent = counts.sidebarTicketBadge;
        }
      }
    } catch {
      /* polling continues */
    }
    await checkVersion().catch(() => {});
  }
  if (alertTemplate) {
    rememberDismissed("");
    checkVersion().catch(() => {});
    window.addEventListener("pageshow", (event) => {
      if (event.persisted) checkVersion().catch(() => {});
    });
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
    note.id = `${input.id}-saturday-error`;
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
        input.setAttribute("aria-errormessage", note.id);
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

  // Select All / Deselect All (the plan PDF's sections, clinical §4): a button marked data-toggle-all="name"
  // checks every box of that name in its form, or clears them all when all are checked, in place; its label
  // and its value (data-label-/data-value-all, -none) follow the boxes. Without JavaScript the same button
  // submits the value it was drawn with, the action its label shows, and the server answers the boxes after it.
  for (const button of document.querySelectorAll("button[data-toggle-all]")) {
    const form = button.form;
    if (!form) continue;
    const boxes = () => [...form.querySelectorAll(`input[type=checkbox][name="${button.dataset.toggleAll}"]`)];
    const label = () => {
      const which = boxes().every((b) => b.checked) ? "None" : "All";
      button.textContent = button.dataset[`label${which}`];
      button.value = button.dataset[`value${which}`];
    };
    button.addEventListener("click", (event) => {
      event.preventDefault();
      const on = !boxes().every((b) => b.checked);
      for (const b of boxes()) b.checked = on;
      label();
    });
    form.addEventListener("change", label);
    // Boxes the browser restored (back, reload) may differ from the ones the page was drawn with.
    label();
  }

  // In-place forms (the billing table, clinical §4): a form marked data-fetch posts without leaving the
  // page, then the region marked data-reload is replaced by the same region of the answer (the table
  // reloads with the saved values and the message). Only a button posts: changing a select never saves
  // (WCAG 3.2.2; decision 030). Without JavaScript the same forms post and the page returns.
  // An answer without the region (an error page, the sign-in or lock screen) or none (offline) is never posted
  // again, which could save twice: the page stays with what was typed and says it was not saved (probe 8972).
  const reload = async (form, submitter) => {
    const region = form.closest("[data-reload]") || document.querySelector("[data-reload]");
    const body = new FormData(form, submitter || undefined);
    const done = pending(form, submitter);
    let res, doc;
    try {
      res = await fetch(form.action || location.href, { method: "POST", body, credentials: "same-origin" });
      doc = new DOMParser().parseFromString(await res.text(), "text/html");
    } catch {
      /* no answer: said below */
    }
    const fresh = doc && region && doc.querySelector(`[data-reload="${region.dataset.reload}"]`);
    if (fresh) {
      if (res.redirected) history.replaceState(null, "", res.url);
      region.replaceWith(fresh);
      wire(fresh);
    }
    done(); // for a form that stays
    // The focus the page has without JavaScript: the control the answer marked (a refused row's, described by the
    // row's message; inserted content does not honour autofocus), else the answer's first message.
    const own = fresh && fresh.querySelector("[autofocus]");
    if (own) return own.focus();
    if (fresh) return announce(fresh.querySelector("[role=alert], [role=status]"));
    const box = region || form;
    for (const old of box.querySelectorAll(":scope > .alert")) old.remove();
    const msg = document.createElement("p");
    msg.className = "alert alert-danger";
    msg.setAttribute("role", "alert");
    msg.textContent = `Not saved: ${
      !doc
        ? "the connection failed. Check your connection and Save again."
        : /^\/(login|lock-screen)$/.test(new URL(res.url).pathname)
          ? "your session ended. Sign in again (in another tab) and Save again."
          : `the server answered ${res.status}. Reload the page and try again.`
    }`;
    box.prepend(msg);
    announce(msg);
  };
  const wire = (root) => {
    for (const form of root.querySelectorAll("form[data-fetch]")) {
      form.addEventListener("submit", (event) => {
        event.preventDefault(); // the document's pending handler leaves it alone: reload() starts and ends it
        if (!busy(form)) reload(form, event.submitter);
      });
    }
  };
  wire(document);

  // The header toggles (dark mode, sidebar, phone menu; docs/decisions/004) post in place, so nothing typed
  // on the page is lost: the answer names the flags that result, and the page takes them. A button whose
  // face follows its flag (dark mode) names both faces. Without JavaScript the same forms post and come back.
  const shell = document.querySelector(".shell");
  for (const form of document.querySelectorAll("form[data-pref]")) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (busy(form)) return;
      const body = new FormData(form);
      body.set("redirectTo", location.pathname + location.search);
      const done = pending(form, event.submitter);
      try {
        const res = await fetch(form.action, { method: "POST", body, headers: { Accept: "application/json" }, credentials: "same-origin" });
        if (!res.ok) throw new Error(res.statusText);
        const flags = await res.json();
        done();
        document.body.classList.toggle("dark", flags.dark);
        shell.classList.toggle("mini-sidebar", flags.miniSidebar);
        shell.classList.toggle("mobile-open", flags.mobileSidebar);
        const toggle = form.querySelector("button[data-expands]");
        if (toggle) toggle.setAttribute("aria-expanded", String(toggle.dataset.expands === "on" ? !!flags[form.dataset.pref] : !flags[form.dataset.pref]));
        const button = form.querySelector("button[data-on]");
        if (button) {
          const [icon, label] = (flags[form.dataset.pref] ? button.dataset.on : button.dataset.off).split("|");
          button.textContent = icon;
          button.setAttribute("aria-label", (button.title = label));
        }
      } catch {
        form.submit();
      }
    });
  }

  // The user menu (a <details>) closes with Escape, and the focus goes back to its summary (WCAG 2.1.1).
  document.addEventListener("keydown", (event) => {
    const menu = event.key === "Escape" && event.target instanceof Element && event.target.closest("details.user-menu[open]");
    if (menu) (menu.open = false), menu.querySelector("summary").focus();
  });

  // The next page's module, fetched while the user is still on this page (docs/decisions/021): the sign-in
  // form names the dashboard's chart module, so on a slow connection the dashboard that follows needs no
  // round trip of its own for it. After the load event, at the browser's idle priority; with JavaScript off
  // nothing is fetched (the module would never run).
  const prefetch = () => {
    for (const el of document.querySelectorAll("[data-prefetch]")) {
      const link = document.createElement("link");
      link.rel = "prefetch";
      link.href = el.dataset.prefetch;
      link.crossOrigin = "anonymous"; // as a module script is fetched, so the cached copy is the one it uses
      document.head.appendChild(link);
    }
  };
  if (document.readyState === "complete") prefetch();
  else window.addEventListener("load", prefetch, { once: true });

  window.__baselinePoll = poll; // lets the browser tests run a poll without waiting 90 s
  window.__baselineEnhanced = true;
})();
