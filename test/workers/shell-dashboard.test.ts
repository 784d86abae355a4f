import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../workers/app";
import { MAX_REQUEST_BODY_BYTES } from "../../workers/body-limit";
import { FORM_TOO_LARGE, FORM_UNREADABLE, NOT_A_FORM } from "../../workers/form-bodies";
import { sessions, tickets, users } from "~/db/schema";
import { eq, inArray } from "drizzle-orm";
import { api, apiToken, BASE, createBip, createLocation, createParent, createPatient, createPlan, createUser, db, form, request, setCookiesBesidesBookmark, signInCookie } from "./helpers";

describe("dashboard", () => {
  it("counts only the user's locations; ADMIN counts every location", async () => {
    const a = await createLocation();
    const b = await createLocation();
    for (let i = 0; i < 3; i++) await createPatient({ locationId: a.id });
    await createPatient({ locationId: b.id });
    const local = await apiToken(await createUser({ permissions: ["view_clients"], locations: [a.id] }));
    const admin = await apiToken(await createUser({ role: "ADMIN", locations: [] }));
    const mine = (await (await api("/dashboard/admin", { token: local })).json()) as Record<string, number>;
    const all = (await (await api("/dashboard/admin", { token: admin })).json()) as Record<string, number>;
    expect(mine.total_patients).toBe(3);
    expect(all.total_patients).toBeGreaterThanOrEqual(4);
    expect(mine.num_patients_current).toBe(3);
    expect(mine.porcentajeDP).toBe(100);
  });

  it("answers the spec's field names", async () => {
    const token = await apiToken(await createUser({ role: "ADMIN" }));
    const body = (await (await api("/dashboard/admin", { token })).json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      [
        "bips", "locations", "total_bips", "total_patients", "total_noteRbts", "total_noteBcbas", "total_employees", "recent_patients",
        "num_bips_current", "num_bips_before", "porcentaje_d", "total_bips_attention", "num_bips_attention_current", "num_bips_attention_before", "porcentaje_da",
        "num_patients_current", "num_patients_before", "porcentajeDP",
      ].sort(),
    );
  });

  it("the year answer has Spanish month names and twelve gender rows", async () => {
    const loc = await createLocation();
    await createPatient({ locationId: loc.id, gender: 1 });
    await createPatient({ locationId: loc.id, gender: 2 });
    await createPatient({ locationId: loc.id, gender: 2 });
    const token = await apiToken(await createUser({ permissions: ["view_clients"], locations: [loc.id] }));
    const res = await api("/dashboard/admin-year", { token });
    const body = (await res.json()) as { months_name: string[]; query_patients_by_gender: { year: number; month: number; hombre: number; mujer: number }[] };
    expect(body.months_name).toHaveLength(12);
    expect(body.months_name[11]).toBe("Diciembre");
    expect(body.query_patients_by_gender).toHaveLength(12);
    const totals = body.query_patients_by_gender.reduce((t, m) => ({ h: t.h + m.hombre, m: t.m + m.mujer }), { h: 0, m: 0 });
    expect(totals).toEqual({ h: 1, m: 2 });
  });

  it("clients without a gender count on the year chart and in the year answer, so both agree with the Patients tile", async () => {
    const loc = await createLocation();
    await createPatient({ locationId: loc.id, gender: 1 });
    await createPatient({ locationId: loc.id, gender: 2 });
    await createPatient({ locationId: loc.id, gender: null });
    await createPatient({ locationId: loc.id, gender: null });
    const user = await createUser({ permissions: ["view_clients"], locations: [loc.id] });
    const token = await apiToken(user);
    const tile = (await (await api("/dashboard/admin", { token })).json()) as Record<string, number>;
    expect(tile.num_patients_current).toBe(4);
    const year = (await (await api("/dashboard/admin-year", { token })).json()) as { query_patients_by_gender: { month: number; hombre: number; mujer: number; no_indicado: number }[] };
    const all = year.query_patients_by_gender.reduce((t, m) => ({ h: t.h + m.hombre, m: t.m + m.mujer, n: t.n + m.no_indicado }), { h: 0, m: 0, n: 0 });
    expect(all).toEqual({ h: 1, m: 1, n: 2 });
    expect(all.h + all.m + all.n).toBe(tile.num_patients_current);
    const html = await (await request("/dashboard", { cookie: await signInCookie(user) })).text();
    expect(html).toContain("4<!-- --> this month");
    expect(html).toMatch(/New patients in \d{4}: 4 \(1 male, 1 female, 2 gender not given\)\./);
    expect(html).toMatch(/<title>\w+ \d{4}, not given: 2<\/title>/);
    expect(html).toContain('<th scope="col">Not given</th>');
  });

  it.each(["20", "abcd", "1999"])("the year answer refuses year=%s with 422", async (year) => {
    const token = await apiToken(await createUser({ role: "ADMIN" }));
    const res = await api(`/dashboard/admin-year?year=${year}`, { token });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { message: string }).message).toMatch(/year/i);
  });

  it("'Plans needing attention' counts every flagged plan in scope, as /bip/attention lists them; the month figures are its trend (probe 9043 §2)", async () => {
    const loc = await createLocation();
    const other = await createLocation();
    const client = await createPatient({ locationId: loc.id });
    await createBip(client, { attention: true, createdAt: "2026-01-10T12:00:00.000Z" }); // long ago: still flagged
    await createBip(client, { attention: true });
    await createBip(client, { attention: false });
    await createBip(await createPatient({ locationId: other.id }), { attention: true }); // another location
    const user = await createUser({ permissions: ["view_bips", "view_clients"], locations: [loc.id] });
    const body = (await (await api("/dashboard/admin", { token: await apiToken(user) })).json()) as Record<string, number>;
    expect([body.total_bips_attention, body.num_bips_attention_current]).toEqual([2, 1]);
    const cookie = await signInCookie(user);
    const html = (await (await request("/dashboard", { cookie })).text()).replace(/<!-- -->/g, "");
    expect(html).toMatch(/href="\/bip\/attention">Plans needing attention<\/a>/);
    expect(html).toMatch(/data-testid="total-bips-attention">2</);
    expect(html).toContain("1 this month");
    const list = (await (await request("/bip/attention", { cookie })).text()).match(/href="\/bip\/profile\/\d+"/g) ?? [];
    expect(new Set(list).size).toBe(2);
  });

  it("the screen greets the user and shows the counts", async () => {
    const loc = await createLocation();
    await createPatient({ locationId: loc.id });
    const cookie = await signInCookie(await createUser({ permissions: ["view_notes", "view_clients"], locations: [loc.id], name: "Robin" }));
    const html = await (await request("/dashboard", { cookie })).text();
    expect(html).toContain("Good Day, <!-- -->Robin");
    expect(html).toContain("Have a nice day at work.");
    expect(html).toContain("Fully HIPAA Compliance Website");
    expect(html).toMatch(/data-testid="total-patients">1</);
    expect(html).toContain("v<!-- -->0.1.2-beta<!-- --> New Deploy");
  });

  it("a parent sees only their own children", async () => {
    const loc = await createLocation();
    const parent = await createParent({ name: "Laura", surname: "Garcia" });
    await createPatient({ locationId: loc.id, parentId: parent.id, firstName: "Mine" });
    await createPatient({ locationId: loc.id, firstName: "NotMine" });
    const html = await (await request("/dashboard", { cookie: await signInCookie(parent, true) })).text();
    expect(html).toContain("Your children");
    // The family's greeting, not the staff workday one (decision 040, stop 43).
    expect(html).toContain("Good day, <!-- -->Laura");
    expect(html).toContain("Here is what is coming up for your children.");
    expect(html).not.toContain("at work");
    expect(html).toContain("Mine");
    expect(html).not.toContain("NotMine");
    expect(html).not.toContain("data-testid=\"total-patients\"");
  });

  it("draws the year chart (new patients by month and gender) for the user's locations; ?year= picks the year", async () => {
    const mine = await createLocation();
    const other = await createLocation();
    await createPatient({ locationId: mine.id, gender: 1, createdAt: "2021-03-10T15:00:00.000Z" });
    await createPatient({ locationId: mine.id, gender: 2, createdAt: "2021-03-20T15:00:00.000Z" });
    await createPatient({ locationId: mine.id, gender: 2, createdAt: "2021-11-02T15:00:00.000Z" });
    await createPatient({ locationId: other.id, gender: 1, createdAt: "2021-03-11T15:00:00.000Z" });
    const cookie = await signInCookie(await createUser({ permissions: ["view_clients"], locations: [mine.id] }));
    const html = await (await request("/dashboard?year=2021", { cookie })).text();
    expect(html).toContain("New patients by gender, 2021");
    // The SVG without JavaScript: one bar per month and gender with a count, titled for hover and screen readers.
    expect(html).toContain("<title>March 2021, male: 1</title>");
    expect(html).toContain("<title>March 2021, female: 1</title>");
    expect(html).toContain("<title>November 2021, female: 1</title>");
    expect(html.match(/<rect x=/g)).toHaveLength(3);
    expect(html).toContain("New patients in 2021: 3 (1 male, 2 female, 0 gender not given). The busiest month was March with 2.");
    // The data table and the uPlot module (the same model as JSON).
    expect(html).toContain('<th scope="row">March</th><td>1</td><td>1</td><td>0</td>');
    expect(html).toMatch(/src="\/assets\/year-chart-[0-9a-f]{10}\.js"/);
    expect(html).toContain('<option value="2021" selected="">2021</option>');
  });

  it.each(["20", "abcd", "1999", "2101"])("a bad ?year=%s shows the rule and the current year's chart", async (year) => {
    const cookie = await signInCookie(await createUser({ role: "ADMIN" }));
    const res = await request(`/dashboard?year=${year}`, { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/The year must (have four digits|be 2000 or later|be 2100 or earlier)\./);
    // This year in the user's time zone (within a day of UTC's).
    const shown = Number(/New patients by gender, (\d{4})/.exec(html)?.[1]);
    expect(Math.abs(shown - new Date().getUTCFullYear())).toBeLessThanOrEqual(1);
  });

  it.each(["/dashboard/admin", "/dashboard/dashboard"])("%s is the dashboard, guarded like it", async (path) => {
    const loc = await createLocation();
    await createPatient({ locationId: loc.id });
    expect((await request(path)).headers.get("Location")).toMatch(/^\/login\?redirectTo=/);
    const html = await (await request(path, { cookie: await signInCookie(await createUser({ permissions: ["view_clients"], locations: [loc.id], name: "Quinn" })) })).text();
    expect(html).toContain("Good Day, <!-- -->Quinn");
    expect(html).toMatch(/data-testid="total-patients">1</);
    expect(html).toContain("New patients by gender");
    const parent = await createParent();
    const asParent = await (await request(path, { cookie: await signInCookie(parent, true) })).text();
    expect(asParent).toContain("Your children");
    expect(asParent).not.toContain("New patients by gender");
  });
});

