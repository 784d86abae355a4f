import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { patients } from "~/db/schema";
import { NPI_MESSAGE } from "~/domain/npi";
import { parsePatient } from "~/domain/patients";
import type { Permission } from "~/domain/permissions";
import { api, apiToken, createLocation, createPatient, createUser, db, form, signInCookie } from "./helpers";

/**
 * The client's NPI and referring provider's NPI take the one NPI rule (10 digits, the last a check digit), as the
 * employee's and the location's do (probe 9041 §2). A value stored before the rule and sent back as it is passes.
 */

const MANAGE: Permission[] = ["view_clients", "manage_clients"];
const VALID = "1306849450";
const required = { patient_identifier: "NPI-1", first_name: "Ana", last_name: "Lee", location_id: 1 };

describe("the client's NPI fields (parsePatient)", () => {
  // [case, sent, stored, saved value or the refusal]
  const rows: [string, string | null, string | null, string | null | { refused: true }][] = [
    ["none", "", null, null],
    ["a valid NPI", VALID, null, VALID],
    ["a valid NPI typed with dashes and spaces", "1306-849 450", null, VALID],
    ["letters", "abc", null, { refused: true }],
    ["too few digits", "12", null, { refused: true }],
    ["a wrong check digit", "1306849451", null, { refused: true }],
    ["a stored invalid value sent back as it is", "abc", "abc", "abc"],
    ["a stored invalid value sent back with spaces around it", " 12 ", "12", "12"],
    ["a stored invalid value changed to another invalid one", "13", "12", { refused: true }],
    ["a stored invalid value corrected", VALID, "12", VALID],
    ["a stored invalid value cleared", "", "12", null],
    ["a stored valid value changed to an invalid one", "12", VALID, { refused: true }],
  ];
  for (const field of ["npi", "referring_provider_npi"]) {
    it.each(rows)(`${field}: %s`, (_, sent, stored, expected) => {
      const current = stored === null ? null : { [field]: stored };
      const r = parsePatient({ ...required, [field]: sent }, null, current);
      if (typeof expected === "object" && expected !== null) {
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.errors[field]).toBe(NPI_MESSAGE);
      } else {
        expect(r.ok ? r.data[field] : r.errors).toBe(expected);
      }
    });
  }
});

describe("a client's NPI on the screen and the API", () => {
  let loc: { id: number };
  let token: string;
  let cookie: string;

  beforeAll(async () => {
    loc = await createLocation();
    const lm = await createUser({ permissions: MANAGE, locations: [loc.id] });
    token = await apiToken(lm);
    cookie = await signInCookie(lm);
  });

  const detailsOf = async (id: number) => JSON.parse((await db().select().from(patients).where(eq(patients.id, id)))[0]!.details) as Record<string, unknown>;
  const errorsOf = async (res: Response) => ((await res.json()) as { errors: Record<string, string> }).errors;
  let n = 0;
  const identifier = () => `NPI-${Date.now().toString(36)}-${++n}`;

  it("API v2 and v1 create and update: 422 naming the field, nothing written; a valid NPI saves", async () => {
    for (const [path, field] of [["/v2/patients", "referring_provider_npi"], ["/patient/store", "npi"]] as const) {
      const res = await api(path, { method: "POST", token, body: { patient_identifier: identifier(), first_name: "Ana", last_name: "Npi", location_id: loc.id, [field]: "abc" } });
      expect(res.status, path).toBe(422);
      expect((await errorsOf(res))[field], path).toBe(NPI_MESSAGE);
    }
    const p = await createPatient({ locationId: loc.id });
    for (const [method, path] of [["PATCH", `/v2/patients/${p.id}`], ["PUT", `/patient/update/${p.id}`]] as const) {
      for (const field of ["npi", "referring_provider_npi"]) {
        const body = method === "PATCH" ? { [field]: "12" } : { patient_identifier: p.patientIdentifier, first_name: p.firstName, last_name: p.lastName, location_id: loc.id, [field]: "12" };
        const res = await api(path, { method, token, body });
        expect(res.status, `${path} ${field}`).toBe(422);
        expect((await errorsOf(res))[field], `${path} ${field}`).toBe(NPI_MESSAGE);
      }
    }
    expect(await detailsOf(p.id)).not.toHaveProperty("npi", "12");
    const ok = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { referring_provider_npi: "1306-849-450" } });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect((await detailsOf(p.id)).referring_provider_npi).toBe(VALID);
  });

  it("screen edit: the field's error with the typed values kept; a client stored with an invalid NPI still saves", async () => {
    const p = await createPatient({ locationId: loc.id });
    const edit = `/patients/list/edit/${p.id}`;
    const base = { intent: "save", patient_identifier: p.patientIdentifier, first_name: "Edited", last_name: p.lastName, status: "active", location_id: String(loc.id), version: "1" };
    const refused = await form(edit, { ...base, referring_provider_npi: "abc", npi: "12" }, cookie);
    expect(refused.status).toBe(422);
    const html = await refused.text();
    expect(html).toContain(NPI_MESSAGE);
    expect(html).toMatch(/id="f-referring_provider_npi"[^>]*aria-invalid="true"/);
    expect(html).toMatch(/id="f-npi"[^>]*aria-invalid="true"/);
    expect(html).toContain('value="abc"');
    expect(html).toContain('value="Edited"');
    expect((await detailsOf(p.id)).referring_provider_npi).toBeUndefined();

    // Stored before the rule: the edit form sends it back as it is, and the save goes through; the value stays.
    const old = await createPatient({ locationId: loc.id, details: JSON.stringify({ referring_provider_npi: "abc", npi: "12" }) });
    const saved = await form(`/patients/list/edit/${old.id}`, { ...base, patient_identifier: old.patientIdentifier, last_name: old.lastName, referring_provider_npi: "abc", npi: "12" }, cookie);
    expect(saved.status).toBe(303);
    expect(await detailsOf(old.id)).toMatchObject({ referring_provider_npi: "abc", npi: "12" });
    const patched = await api(`/v2/patients/${old.id}`, { method: "PATCH", token, body: { first_name: "Again" } });
    expect(patched.status, await patched.clone().text()).toBe(200);
    const changed = await api(`/v2/patients/${old.id}`, { method: "PATCH", token, body: { npi: "13" } });
    expect(changed.status).toBe(422);
    expect((await errorsOf(changed)).npi).toBe(NPI_MESSAGE);
  });
});
