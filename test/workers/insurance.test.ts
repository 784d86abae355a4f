import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insurances, insuranceServices } from "~/db/schema";
import { api, apiToken, createUser, db, form, request, signInCookie, withoutFlashTag } from "./helpers";

/** Insurers, their CPT services and the price lookup (clinical §3, §7 Insurance). */

let seq = 0;
const unique = (name: string) => `${name} ${Date.now().toString(36)}${(++seq).toString(36)}`;

async function createInsurer(over: Partial<typeof insurances.$inferInsert> = {}) {
  const [row] = await db()
    .insert(insurances)
    .values({ name: unique("Insurer"), ...over })
    .returning();
  return row!;
}

async function createService(insuranceId: number, over: Partial<typeof insuranceServices.$inferInsert> = {}) {
  const [row] = await db()
    .insert(insuranceServices)
    .values({ insuranceId, cptCode: "97153", unitPrice: 10, ...over })
    .returning();
  return row!;
}

const managerToken = async () => apiToken(await createUser({ permissions: ["manage_insurances"] }));
const validInsurer = { name: "Sunshine Health", city: "Miami", state: "FL", zip: "33101", payer_id: "SUN01", pos_allowed_to_cg: ["11", "12"] };

describe("/api/v2/insurances and /api/insurance (v1)", () => {
  it("creates, shows with services, updates and soft-deletes an insurer", async () => {
    const token = await managerToken();
    const created = await api("/v2/insurances", { method: "POST", token, body: validInsurer });
    expect(created.status).toBe(201);
    const { data, message } = (await created.json()) as { data: { id: number; version: number; pos_allowed_to_cg: string[]; services: unknown[] }; message: string };
    expect(message).toBe("Insurance created.");
    expect(data).toMatchObject({ version: 1, pos_allowed_to_cg: ["11", "12"], services: [] });

    await createService(data.id, { cptCode: "97155", provider: "bcba", type: "bcba", unitPrice: 30 });
    const shown = await api(`/insurance/show/${data.id}`, { token });
    expect(shown.status).toBe(200);
    expect(((await shown.json()) as { data: { services: { cpt_code: string; unit_price: number }[] } }).data.services).toMatchObject([{ cpt_code: "97155", unit_price: 30 }]);

    const updated = await api(`/insurance/update/${data.id}`, { method: "PUT", token, body: { ...validInsurer, name: "Sunshine Health Plus", version: 1 } });
    expect(updated.status).toBe(200);
    expect(((await updated.json()) as { data: { name: string; version: number } }).data).toMatchObject({ name: "Sunshine Health Plus", version: 2 });

    expect((await api(`/insurance/destroy/${data.id}`, { method: "DELETE", token })).status).toBe(200);
    expect((await api(`/v2/insurances/${data.id}`, { token })).status).toBe(404);
    const [row] = await db().select().from(insurances).where(eq(insurances.id, data.id));
    expect(row!.deletedAt).not.toBeNull();
  });

  it("lists paginated and filters by insurer_name (GET /insurance?page&insurer_name)", async () => {
    const tag = unique("Zebra");
    await createInsurer({ name: `${tag} One` });
    await createInsurer({ name: `${tag} Two` });
    await createInsurer({ name: unique("Other") });
    const token = await managerToken();
    const res = await api(`/insurance?page=1&per_page=1&insurer_name=${encodeURIComponent(tag)}`, { token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { name: string }[]; total: number; last_page: number };
    expect(body).toMatchObject({ total: 2, last_page: 2 });
    expect(body.data.map((i) => i.name)).toEqual([`${tag} One`]);
    const v2 = (await (await api(`/v2/insurances?search=${encodeURIComponent(tag)}`, { token })).json()) as { total: number };
    expect(v2.total).toBe(2);
  });

  it("answers 403 without manage_insurances, for the API and the screens", async () => {
    const insurer = await createInsurer();
    const user = await createUser({ permissions: ["view_notes", "manage_locations"] });
    const token = await apiToken(user);
    for (const path of ["/v2/insurances", `/insurance/show/${insurer.id}`, "/insurance?page=1", `/insurance/showInsuranceCpt/${insurer.id}/97153/rbt`, "/insurance/service", `/insurance/servicebyInsurance/${insurer.id}`]) {
      expect((await api(path, { token })).status, path).toBe(403);
    }
    expect((await api("/insurance/store/service", { method: "POST", token, body: { insurance_id: insurer.id, code: "97153", unit_price: 1 } })).status).toBe(403);
    const cookie = await signInCookie(user);
    expect((await request(`/insurance/view/${insurer.id}`, { cookie })).status).toBe(403);
    expect((await form(`/insurance/list/edit/${insurer.id}`, { intent: "delete", confirmed: "yes" }, cookie)).status).toBe(403);
    const [row] = await db().select().from(insurances).where(eq(insurances.id, insurer.id));
    expect(row!.deletedAt).toBeNull();
  });

  it.each([
    [{ ...validInsurer, name: "" }, "name", "Name is required."],
    [{ ...validInsurer, zip: "nope" }, "zip", "Enter a valid ZIP code (12345 or 12345-6789)."],
    [{ ...validInsurer, extra_pos_for_bcba: ["42"] }, "extra_pos_for_bcba", "Extra POS for BCBA: choose place-of-service codes from the list."],
  ])("refuses a bad insurer with 422 and writes nothing (%#)", async (body, field, message) => {
    const token = await managerToken();
    const before = await db().select().from(insurances);
    const res = await api("/v2/insurances", { method: "POST", token, body });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors[field]).toBe(message);
    expect(await db().select().from(insurances)).toHaveLength(before.length);
  });

  it("a stale version answers 409 with the current values and changes nothing", async () => {
    const insurer = await createInsurer({ name: "Original" });
    const token = await managerToken();
    expect((await api(`/v2/insurances/${insurer.id}`, { method: "PUT", token, body: { ...validInsurer, name: "First", version: 1 } })).status).toBe(200);
    const stale = await api(`/v2/insurances/${insurer.id}`, { method: "PUT", token, body: { ...validInsurer, name: "Second", version: 1 } });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { current: { name: string; version: number } }).current).toMatchObject({ name: "First", version: 2 });
    const [row] = await db().select().from(insurances).where(eq(insurances.id, insurer.id));
    expect(row!.name).toBe("First");
  });
});

