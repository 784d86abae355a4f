import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { patients } from "~/db/schema";
import type { Permission } from "~/domain/permissions";
import { api, apiToken, createLocation, createParent, createPatient, createUser, db, request, signInCookie } from "./helpers";

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

/** What a browser posts for a form as shown, pressing the submit button `intent` (JavaScript off). */
function shownValues(form: string, intent = "save"): [string, string][] {
  const out: [string, string][] = [["intent", intent]];
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
  return postForm(path, shownValues(formAround(html, 'name="patient_identifier"')), cookie);
}

describe("a linked parent the editor cannot see (probe 8963 D1)", () => {
  it("the edit form keeps them in the select under a neutral label, and an untouched save keeps the link", async () => {
    const mine = await createLocation();
    const theirs = await createLocation();
    const parent = await createParent({ locationId: theirs.id, name: "Hidden", surname: "Guardian" });
    const p = await createPatient({ locationId: mine.id, parentId: parent.id });
    const editor = await createUser({ permissions: MANAGE, locations: [mine.id] });
    const cookie = await signInCookie(editor);
    const html = await (await request(`/patients/list/edit/${p.id}`, { cookie })).text();
    expect(optionsOf(html, "parent_id")).toContainEqual([String(parent.id), "Linked parent (another location)"]);
    expect(html).not.toContain("Hidden Guardian");
    expect(html).not.toContain(parent.email);
    const saved = await untouchedSave(p.id, cookie);
    expect(saved.status).toBe(303);
    expect(await row(p.id)).toMatchObject({ parentId: parent.id, version: 2 });
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
    const cookie = await signInCookie(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const html = await (await request(`/patients/list/edit/${p.id}`, { cookie })).text();
    expect(optionsOf(html, "parent_id")).toContainEqual([String(parent.id), `Zzvisible Guardian (${parent.email})`]);
    expect((await untouchedSave(p.id, cookie)).status).toBe(303);
    expect((await row(p.id)).parentId).toBe(parent.id);
  });
});
