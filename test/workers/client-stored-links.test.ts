import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insurances, paServices, patients, userLocations } from "~/db/schema";
import type { Permission } from "~/domain/permissions";
import { api, apiToken, createLocation, createManyStaff, form, createParent, createPatient, createUser, db, request, signInCookie } from "./helpers";
import { STAFF_OPTIONS_MAX, TOO_MANY_STAFF_TO_ADD } from "~/domain/employees";

/**
 * Links a client's edit screen must keep when saved untouched, though its lists leave them out (decision 017: stop 24
 * for staff, stop 33 for the parent, the insurers and a move to another location). "Untouched": the form is posted
 * with the values the page shows, as a browser without JavaScript would.
 */

const MANAGE: Permission[] = ["view_clients", "manage_clients"];

const decode = (s: string) => s.replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
const attr = (tag: string, name: string) => {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? decode(m[1]!) : null;
};

/** The <form> around the first occurrence of `marker`. */
function formAround(html: string, marker: string): string {
  const at = html.indexOf(marker);
  expect(at, marker).toBeGreaterThan(-1);
  return html.slice(html.lastIndexOf("<form", at), html.indexOf("</form>", at));
}

/** What a browser posts for a form as shown (JavaScript off), pressing the submit button `intent` if the form has no hidden one. */
function shownValues(form: string, intent?: string): [string, string][] {
  const out: [string, string][] = intent ? [["intent", intent]] : [];
  for (const m of form.matchAll(/<input\b[^>]*>/g)) {
    const tag = m[0];
    const name = attr(tag, "name");
    const type = attr(tag, "type") ?? "text";
    if (!name || type === "submit" || ((type === "checkbox" || type === "radio") && !/\schecked=/.test(tag))) continue;
    out.push([name, attr(tag, "value") ?? (type === "checkbox" ? "on" : "")]);
  }
  for (const m of form.matchAll(/<textarea\b([^>]*)>([^<]*)<\/textarea>/g)) out.push([attr(m[1]!, "name")!, decode(m[2]!.replace(/^\n/, ""))]);
  for (const m of form.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/g)) out.push([attr(m[1]!, "name")!, selectedIn(m[2]!)]);
  return out;
}

/** The value a select posts: its selected option's, else its first option's. */
function selectedIn(options: string): string {
  const all = [...options.matchAll(/<option\b[^>]*>/g)].map((m) => m[0]);
  const chosen = all.find((o) => /\sselected=/.test(o)) ?? all[0];
  return chosen ? (attr(chosen, "value") ?? "") : "";
}

