import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notes, paServices, patients, userLocations, users } from "~/db/schema";
import type { Permission } from "~/domain/permissions";
import { UNITS_ELSEWHERE_NOTE } from "~/domain/pa-pacing";
import { addDays, dayNumber } from "~/domain/weeks";
import { api, apiToken, createLocation, createPatient, createUser, db, form, request, signInCookie } from "./helpers";

/**
 * A client who moved to another location keeps their old notes at the old location (decision 017: the stored
 * location decides). One rule for every note screen and call (probe 8931 §7): the old location's staff see,
 * edit and list those notes; the new location's staff do not, and the client's PA table tells them where the
 * units they cannot list were spent.
 */

const MANAGE: Permission[] = ["view_notes", "manage_notes", "view_clients"];

function recentDay(back = 1): string {
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
  return addDays(today, -back);
}

let s: { oldTitle: string; patientId: number; noteId: number; providerId: number; old: { cookie: string; token: string }; now: { cookie: string; token: string } };

beforeAll(async () => {
  const oldLoc = await createLocation();
  const newLoc = await createLocation();
  const patient = await createPatient({ locationId: oldLoc.id, firstName: "Emma", lastName: "Mover" });
  const provider = await createUser({ permissions: ["view_notes"], locations: [oldLoc.id], name: "Jasmine" });
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Direct ABA therapy", cpt: "97153", nUnits: 960, startDate: "2020-01-01", endDate: "2099-12-31" }).returning();
  const date = recentDay();
  const start = dayNumber(date)! * 1440 + 9 * 60;
  const [note] = await db()
    .insert(notes)
    .values({ type: "rbt", patientId: patient.id, locationId: oldLoc.id, providerId: provider.id, providerName: "Jasmine User", paServiceId: pa!.id, cptCode: "97153", pos: "12", sessionDate: date, timeIn: "09:00", timeOut: "10:00", start1At: start, end1At: start + 60, startAt: start, endAt: start + 60, minutes: 60, units: 4, status: "pending" })
    .returning();
  // The move (as PATCH /api/v2/patients/{id} makes it): the note stays where it was written.
  await db().update(patients).set({ locationId: newLoc.id }).where(eq(patients.id, patient.id));
  const oldStaff = await createUser({ permissions: MANAGE, locations: [oldLoc.id] });
  const newStaff = await createUser({ permissions: MANAGE, locations: [newLoc.id] });
  s = {
    oldTitle: oldLoc.title,
    patientId: patient.id,
    noteId: note!.id,
    providerId: provider.id,
    old: { cookie: await signInCookie(oldStaff), token: await apiToken(oldStaff) },
    now: { cookie: await signInCookie(newStaff), token: await apiToken(newStaff) },
  };
});

type Who = "old" | "now";

