import { and, count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, clientConsents, paServices, patients, ticketResponses } from "~/db/schema";
import { CONSENT_REPLAY_MESSAGES } from "~/models/consents.server";
import { PA_SERVICE_MESSAGES } from "~/models/pa-services.server";
import { appFetch } from "./app-fetch";
import { api, apiToken, BASE, createLocation, createPatient, createUser, db, emailsTo, emailTo, request, signInCookie, type TestUser, withoutFlashTag } from "./helpers";

/**
 * A resent create saves once (decision 024, stop 39): the PA service and consent forms carry a one-time `form_token`,
 * their API creates take `Idempotency-Key` (scoped to the user and the client). A resend — a double click, a browser's
 * resend without JavaScript, a retried request — answers what the first one made: the screen the same 303 and flash,
 * the API 200 with the record (as notes do). The same key with another body is 422 and writes nothing.
 */

let manager: TestUser;
let token: string;
let otherToken: string;
let patient: { id: number; locationId: number };
let requester: TestUser;
let office: TestUser;

const post = (path: string, pairs: [string, string][], cookie: string) =>
  request(path, { method: "POST", cookie, body: new URLSearchParams(pairs), headers: { "Content-Type": "application/x-www-form-urlencoded" } });

function apiPost(path: string, body: unknown, key?: string, bearer = token): Promise<Response> {
  const headers = new Headers({ Accept: "application/json", "Content-Type": "application/json", Authorization: `Bearer ${bearer}` });
  if (key) headers.set("Idempotency-Key", key);
  return appFetch(`${BASE}/api${path}`, { method: "POST", headers, body: JSON.stringify(body) });
}

/** The hidden one-time token of the form on a page (the first one). */
function formTokenIn(html: string): string {
  const m = /<input[^>]*name="form_token"[^>]*value="([^"]+)"/.exec(html) ?? /<input[^>]*value="([^"]+)"[^>]*name="form_token"/.exec(html);
  if (!m) throw new Error("no form_token on the page");
  return m[1]!;
}

async function auditCreates(entity: string): Promise<number> {
  const [row] = await db()
    .select({ n: count() })
    .from(auditLog)
    .where(and(eq(auditLog.entity, entity), eq(auditLog.action, "create"), eq(auditLog.patientId, patient.id)));
  return row!.n;
}

const paRows = async (name: string) => db().select().from(paServices).where(and(eq(paServices.patientId, patient.id), eq(paServices.paService, name)));
const consentRows = async (notes: string) => db().select().from(clientConsents).where(and(eq(clientConsents.patientId, patient.id), eq(clientConsents.notes, notes)));

beforeAll(async () => {
  const location = await createLocation();
  manager = await createUser({ permissions: ["view_clients", "manage_clients"], locations: [location.id] });
  token = await apiToken(manager);
  otherToken = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [location.id] }));
  await createPatient({ locationId: location.id });
  patient = await createPatient({ locationId: location.id });
  requester = await createUser({ permissions: [], locations: [location.id], name: "Rita" });
  office = await createUser({ permissions: ["manage_tickets"], locations: [location.id], name: "Olga" });
});

const paFields = (name: string): [string, string][] => [
  ["intent", "pa-create"],
  ["pa_service", name],
  ["cpt", "97153"],
  ["n_units", "100"],
  ["start_date", "2027-01-18"],
  ["end_date", "2027-06-30"],
  ["insurance_id", ""],
];

