import { createExecutionContext, env } from "cloudflare:test";
import { count, desc } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { ASSET_URLS } from "~/assets";
import { auditLog, notes } from "~/db/schema";
import { dayNumber } from "~/domain/weeks";
import countingWorker from "../bench/d1-count-worker";
import { D1_COUNT_HEADER } from "../bench/d1-count-header";
import { createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/** The notes list (/notes-list): guard, scope, filters, paging, bad filter values, the audited read. */

type Loc = { id: number };
let here: Loc;
let there: Loc;
let alice: { id: number; firstName: string; lastName: string };
let bruno: { id: number; firstName: string; lastName: string };
let faraway: { id: number; lastName: string };
let rbt: { id: number; cookie: string };
let manager: { id: number; cookie: string };
let noNotes: string;

/** A stored note as the notes model keeps it (times as local minutes); the rules are the model's tests' business. */
async function note(over: { type: "rbt" | "bcba" | "combined"; patientId: number; locationId: number; providerId: number; date: string; start?: string; end?: string; status?: string; signed?: boolean; cpt?: string; providerName?: string }) {
  const [h1, m1] = (over.start ?? "09:00").split(":").map(Number);
  const [h2, m2] = (over.end ?? "11:00").split(":").map(Number);
  const day = dayNumber(over.date)! * 1440;
  const s = day + h1! * 60 + m1!;
  const e = day + h2! * 60 + m2!;
  const [row] = await db()
    .insert(notes)
    .values({
      type: over.type,
      patientId: over.patientId,
      locationId: over.locationId,
      providerId: over.providerId,
      providerName: over.providerName ?? "",
      cptCode: over.cpt ?? (over.type === "rbt" ? "97153" : "97155"),
      sessionDate: over.date,
      timeIn: over.start ?? "09:00",
      timeOut: over.end ?? "11:00",
      start1At: s,
      end1At: e,
      startAt: s,
      endAt: e,
      minutes: e - s,
      units: Math.round((e - s) / 15),
      status: over.status ?? "pending",
      signedAt: over.signed ? `${over.date}T23:00:00.000Z` : null,
      providerSignedOn: over.signed ? over.date : null,
    })
    .returning();
  return row!;
}

const html = async (res: Response) => {
  expect(res.status, res.headers.get("Location") ?? "").toBe(200);
  return res.text();
};
/** The table's rows (between <tbody> and </tbody>), or "" when the list is empty. */
const rowsOf = (page: string) => /<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? "";
const rowCount = (page: string) => (rowsOf(page).match(/<tr>/g) ?? []).length;

beforeAll(async () => {
  here = await createLocation();
  there = await createLocation();
  alice = await createPatient({ locationId: here.id, firstName: "Alice", lastName: "Zephyr" });
  bruno = await createPatient({ locationId: here.id, firstName: "Bruno", lastName: "Quill" });
  faraway = await createPatient({ locationId: there.id, firstName: "Far", lastName: "Away" });
  const rbtUser = await createUser({ permissions: ["view_notes"], locations: [here.id], name: "Rita" });
  const managerUser = await createUser({ permissions: ["view_notes", "manage_notes"], locations: [here.id], name: "Mona" });
  rbt = { id: rbtUser.id, cookie: await signInCookie(rbtUser) };
  manager = { id: managerUser.id, cookie: await signInCookie(managerUser) };
  noNotes = await signInCookie(await createUser({ permissions: ["view_clients"], locations: [here.id] }));
  const other = await createUser({ permissions: ["view_notes"], locations: [there.id] });

  // Alice: three RBT notes by Rita (one signed and ok) and a BCBA note by Mona; Bruno: one RBT note by Mona.
  await note({ type: "rbt", patientId: alice.id, locationId: here.id, providerId: rbt.id, providerName: "Rita User", date: "2026-03-02", status: "ok", signed: true });
  await note({ type: "rbt", patientId: alice.id, locationId: here.id, providerId: rbt.id, providerName: "Rita User", date: "2026-03-03", start: "09:00", end: "10:30" });
  await note({ type: "rbt", patientId: alice.id, locationId: here.id, providerId: rbt.id, providerName: "Rita User", date: "2026-03-04" });
  await note({ type: "bcba", patientId: alice.id, locationId: here.id, providerId: manager.id, providerName: "Mona User", date: "2026-03-05", status: "ok" });
  await note({ type: "rbt", patientId: bruno.id, locationId: here.id, providerId: manager.id, providerName: "Mona User", date: "2026-03-06" });
  // Another location's note: never listed here.
  await note({ type: "rbt", patientId: faraway.id, locationId: there.id, providerId: other.id, providerName: "Other User", date: "2026-03-06" });
});

describe("/notes-list", () => {
  it("lists the notes of the actor's locations, newest first, with their columns and links; another location's notes are not listed", async () => {
    const page = await html(await request("/notes-list", { cookie: rbt.cookie }));
    expect(page).toContain("<h1>Notes</h1>");
    expect(rowCount(page)).toBe(5);
    expect(page).toContain("Showing 1 to 5 of 5 entries");
    expect(page).not.toContain("Away");
    const rows = rowsOf(page);
    // Newest session first.
    expect(rows.indexOf("2026-03-06")).toBeLessThan(rows.indexOf("2026-03-02"));
    for (const header of ["Date", "Client", "Provider", "Type", "CPT", "Times", "Units", "Status", "Signed"]) expect(page).toContain(`<th>${header}</th>`);
    expect(rows).toContain("09:00–10:30");
    expect(rows).toContain("97153");
    expect(rows).toContain("BCBA");
    // View and PDF for every note; Edit for Rita's own notes only (she has no manage_notes), Amend once signed.
    expect(rows.match(/>View</g)?.length).toBe(5);
    expect(rows.match(/>PDF</g)?.length).toBe(5);
    expect(rows.match(/>Edit</g)?.length).toBe(2);
    expect(rows.match(/>Amend</g)?.length).toBe(1);
    expect(rows).toMatch(/href="\/note-rbt\/view\/\d+"/);
    expect(rows).toMatch(/href="\/note-bcba\/pdf\/\d+" target="_blank"/);
    expect(rows).toMatch(/href="\/note-rbt\/edit\/\d+"/);
    expect(rows).not.toMatch(/href="\/note-bcba\/edit\//);
  });

  it("has the note form's module fetched ahead (enhance.js prefetches it once the list has loaded), for a form opened from here on a slow connection", async () => {
    const page = await html(await request("/notes-list", { cookie: rbt.cookie }));
    expect(page).toContain(`data-prefetch="${ASSET_URLS.noteFormJs}"`);
    expect(page).not.toContain(`<script type="module" src="${ASSET_URLS.noteFormJs}"`);
  });

  it("names the note's provider (the chosen user) even when nobody typed a signature name", async () => {
    // A location of its own, so the other tests' counts stay as they are.
    const place = await createLocation();
    const client = await createPatient({ locationId: place.id, firstName: "Nora", lastName: "Unsigned" });
    const provider = await createUser({ permissions: ["view_notes"], locations: [place.id], name: "Quentin" });
    await note({ type: "rbt", patientId: client.id, locationId: place.id, providerId: provider.id, date: "2026-03-09" });
    const rows = rowsOf(await html(await request("/notes-list", { cookie: await signInCookie(provider) })));
    expect(rows).toContain("Quentin User");
    expect(rows).not.toContain(`#${provider.id}`);
  });

  it("a manager may edit every note of the list", async () => {
    const rows = rowsOf(await html(await request("/notes-list", { cookie: manager.cookie })));
    expect((rows.match(/>Edit</g)?.length ?? 0) + (rows.match(/>Amend</g)?.length ?? 0)).toBe(5);
  });

  it("answers 403 without view_notes, and sends a signed-out visitor to sign in", async () => {
    expect((await request("/notes-list", { cookie: noNotes })).status).toBe(403);
    const out = await request("/notes-list");
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toContain("/login");
  });

  it.each([
    ["type=rbt", 4],
    ["type=bcba", 1],
    ["type=combined", 0],
    ["type=null", 5],
    ["status=ok", 2],
    ["status=pending", 3],
    ["date_from=2026-03-03&date_to=2026-03-05", 3],
    ["date_from=2026-03-06", 1],
    ["search=Quill", 1],
    ["search=Mona", 2],
    ["type=rbt&status=pending&date_to=2026-03-04", 2],
  ])("filters: %s → %i notes", async (query, n) => {
    const page = await html(await request(`/notes-list?${query}`, { cookie: rbt.cookie }));
    expect(rowCount(page), query).toBe(n);
    if (n === 0) expect(page).toContain("No data to display.");
  });

  describe("the search finds what the rows show: the client's full name, the provider the list names, the CPT (decision 028, 2026-11-28)", () => {
    let viewer: string;
    beforeAll(async () => {
      // A location of its own, so the other tests' counts stay as they are.
      const place = await createLocation();
      const liam = await createPatient({ locationId: place.id, firstName: "Liam", lastName: "Garcia" });
      const liana = await createPatient({ locationId: place.id, firstName: "Liana", lastName: "Smith" });
      const maya = await createUser({ permissions: ["view_notes"], locations: [place.id], name: "Maya" });
      const wendy = await createUser({ permissions: ["view_notes"], locations: [place.id], name: "Wendy" });
      // Maya's note has no typed signature yet; Wendy's BCBA note carries a signature typed as another name.
      await note({ type: "rbt", patientId: liam.id, locationId: place.id, providerId: maya.id, providerName: "", date: "2026-04-01" });
      await note({ type: "bcba", patientId: liam.id, locationId: place.id, providerId: wendy.id, providerName: "Maya Typed", date: "2026-04-02" });
      await note({ type: "rbt", patientId: liana.id, locationId: place.id, providerId: wendy.id, providerName: "Wendy User", date: "2026-04-03" });
      viewer = await signInCookie(await createUser({ permissions: ["view_notes"], locations: [place.id] }));
    });

    it.each([
      ["Liam Garcia", 2], // the full name, as the clients list finds it
      ["liam garc", 2],
      ["Garcia", 2],
      ["Liam", 2],
      ["ia", 3], // a short search (no index): first, last and full names alike
      ["Smith", 1],
      ["Maya", 1], // the provider shown, with or without a typed signature
      ["Maya User", 1],
      ["Wendy User", 2],
      ["Typed", 0], // a typed signature the list does not show
      ["97155", 1],
      ["Garcia Liam", 0],
    ])("search=%s → %i notes", async (search, n) => {
      const page = await html(await request(`/notes-list?search=${encodeURIComponent(search)}`, { cookie: viewer }));
      expect(rowCount(page), search).toBe(n);
    });
  });

  it("filters by client and by provider from the links in the rows, and says which one is chosen", async () => {
    const byClient = await html(await request(`/notes-list?patient_id=${alice.id}`, { cookie: rbt.cookie }));
    expect(rowCount(byClient)).toBe(4);
    expect(byClient).toContain("Client: <strong>Alice Zephyr</strong>");
    expect(byClient).toContain(`<input type="hidden" name="patient_id" value="${alice.id}"/>`);
    const byProvider = await html(await request(`/notes-list?provider_id=${manager.id}`, { cookie: rbt.cookie }));
    expect(rowCount(byProvider)).toBe(2);
    expect(byProvider).toContain("Provider: <strong>Mona User</strong>");
    // A row's client name filters the list by that client.
    expect(rowsOf(await html(await request("/notes-list", { cookie: rbt.cookie })))).toContain(`href="/notes-list?patient_id=${bruno.id}"`);
    // "My notes".
    expect(rowCount(await html(await request(`/notes-list?provider_id=${rbt.id}`, { cookie: rbt.cookie })))).toBe(3);
    // Another location's client: nothing of it is shown.
    const other = await html(await request(`/notes-list?patient_id=${faraway.id}`, { cookie: rbt.cookie }));
    expect(rowCount(other)).toBe(0);
    expect(other).not.toContain("Away");
  });

  it("leaves empty filter values out of the address (one redirect), keeping the others", async () => {
    const res = await request("/notes-list?search=&type=rbt&status=&date_from=&date_to=", { cookie: rbt.cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/notes-list?type=rbt");
    const bare = await request("/notes-list?type=", { cookie: rbt.cookie });
    expect(bare.headers.get("Location")).toBe("/notes-list");
    // The guard comes first: no redirect reveals anything to a user without the permission.
    expect((await request("/notes-list?type=", { cookie: noNotes })).status).toBe(403);
  });

  it("pages through the notes, keeping the filters in the page links", async () => {
    const first = await html(await request("/notes-list?per_page=2&type=rbt", { cookie: rbt.cookie }));
    expect(rowCount(first)).toBe(2);
    expect(first).toContain("Showing 1 to 2 of 4 entries");
    expect(first).toMatch(/href="[^"]*\?per_page=2&amp;type=rbt&amp;page=2"/);
    const last = await html(await request("/notes-list?per_page=2&type=rbt&page=2", { cookie: rbt.cookie }));
    expect(last).toContain("Showing 3 to 4 of 4 entries");
  });

  it("a page past the last one says which page is last and links to it, on the list and on a client's notes (probe 8922 §7)", async () => {
    const past = await html(await request("/notes-list?per_page=2&type=rbt&page=999", { cookie: rbt.cookie }));
    expect(rowCount(past)).toBe(0);
    expect(past).toContain("There is no page 999: the last page is 2.");
    // The count line gives the list's size, not an empty range (decision 028, 2026-11-28).
    expect(past).toContain("4 entries on 2 pages");
    expect(past).not.toContain("Showing 0 to 0");
    expect(past).toMatch(/<a [^>]*href="[^"]*\?per_page=2&amp;type=rbt&amp;page=2"[^>]*>Go to page 2<\/a>/);
    const byClient = await html(await request(`/note-rbt/listbyclient/${alice.id}?page=999`, { cookie: rbt.cookie }));
    expect(byClient).toContain("There is no page 999: the last page is 1.");
    expect(byClient).toMatch(/<a [^>]*href="[^"]*\?page=1"[^>]*>Go to page 1<\/a>/);
    // A page that exists says nothing of the kind.
    expect(await html(await request("/notes-list?per_page=2&type=rbt&page=2", { cookie: rbt.cookie }))).not.toContain("There is no page");
  });

  it("a refused client or provider filter shows no chip and is not kept by the search form (probe 8922 §7)", async () => {
    for (const [key, chip] of [
      ["provider_id", "Provider:"],
      ["patient_id", "Client:"],
    ] as const) {
      const page = await html(await request(`/notes-list?${key}=abc`, { cookie: rbt.cookie }));
      expect(page).toContain("Filters take a record id.");
      expect(page).not.toContain(chip);
      expect(page).not.toContain(`name="${key}" value="abc"`);
      expect(rowCount(page)).toBeGreaterThan(0);
    }
    // A good provider filter beside a refused one: the list is read without filters, so no chip says otherwise.
    const mixed = await html(await request(`/notes-list?provider_id=${manager.id}&type=xyz`, { cookie: rbt.cookie }));
    expect(mixed).toContain("Choose a note type: rbt, bcba or combined.");
    expect(mixed).not.toContain("Provider:");
    expect(mixed).toContain(`<input type="hidden" name="provider_id" value="${manager.id}"/>`);
  });

  it.each([
    ["type=xyz", "Choose a note type: rbt, bcba or combined."],
    ["patient_id=abc", "Filters take a record id."],
    ["status=maybe", ""],
    ["page=0", "page must be at least 1."],
    ["per_page=5000", "per_page must be at most 100."],
    ["date_from=2026-02-31", "Dates must be real dates like 2026-01-31."],
    ["date_from=2026-03-05&date_to=2026-03-01", "date_to must be on or after date_from."],
    ["search=" + "x".repeat(300), ""],
  ])("a bad filter value (%s) shows its message, not a 500, and lists without it", async (query, message) => {
    const res = await request(`/notes-list?${query}`, { cookie: rbt.cookie });
    expect(res.status, query).toBe(200);
    const page = await res.text();
    expect(page).toMatch(/role="alert"|class="[^"]*error/);
    if (message) expect(page).toContain(message);
    expect(rowCount(page)).toBeGreaterThan(0);
  });

  /** The D1 round trips of one request, counted by the bench's wrapper of the D1 binding. */
  async function roundTrips(path: string, cookie: string) {
    const res = await countingWorker.fetch(new Request(`http://localhost${path}`, { headers: { Cookie: cookie } }) as Request<unknown, IncomingRequestCfProperties>, env, createExecutionContext());
    expect(res.status).toBe(200);
    return Number(res.headers.get(D1_COUNT_HEADER)!.split(";")[1]);
  }

  it("records the read of the listed clients in one audit row", async () => {
    const [before] = await db().select({ n: count() }).from(auditLog);
    await html(await request("/notes-list?type=rbt", { cookie: rbt.cookie }));
    const [after] = await db().select({ n: count() }).from(auditLog);
    expect(after!.n).toBe(before!.n + 1);
    const [row] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect(row!.actorId).toBe(rbt.id);
    expect(JSON.parse(row!.detail ?? "{}")).toMatchObject({ patients: [alice.id, bruno.id].sort((a, b) => a - b) });
  });

  it("stays within 3 D1 round trips: the session, the page (with the audit chain's tail), the audit row", async () => {
    expect(await roundTrips("/notes-list?type=rbt", rbt.cookie)).toBeLessThanOrEqual(3);
  });

  it("is the sidebar's Notes entry for a view_notes holder", async () => {
    const page = await html(await request("/dashboard", { cookie: rbt.cookie }));
    expect(page).toMatch(/<a[^>]*href="\/notes-list"[^>]*>[\s\S]*?Notes/);
  });
});