describe("shell", () => {
  it("sends a screen as one complete document: the doctype first, nothing after </html>, no data hand-off", async () => {
    // Screens do not hydrate (decision 006), so their loader data is not written into the page a second
    // time as a script, and the page is rendered as one string (decision 042).
    const cookie = await signInCookie(await createUser({ permissions: ["view_notes", "view_clients"] }));
    for (const path of ["/dashboard", "/notes-list", "/login"]) {
      const res = await request(path, path === "/login" ? {} : { cookie });
      const html = await res.text();
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
      expect(html.startsWith('<!DOCTYPE html><html lang="en-US"')).toBe(true);
      expect(html.endsWith("</html>")).toBe(true);
      expect(html).not.toMatch(/__remixContext|streamController/);
    }
  });

  it("shows only the sidebar items the user may open", async () => {
    const cookie = await signInCookie(await createUser({ permissions: ["view_notes", "view_clients"] }));
    const html = await (await request("/dashboard", { cookie })).text();
    const nav = /<nav class="sidebar"[\s\S]*?<\/nav>/.exec(html)![0];
    const labels = [...nav.matchAll(/<a [^>]*>([^<]+)</g)].map((m) => m[1]);
    expect(labels).toEqual(["Home", "Clients", "Notes", "Calendar"]);
  });

  it("the ticket badge counts unread responses, capped at 99+", async () => {
    const user = await createUser({ permissions: [] });
    await db().insert(tickets).values({ userId: user.id, subject: "Help", unreadResponses: 120 });
    const html = await (await request("/dashboard", { cookie: await signInCookie(user) })).text();
    expect(html).toMatch(/data-testid="ticket-badge">99\+</);
  });

  it("support staff see 0 in the header and the count on the Tickets item", async () => {
    // The office counts the tickets of the locations it covers (decision 036).
    const location = await createLocation();
    const other = await createUser({ locations: [location.id] });
    await db().insert(tickets).values([{ userId: other.id, subject: "A", locationId: location.id }, { userId: other.id, subject: "B", locationId: location.id }]);
    const token = await apiToken(await createUser({ permissions: ["manage_tickets"], locations: [location.id] }));
    const summary = (await (await api("/v2/tickets/notifications/summary", { token })).json()) as Record<string, number>;
    expect(summary.unread_tickets_count).toBeGreaterThanOrEqual(2);
    const staffCookie = await signInCookie(await createUser({ permissions: ["manage_tickets"], locations: [location.id] }));
    const html = await (await request("/dashboard", { cookie: staffCookie })).text();
    expect(html).toMatch(/data-testid="ticket-badge">0</);
    // The screen's counts come with the session read; they agree with the API's and the poll's.
    const sidebarCount = /href="\/tickets\/list"[^>]*>[\s\S]*?<span class="badge" data-testid="sidebar-ticket-badge">(\d+)<\/span>/.exec(html)?.[1];
    expect(Number(sidebarCount)).toBe(summary.unread_tickets_count);
    const polled = (await (await request("/resources/notifications", { cookie: staffCookie })).json()) as Record<string, unknown>;
    expect(polled).toMatchObject({ unread_tickets_count: summary.unread_tickets_count, new_tickets_count: summary.new_tickets_count, ticketBadge: "0" });
    // The poll answers the sidebar's badge too, for the page to refresh it (probe 8903).
    expect(polled.sidebarTicketBadge).toBe(String(summary.unread_tickets_count));
  });

  it("counts a user's own unread responses and nobody else's, on the screen and in the poll", async () => {
    const user = await createUser({ permissions: [] });
    const other = await createUser({ permissions: [] });
    await db().insert(tickets).values([
      { userId: user.id, subject: "Mine", unreadResponses: 3 },
      { userId: other.id, subject: "Theirs", unreadResponses: 5 },
    ]);
    const cookie = await signInCookie(user);
    const polled = (await (await request("/resources/notifications", { cookie })).json()) as Record<string, unknown>;
    expect(polled).toMatchObject({ unread_tickets_count: 0, unread_responses_count: 3, new_tickets_count: 0, total_unread: 3, ticketBadge: "3", sidebarTicketBadge: null });
    expect(await (await request("/dashboard", { cookie })).text()).toMatch(/data-testid="ticket-badge">3</);
  });

  it("the demo banner shows when the demo flag is on", async () => {
    const html = await (await request("/dashboard", { cookie: await signInCookie(await createUser()) })).text();
    expect(html).toContain("Demo Environment Notice");
    expect(html).toContain("Visit Production Site");
  });

  it("dark mode and the sidebar flag are remembered in cookies, without JavaScript", async () => {
    const cookie = await signInCookie(await createUser());
    const res = await form("/prefs", { intent: "dark", redirectTo: "/dashboard" }, cookie);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/dashboard");
    const dark = res.headers.getSetCookie().find((c) => c.startsWith("pref_dark="))!;
    expect(dark).toContain("pref_dark=1");
    const html = await (await request("/dashboard", { cookie: `${cookie}; pref_dark=1; pref_mini_sidebar=1` })).text();
    expect(html).toContain('<body class="dark">');
    expect(html).toContain('class="shell mini-sidebar"');
  });

  it("the header toggles are marked for the in-place post, which answers the flags that result (decision 004)", async () => {
    const cookie = await signInCookie(await createUser());
    const html = await (await request("/tickets/add", { cookie })).text();
    for (const pref of ["dark", "miniSidebar", "mobileSidebar"]) expect(html).toMatch(new RegExp(`<form(?=[^>]*action="/prefs")[^>]*data-pref="${pref}"`));
    // The dark-mode button names both of its faces, so the page can switch it without a reload.
    expect(html).toMatch(/aria-label="Switch to dark mode"[^>]*data-on="☀\|Switch to light mode" data-off="☾\|Switch to dark mode"/);
    const inPlace = (fields: Record<string, string>, extra = "") =>
      request("/prefs", { method: "POST", body: new URLSearchParams(fields), cookie: cookie + extra, headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" } });
    const res = await inPlace({ intent: "dark", redirectTo: "/tickets/add" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ dark: true, miniSidebar: false, mobileSidebar: false });
    expect(res.headers.getSetCookie().find((c) => c.startsWith("pref_dark="))).toContain("pref_dark=1");
    const back = await inPlace({ intent: "dark", redirectTo: "/tickets/add" }, "; pref_dark=1");
    expect(await back.json()).toMatchObject({ dark: false });
    // Without JavaScript the same post comes back to the page (303).
    expect((await form("/prefs", { intent: "miniSidebar", redirectTo: "/tickets/add" }, cookie)).status).toBe(303);
  });

  it("the phone menu opened on a page closes once a link is followed, without JavaScript (probe 8903)", async () => {
    const cookie = await signInCookie(await createUser({ permissions: ["view_notes"] }));
    const open = await form("/prefs", { intent: "mobileSidebar", redirectTo: "/dashboard?tab=1" }, cookie);
    expect(open.status).toBe(303);
    expect(open.headers.get("Location")).toBe("/dashboard?tab=1");
    const menu = open.headers.getSetCookie().find((c) => c.startsWith("pref_mobile_sidebar="))!;
    expect(menu).toContain(`pref_mobile_sidebar=${encodeURIComponent("/dashboard")}`);
    const withMenu = `${cookie}; ${menu.split(";")[0]}`;
    // The page it was opened on shows it (a reload too) ...
    const here = await request("/dashboard", { cookie: withMenu });
    const herePage = await here.text();
    expect(herePage).toContain('class="shell mobile-open"');
    // ▤ says the menu it controls is open (☰ says the desktop sidebar is not folded).
    const toggleOf = (page: string, label: string) => new RegExp(`<button[^>]*aria-label="${label}"[^>]*>`).exec(page)?.[0] ?? "";
    expect(toggleOf(herePage, "Toggle mobile sidebar")).toMatch(/aria-controls="main-sidebar" aria-expanded="true"/);
    expect(toggleOf(herePage, "Toggle sidebar")).toMatch(/aria-expanded="true"/);
    expect(herePage).toContain('<nav class="sidebar" id="main-sidebar" aria-label="Main">');
    expect(here.headers.getSetCookie().some((c) => c.startsWith("pref_mobile_sidebar="))).toBe(false);
    // ... and the page a menu link leads to does not, and forgets it: the next visit to the first page is closed.
    const followed = await request("/notes-list", { cookie: withMenu });
    expect(followed.status).toBe(200);
    const followedPage = await followed.text();
    expect(followedPage).toContain('class="shell"');
    expect(toggleOf(followedPage, "Toggle mobile sidebar")).toMatch(/aria-expanded="false"/);
    expect(followed.headers.getSetCookie().find((c) => c.startsWith("pref_mobile_sidebar="))).toMatch(/^pref_mobile_sidebar=;.*Max-Age=0/);
    // ▤ on the page where it is open closes it.
    const close = await form("/prefs", { intent: "mobileSidebar", redirectTo: "/dashboard" }, withMenu);
    expect(close.headers.getSetCookie().find((c) => c.startsWith("pref_mobile_sidebar="))).toMatch(/Max-Age=0/);
  });

  it("tells its own time in a Server-Timing header in local development only", async () => {
    const local = await request("/login");
    expect(local.headers.get("Server-Timing")).toMatch(/^app;dur=\d+(\.\d)?$/);
    const ctx = createExecutionContext();
    const deployed = await worker.fetch(new Request(`${BASE}/login`), { ...env, APP_ENV: "production", JWT_SECRET: "a-deployed-secret-of-thirty-two-chars!", RESEND_API_KEY: "re_production_key" }, ctx);
    await waitOnExecutionContext(ctx);
    expect(deployed.status).toBe(200);
    expect(deployed.headers.get("Server-Timing")).toBeNull();
    expect(deployed.headers.get("X-Content-Type-Options")).toBe("nosniff");
  });

  it("refuses a cross-site form post", async () => {
    const user = await createUser();
    const res = await request("/login", { method: "POST", body: new URLSearchParams({ email: user.email, password: user.password }), headers: { Origin: "https://evil.example", "Content-Type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie()).toHaveLength(0);
  });

  // Probe 8955 #1: the form reader threw on a body that is not a form, a 500 on every screen action.
  it.each<[string, Record<string, string>, string]>([
    ["JSON", { "Content-Type": "application/json" }, "{}"],
    ["plain text", { "Content-Type": "text/plain" }, "email=x"],
    ["a body without a Content-Type", {}, "email=x"],
  ])("a screen action sent %s answers 415, not 500", async (_label, headers, body) => {
    for (const path of ["/login", "/change-password", "/tickets/add"]) {
      const res = await request(path, { method: "POST", headers, body: new TextEncoder().encode(body) });
      expect(res.status, path).toBe(415);
      expect(await res.text()).toBe(NOT_A_FORM);
    }
  });

  // Probe 8986 #5: a multipart body the runtime's form reader cannot take apart threw in the action, a 500.
  it("a multipart body that cannot be read answers 400 with a message on every screen and changes nothing", async () => {
    const loc = await createLocation();
    const manager = await createUser({ permissions: ["view_employees", "manage_employees", "view_bips", "manage_bips"], locations: [loc.id] });
    const employee = await createUser({ permissions: [], locations: [loc.id] });
    const plan = await createPlan(await createBip(await createPatient({ locationId: loc.id })));
    const cookie = await signInCookie(manager);
    const rows = () => db().select().from(users).where(inArray(users.id, [manager.id, employee.id]));
    const before = await rows();
    const part = 'Content-Disposition: form-data; name="intent"\r\n\r\nsave';
    const bodies: [label: string, type: string, body: string][] = [
      ["no initial boundary", "multipart/form-data; boundary=x", "garbage"],
      ["no boundary parameter", "multipart/form-data", `--x\r\n${part}\r\n--x--\r\n`],
      ["a truncated message", "multipart/form-data; boundary=x", `--x\r\n${part}`],
    ];
    // Sign-in, one's own profile (and its avatar upload), an employee edit, the weekly .xlsx import.
    const paths = ["/login", "/profile", `/doctors/list/edit/${employee.id}`, `/bip/goal/${plan.id}/import`];
    for (const path of paths) {
      for (const [label, type, body] of bodies) {
        const res = await request(path, { method: "POST", cookie: path === "/login" ? undefined : cookie, headers: { "Content-Type": type }, body });
        expect(res.status, `${path}: ${label}`).toBe(400);
        expect(await res.text(), `${path}: ${label}`).toBe(FORM_UNREADABLE);
        expect(setCookiesBesidesBookmark(res), `${path}: ${label}`).toEqual([]);
      }
    }
    const asJson = await request("/profile", { method: "POST", cookie, headers: { "Content-Type": "multipart/form-data; boundary=x", Accept: "application/json" }, body: "garbage" });
    expect(asJson.status).toBe(400);
    expect(await asJson.json()).toEqual({ message: FORM_UNREADABLE });
    expect(await rows()).toEqual(before);
    // A multipart form that reads still reaches the action, once.
    const fields = new FormData();
    fields.set("email", manager.email);
    fields.set("password", manager.password);
    expect((await request("/login", { method: "POST", body: fields })).status).toBe(303);
    expect((await request("/profile", { cookie })).status).toBe(200);
    // Above every upload screen's own limit, a multipart post is refused before it is read (stop 35); under it, the
    // screen's own limit answers with its own message.
    const huge = await request("/profile", { method: "POST", cookie, headers: { "Content-Type": "multipart/form-data; boundary=x" }, body: `--x\r\n${part}${"x".repeat(MAX_REQUEST_BODY_BYTES)}\r\n--x--\r\n` });
    expect(huge.status).toBe(413);
    expect(await huge.text()).toBe(FORM_TOO_LARGE);
    const file = new FormData();
    file.set("file", new File(["x".repeat(2 * 1024 * 1024)], "big.xlsx"));
    const big = await request(`/bip/goal/${plan.id}/import`, { method: "POST", cookie, body: file });
    expect(big.status).toBe(413);
    expect(await big.text()).not.toBe(FORM_TOO_LARGE);
  });

  it("a post with no Content-Type and no body is an empty form: the action answers it", async () => {
    expect((await request("/login", { method: "POST" })).status).toBe(422);
    const user = await createUser();
    const cookie = await signInCookie(user);
    expect((await request("/change-password", { method: "POST", cookie })).status).toBe(422);
    expect((await request("/logout", { method: "POST", cookie })).status).toBe(303);
  });

  it("an unknown path goes to error/error404", async () => {
    const res = await request("/no/such/page");
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/error/error404");
    const page = await request("/error/error404");
    expect(page.status).toBe(404);
    expect(await page.text()).toContain("could not be found");
  });
});

describe("screen sessions", () => {
  it("the cookie is HttpOnly and SameSite=Lax, and a new sign-in rotates the id", async () => {
    const user = await createUser();
    const first = await form("/login", { email: user.email, password: user.password });
    const set = first.headers.getSetCookie().find((c) => c.startsWith("__session="))!;
    expect(set).toContain("HttpOnly");
    expect(set).toContain("SameSite=Lax");
    expect(set).not.toContain("Secure");
    const cookie1 = set.split(";")[0]!;
    const second = await form("/login", { email: user.email, password: user.password }, cookie1);
    const cookie2 = second.headers.getSetCookie().find((c) => c.startsWith("__session="))!.split(";")[0]!;
    expect(cookie2).not.toBe(cookie1);
    expect((await request("/dashboard", { cookie: cookie1 })).status).toBe(302);
    expect((await request("/dashboard", { cookie: cookie2 })).status).toBe(200);
  });

  it("logout destroys the session", async () => {
    const cookie = await signInCookie(await createUser());
    const out = await form("/logout", {}, cookie);
    expect(out.status).toBe(303);
    expect(out.headers.get("Location")).toBe("/login?loggedOut=1");
    const after = await request("/dashboard", { cookie });
    expect(after.status).toBe(302);
    expect(after.headers.get("Location")).toMatch(/^\/login/);
  });

  it("the Logout forms name the user's note drafts, which the browser removes as they are sent (decision 025, stop 35)", async () => {
    const user = await createUser();
    const cookie = await signInCookie(user);
    const logoutForm = (html: string) => /<form[^>]*action="\/logout"[^>]*>/.exec(html)?.[0] ?? "";
    expect(logoutForm(await (await request("/dashboard", { cookie })).text())).toContain(`data-clear-drafts="note-draft:${user.id}:"`);
    // The lock screen's "Not you? Sign out" too.
    await db().update(sessions).set({ lastSeenAt: new Date(Date.now() - 31 * 60_000).toISOString() }).where(eq(sessions.principalId, user.id));
    expect(logoutForm(await (await request("/lock-screen", { cookie })).text())).toContain(`data-clear-drafts="note-draft:${user.id}:"`);
    // A parent writes no notes, and their id is not a staff user's: their Logout names no drafts.
    const loc = await createLocation();
    const parentCookie = await signInCookie(await createParent({ locationId: loc.id }), true);
    const html = await (await request("/dashboard", { cookie: parentCookie })).text();
    expect(logoutForm(html)).toMatch(/action="\/logout"/);
    expect(logoutForm(html)).not.toContain("data-clear-drafts");
  });

  it("an idle session leads to the lock screen; an old one to sign-in", async () => {
    const user = await createUser();
    const cookie = await signInCookie(user);
    const long = new Date(Date.now() - 31 * 60_000).toISOString();
    await db().update(sessions).set({ lastSeenAt: long }).where(eq(sessions.principalId, user.id));
    const idle = await request("/dashboard", { cookie });
    expect(idle.headers.get("Location")).toBe("/lock-screen?redirectTo=%2Fdashboard");
    const old = new Date(Date.now() - 13 * 3600_000).toISOString();
    await db().update(sessions).set({ createdAt: old }).where(eq(sessions.principalId, user.id));
    const expired = await request("/dashboard", { cookie });
    expect(expired.headers.get("Location")).toBe("/login?redirectTo=%2Fdashboard");
  });

  it("a bad login re-renders with the message and the typed email, and creates no session", async () => {
    const user = await createUser();
    const res = await form("/login", { email: user.email, password: "nope-nope" });
    expect(res.status).toBe(401);
    const html = await res.text();
    expect(html).toContain("These credentials do not match our records.");
    expect(html).toContain(`value="${user.email}"`);
    expect(setCookiesBesidesBookmark(res)).toHaveLength(0);
    const rows = await db().select().from(sessions).where(eq(sessions.principalId, user.id));
    expect(rows).toHaveLength(0);
  });
});