describe("a resent 'Add PA service' form adds one authorization", () => {
  it("sent twice without JavaScript: one row, one audit row, both answers the same 303 and flash", async () => {
    const cookie = await signInCookie(manager);
    const formToken = formTokenIn(await (await request(`/patients/profile/${patient.id}`, { cookie })).text());
    const creates = await auditCreates("pa_service");
    const fields: [string, string][] = [["form_token", formToken], ...paFields("Renewal twice")];
    const first = await post(`/patients/profile/${patient.id}`, fields, cookie);
    const again = await post(`/patients/profile/${patient.id}`, fields, cookie);
    expect(first.status).toBe(303);
    expect(again.status).toBe(303);
    expect(first.headers.get("Location")).toContain(`/patients/profile/${patient.id}?flash=${encodeURIComponent(PA_SERVICE_MESSAGES.created)}`);
    expect(withoutFlashTag(again.headers.get("Location"))).toBe(withoutFlashTag(first.headers.get("Location")));
    expect(await paRows("Renewal twice")).toHaveLength(1);
    expect(await auditCreates("pa_service")).toBe(creates + 1);
    // A new load of the profile is a new token: another service.
    const next = formTokenIn(await (await request(`/patients/profile/${patient.id}`, { cookie })).text());
    expect(next).not.toBe(formToken);
    expect((await post(`/patients/profile/${patient.id}`, [["form_token", next], ...paFields("Renewal twice")], cookie)).status).toBe(303);
    expect(await paRows("Renewal twice")).toHaveLength(2);
  });

  it("sent twice at once: one row", async () => {
    const cookie = await signInCookie(manager);
    const formToken = formTokenIn(await (await request(`/patients/profile/${patient.id}`, { cookie })).text());
    const fields: [string, string][] = [["form_token", formToken], ...paFields("Renewal at once")];
    const answers = await Promise.all([1, 2, 3].map(() => post(`/patients/profile/${patient.id}`, fields, cookie)));
    expect(answers.map((a) => a.status)).toEqual([303, 303, 303]);
    expect(await paRows("Renewal at once")).toHaveLength(1);
  });

  it("the token is kept when the form is shown again after a refusal, so the corrected form still adds one", async () => {
    const cookie = await signInCookie(manager);
    const formToken = formTokenIn(await (await request(`/patients/profile/${patient.id}`, { cookie })).text());
    const refused = await post(`/patients/profile/${patient.id}`, [["form_token", formToken], ...paFields("Renewal corrected").filter(([k]) => k !== "cpt"), ["cpt", ""]], cookie);
    expect(refused.status).toBe(422);
    expect(formTokenIn(await refused.text())).toBe(formToken);
    const fields: [string, string][] = [["form_token", formToken], ...paFields("Renewal corrected")];
    expect((await post(`/patients/profile/${patient.id}`, fields, cookie)).status).toBe(303);
    expect((await post(`/patients/profile/${patient.id}`, fields, cookie)).status).toBe(303);
    expect(await paRows("Renewal corrected")).toHaveLength(1);
  });
});

const paBody = (name: string, units = 200) => ({ patient_id: patient.id, pa_service: name, cpt: "97153", n_units: units, start_date: "2027-01-18", end_date: "2027-06-30" });

