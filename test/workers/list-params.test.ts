import { describe, expect, it } from "vitest";
import { unknownFilterMessage } from "~/domain/list-filters";
import { api, apiToken, createLocation, createPatient, createUser } from "./helpers";

/**
 * The API lists outside RestResource take the query parameters they declare and refuse any other with 422 naming
 * it, as the RestResource lists do (decision 017, stop 44 and stop 45): an ignored parameter answers a list that looks
 * filtered (or paged) and is not. Each row: the list and a query naming every parameter it is documented to take
 * (the spec's names, paging, `search`, dates, `cache`, its filters), each with a value it accepts.
 */

async function world() {
  const loc = await createLocation();
  const user = await createUser({ role: "ADMIN", locations: [loc.id] });
  const patient = await createPatient({ locationId: loc.id });
  const token = await apiToken(user);
  const made = await api("/v2/tickets", { method: "POST", token, body: { subject: "Params", body: "A ticket to list.", category: "general", priority: "low", location_id: loc.id } });
  expect(made.status).toBe(201);
  const ticket = ((await made.json()) as { data: { id: number } }).data.id;
  return { L: loc.id, P: patient.id, U: user.id, T: ticket, token };
}
type World = Awaited<ReturnType<typeof world>>;

const GENERIC = "page=1&per_page=10&search=zq&date_from=2026-01-01&date_to=2026-01-31&cache=true";
const REPORT = "page=1&date_start=2026-01-01&date_end=2026-01-31&noteType=rbt&sort=date&dir=asc";

/** [list, its path, the query naming every parameter it takes]; {L}, {P}, {U}, {T}: the world's location, client, user, ticket. */
const LISTS: readonly (readonly [string, string, string])[] = [
  ["claims", "/v2/claims", `${GENERIC}&status=draft&location_id={L}&patient_id={P}&insurer_id=1`],
  ["billable notes", "/v2/claims/billable-notes", "location_id={L}&patient_id={P}&from=2026-01-01&to=2026-01-31"],
  ["tickets", "/v2/tickets", `${GENERIC}&status=open&priority=low&category=general&location_id={L}&assigned=none&mine=false`],
  ["ticket responses", "/v2/tickets/{T}/responses", "page=1"],
  ["scheduled sessions", "/v2/scheduled-sessions", "from=2026-11-01&to=2026-11-07&location_id={L}&provider_id={U}&patient_id={P}&per_day=5"],
  ["remittances", "/v2/remittances", GENERIC],
  ["pa-pacing", "/v2/pa-pacing", "patient_id={P}"],
  ["scrubber", "/v2/billing/scrubber", "location_id={L}&date_from=2026-01-01&date_to=2026-01-31&page=1&per_page=10"],
  ["report by client", "/client_report/byprofile/{P}", REPORT],
  ["report by client (the spec's slash)", "/client_report/byprofile/{P}/", REPORT],
  ["report by client, other period names", "/client_report/byprofile/{P}", "from=2026-01-01&to=2026-01-31&type=bcba"],
  ["report by client, list period names", "/client_report/byprofile/{P}", "date_from=2026-01-01&date_to=2026-01-31"],
  ["report by employee", "/client_report/byemployee/{U}/{P}", REPORT],
  ["report by employee (the spec's slash)", "/client_report/byemployee/{U}/{P}/", REPORT],
  ["client report profile", "/client_report/profile/{P}", REPORT],
  ["billing list", "/client_report/bylocation/{L}", "page=1&provider_id={U}&date_from=2026-01-01&date_to=2026-01-31&status=pending&query=zq"],
  ["billing list, other period names", "/client_report/bylocation/{L}", "from=2026-01-01&to=2026-01-31"],
  ["billing list, report period names", "/client_report/bylocation/{L}", "date_start=2026-01-01&date_end=2026-01-31"],
  ["RBT notes by client", "/note_rbt/byclient/{P}", GENERIC],
  ["BCBA notes by client", "/note_bcba/byclient/{P}", GENERIC],
  ["RBT notes by provider", "/note_rbt/byprofile/{U}", GENERIC],
  ["BCBA notes by provider", "/note_bcba/byprofile/{U}", GENERIC],
  ["insurers (v1)", "/insurance", `${GENERIC}&insurer_name=zq`],
  ["insurer services", "/insurance/service", GENERIC],
];

