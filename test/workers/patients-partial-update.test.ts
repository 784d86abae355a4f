import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { patients } from "~/db/schema";
import { api, apiToken, createLocation, createPatient, createUser, db } from "./helpers";

/**
 * A client update writes only what it changes (probe 8943 D3, decision 017 stop 31): a PATCH naming one field, or a
 * GET → PUT echo of the read with one field changed, leaves every other stored detail as it was: a null flag stays
 * null (not false), a null list stays null (not []), a list keeps its order.
 */

const UNANSWERED = {
  special_note: "x",
  emmployment: null,
  auto_accident: null,
  other_accident: null,
  telehealth: null,
  pay: null,
  secondary_emmployment: null,
  secondary_auto_accident: null,
  secondary_other_accident: null,
  secondary_is_self_subscriber: null,
  secondary_telehealth: null,
  secondary_pay: null,
  secondary_diagnosis_codes: null,
  secondary_pos_covered: null,
  pos_covered: ["12", "03"],
};

async function storedDetails(id: number): Promise<string> {
  const [r] = await db().select({ details: patients.details }).from(patients).where(eq(patients.id, id));
  return r!.details;
}

/** The read the API answers, with `special_note` changed: what a client sends back after editing one field. */
async function echo(path: string, token: string) {
  const read = (await (await api(path, { token })).json()) as { data: Record<string, unknown> };
  return { ...read.data, special_note: "y" };
}

const CASES: { name: string; send: (id: number, token: string) => Promise<Response> }[] = [
  { name: "v2 PATCH of one field", send: (id, token) => api(`/v2/patients/${id}`, { method: "PATCH", token, body: { special_note: "y" } }) },
  { name: "v2 GET → PUT echo", send: async (id, token) => api(`/v2/patients/${id}`, { method: "PUT", token, body: await echo(`/v2/patients/${id}`, token) }) },
  { name: "v1 show → update echo", send: async (id, token) => api(`/patient/update/${id}`, { method: "PUT", token, body: await echo(`/patient/show/${id}`, token) }) },
];

describe("a client update changes only the field it changes", () => {
  for (const c of CASES) {
    it(`${c.name}: every other stored detail is kept byte for byte`, async () => {
      const loc = await createLocation();
      const token = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [loc.id] }));
      const p = await createPatient({ locationId: loc.id, details: JSON.stringify(UNANSWERED) });
      const before = JSON.parse(await storedDetails(p.id)) as Record<string, unknown>;
      const res = await c.send(p.id, token);
      expect(res.status).toBe(200);
      const after = await storedDetails(p.id);
      expect(JSON.parse(after)).toEqual({ ...before, special_note: "y" });
      expect(after).toBe(JSON.stringify({ ...before, special_note: "y" }));
      const read = ((await res.json()) as { data: Record<string, unknown> }).data;
      expect(read).toMatchObject({ special_note: "y", emmployment: null, secondary_diagnosis_codes: null, secondary_pos_covered: null, pos_covered: ["12", "03"] });
    });
  }

  it("a PUT that sends a flag, a list or a list order of its own still writes it", async () => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [loc.id] }));
    const p = await createPatient({ locationId: loc.id, details: JSON.stringify(UNANSWERED) });
    const body = { ...(await echo(`/v2/patients/${p.id}`, token)), emmployment: false, pay: "yes", secondary_pos_covered: "12", pos_covered: ["03", "12"] };
    expect((await api(`/v2/patients/${p.id}`, { method: "PUT", token, body })).status).toBe(200);
    expect(JSON.parse(await storedDetails(p.id))).toMatchObject({ special_note: "y", emmployment: false, pay: true, auto_accident: null, secondary_pos_covered: ["12"], pos_covered: ["03", "12"], secondary_diagnosis_codes: null });
  });
});