describe("POST /v2/pa-services with Idempotency-Key", () => {
  it("the same key twice: 201 then 200 with the same record, one row", async () => {
    const first = await apiPost("/v2/pa-services", paBody("API renewal"), "pa-key-1");
    const again = await apiPost("/v2/pa-services", paBody("API renewal"), "pa-key-1");
    expect(first.status, await first.clone().text()).toBe(201);
    expect(again.status).toBe(200);
    const a = (await first.json()) as { data: { id: number } };
    const b = (await again.json()) as { data: { id: number } };
    expect(b.data).toEqual(a.data);
    expect(await paRows("API renewal")).toHaveLength(1);
  });

  it("the same key with another body: 422, nothing written; another user's same key is theirs", async () => {
    expect((await apiPost("/v2/pa-services", paBody("API keyed"), "pa-key-2")).status).toBe(201);
    const reused = await apiPost("/v2/pa-services", paBody("API keyed", 300), "pa-key-2");
    expect(reused.status).toBe(422);
    expect(((await reused.json()) as { message: string }).message).toBe(PA_SERVICE_MESSAGES.keyReused);
    expect(await paRows("API keyed")).toHaveLength(1);
    expect((await apiPost("/v2/pa-services", paBody("API keyed"), "pa-key-2", otherToken)).status).toBe(201);
    expect(await paRows("API keyed")).toHaveLength(2);
  });

  it("the same key at once: one row; without a key each request adds one", async () => {
    const answers = await Promise.all([1, 2, 3].map(() => apiPost("/v2/pa-services", paBody("API at once"), "pa-key-3")));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 201]);
    expect(await paRows("API at once")).toHaveLength(1);
    // Two bodies racing under one key: one lands.
    const mixed = await Promise.all([apiPost("/v2/pa-services", paBody("API mixed", 10), "pa-key-4"), apiPost("/v2/pa-services", paBody("API mixed", 20), "pa-key-4")]);
    expect(mixed.map((a) => a.status).sort()).toEqual([201, 422]);
    expect(await paRows("API mixed")).toHaveLength(1);
    await apiPost("/v2/pa-services", paBody("API no key"));
    await apiPost("/v2/pa-services", paBody("API no key"));
    expect(await paRows("API no key")).toHaveLength(2);
  });
});

const consentFields = (notes: string): [string, string][] => [
  ["intent", "save"],
  ["id", ""],
  ["version", ""],
  ["sections", "1"],
  ["sections", "2"],
  ["notes", notes],
];

describe("a resent 'Create consent' form writes one draft", () => {
  it("sent twice without JavaScript: one draft, one audit row, both answers the same 303 and flash", async () => {
    const cookie = await signInCookie(manager);
    const formToken = formTokenIn(await (await request(`/patients/consents/${patient.id}`, { cookie })).text());
    const creates = await auditCreates("consent");
    const fields: [string, string][] = [["form_token", formToken], ...consentFields("resent draft")];
    const first = await post(`/patients/consents/${patient.id}`, fields, cookie);
    const again = await post(`/patients/consents/${patient.id}`, fields, cookie);
    expect(first.status).toBe(303);
    expect(again.status).toBe(303);
    expect(withoutFlashTag(again.headers.get("Location"))).toBe(withoutFlashTag(first.headers.get("Location")));
    expect(first.headers.get("Location")).toContain("flash=");
    expect(await consentRows("resent draft")).toHaveLength(1);
    expect(await auditCreates("consent")).toBe(creates + 1);
  });

  it("sent twice at once: one draft; the form shown again after a refusal keeps its token", async () => {
    const cookie = await signInCookie(manager);
    const formToken = formTokenIn(await (await request(`/patients/consents/${patient.id}`, { cookie })).text());
    const fields: [string, string][] = [["form_token", formToken], ...consentFields("raced draft")];
    const answers = await Promise.all([1, 2, 3].map(() => post(`/patients/consents/${patient.id}`, fields, cookie)));
    expect(answers.map((a) => a.status)).toEqual([303, 303, 303]);
    expect(await consentRows("raced draft")).toHaveLength(1);

    const next = formTokenIn(await (await request(`/patients/consents/${patient.id}`, { cookie })).text());
    const refused = await post(`/patients/consents/${patient.id}`, [["form_token", next], ...consentFields("x".repeat(2001))], cookie);
    expect(refused.status).toBe(422);
    expect(formTokenIn(await refused.text())).toBe(next);
  });
});

