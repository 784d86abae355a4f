import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { bips } from "~/db/schema";
import { readDocument } from "~/domain/bip-document";
import { CPT_MESSAGE } from "~/domain/insurance";
import type { Permission } from "~/domain/permissions";
import { api, apiToken, createBip, createLocation, createPatient, createUser, db, form, signInCookie } from "./helpers";

/**
 * A BIP's recommended services take the one CPT rule (decision 017, stop 37), on the API and on the tabbed editor
 * (JavaScript off); a plan stored with a CPT the rule now refuses stays editable.
 */

const MANAGE: Permission[] = ["view_bips", "manage_bips"];
const service = (cpt: string) => ({ cpt, num_units: 10, breakdown_per_week: "2 h", location: "Home", description_service: "Direct therapy" });

async function scene() {
  const loc = await createLocation();
  const patient = await createPatient({ locationId: loc.id });
  const user = await createUser({ permissions: MANAGE, locations: [loc.id] });
  // Saved under the old rule (4 to 10 letters and digits).
  const bip = await createBip(patient, { document: JSON.stringify({ recommendations: [service("ABCDE")] }) });
  return { bip, token: await apiToken(user), cookie: await signInCookie(user) };
}
const stored = async (id: number) => (await db().select().from(bips).where(eq(bips.id, id)))[0]!;

describe("a BIP's recommended services: the CPT rule", () => {
  it("API: a new CPT the rule refuses answers 422 with its message and writes nothing; a CPT code saves in upper case", async () => {
    const { bip, token } = await scene();
    for (const cpt of ["9715", "ABCDF", "97153HMGT1"]) {
      const res = await api(`/v2/bips/${bip.id}`, { method: "PATCH", token, body: { recommendations: [service("ABCDE"), service(cpt)] } });
      expect(res.status, cpt).toBe(422);
      expect(((await res.json()) as { errors: Record<string, string> }).errors["recommendations.cpt"], cpt).toBe(CPT_MESSAGE);
    }
    expect((await stored(bip.id)).version).toBe(1);
    const good = await api(`/v2/bips/${bip.id}`, { method: "PATCH", token, body: { recommendations: [service("ABCDE"), service("0362t")] } });
    expect(good.status).toBe(200);
    expect(readDocument((await stored(bip.id)).document).recommendations.map((r) => r.cpt)).toEqual(["ABCDE", "0362T"]);
  });

  it("API: the stored CPT is kept by a PATCH of another field and by a PUT that sends it back", async () => {
    const { bip, token } = await scene();
    expect((await api(`/v2/bips/${bip.id}`, { method: "PATCH", token, body: { strengths: "Follows routines." } })).status).toBe(200);
    expect((await api(`/v2/bips/${bip.id}`, { method: "PUT", token, body: { type_of_assessment: "1", recommendations: [service("abcde")] } })).status).toBe(200);
    expect(readDocument((await stored(bip.id)).document).recommendations.map((r) => r.cpt)).toEqual(["abcde"]);
  });

  it("screen: an item with a bad CPT is refused at the field with the typed values kept; editing the stored item keeps its CPT", async () => {
    const { bip, cookie } = await scene();
    const path = `/bip/tabbed/${bip.id}?tab=recommendations`;
    const bad = await form(path, { intent: "item-save", section: "recommendations", version: "1", cpt: "9715", num_units: "12", breakdown_per_week: "3 h", location: "School", description_service: "Typed description" }, cookie);
    expect(bad.status).toBe(422);
    const html = await bad.text();
    expect(html).toContain("Enter a 5-character CPT code: 4 digits, then a digit or a letter (for example 97153).");
    expect(html).toContain("Typed description");
    expect((await stored(bip.id)).version).toBe(1);
    // The stored item, edited (its CPT sent back as shown).
    const edit = await form(path, { intent: "item-save", section: "recommendations", index: "1", version: "1", cpt: "ABCDE", num_units: "20", breakdown_per_week: "4 h", location: "Home", description_service: "Edited" }, cookie);
    expect(edit.status).toBe(303);
    expect(readDocument((await stored(bip.id)).document).recommendations).toMatchObject([{ cpt: "ABCDE", num_units: 20, description_service: "Edited" }]);
    // Another tab's list saves though the plan still holds the stored CPT.
    const other = await form(`/bip/tabbed/${bip.id}?tab=crisis`, { intent: "item-save", section: "de_escalation_techniques", version: "2", description: "Lower the voice." }, cookie);
    expect(other.status).toBe(303);
    expect((await stored(bip.id)).version).toBe(3);
  });
});