describe("insurance services API", () => {
  it("stores a service from its code, lists it by insurer and in all services, and deletes it softly", async () => {
    const insurer = await createInsurer();
    const token = await managerToken();
    const res = await api("/insurance/store/service", { method: "POST", token, body: { insurance_id: insurer.id, code: "97153 HM GT", provider: "rbt", unit_price: 12.5, description: "Direct therapy" } });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { id: number; cpt_code: string; modifiers: string; type: string; multiplier: number; code: string } };
    expect(data).toMatchObject({ cpt_code: "97153", modifiers: "HM-GT", type: "rbt", multiplier: 1, code: "97153 HM GT" });

    const byInsurer = (await (await api(`/insurance/servicebyInsurance/${insurer.id}`, { token })).json()) as { data: { id: number }[] };
    expect(byInsurer.data.map((s) => s.id)).toEqual([data.id]);
    const all = (await (await api(`/insurance/service?per_page=100&search=${encodeURIComponent(insurer.name)}`, { token })).json()) as { data: { id: number; insurance_name: string }[]; total: number };
    expect(all.data).toMatchObject([{ id: data.id, insurance_name: insurer.name }]);

    expect((await api(`/insurance/destroy/service/${data.id}`, { method: "DELETE", token })).status).toBe(200);
    expect((await api(`/insurance/destroy/service/${data.id}`, { method: "DELETE", token })).status).toBe(404);
    const [row] = await db().select().from(insuranceServices).where(eq(insuranceServices.id, data.id));
    expect(row!.deletedAt).not.toBeNull();
    expect(((await (await api(`/insurance/servicebyInsurance/${insurer.id}`, { token })).json()) as { data: unknown[] }).data).toEqual([]);
  });

  it.each([
    [{ code: "97153 HM GT XE", unit_price: 1 }, "code", "A code takes at most 2 modifiers."],
    [{ code: "97153 ZZ", unit_price: 1 }, "code", "Unknown modifier ZZ. Use one of HM, XE, XP, HO, GT, TS, 95."],
    [{ code: "97153", unit_price: -1 }, "unit_price", "Unit price must be 0 or more."],
    [{ code: "97153" }, "unit_price", "Unit price is required."],
    [{ code: "97153", unit_price: 1, max_per_day: 1.5 }, "max_per_day", "Max per day must be a whole number."],
    [{ code: "97153", unit_price: 1, multiplier: 1.15001 }, "multiplier", "Multiplier takes at most 4 decimals (for example 1.15)."],
  ])("refuses a bad service with 422 and writes nothing (%#)", async (body, field, message) => {
    const insurer = await createInsurer();
    const token = await managerToken();
    const res = await api("/insurance/store/service", { method: "POST", token, body: { insurance_id: insurer.id, ...body } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors[field]).toBe(message);
    expect(await db().select().from(insuranceServices).where(eq(insuranceServices.insuranceId, insurer.id))).toHaveLength(0);
  });

  it("refuses a service for an unknown insurer with 422", async () => {
    const token = await managerToken();
    const res = await api("/insurance/store/service", { method: "POST", token, body: { insurance_id: 999999, code: "97153", unit_price: 1 } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.insurance_id).toBe("Choose an insurance.");
  });

  it("a stale service update answers 409 and changes nothing", async () => {
    const insurer = await createInsurer();
    const service = await createService(insurer.id, { unitPrice: 10 });
    const token = await managerToken();
    const body = { code: "97153", provider: "rbt", unit_price: 11, version: 1 };
    expect((await api(`/insurance/update/service/${service.id}`, { method: "PUT", token, body })).status).toBe(200);
    const stale = await api(`/insurance/update/service/${service.id}`, { method: "PUT", token, body: { ...body, unit_price: 99 } });
    expect(stale.status).toBe(409);
    const [row] = await db().select().from(insuranceServices).where(eq(insuranceServices.id, service.id));
    expect(row!.unitPrice).toBe(11);
  });
});

describe("price lookup GET /insurance/showInsuranceCpt/:insurer/:cpt/:provider", () => {
  async function priced() {
    const insurer = await createInsurer();
    // Stored in an order where "the first service" would be wrong for every lookup below.
    await createService(insurer.id, { cptCode: "97151", type: "all", unitPrice: 99 });
    await createService(insurer.id, { cptCode: "97153", provider: "rbt", type: "rbt", modifiers: "HM", unitPrice: 15 });
    await createService(insurer.id, { cptCode: "97153", provider: "bcba", type: "bcba", modifiers: "HO", unitPrice: 32 });
    await createService(insurer.id, { cptCode: "97155", provider: "", type: "all", unitPrice: 20 });
    await createService(insurer.id, { cptCode: "97155", provider: "bcba", type: "bcba", unitPrice: 28 });
    return insurer;
  }

  it.each([
    ["97153", "rbt", 15],
    ["97153", "bcba", 32],
    ["97153", "bcaba", 32],
    ["97153", "RBT", 15],
    ["97155", "bcba", 28],
    ["97155", "rbt", 20],
    ["97155", "lm", 20],
  ])("%s for %s → unit_price %d", async (cpt, provider, price) => {
    const insurer = await priced();
    const token = await managerToken();
    const res = await api(`/insurance/showInsuranceCpt/${insurer.id}/${cpt}/${provider}`, { token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { unit_price: number; cpt_code: string };
    expect(body).toMatchObject({ unit_price: price, cpt_code: cpt });
  });

  it.each([
    ["97153", "lm"],
    ["97156", "rbt"],
  ])("answers 404 JSON when %s has no price for %s", async (cpt, provider) => {
    const insurer = await priced();
    const token = await managerToken();
    const res = await api(`/insurance/showInsuranceCpt/${insurer.id}/${cpt}/${provider}`, { token });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toBe("No price for that CPT and provider.");
  });

  it("answers 404 for an unknown or deleted insurer", async () => {
    const token = await managerToken();
    expect((await api("/insurance/showInsuranceCpt/999999/97153/rbt", { token })).status).toBe(404);
    const gone = await createInsurer({ deletedAt: "2026-01-01T00:00:00.000Z" });
    await createService(gone.id, { type: "rbt", provider: "rbt" });
    expect((await api(`/insurance/showInsuranceCpt/${gone.id}/97153/rbt`, { token })).status).toBe(404);
    expect((await api("/v2/insurances/999999", { token })).status).toBe(404);
    expect((await api("/insurance/servicebyInsurance/999999", { token })).status).toBe(404);
  });
});

describe("insurance screens", () => {
  const cookieFor = async () => signInCookie(await createUser({ permissions: ["manage_insurances"] }));

  it("/insurance redirects to the list, which searches by name", async () => {
    const cookie = await cookieFor();
    const res = await request("/insurance", { cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/insurance/list");
    const name = unique("Findable");
    await createInsurer({ name });
    const list = await request(`/insurance/list?search=${encodeURIComponent(name)}`, { cookie });
    expect(list.status).toBe(200);
    const html = await list.text();
    expect(html).toContain(name);
    expect(html).toContain("Showing 1 to 1 of 1 entries");
  });

  it("register with bad input keeps the typed values and writes nothing", async () => {
    const cookie = await cookieFor();
    const before = await db().select().from(insurances);
    const res = await form("/insurance/register", { intent: "save", name: "", city: "Typed City", zip: "bad-zip", payer_id: "PAY-77" }, cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain("Name is required.");
    expect(html).toContain("Enter a valid ZIP code");
    expect(html).toContain('value="Typed City"');
    expect(html).toContain('value="PAY-77"');
    expect(await db().select().from(insurances)).toHaveLength(before.length);
  });

  it("the form says what 'Uses the supervisor as provider' does to claims (stop 35)", async () => {
    const html = (await (await request("/insurance/register", { cookie: await cookieFor() })).text()).replaceAll("&#x27;", "'");
    expect(html).toMatch(/<input id="f-uses_supervisor_as_provider"[^>]*aria-describedby="f-uses_supervisor_as_provider-hint"/);
    expect(html).toContain("Claims to this insurer name an RBT's supervising BCBA as the rendering provider (a note needs a supervisor with an NPI).");
  });

  it("register saves and lands on the edit screen", async () => {
    const cookie = await cookieFor();
    const name = unique("Registered");
    const res = await form("/insurance/register", { intent: "save", name, pos_allowed_to_tt: "12" }, cookie);
    expect(res.status).toBe(303);
    const [row] = await db().select().from(insurances).where(eq(insurances.name, name));
    expect(row!.posAllowedToTt).toBe("12");
    expect(withoutFlashTag(res.headers.get("Location"))).toMatch(new RegExp(`^/insurance/list/edit/${row!.id}\\?flash=`));
  });

  it("adds, edits and deletes a service on the edit screen", async () => {
    const insurer = await createInsurer();
    const cookie = await cookieFor();
    const path = `/insurance/list/edit/${insurer.id}`;

    const bad = await form(path, { intent: "add-service", code: "97153 HM GT XE", provider: "rbt", unit_price: "12" }, cookie);
    expect(bad.status).toBe(422);
    const badHtml = await bad.text();
    expect(badHtml).toContain("A code takes at most 2 modifiers.");
    expect(badHtml).toContain('value="97153 HM GT XE"');

    const added = await form(path, { intent: "add-service", code: "97153 HM", provider: "rbt", unit_price: "12.50", multiplier: "" }, cookie);
    expect(added.status).toBe(303);
    const [service] = await db().select().from(insuranceServices).where(eq(insuranceServices.insuranceId, insurer.id));
    expect(service).toMatchObject({ cptCode: "97153", modifiers: "HM", type: "rbt", unitPrice: 12.5, multiplier: 1 });

    const page = await (await request(path, { cookie })).text();
    expect(page).toContain("97153 HM");
    expect(page).toContain("$12.50");

    const edited = await form(path, { intent: "update-service", service_id: String(service!.id), version: "1", code: "97153 HM", provider: "bcaba", unit_price: "14" }, cookie);
    expect(edited.status).toBe(303);
    const [afterEdit] = await db().select().from(insuranceServices).where(eq(insuranceServices.id, service!.id));
    expect(afterEdit).toMatchObject({ provider: "bcaba", type: "bcba", unitPrice: 14, version: 2 });

    const deleted = await form(path, { intent: "delete-service", service_id: String(service!.id), confirmed: "yes" }, cookie);
    expect(deleted.status).toBe(303);
    const [afterDelete] = await db().select().from(insuranceServices).where(eq(insuranceServices.id, service!.id));
    expect(afterDelete!.deletedAt).not.toBeNull();
    expect(await (await request(path, { cookie })).text()).toContain("No services yet.");
  });

  it("?service= opens that service in the edit form, and the insurer can be deleted", async () => {
    const insurer = await createInsurer();
    const service = await createService(insurer.id, { cptCode: "97155", modifiers: "HO", provider: "bcba", type: "bcba", unitPrice: 41, description: "Protocol modification" });
    const cookie = await cookieFor();
    const path = `/insurance/list/edit/${insurer.id}`;
    const html = await (await request(`${path}?service=${service.id}`, { cookie })).text();
    expect(html).toContain("Edit service 97155 HO");
    expect(html).toContain('value="update-service"');
    expect(html).toContain('value="Protocol modification"');
    const res = await form(path, { intent: "delete", confirmed: "yes" }, cookie);
    expect(res.status).toBe(303);
    expect(withoutFlashTag(res.headers.get("Location"))).toMatch(/^\/insurance\/list\?flash=/);
    const [row] = await db().select().from(insuranceServices).where(eq(insuranceServices.id, service.id));
    expect(row!.deletedAt).not.toBeNull();
    expect((await request(`/insurance/view/${insurer.id}`, { cookie })).status).toBe(404);
  });

  it("refuses to delete another insurer's service from this screen", async () => {
    const mine = await createInsurer();
    const other = await createInsurer();
    const service = await createService(other.id);
    const cookie = await cookieFor();
    const res = await form(`/insurance/list/edit/${mine.id}`, { intent: "delete-service", service_id: String(service.id), confirmed: "yes" }, cookie);
    expect(res.status).toBe(404);
    const [row] = await db().select().from(insuranceServices).where(eq(insuranceServices.id, service.id));
    expect(row!.deletedAt).toBeNull();
  });

  it("the view page shows services with modifier meanings and looks up a price", async () => {
    const insurer = await createInsurer();
    await createService(insurer.id, { cptCode: "97153", provider: "rbt", type: "rbt", modifiers: "HM-XP", unitPrice: 15 });
    await createService(insurer.id, { cptCode: "97153", provider: "bcba", type: "bcba", unitPrice: 32 });
    const cookie = await cookieFor();
    const view = await (await request(`/insurance/view/${insurer.id}`, { cookie })).text();
    expect(view).toContain("RBT overlap, not reimbursed");
    const hit = await (await request(`/insurance/view/${insurer.id}?cpt=97153&provider=bcaba`, { cookie })).text();
    expect(hit).toContain("$32.00");
    const miss = await (await request(`/insurance/view/${insurer.id}?cpt=97155&provider=rbt`, { cookie })).text();
    expect(miss).toContain("No price for that CPT and provider.");
  });

  it("a stale insurer save shows the current values", async () => {
    const insurer = await createInsurer({ name: "Stored Name", version: 3 });
    const cookie = await cookieFor();
    const res = await form(`/insurance/list/edit/${insurer.id}`, { intent: "save", version: "1", name: "My Edit" }, cookie);
    expect(res.status).toBe(409);
    expect(await res.text()).toContain('value="Stored Name"');
    const [row] = await db().select().from(insurances).where(eq(insurances.id, insurer.id));
    expect(row!.name).toBe("Stored Name");
  });

  it("an unknown insurer answers 404", async () => {
    const cookie = await cookieFor();
    expect((await request("/insurance/view/999999", { cookie })).status).toBe(404);
    expect((await request("/insurance/list/edit/999999", { cookie })).status).toBe(404);
  });
});