describe("POST /v2/store-client-consents with Idempotency-Key", () => {
  const body = (notes: string, sections = [1, 2]) => ({ patient_id: patient.id, sections, notes });

  it("the same key twice: 201 then 200 with the same draft; another body 422; at once one draft", async () => {
    const first = await apiPost("/v2/store-client-consents", body("api draft"), "c-key-1");
    const again = await apiPost("/v2/store-client-consents", body("api draft"), "c-key-1");
    expect(first.status, await first.clone().text()).toBe(201);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { data: { id: number } }).data.id).toBe(((await first.json()) as { data: { id: number } }).data.id);
    expect(await consentRows("api draft")).toHaveLength(1);

    const reused = await apiPost("/v2/store-client-consents", body("api draft", [1]), "c-key-1");
    expect(reused.status).toBe(422);
    expect(((await reused.json()) as { message: string }).message).toBe(CONSENT_REPLAY_MESSAGES.keyReused);
    expect(await consentRows("api draft")).toHaveLength(1);

    const raced = await Promise.all([1, 2, 3].map(() => apiPost("/v2/store-client-consents", body("api raced"), "c-key-2")));
    expect(raced.map((a) => a.status).sort()).toEqual([200, 200, 201]);
    expect(await consentRows("api raced")).toHaveLength(1);
  });
});

describe("a resent ticket response posts and emails once", () => {
  async function ticket(subject: string): Promise<{ id: number; version: number }> {
    const res = await api("/v2/tickets", { method: "POST", token: await apiToken(requester), body: { subject, body: "The printer jams.", category: "technical", priority: "high" } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { data: { id: number; version: number } }).data;
  }
  const responses = async (id: number) => db().select().from(ticketResponses).where(eq(ticketResponses.ticketId, id));
  const answeredMails = async () => (await emailsTo(requester.email)).filter((m) => /has a new response/.test(m.subject)).length;

  it("the office's answer sent twice without JavaScript: one response, one email, both answers 'Response sent.' on the ticket", async () => {
    const t = await ticket("Resent answer");
    const cookie = await signInCookie(office);
    const page = await request(`/tickets/view/${t.id}?seen=1`, { cookie });
    const formToken = formTokenIn(await page.text());
    const mailsBefore = await answeredMails();
    const fields: [string, string][] = [["intent", "respond"], ["form_token", formToken], ["version", String(t.version)], ["body", "A technician comes Thursday."]];
    const first = await post(`/tickets/view/${t.id}`, fields, cookie);
    await emailTo(requester.email, /has a new response/);
    const again = await post(`/tickets/view/${t.id}`, fields, cookie);
    expect(first.status).toBe(303);
    expect(again.status).toBe(303);
    expect(withoutFlashTag(first.headers.get("Location"))).toBe(`/tickets/view/${t.id}?flash=${encodeURIComponent("Response sent.")}`);
    expect(withoutFlashTag(again.headers.get("Location"))).toBe(withoutFlashTag(first.headers.get("Location")));
    expect(await responses(t.id)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 500));
    expect((await answeredMails()) - mailsBefore).toBe(1);
  });

  it("sent twice at once: one response; someone else's change meanwhile is still a 409 with the text kept", async () => {
    const t = await ticket("Raced answer");
    const cookie = await signInCookie(office);
    const formToken = formTokenIn(await (await request(`/tickets/view/${t.id}?seen=1`, { cookie })).text());
    const fields: [string, string][] = [["intent", "respond"], ["form_token", formToken], ["version", String(t.version)], ["body", "On it."]];
    const answers = await Promise.all([1, 2, 3].map(() => post(`/tickets/view/${t.id}`, fields, cookie)));
    expect(answers.map((a) => a.status)).toEqual([303, 303, 303]);
    expect(await responses(t.id)).toHaveLength(1);
    // A new form on the old version after the ticket changed: not this form's send, so the stale answer stands.
    const other = formTokenIn(await (await request(`/tickets/view/${t.id}?seen=1`, { cookie })).text());
    const stale = await post(`/tickets/view/${t.id}`, [["intent", "respond"], ["form_token", other], ["version", String(t.version)], ["body", "Second thought"]], cookie);
    expect(stale.status).toBe(409);
    expect(formTokenIn(await stale.text())).toBe(other);
    expect(await responses(t.id)).toHaveLength(1);
  });

  it("POST /v2/tickets/{id}/responses with the same Idempotency-Key: 201 then 200, one response; another body 422", async () => {
    const t = await ticket("Keyed answer");
    const officeToken = await apiToken(office);
    const send = (body: string) => {
      const headers = new Headers({ Accept: "application/json", "Content-Type": "application/json", Authorization: `Bearer ${officeToken}`, "Idempotency-Key": "r-key-1" });
      return appFetch(`${BASE}/api/v2/tickets/${t.id}/responses`, { method: "POST", headers, body: JSON.stringify({ body }) });
    };
    const first = await send("Keyed");
    expect(first.status, await first.clone().text()).toBe(201);
    const again = await send("Keyed");
    expect(again.status).toBe(200);
    expect(((await again.json()) as { data: { id: number } }).data.id).toBe(((await first.json()) as { data: { id: number } }).data.id);
    expect((await send("Other")).status).toBe(422);
    expect(await responses(t.id)).toHaveLength(1);
  });
});

