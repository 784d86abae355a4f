import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { clientConsents, insurances, insuranceServices, intakeAssessments, locations, notes, paServices, parents, patients, rateRecords, roles, users } from "~/db/schema";
import type { Permission } from "~/domain/permissions";
import { addDays } from "~/domain/weeks";
import { api, apiToken, createLocation, createParent, createPatient, createRole, createUser, db, request, signInCookie } from "./helpers";

/**
 * A stale save (409) of the versioned screen forms, with JavaScript off (what the server renders): the form shows
 * the stored value with the new version, so saving again is deliberate, and the page lists what was typed and not
 * saved ("Your changes that were not saved"), named as the form names it, so nothing need be typed again. The stale
 * post writes nothing; a value typed as it is stored is not listed; a password or token is never shown.
 */

const ALL: Permission[] = [
  "view_clients",
  "manage_clients",
  "view_employees",
  "manage_employees",
  "view_parents",
  "manage_parents",
  "manage_locations",
  "manage_locations_access",
  "manage_insurances",
  "manage_roles",
  "view_notes",
  "manage_notes",
  "view_bips",
  "manage_bips",
];

function post(path: string, fields: Record<string, string | string[]>, cookie: string) {
  const body = new URLSearchParams();
  for (const [k, x] of Object.entries(fields)) for (const s of Array.isArray(x) ? x : [x]) body.append(k, s);
  return request(path, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

const yesterday = () => addDays(new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date()), -1);

/** The value the first control named `name` after `from` shows (an input's value, a textarea's text). */
function shownValue(html: string, name: string, from: number): string | undefined {
  const at = html.indexOf(`name="${name}"`, from);
  if (at < 0) return undefined;
  const start = html.lastIndexOf("<", at);
  if (html.startsWith("<textarea", start)) return html.slice(html.indexOf(">", at) + 1, html.indexOf("</textarea>", at));
  const tag = html.slice(start, html.indexOf(">", at) + 1);
  return /value="([^"]*)"/.exec(tag)?.[1];
}

interface Case {
  name: string;
  path: string;
  /** Every field the form posts but the version, and the changed one's name and label. */
  fields: Record<string, string | string[]>;
  field: string;
  label: string;
  /** A label of a field posted as it is stored: not listed. */
  unchangedLabel: string;
  stored: () => Promise<{ version: number; value: unknown }>;
}