const fill = (url: string, w: World) => url.replace(/\{([LPUT])\}/g, (_m, k: "L" | "P" | "U" | "T") => String(w[k]));

describe("the lists outside RestResource take what they declare; any other parameter answers 422 naming it (decision 017, stop 45)", () => {
  it.each(LISTS)("%s: every documented parameter answers 200", async (_name, path, query) => {
    const w = await world();
    const url = fill(`${path}?${query}`, w);
    const res = await api(url, { token: w.token });
    expect(res.status, `${url} ${await res.clone().text()}`).toBe(200);
  });

  it.each(LISTS)("%s: an unknown parameter beside them answers 422 naming it", async (_name, path, query) => {
    const w = await world();
    const res = await api(fill(`${path}?${query}&zzz=1`, w), { token: w.token });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ message: unknownFilterMessage("zzz"), errors: { zzz: unknownFilterMessage("zzz") } });
  });

  // What a caller could send believing it applies: a generic list's paging or dates where the list has none, a
  // filter the list does not hold, the location of a list whose address names the location.
  it.each([
    ["/v2/scheduled-sessions?from=2026-11-01&to=2026-11-07&date_from=2026-11-03", "date_from"],
    ["/v2/scheduled-sessions?from=2026-11-01&to=2026-11-07&page=2", "page"],
    ["/v2/pa-pacing?patient_id={P}&location_id={L}", "location_id"],
    ["/v2/billing/scrubber?location_id={L}&date_from=2026-01-01&date_to=2026-01-31&provider_id={U}", "provider_id"],
    ["/v2/claims?provider_id={U}", "provider_id"],
    ["/v2/claims/billable-notes?date_from=2026-01-01", "date_from"],
    ["/v2/tickets?requester_id={U}", "requester_id"],
    ["/v2/remittances?status=paid", "status"],
    ["/insurance/service?insurer_id=1", "insurer_id"],
    ["/client_report/byprofile/{P}?per_page=100", "per_page"],
    ["/client_report/byprofile/{P}?location_id={L}", "location_id"],
    ["/client_report/bylocation/{L}?location_id={L}", "location_id"],
    ["/note_rbt/byclient/{P}?patient_id={P}", "patient_id"],
    ["/v2/tickets/{T}/responses?per_page=50", "per_page"],
  ])("GET %s: 422 naming %s", async (path, name) => {
    const w = await world();
    const res = await api(fill(path, w), { token: w.token });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ message: unknownFilterMessage(name), errors: { [name]: unknownFilterMessage(name) } });
  });

  it("the client reports keep scope first: another location's client is 404 with an unknown parameter too", async () => {
    const w = await world();
    const away = await createPatient({ locationId: (await createLocation()).id });
    // A biller of the world's location only (an ADMIN sees every location).
    const token = await apiToken(await createUser({ permissions: ["manage_claims"], locations: [w.L] }));
    for (const path of [`/client_report/byprofile/${away.id}`, `/client_report/byemployee/${w.U}/${away.id}`, `/client_report/profile/${away.id}`, "/client_report/byprofile/999999999", "/client_report/byemployee/999999999/{P}"]) {
      const res = await api(fill(`${path}?zzz=1`, w), { token });
      expect(res.status, path).toBe(404);
    }
    for (const path of ["/client_report/byprofile/{P}", "/client_report/byemployee/{U}/{P}", "/client_report/profile/{P}"]) {
      const res = await api(fill(`${path}?zzz=1`, w), { token });
      expect(res.status, path).toBe(422);
      expect(await res.json(), path).toEqual({ message: unknownFilterMessage("zzz"), errors: { zzz: unknownFilterMessage("zzz") } });
    }
  });
});