describe("a resent 'Add client' form adds one client and opens it", () => {
  const fields = (identifier: string): [string, string][] => [
    ["intent", "save"],
    ["patient_identifier", identifier],
    ["first_name", "Ida"],
    ["last_name", "Twice"],
    ["location_id", String(patient.locationId)],
  ];
  const rows = async (identifier: string) => db().select({ id: patients.id }).from(patients).where(eq(patients.patientIdentifier, identifier));

  it("sent twice, then three at once: one client each, every answer the client's profile with 'Client created.'", async () => {
    const cookie = await signInCookie(manager);
    for (const [identifier, times, together] of [["RESEND-1", 2, false], ["RESEND-2", 3, true]] as const) {
      const formToken = formTokenIn(await (await request("/patients/add", { cookie })).text());
      const send = () => post("/patients/add", [["form_token", formToken], ...fields(identifier)], cookie);
      const answers = together ? await Promise.all(Array.from({ length: times }, send)) : [await send(), await send()];
      const [row] = await rows(identifier);
      expect(await rows(identifier)).toHaveLength(1);
      for (const a of answers) {
        expect(a.status).toBe(303);
        expect(withoutFlashTag(a.headers.get("Location"))).toBe(`/patients/profile/${row!.id}?flash=${encodeURIComponent("Client created.")}`);
      }
    }
  });

  it("another form with a taken identifier is still refused; a refused form keeps its token", async () => {
    const cookie = await signInCookie(manager);
    const formToken = formTokenIn(await (await request("/patients/add", { cookie })).text());
    const taken = await post("/patients/add", [["form_token", formToken], ...fields("RESEND-1")], cookie);
    expect(taken.status).toBe(422);
    const page = await taken.text();
    expect(page).toContain("This patient identifier is already in use.");
    expect(formTokenIn(page)).toBe(formToken);
    expect(await rows("RESEND-1")).toHaveLength(1);
  });
});

describe("POST /v2/patients with Idempotency-Key (decision 024, stop 40)", () => {
  it("the same key twice: 201 then 200 with the same client, one row; the same key with another body 422", async () => {
    const body = (identifier: string) => ({ patient_identifier: identifier, first_name: "Kai", last_name: "Keyed", location_id: patient.locationId, birth_date: "2019-03-04", gender: 1 });
    const first = await apiPost("/v2/patients", body("KEY-PAT-1"), "patient-key-1");
    const again = await apiPost("/v2/patients", body("KEY-PAT-1"), "patient-key-1");
    expect(first.status, await first.clone().text()).toBe(201);
    expect(again.status, await again.clone().text()).toBe(200);
    const id = ((await first.json()) as { data: { id: number } }).data.id;
    expect(((await again.json()) as { data: { id: number } }).data.id).toBe(id);
    const other = await apiPost("/v2/patients", body("KEY-PAT-2"), "patient-key-1");
    expect(other.status).toBe(422);
    expect(await db().select().from(patients).where(eq(patients.lastName, "Keyed"))).toHaveLength(1);
  });
});
