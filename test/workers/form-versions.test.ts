import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { bips, notes, paServices, patients, users } from "~/db/schema";
import { VERSION_MESSAGE } from "~/domain/validation";
import { addDays } from "~/domain/weeks";
import { api, apiToken, createBip, createLocation, createPatient, createRole, createUser, db, request, signInCookie } from "./helpers";

/**
 * A screen's hidden `version` is read by the API's rule (probe 8892): a malformed one answers 422 with the typed
 * values and writes nothing (it used to read as "no version", which turned the stale check off); "0" is a stale
 * version (409); the current one saves.
 */

function post(path: string, fields: Record<string, string | string[]>, cookie: string) {
  const body = new URLSearchParams();
  for (const [k, x] of Object.entries(fields)) for (const s of Array.isArray(x) ? x : [x]) body.append(k, s);
  return request(path, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

const yesterday = () => addDays(new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date()), -1);

/** A form under test: where it posts, its fields with a changed value (the typed one), and what is stored. */
interface VersionedForm {
  path: string;
  fields: Record<string, string | string[]>;
  typed: string;
  stored: () => Promise<{ version: number; value: string | null }>;
}

async function scene(): Promise<{ cookie: string; forms: [string, VersionedForm][] }> {
  const loc = await createLocation();
  const me = await createUser({ permissions: ["view_clients", "manage_clients", "manage_employees", "view_notes", "manage_notes", "view_bips", "manage_bips"], locations: [loc.id] });
  const cookie = await signInCookie(me);

  const client = await createPatient({ locationId: loc.id, firstName: "Before" });
  const role = await createRole(`VERSIONS_${Date.now().toString(36)}`, []);
  const employee = await createUser({ permissions: [], locations: [loc.id], name: "Before" });
  const [employeeRow] = await db().select().from(users).where(eq(users.id, employee.id));
  const bip = await createBip(client);
  const [pa] = await db().insert(paServices).values({ patientId: client.id, paService: "Direct", cpt: "97153", nUnits: 400, startDate: "2020-01-01", endDate: "2099-12-31" }).returning();
  const noteBody = { patient_id: client.id, provider_id: me.id, pa_service_id: pa!.id, cpt_code: "97153", session_date: yesterday(), time_in: "09:00", time_out: "10:00", pos: "12", diagnosis_code: "F84.0" };
  const created = await api("/v2/notes-rbt", { method: "POST", token: await apiToken(me), body: noteBody });
  expect(created.status).toBe(201);
  const noteId = ((await created.json()) as { data: { id: number } }).data.id;

  const forms: [string, VersionedForm][] = [
    [
      "client edit",
      {
        path: `/patients/list/edit/${client.id}`,
        fields: { intent: "save", patient_identifier: client.patientIdentifier!, first_name: "Typed", last_name: client.lastName, status: "active", location_id: String(loc.id) },
        typed: "Typed",
        stored: async () => {
          const [r] = await db().select().from(patients).where(eq(patients.id, client.id));
          return { version: r!.version, value: r!.firstName };
        },
      },
    ],
    [
      "employee edit",
      {
        path: `/doctors/list/edit/${employee.id}`,
        fields: { intent: "save", name: "Typed", surname: "User", email: employeeRow!.email, status: "active", roles: [String(role.id)], locations: [String(loc.id)] },
        typed: "Typed",
        stored: async () => {
          const [r] = await db().select().from(users).where(eq(users.id, employee.id));
          return { version: r!.version, value: r!.name };
        },
      },
    ],
    [
      "note edit",
      {
        path: `/note-rbt/edit/${noteId}`,
        fields: { intent: "save", type: "rbt", ...Object.fromEntries(Object.entries(noteBody).map(([k, x]) => [k, String(x)])), diagnosis_code: "F84.9" },
        typed: "F84.9",
        stored: async () => {
          const [r] = await db().select().from(notes).where(eq(notes.id, noteId));
          return { version: r!.version, value: r!.diagnosisCode };
        },
      },
    ],
    [
      "plan identity tab",
      {
        path: `/bip/tabbed/${bip.id}?tab=identity`,
        fields: { intent: "save-tab", tab: "identity", type_of_assessment: "2", doctor_id: "" },
        typed: 'value="2" selected=""',
        stored: async () => {
          const [r] = await db().select().from(bips).where(eq(bips.id, bip.id));
          return { version: r!.version, value: String(r!.typeOfAssessment) };
        },
      },
    ],
  ];
  return { cookie, forms };
}

describe("a screen's hidden version (probe 8892)", () => {
  it("the client, employee, note and plan identity forms: a malformed version answers 422 and writes nothing; 0 is stale (409); the current one saves", async () => {
    const { cookie, forms } = await scene();
    for (const [name, f] of forms) {
      const before = await f.stored();
      for (const bad of ["abc", "1.5", "-1", "1e3"]) {
        const res = await post(f.path, { ...f.fields, version: bad }, cookie);
        expect(res.status, `${name} version=${bad}`).toBe(422);
        const html = await res.text();
        expect(html, name).toContain(VERSION_MESSAGE);
        // The typed values are shown again.
        expect(html, name).toContain(f.typed);
        expect(await f.stored(), `${name} version=${bad}`).toEqual(before);
      }
      const stale = await post(f.path, { ...f.fields, version: "0" }, cookie);
      expect(stale.status, `${name} version=0`).toBe(409);
      expect(await f.stored(), name).toEqual(before);

      const saved = await post(f.path, { ...f.fields, version: String(before.version) }, cookie);
      expect(saved.status, `${name} current version: ${await saved.clone().text().then((t) => t.slice(0, 200))}`).toBe(303);
      const after = await f.stored();
      expect(after.version, name).toBe(before.version + 1);
      expect(after.value, name).not.toEqual(before.value);
    }
  });
});
