import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { patients } from "~/db/schema";
import type { Permission } from "~/domain/permissions";
import { api, apiToken, createLocation, createPatient, createUser, db, form, request, signInCookie } from "./helpers";

/**
 * Patient identifiers that differ only in letter case, or by an invisible character, are one identifier to the
 * duplicate check and the lookups (probe 8963 D4, decision 017 stop 33). Stored identifiers are kept as they are.
 */

const MANAGE: Permission[] = ["view_clients", "manage_clients"];
let n = 0;
const ident = (prefix = "CI") => `${prefix}-${Date.now().toString(36)}-${++n}`.toUpperCase();
const body = (locationId: number, patient_identifier: string) => ({ patient_identifier, first_name: "Ida", last_name: "Case", location_id: locationId });
const IN_USE = "This patient identifier is already in use.";

async function count(identifier: string) {
  const [r] = await db().select({ n: sql<number>`count(*)` }).from(patients).where(sql`${patients.patientIdentifier} = ${identifier} collate nocase`);
  return r!.n;
}

async function scene() {
  const loc = await createLocation();
  const manager = await createUser({ permissions: MANAGE, locations: [loc.id] });
  return { loc, manager, token: await apiToken(manager), cookie: await signInCookie(manager) };
}

describe("a new patient identifier (create, or an edit that changes it)", () => {
  it.each([
    ["the same letters in lower case", (s: string) => s.toLowerCase(), IN_USE],
    ["mixed case", (s: string) => s.charAt(0) + s.slice(1).toLowerCase(), IN_USE],
    ["a zero-width space at the end", (s: string) => `${s}\u200B`, "Patient identifier: remove the invisible character (U+200B)."],
    ["a zero-width joiner inside", (s: string) => `${s.slice(0, 2)}\u200D${s.slice(2)}`, "Patient identifier: remove the invisible character (U+200D)."],
    ["a right-to-left mark", (s: string) => `\u200F${s}x`, "Patient identifier: remove the invisible character (U+200F)."],
    ["a bidi override", (s: string) => `${s}\u202E`, "Patient identifier: remove control or text-direction characters."],
  ])("API and add screen refuse %s, and write nothing", async (_, make, message) => {
    const { loc, token, cookie } = await scene();
    const taken = ident();
    await createPatient({ locationId: loc.id, patientIdentifier: taken });
    const identifier = make(taken);
    const res = await api("/v2/patients", { method: "POST", token, body: body(loc.id, identifier) });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual({ patient_identifier: message });
    const screen = await form("/patients/add", { intent: "save", ...body(loc.id, identifier), location_id: String(loc.id) }, cookie);
    expect(screen.status).toBe(422);
    expect(await screen.text()).toContain(message.replace(/'/g, "&#x27;"));
    expect(await count(taken)).toBe(1);
  });

  it("an edit: taking another client's identifier in other case is refused; changing the case of one's own is not", async () => {
    const { loc, token, cookie } = await scene();
    const taken = ident();
    await createPatient({ locationId: loc.id, patientIdentifier: taken });
    const mine = await createPatient({ locationId: loc.id, patientIdentifier: ident() });
    const refused = await api(`/v2/patients/${mine.id}`, { method: "PATCH", token, body: { patient_identifier: taken.toLowerCase() } });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: Record<string, string> }).errors).toEqual({ patient_identifier: IN_USE });
    const screen = await form(`/patients/list/edit/${mine.id}`, { intent: "save", patient_identifier: taken.toLowerCase(), first_name: "Ida", last_name: "Case", location_id: String(loc.id) }, cookie);
    expect(screen.status).toBe(422);
    expect((await db().select().from(patients).where(eq(patients.id, mine.id)))[0]!.patientIdentifier).toBe(mine.patientIdentifier);
    const own = await api(`/v2/patients/${mine.id}`, { method: "PATCH", token, body: { patient_identifier: mine.patientIdentifier.toLowerCase() } });
    expect(own.status).toBe(200);
  });

  it("a deleted client's identifier in other case may be used again; the exact one may not (the unique index)", async () => {
    const { loc, token } = await scene();
    const old = ident();
    await createPatient({ locationId: loc.id, patientIdentifier: old, deletedAt: "2026-01-01T00:00:00.000Z" });
    expect((await api("/v2/patients", { method: "POST", token, body: body(loc.id, old) })).status).toBe(422);
    expect((await api("/v2/patients", { method: "POST", token, body: body(loc.id, old.toLowerCase()) })).status).toBe(201);
  });

  it("stored identifiers are kept: an edit of another field passes beside a look-alike or with an invisible character", async () => {
    const { loc, token } = await scene();
    const base = ident();
    const upper = await createPatient({ locationId: loc.id, patientIdentifier: base });
    const lower = await createPatient({ locationId: loc.id, patientIdentifier: base.toLowerCase() });
    const hidden = await createPatient({ locationId: loc.id, patientIdentifier: `${ident()}\u200B` });
    for (const p of [upper, lower, hidden]) {
      const res = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { phone: "305-555-0101" } });
      expect(res.status, p.patientIdentifier).toBe(200);
      expect((await db().select().from(patients).where(eq(patients.id, p.id)))[0]!.patientIdentifier).toBe(p.patientIdentifier);
    }
  });
});

describe("looking a client up by identifier (API by-identifier, screen profile-by-patient-id)", () => {
  const apiLookup = async (token: string, identifier: string) => {
    const res = await api(`/v2/patients/by-identifier/${encodeURIComponent(identifier)}`, { token });
    return res.status === 200 ? ((await res.json()) as { data: { id: number } }).data.id : res.status;
  };
  const screenLookup = async (cookie: string, identifier: string) => {
    const res = await request(`/patients/profile-by-patient-id/${encodeURIComponent(identifier)}`, { cookie });
    return res.status === 302 ? Number(/\/patients\/profile\/(\d+)$/.exec(res.headers.get("Location") ?? "")?.[1]) : res.status;
  };

  it("exact first; else the only client in scope whose identifier differs in letter case; two such clients answer 404, never one picked", async () => {
    const { loc, token, cookie } = await scene();
    const other = await createLocation();
    const single = ident();
    const one = await createPatient({ locationId: loc.id, patientIdentifier: single });
    const pair = ident();
    const upper = await createPatient({ locationId: loc.id, patientIdentifier: pair });
    const lower = await createPatient({ locationId: loc.id, patientIdentifier: pair.toLowerCase() });
    // One in scope and a look-alike elsewhere: only the one in scope is found, whatever the case asked.
    const scoped = ident();
    const mine = await createPatient({ locationId: loc.id, patientIdentifier: scoped });
    await createPatient({ locationId: other.id, patientIdentifier: scoped.toLowerCase() });
    for (const lookup of [(s: string) => apiLookup(token, s), (s: string) => screenLookup(cookie, s)]) {
      expect(await lookup(single)).toBe(one.id);
      expect(await lookup(single.toLowerCase())).toBe(one.id);
      expect(await lookup(pair)).toBe(upper.id);
      expect(await lookup(pair.toLowerCase())).toBe(lower.id);
      expect(await lookup(pair.charAt(0).toLowerCase() + pair.slice(1))).toBe(404);
      expect(await lookup(scoped.toLowerCase())).toBe(mine.id);
      expect(await lookup(scoped.charAt(0).toLowerCase() + scoped.slice(1))).toBe(mine.id);
      expect(await lookup(`${single}X`)).toBe(404);
    }
  });
});