async function scene(): Promise<{ cookie: string; cases: Case[] }> {
  const loc = await createLocation();
  const me = await createUser({ permissions: ALL, locations: [loc.id] });
  const cookie = await signInCookie(me);
  const tag = Date.now().toString(36);

  const client = await createPatient({ locationId: loc.id, firstName: "Before" });
  const role = await createRole(`STALE_${tag}`, []);
  const employee = await createUser({ permissions: [], locations: [loc.id], name: "Emma" });
  const [employeeRow] = await db().select().from(users).where(eq(users.id, employee.id));
  const parent = await createParent({ locationId: loc.id });
  const [insurer] = await db().insert(insurances).values({ name: `Stale Insurer ${tag}` }).returning();
  expect((await post(`/insurance/list/edit/${insurer!.id}`, { intent: "add-service", code: "97153 HM", provider: "rbt", unit_price: "12.50", multiplier: "" }, cookie)).status).toBe(303);
  const [service] = await db().select().from(insuranceServices).where(eq(insuranceServices.insuranceId, insurer!.id));
  const [rate] = await db().insert(rateRecords).values({ name: `Stale rates ${tag}`, locationId: loc.id }).returning();
  const [pa] = await db().insert(paServices).values({ patientId: client.id, paService: "Direct", cpt: "97153", nUnits: 400, startDate: "2020-01-01", endDate: "2099-12-31" }).returning();
  const [intake] = await db().insert(intakeAssessments).values({ patientId: client.id, personResponding: "Before", observationDate: "2025-01-01" }).returning();
  const noteBody = { patient_id: client.id, provider_id: me.id, pa_service_id: pa!.id, cpt_code: "97153", session_date: yesterday(), time_in: "09:00", time_out: "10:00", pos: "12", diagnosis_code: "F84.0" };
  const created = await api("/v2/notes-rbt", { method: "POST", token: await apiToken(me), body: noteBody });
  expect(created.status).toBe(201);
  const noteId = ((await created.json()) as { data: { id: number } }).data.id;

  const [consent] = await db().insert(clientConsents).values({ patientId: client.id, sections: "[1]", notes: "Before" }).returning();

  const cases: Case[] = [
    {
      name: "consent draft",
      path: `/patients/consents/${client.id}`,
      fields: { intent: "save", id: String(consent!.id), sections: ["1"] },
      field: "notes",
      label: "Notes",
      unchangedLabel: "Sections",
      stored: async () => db().select().from(clientConsents).where(eq(clientConsents.id, consent!.id)).then(([r]) => ({ version: r!.version, value: r!.notes })),
    },
    {
      name: "client edit",
      path: `/patients/list/edit/${client.id}`,
      fields: { intent: "save", patient_identifier: client.patientIdentifier!, first_name: "Before", last_name: client.lastName, status: "active", location_id: String(loc.id) },
      field: "first_name",
      label: "First name",
      unchangedLabel: "Last name",
      stored: async () => db().select().from(patients).where(eq(patients.id, client.id)).then(([r]) => ({ version: r!.version, value: r!.firstName })),
    },
    {
      name: "employee edit",
      path: `/doctors/list/edit/${employee.id}`,
      fields: { intent: "save", name: "Emma", surname: "User", email: employeeRow!.email, status: "active", roles: [String(role.id)], locations: [String(loc.id)] },
      field: "address",
      label: "Address",
      unchangedLabel: "Roles",
      stored: async () => db().select().from(users).where(eq(users.id, employee.id)).then(([r]) => ({ version: r!.version, value: r!.address })),
    },
    {
      name: "parent profile",
      path: `/parents/profile/${parent.id}`,
      fields: { intent: "save", name: "Pat", surname: "Parent", email: parent.email, location_id: String(loc.id), status: "active" },
      field: "city",
      label: "City",
      unchangedLabel: "Surname",
      stored: async () => db().select().from(parents).where(eq(parents.id, parent.id)).then(([r]) => ({ version: r!.version, value: r!.city })),
    },
    {
      name: "location edit",
      path: `/location/list/edit/${loc.id}`,
      fields: { intent: "save", title: "Stale Clinic", city: "Tampa", state: "FL", zip: "33602", time_zone: "America/New_York", pos_codes: ["11", "12"] },
      field: "address",
      label: "Address",
      unchangedLabel: "Place-of-service codes",
      stored: async () => db().select().from(locations).where(eq(locations.id, loc.id)).then(([r]) => ({ version: r!.version, value: r!.address })),
    },
    {
      name: "insurer edit",
      path: `/insurance/list/edit/${insurer!.id}`,
      fields: { intent: "save", name: `Stale Insurer ${tag}`, payer_id: "PAY-1" },
      field: "notes",
      label: "Notes",
      unchangedLabel: "Name",
      stored: async () => db().select().from(insurances).where(eq(insurances.id, insurer!.id)).then(([r]) => ({ version: r!.version, value: r!.notes })),
    },
    {
      name: "insurer service edit",
      path: `/insurance/list/edit/${insurer!.id}`,
      fields: { intent: "update-service", service_id: String(service!.id), code: "97153 HM", provider: "rbt", unit_price: "12.50" },
      field: "description",
      label: "Description",
      unchangedLabel: "Code",
      stored: async () => db().select().from(insuranceServices).where(eq(insuranceServices.id, service!.id)).then(([r]) => ({ version: r!.version, value: r!.description })),
    },
    {
      name: "role edit",
      path: `/roles/list/edit/${role.id}`,
      fields: { intent: "save", name: `STALE_${tag}`, permissions: ["view_clients"] },
      field: "name",
      label: "Name",
      unchangedLabel: "Permissions",
      stored: async () => db().select().from(roles).where(eq(roles.id, role.id)).then(([r]) => ({ version: r!.version, value: r!.name })),
    },
    {
      name: "rate record edit",
      path: `/insurance/rates/edit/${rate!.id}`,
      fields: { intent: "save", name: `Stale rates ${tag}`, location_id: String(loc.id), rbt: "21.5", bcba: "", manager: "", client: "", info_rbt: "", info_bcba: "", info_manager: "" },
      field: "info_rbt",
      label: "RBT info",
      unchangedLabel: "RBT amount",
      stored: async () => db().select().from(rateRecords).where(eq(rateRecords.id, rate!.id)).then(([r]) => ({ version: r!.version, value: (JSON.parse(r!.info) as { rbt?: string[] }).rbt?.join("\n") })),
    },
    {
      name: "PA service (client profile)",
      path: `/patients/profile/${client.id}`,
      fields: { intent: "pa-update", pa_id: String(pa!.id), pa_service: "Direct", cpt: "97153", n_units: "400", start_date: "2020-01-01", end_date: "2099-12-31" },
      field: "pa_service",
      label: "Service",
      unchangedLabel: "CPT",
      stored: async () => db().select().from(paServices).where(eq(paServices.id, pa!.id)).then(([r]) => ({ version: r!.version, value: r!.paService })),
    },
    {
      name: "intake assessment edit",
      path: `/medical/initial-assessment/${intake!.id}?edit`,
      fields: { intent: "save", patient_id: String(client.id), person_responding: "Before", observation_date: "2025-01-01" },
      field: "person_responding",
      label: "Person responding",
      unchangedLabel: "Observation date",
      stored: async () => db().select().from(intakeAssessments).where(eq(intakeAssessments.id, intake!.id)).then(([r]) => ({ version: r!.version, value: r!.personResponding })),
    },
    {
      name: "note edit",
      path: `/note-rbt/edit/${noteId}`,
      fields: { intent: "save", type: "rbt", ...Object.fromEntries(Object.entries(noteBody).map(([k, x]) => [k, String(x)])) },
      field: "content.client_appeared",
      label: "Client appeared",
      unchangedLabel: "Diagnosis code",
      stored: async () => db().select().from(notes).where(eq(notes.id, noteId)).then(([r]) => ({ version: r!.version, value: (JSON.parse(r!.content) as { client_appeared?: string }).client_appeared })),
    },
  ];
  return { cookie, cases };
}