/** The options of one select of a form: [value, label]. */
function optionsOf(html: string, name: string): [string, string][] {
  const select = new RegExp(`<select[^>]*name="${name}"[^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1] ?? "";
  return [...select.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map((m) => [m[1]!, decode(m[2]!)]);
}

function postForm(path: string, fields: [string, string][], cookie: string) {
  return request(path, { method: "POST", body: new URLSearchParams(fields), cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

async function row(id: number) {
  const [r] = await db().select().from(patients).where(eq(patients.id, id));
  return r!;
}

/** Opens the client's edit screen and saves it untouched; answers the save's response. */
async function untouchedSave(patientId: number, cookie: string) {
  const path = `/patients/list/edit/${patientId}`;
  const html = await (await request(path, { cookie })).text();
  return postForm(path, shownValues(formAround(html, 'name="patient_identifier"'), "save"), cookie);
}

describe("a linked parent the editor cannot see (probe 8963 D1)", () => {
  it("the edit form keeps them in the select under a neutral label, and an untouched save keeps the link", async () => {
    const mine = await createLocation();
    const theirs = await createLocation();
    const parent = await createParent({ locationId: theirs.id, name: "Hidden", surname: "Guardian" });
    const p = await createPatient({ locationId: mine.id, parentId: parent.id });
    // A reader of parents (decision 007, stop 40): without view_parents no parent is named anyway.
    const editor = await createUser({ permissions: [...MANAGE, "view_parents"], locations: [mine.id] });
    const cookie = await signInCookie(editor);
    const html = await (await request(`/patients/list/edit/${p.id}`, { cookie })).text();
    expect(optionsOf(html, "parent_id")).toContainEqual([String(parent.id), "Linked parent (another location)"]);
    expect(html).not.toContain("Hidden Guardian");
    expect(html).not.toContain(parent.email);
    // Untouched, the save changes nothing: "Nothing to change.", the link and the version as stored (decision 017, stop 44).
    const saved = await untouchedSave(p.id, cookie);
    expect(saved.status).toBe(303);
    expect(new URL(saved.headers.get("Location")!, "http://x").searchParams.get("flash")).toBe("Nothing to change.");
    expect(await row(p.id)).toMatchObject({ parentId: parent.id, version: 1 });
    // The profile names the link the same way.
    const profile = await (await request(`/patients/profile/${p.id}`, { cookie })).text();
    expect(profile).toContain("Linked parent (another location)");
    expect(profile).not.toContain("Hidden Guardian");
    // Choosing "None" still unlinks, and linking them again is refused (the editor cannot name them).
    const token = await apiToken(editor);
    expect((await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { parent_id: null } })).status).toBe(200);
    const relink = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { parent_id: parent.id } });
    expect(relink.status).toBe(422);
    expect((await row(p.id)).parentId).toBeNull();
  });

  it("a linked parent the editor may see is named", async () => {
    const loc = await createLocation();
    const parent = await createParent({ locationId: loc.id, name: "Zzvisible", surname: "Guardian" });
    const p = await createPatient({ locationId: loc.id, parentId: parent.id });
    const cookie = await signInCookie(await createUser({ permissions: [...MANAGE, "view_parents"], locations: [loc.id] }));
    const html = await (await request(`/patients/list/edit/${p.id}`, { cookie })).text();
    expect(optionsOf(html, "parent_id")).toContainEqual([String(parent.id), `Zzvisible Guardian (${parent.email})`]);
    expect((await untouchedSave(p.id, cookie)).status).toBe(303);
    expect((await row(p.id)).parentId).toBe(parent.id);
  });
});

describe("an insurer deleted while clients and PA services use it (probe 8963 D2)", () => {
  async function scene() {
    const loc = await createLocation();
    const [primary] = await db().insert(insurances).values({ name: "Gone Primary Ins" }).returning();
    const [secondary] = await db().insert(insurances).values({ name: "Gone Secondary Ins" }).returning();
    const [live] = await db().insert(insurances).values({ name: "Live Ins" }).returning();
    const p = await createPatient({ locationId: loc.id, insurerId: primary!.id, insurerSecondaryId: secondary!.id });
    const [pa] = await db().insert(paServices).values({ patientId: p.id, paService: "Auth", cpt: "97153", nUnits: 50, startDate: "2026-11-01", endDate: "2026-12-31", insuranceId: primary!.id }).returning();
    // Deleted before deleting an insurer in use was refused.
    await db().update(insurances).set({ deletedAt: "2026-11-27T00:00:00.000Z" }).where(eq(insurances.id, primary!.id));
    await db().update(insurances).set({ deletedAt: "2026-11-27T00:00:00.000Z" }).where(eq(insurances.id, secondary!.id));
    const manager = await createUser({ permissions: MANAGE, locations: [loc.id] });
    return { loc, primary: primary!, secondary: secondary!, live: live!, p, pa: pa!, manager };
  }

  it("API: a PATCH of another field keeps the stored insurer; newly naming a deleted insurer is refused", async () => {
    const { primary, secondary, p, pa, manager } = await scene();
    const token = await apiToken(manager);
    const client = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { special_note: "x" } });
    expect(client.status).toBe(200);
    expect(((await client.json()) as { data: Record<string, unknown> }).data).toMatchObject({ special_note: "x", insurer_id: primary.id, insurer_secondary_id: secondary.id });
    // Sending the stored value back is no change either.
    expect((await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { insurer_id: primary.id, phone: "305-555-1234" } })).status).toBe(200);
    const moved = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { insurer_secondary_id: primary.id } });
    expect(moved.status).toBe(422);
    expect(((await moved.json()) as { errors: Record<string, string> }).errors).toEqual({ insurer_secondary_id: "Choose an insurer from the list." });
    expect(await row(p.id)).toMatchObject({ insurerId: primary.id, insurerSecondaryId: secondary.id, version: 3 });
    const service = await api(`/v2/pa-services/${pa.id}`, { method: "PATCH", token, body: { n_units: 60 } });
    expect(service.status).toBe(200);
    expect(((await service.json()) as { data: Record<string, unknown> }).data).toMatchObject({ n_units: 60, insurance_id: primary.id });
    const other = await createPatient({ locationId: p.locationId });
    const [otherPa] = await db().insert(paServices).values({ patientId: other.id, paService: "Auth", cpt: "97153", nUnits: 5, startDate: "2026-11-01", endDate: "2026-12-31" }).returning();
    const refused = await api(`/v2/pa-services/${otherPa!.id}`, { method: "PATCH", token, body: { insurance_id: primary.id } });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: Record<string, string> }).errors).toEqual({ insurance_id: "Choose an insurer from the list." });
  });

  it("screens: the selects keep the stored insurer, marked deleted, in its own field; untouched saves keep it", async () => {
    const { primary, secondary, live, p, pa, manager } = await scene();
    const cookie = await signInCookie(manager);
    const html = await (await request(`/patients/list/edit/${p.id}`, { cookie })).text();
    expect(optionsOf(html, "insurer_id")).toContainEqual([String(primary.id), "Gone Primary Ins (deleted)"]);
    expect(optionsOf(html, "insurer_id")).toContainEqual([String(live.id), "Live Ins"]);
    expect(optionsOf(html, "insurer_id").map(([id]) => id)).not.toContain(String(secondary.id));
    expect(optionsOf(html, "insurer_secondary_id")).toContainEqual([String(secondary.id), "Gone Secondary Ins (deleted)"]);
    expect(optionsOf(html, "insurer_secondary_id").map(([id]) => id)).not.toContain(String(primary.id));
    // Untouched, the save changes nothing (decision 017, stop 44): the insurers and the version as stored.
    expect((await untouchedSave(p.id, cookie)).status).toBe(303);
    expect(await row(p.id)).toMatchObject({ insurerId: primary.id, insurerSecondaryId: secondary.id, version: 1 });
    const path = `/patients/profile/${p.id}`;
    const profile = await (await request(path, { cookie })).text();
    expect(profile).toContain("<dd>Gone Primary Ins (deleted)</dd>");
    const row_ = formAround(profile, `name="pa_id" value="${pa.id}"`);
    expect(optionsOf(row_, "insurance_id")).toContainEqual([String(pa.insuranceId), "Gone Primary Ins (deleted)"]);
    // The add form does not offer it.
    expect(optionsOf(formAround(profile, 'value="pa-create"'), "insurance_id").map(([id]) => id)).not.toContain(String(primary.id));
    const fields = shownValues(row_).map(([k, v]): [string, string] => (k === "n_units" ? [k, "70"] : [k, v]));
    expect((await postForm(path, fields, cookie)).status).toBe(303);
    expect((await db().select().from(paServices).where(eq(paServices.id, pa.id)))[0]).toMatchObject({ nUnits: 70, insuranceId: primary.id });
  });

  it("deleting an insurer a live client or PA service uses is refused with the counts, API and screen; unused, it is deleted", async () => {
    const loc = await createLocation();
    const [ins] = await db().insert(insurances).values({ name: "In Use Ins" }).returning();
    const a = await createPatient({ locationId: loc.id, insurerId: ins!.id });
    const b = await createPatient({ locationId: loc.id, insurerSecondaryId: ins!.id });
    const c = await createPatient({ locationId: loc.id });
    const [pa] = await db().insert(paServices).values({ patientId: c.id, paService: "Auth", cpt: "97153", nUnits: 5, startDate: "2026-11-01", endDate: "2026-12-31", insuranceId: ins!.id }).returning();
    const admin = await createUser({ permissions: ["manage_insurances"] });
    const token = await apiToken(admin);
    const cookie = await signInCookie(admin);
    const both = "2 client(s) still have this insurer as their primary or secondary insurer: choose another insurer on them first. 1 PA service(s) still use this insurer: choose another insurer on them first.";
    const refused = await api(`/v2/insurances/${ins!.id}`, { method: "DELETE", token });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: Record<string, string> }).errors).toEqual({ insurance: both });
    const screen = await form(`/insurance/list/edit/${ins!.id}`, { intent: "delete", confirmed: "yes" }, cookie);
    expect(screen.status).toBe(422);
    expect(await screen.text()).toContain("2 client(s) still have this insurer");
    expect((await db().select().from(insurances).where(eq(insurances.id, ins!.id)))[0]!.deletedAt).toBeNull();
    // A deleted client and a deleted PA service no longer count.
    await db().update(patients).set({ deletedAt: "2026-11-27T00:00:00.000Z" }).where(eq(patients.id, a.id));
    await db().update(paServices).set({ deletedAt: "2026-11-27T00:00:00.000Z" }).where(eq(paServices.id, pa!.id));
    const one = await api(`/v2/insurances/${ins!.id}`, { method: "DELETE", token });
    expect(((await one.json()) as { message: string }).message).toBe("1 client(s) still have this insurer as their primary or secondary insurer: choose another insurer on them first.");
    await db().update(patients).set({ insurerSecondaryId: null }).where(eq(patients.id, b.id));
    expect((await api(`/v2/insurances/${ins!.id}`, { method: "DELETE", token })).status).toBe(200);
    expect((await db().select().from(insurances).where(eq(insurances.id, ins!.id)))[0]!.deletedAt).not.toBeNull();
  });
});

describe("moving a client with assigned staff on the edit screen (probe 8963 D3)", () => {
  /** The labels of a select's groups, each with its options' values. */
  function groupsOf(html: string, name: string): [string, string[]][] {
    const select = new RegExp(`<select[^>]*name="${name}"[^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1] ?? "";
    return [...select.matchAll(/<optgroup label="([^"]*)">([\s\S]*?)<\/optgroup>/g)].map((m) => [decode(m[1]!), [...m[2]!.matchAll(/<option value="(\d+)"/g)].map((o) => o[1]!)]);
  }

  it("the staff selects list the client's location; a refused move shows the chosen location's staff, and the move posted with them saves", async () => {
    const from = await createLocation({ title: "Aa From Clinic" });
    const to = await createLocation({ title: "Ab To Clinic" });
    const unseen = await createLocation({ title: "Ac Unseen Clinic" });
    const rbtFrom = await createUser({ permissions: [], locations: [from.id], name: "Rbtfrom" });
    const bcbaFrom = await createUser({ permissions: [], locations: [from.id], name: "Bcbafrom" });
    const rbtTo = await createUser({ permissions: [], locations: [to.id], name: "Rbtto" });
    const bcbaTo = await createUser({ permissions: [], locations: [to.id], name: "Bcbato" });
    await createUser({ permissions: [], locations: [unseen.id], name: "Unseenstaff" });
    const p = await createPatient({ locationId: from.id, rbtHomeId: rbtFrom.id, bcbaHomeId: bcbaFrom.id });
    const cookie = await signInCookie(await createUser({ permissions: MANAGE, locations: [from.id, to.id] }));
    const path = `/patients/list/edit/${p.id}`;
    const html = await (await request(path, { cookie })).text();
    const groups = groupsOf(html, "rbt_home_id");
    // Only the client's location: every location's staff would be hundreds of kilobytes at a large clinic.
    expect(groups.map(([label]) => label)).toEqual(["Aa From Clinic"]);
    expect(groups[0]![1]).toEqual(expect.arrayContaining([String(rbtFrom.id)]));
    expect(html).not.toContain("Rbtto");
    expect(html).not.toContain("Unseenstaff");
    const shown = shownValues(formAround(html, 'name="patient_identifier"'), "save");
    const withValues = (over: Record<string, string>) => shown.map(([k, v]): [string, string] => [k, over[k] ?? v]);
    // The move with the old staff is refused at each staff field; the form shown again offers the new location's staff.
    const refused = await postForm(path, withValues({ location_id: String(to.id) }), cookie);
    expect(refused.status).toBe(422);
    const again = await refused.text();
    expect(again).toContain("Choose an employee of the client&#x27;s location.");
    expect(groupsOf(again, "bcba_home_id").map(([label]) => label)).toEqual(["Ab To Clinic"]);
    expect(groupsOf(again, "bcba_home_id")[0]![1]).toContain(String(bcbaTo.id));
    expect(groupsOf(again, "rbt_home_id")[0]![1]).toContain(String(rbtTo.id));
    expect(again).not.toContain("Unseenstaff");
    // A location the editor cannot see chosen in a crafted post: refused, and no staff of it shown.
    const crafted = await postForm(path, withValues({ location_id: String(unseen.id) }), cookie);
    expect(crafted.status).toBe(422);
    expect(await crafted.text()).not.toContain("Unseenstaff");
    expect((await row(p.id)).locationId).toBe(from.id);
    const moved = await postForm(path, withValues({ location_id: String(to.id), rbt_home_id: String(rbtTo.id), bcba_home_id: String(bcbaTo.id) }), cookie);
    expect(moved.status).toBe(303);
    expect(await row(p.id)).toMatchObject({ locationId: to.id, rbtHomeId: rbtTo.id, bcbaHomeId: bcbaTo.id });
  });

  it("the add form with more staff than a select lists asks for the location first; a refused save shows the chosen location's staff", async () => {
    const big = await createLocation({ title: "Ba Big Clinic" });
    const small = await createLocation({ title: "Bb Small Clinic" });
    await createManyStaff(big.id, STAFF_OPTIONS_MAX + 1, "Addbulk");
    const smallRbt = await createUser({ permissions: [], locations: [small.id], name: "Smallrbt" });
    const cookie = await signInCookie(await createUser({ permissions: MANAGE, locations: [big.id, small.id] }));
    const first = await (await request("/patients/add", { cookie })).text();
    expect(first).not.toContain("Addbulk0 Staff");
    expect(groupsOf(first, "rbt_home_id")).toEqual([]);
    expect(decode(first)).toContain(TOO_MANY_STAFF_TO_ADD);
    expect(first).toContain('id="f-staff-location"');
    // The chooser's GET: that location's staff only.
    const chosen = await (await request(`/patients/add?location_id=${small.id}`, { cookie })).text();
    expect(groupsOf(chosen, "rbt_home_id")).toEqual([["Bb Small Clinic", expect.arrayContaining([String(smallRbt.id)])]]);
    expect(chosen).not.toContain("Addbulk0 Staff");
    // Or in the form: a save refused for a missing name answers with the chosen location's staff, the typed values kept.
    const refused = await form("/patients/add", { intent: "save", patient_identifier: `ADD-${Date.now()}`, first_name: "", last_name: "Kept", location_id: String(small.id) }, cookie);
    expect(refused.status).toBe(422);
    const again = await refused.text();
    expect(groupsOf(again, "rbt_home_id")).toEqual([["Bb Small Clinic", expect.arrayContaining([String(smallRbt.id)])]]);
    expect(again).toContain('value="Kept"');
    expect(again).not.toContain("Addbulk0 Staff");
  });

  it("a stored employee who now works at another location is offered marked in the field that stores them only", async () => {
    const loc = await createLocation();
    const other = await createLocation();
    const left = await createUser({ permissions: [], locations: [loc.id], name: "Leftover" });
    const p = await createPatient({ locationId: loc.id, rbtHomeId: left.id });
    await db().delete(userLocations).where(eq(userLocations.userId, left.id));
    await db().insert(userLocations).values({ userId: left.id, locationId: other.id });
    const cookie = await signInCookie(await createUser({ permissions: MANAGE, locations: [loc.id, other.id] }));
    const html = await (await request(`/patients/list/edit/${p.id}`, { cookie })).text();
    expect(optionsOf(html, "rbt_home_id").filter(([id]) => id === String(left.id))).toEqual([[String(left.id), "Leftover User (not at the client's location)"]]);
    expect(optionsOf(html, "bcba_home_id").filter(([id]) => id === String(left.id))).toEqual([]);
    expect((await untouchedSave(p.id, cookie)).status).toBe(303);
    expect((await row(p.id)).rbtHomeId).toBe(left.id);
  });
});