describe("a moved client's old note: the same answer on every screen and call", () => {
  // [what, old location's staff, new location's staff]
  const screens: [string, () => string, number, number][] = [
    ["view", () => `/note-rbt/view/${s.noteId}`, 200, 404],
    ["PDF", () => `/note-rbt/pdf/${s.noteId}`, 200, 404],
    ["edit", () => `/note-rbt/edit/${s.noteId}`, 200, 404],
    ["RBT notes of the client", () => `/note-rbt/listbyclient/${s.patientId}`, 200, 200],
    ["BCBA notes of the client", () => `/note-bcba/listbyclient/${s.patientId}`, 200, 200],
    ["notes list by client", () => `/notes-list?patient_id=${s.patientId}`, 200, 200],
  ];

  it.each(screens)("screen %s", async (_what, path, oldStatus, newStatus) => {
    for (const [who, status] of [["old", oldStatus], ["now", newStatus]] as [Who, number][]) {
      expect((await request(path(), { cookie: s[who].cookie })).status, `${who} ${path()}`).toBe(status);
    }
  });

  it.each([
    ["GET show", "GET", () => `/note_rbt/show/${s.noteId}`, undefined],
    ["PATCH", "PATCH", () => `/v2/notes-rbt/${s.noteId}`, { client_response_to_treatment_this_session: "edited" }],
    ["PUT status", "PUT", () => `/note_rbt/update/status/${s.noteId}`, { status: "ok" }],
  ] as const)("API %s: 200 for the old location, 404 for the new", async (_what, method, path, body) => {
    expect((await api(path(), { method, token: s.now.token, body })).status).toBe(404);
    const res = await api(path(), { method, token: s.old.token, body });
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it("the client's lists list the note for the old location's staff only, on screens and through the API", async () => {
    const oldList = await (await request(`/note-rbt/listbyclient/${s.patientId}`, { cookie: s.old.cookie })).text();
    expect(oldList).toContain(`/note-rbt/view/${s.noteId}"`);
    expect(oldList).toContain("Emma Mover");
    // No BCBA note at the old location: the client is still found there, with nothing listed.
    expect(await (await request(`/note-bcba/listbyclient/${s.patientId}`, { cookie: s.old.cookie })).text()).toContain("No data to display.");
    const newList = await (await request(`/note-rbt/listbyclient/${s.patientId}`, { cookie: s.now.cookie })).text();
    expect(newList).not.toContain(`/note-rbt/view/${s.noteId}"`);
    expect(newList).toContain("Emma Mover");
    const ids = async (who: Who) => ((await (await api(`/note_rbt/byclient/${s.patientId}`, { token: s[who].token })).json()) as { data: { id: number }[] }).data.map((n) => n.id);
    expect(await ids("old")).toEqual([s.noteId]);
    expect(await ids("now")).toEqual([]);
  });

  it("the edit form offers the old location's staff, so the stored provider is chosen by name", async () => {
    const html = await (await request(`/note-rbt/edit/${s.noteId}`, { cookie: s.old.cookie })).text();
    expect(html).toMatch(new RegExp(`<option value="${s.providerId}" selected="">Jasmine User</option>`));
    // The form's own re-render (its action) answers the same way.
    expect((await form(`/note-rbt/edit/${s.noteId}`, { intent: "options" }, s.old.cookie)).status).toBe(200);
    expect((await form(`/note-rbt/edit/${s.noteId}`, { intent: "options" }, s.now.cookie)).status).toBe(404);
  });

  it("a client never seen at the actor's locations is still 404 on the client's lists", async () => {
    const elsewhere = await createPatient({ locationId: (await createLocation()).id });
    expect((await request(`/note-rbt/listbyclient/${elsewhere.id}`, { cookie: s.old.cookie })).status).toBe(404);
    expect((await api(`/note_rbt/byclient/${elsewhere.id}`, { token: s.old.token })).status).toBe(404);
  });

  it("the new location's PA table keeps the figure and says where the units it cannot list were spent", async () => {
    const html = await (await request(`/patients/profile/${s.patientId}`, { cookie: s.now.cookie })).text();
    expect(html).toContain(`<td>4<span class="muted"> (of which 4 at ${s.oldTitle})</span></td>`);
    expect(html).toContain(UNITS_ELSEWHERE_NOTE);
  });
});

describe("a note whose provider left its location or was deleted (probe 8931 §9)", () => {
  it.each([
    ["left the location", "elsewhere", "(not at the client&#x27;s location)"],
    ["was deleted", "deleted", "(deleted)"],
  ] as const)("a provider who %s is named, with why, in the Provider select only", async (_what, how, why) => {
    const loc = await createLocation();
    const patient = await createPatient({ locationId: loc.id });
    const provider = await createUser({ permissions: ["view_notes"], locations: [loc.id], name: "Elena" });
    const date = recentDay();
    const start = dayNumber(date)! * 1440 + 9 * 60;
    const [note] = await db()
      .insert(notes)
      .values({ type: "bcba", patientId: patient.id, locationId: loc.id, providerId: provider.id, providerName: "Elena User", cptCode: "97155", pos: "12", sessionDate: date, timeIn: "09:00", timeOut: "10:00", start1At: start, end1At: start + 60, startAt: start, endAt: start + 60, minutes: 60, units: 4, status: "pending" })
      .returning();
    if (how === "deleted") await db().update(users).set({ deletedAt: new Date().toISOString() }).where(eq(users.id, provider.id));
    else await db().delete(userLocations).where(eq(userLocations.userId, provider.id));
    const manager = await signInCookie(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const html = await (await request(`/note-bcba/edit/${note!.id}`, { cookie: manager })).text();
    const options = [...html.matchAll(new RegExp(`<option value="${provider.id}"[^>]*>([^<]*)</option>`, "g"))].map((m) => m[0]);
    expect(options).toEqual([`<option value="${provider.id}" selected="">Elena User ${why}</option>`]);
  });
});