describe("a stale save keeps what was typed on the screen forms, with JavaScript off", () => {
  it("consent draft, client, employee, parent, location, insurer, insurer service, role, rate record, PA service, intake and note forms", async () => {
    const { cookie, cases } = await scene();
    for (const c of cases) {
      const { version } = await c.stored();
      // Someone saves first…
      const first = await post(c.path, { ...c.fields, version: String(version), [c.field]: "Saved first" }, cookie);
      expect(first.status, `${c.name}: ${await first.clone().text().then((t) => t.slice(0, 300))}`).toBe(303);
      expect(await c.stored(), c.name).toEqual({ version: version + 1, value: "Saved first" });
      // …then the form opened before it is saved: 409, and nothing is written.
      const stale = await post(c.path, { ...c.fields, version: String(version), [c.field]: "Typed later", form_token: "tok-secret-1" }, cookie);
      expect(stale.status, c.name).toBe(409);
      expect(await c.stored(), c.name).toEqual({ version: version + 1, value: "Saved first" });
      // (React's text separators left out, to read the page's sentences.)
      const html = (await stale.text()).replaceAll("<!-- -->", "");
      const notice = html.indexOf("<summary>Your changes that were not saved</summary>");
      expect(notice, c.name).toBeGreaterThan(-1);
      expect(html, c.name).toContain(`what is stored now (version ${version + 1})`);
      const listed = html.slice(notice, html.indexOf("</details>", notice));
      // The typed value, named as the form names the field…
      expect(listed, c.name).toContain(`<dt>${c.label}</dt><dd style="white-space:pre-line">Typed later</dd>`);
      // …only what differs from what is stored, and never a token.
      expect(listed, c.name).not.toContain(`<dt>${c.unchangedLabel}</dt>`);
      expect(html, c.name).not.toContain("tok-secret-1");
      expect(listed.match(/<dt>/g), `${c.name}: ${listed}`).toHaveLength(1);
      // The form shows the stored value with the stored version, so saving again is deliberate.
      expect(shownValue(html, c.field, notice), c.name).toBe("Saved first");
      expect(shownValue(html, "version", notice), c.name).toBe(String(version + 1));
    }
  });
});

describe("the client's staff assignments", () => {
  it("a stale save lists the employees chosen and not saved by name, and the selects show who is stored", async () => {
    const loc = await createLocation();
    const me = await createUser({ permissions: ALL, locations: [loc.id], name: "Morgan" });
    const cookie = await signInCookie(me);
    const other = await createUser({ permissions: [], locations: [loc.id], name: "Riley" });
    const client = await createPatient({ locationId: loc.id });
    const path = `/patients/setting/${client.id}`;
    const stored = () => db().select().from(patients).where(eq(patients.id, client.id)).then(([r]) => ({ version: r!.version, rbt: r!.rbtHomeId, bcba: r!.bcbaHomeId }));
    const { version } = await stored();
    expect((await post(path, { intent: "staff", version: String(version), rbt_home_id: String(other.id), bcba_home_id: String(me.id) }, cookie)).status).toBe(303);
    const stale = await post(path, { intent: "staff", version: String(version), rbt_home_id: String(me.id), bcba_home_id: String(me.id) }, cookie);
    expect(stale.status).toBe(409);
    expect(await stored()).toEqual({ version: version + 1, rbt: other.id, bcba: me.id });
    const html = (await stale.text()).replaceAll("<!-- -->", "");
    const notice = html.indexOf("<summary>Your changes that were not saved</summary>");
    expect(notice).toBeGreaterThan(-1);
    const listed = html.slice(notice, html.indexOf("</details>", notice));
    // Only the changed choice, by the name the select shows (the BCBA was chosen as stored).
    expect(listed).toContain(`<dt>RBT (home)</dt><dd style="white-space:pre-line">Morgan User</dd>`);
    expect(listed.match(/<dt>/g)).toHaveLength(1);
    const select = html.slice(html.indexOf('name="rbt_home_id"', notice), html.indexOf("</select>", html.indexOf('name="rbt_home_id"', notice)));
    expect(select).toContain(`<option value="${other.id}" selected="">`);
    expect(html.slice(notice)).toContain(`name="version" value="${version + 1}"`);
  });
});
