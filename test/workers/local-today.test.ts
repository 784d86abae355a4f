import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notes, paServices, userLocations } from "~/db/schema";
import { todayAtLocation } from "~/domain/pa-pacing";
import * as build from "../../build/index.js";
import { api, apiToken, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * Today at each row's location (probe 8953 §3 and §4; decision 038, stop 32). At 2026-11-27 15:47 UTC it is already
 * 2026-11-28 at Kiritimati (UTC+14) and still 2026-11-27 in New York: the reports judge each authorization on its
 * client's location's today and each compliance date on its employee's location's today, whoever looks; a client's
 * age counts on their location's today.
 */

type Loader = (args: unknown) => Promise<unknown>;
const routes = (build as unknown as { routes: Record<string, { module: { loader: Loader } }> }).routes;
const NOW = new Date("2026-11-27T15:47:00Z");

let cookie: string;
let kiriEmployee: number;
let yorkEmployee: number;

/** The screen's rows of a report at NOW, as the manager (whose own location is New York) sees them. */
async function rowsOf<R>(key: string, query: string): Promise<R[]> {
  const out = (await routes["routes/_app.reports.$report"]!.module.loader({
    request: new Request(`http://localhost/reports/${key}?${query}`, { headers: { Cookie: cookie } }),
    params: { report: key },
    context: { app: { db: db(), now: () => NOW, ip: "127.0.0.1" } },
  })) as { page: { data: R[] } };
  return out.page.data;
}

type PaRow = { pa_service: string; today: string };
const names = (rows: PaRow[]) => rows.map((r) => r.pa_service).filter((n) => n.startsWith("TZ "));

beforeAll(async () => {
  const york = await createLocation({ timeZone: "America/New_York" });
  const kiri = await createLocation({ timeZone: "Pacific/Kiritimati" });
  // Names Intl accepts but does not list (UTC+14 as well): each still gets its own today.
  const gmt14 = await createLocation({ timeZone: "Etc/GMT-14" });
  const lower = await createLocation({ timeZone: "pacific/kiritimati" });
  const manager = await createUser({ permissions: ["manage_notes", "view_clients", "view_employees"], locations: [york.id, kiri.id, gmt14.id, lower.id] });
  cookie = await signInCookie(manager);
  const provider = await createUser({ permissions: ["view_notes"], locations: [kiri.id] });
  const oneDay = async (locationId: number, paService: string, start: string, end: string, usedUnits = 0) => {
    const client = await createPatient({ locationId });
    const [pa] = await db().insert(paServices).values({ patientId: client.id, paService, cpt: "97153", nUnits: 10, startDate: start, endDate: end }).returning();
    if (usedUnits) await db().insert(notes).values({ type: "rbt", patientId: client.id, locationId, providerId: provider.id, paServiceId: pa!.id, cptCode: "97153", sessionDate: start, timeIn: "09:00", timeOut: "10:00", minutes: 60, units: usedUnits, pos: "12" });
  };
  // The probe's PA 133: one day, 2026-11-28, 4 units already used there.
  await oneDay(kiri.id, "TZ Kiritimati one day", "2026-11-28", "2026-11-28", 4);
  await oneDay(gmt14.id, "TZ GMT-14 one day", "2026-11-28", "2026-11-28");
  await oneDay(lower.id, "TZ lower-case one day", "2026-11-28", "2026-11-28");
  // New York: tomorrow's one-day authorization has not started; today's runs and lapses today.
  await oneDay(york.id, "TZ New York tomorrow", "2026-11-28", "2026-11-28");
  await oneDay(york.id, "TZ New York today", "2026-11-27", "2026-11-27");
  // A CPR date of 2026-11-27 at each location: yesterday at Kiritimati, today in New York.
  kiriEmployee = (await createUser({ permissions: [], locations: [kiri.id], name: "Kiri" })).id;
  yorkEmployee = (await createUser({ permissions: [], locations: [york.id], name: "York" })).id;
  for (const id of [kiriEmployee, yorkEmployee]) await db().update(userLocations).set({ compliance: JSON.stringify({ cpr_every_2_years: "2026-11-27" }) }).where(eq(userLocations.userId, id));
});

describe("the pas report's status on each client's location's today", () => {
  it.each([
    ["active", ["TZ GMT-14 one day", "TZ Kiritimati one day", "TZ lower-case one day", "TZ New York today"]],
    ["ending", ["TZ GMT-14 one day", "TZ Kiritimati one day", "TZ lower-case one day", "TZ New York today", "TZ New York tomorrow"]],
    ["upcoming", ["TZ New York tomorrow"]],
    ["ended", []],
  ])("status=%s lists %j", async (status, expected) => {
    expect(names(await rowsOf<PaRow>("pas", `status=${status}`)).sort()).toEqual([...expected].sort());
  });

  it("a row's today is its location's, and the status agrees with its pacing", async () => {
    const rows = await rowsOf<PaRow & { pacing: { phase: string } }>("pas", "status=all");
    const kiri = rows.find((r) => r.pa_service === "TZ Kiritimati one day")!;
    expect(kiri.today).toBe("2026-11-28");
    expect(kiri.pacing.phase).toBe("active");
    expect(rows.find((r) => r.pa_service === "TZ New York tomorrow")!.today).toBe("2026-11-27");
  });
});

describe("the client-projection report", () => {
  it("projects the authorizations running today at their clients' locations", async () => {
    expect(names(await rowsOf<PaRow>("client-projection", "")).sort()).toEqual(["TZ GMT-14 one day", "TZ Kiritimati one day", "TZ lower-case one day", "TZ New York today"].sort());
  });
});

describe("the client-eligibility report", () => {
  it("counts the days left from the client's location's today", async () => {
    const rows = await rowsOf<{ item: string; days_left: number }>("client-eligibility", "window=14&kind=authorization");
    const left = Object.fromEntries(rows.filter((r) => r.item.startsWith("TZ ")).map((r) => [r.item, r.days_left]));
    expect(left).toEqual({
      "TZ Kiritimati one day (97153)": 0,
      "TZ GMT-14 one day (97153)": 0,
      "TZ lower-case one day (97153)": 0,
      "TZ New York today (97153)": 0,
      "TZ New York tomorrow (97153)": 1,
    });
  });
});

describe("the expiration-dates report", () => {
  type Row = { user_id: number; days_left: number };
  it.each([
    ["expired", [-1, null]],
    ["within_30", [null, 0]],
    ["all", [-1, 0]],
  ] as const)("state=%s judges a date on the employee's location's today", async (state, [kiri, york]) => {
    const rows = await rowsOf<Row>("expiration-dates", `state=${state}`);
    expect(rows.find((r) => r.user_id === kiriEmployee)?.days_left ?? null).toBe(kiri);
    expect(rows.find((r) => r.user_id === yorkEmployee)?.days_left ?? null).toBe(york);
  });
});

// Probe 8953 §4. At any hour the date differs from UTC's at one of these two zones (Kiritimati from 10:00 UTC, Pago
// Pago until 11:00 UTC), so counting on UTC's date gets one of the cases wrong whenever the test runs.
describe("a client's age on today at their location", () => {
  const tenYearsBefore = (date: string) => `${Number(date.slice(0, 4)) - 10}${date.slice(4)}`;
  const nextDay = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  it.each([
    ["Pacific/Kiritimati", "today", 10],
    ["Pacific/Kiritimati", "tomorrow", 9],
    ["Pacific/Pago_Pago", "today", 10],
    ["Pacific/Pago_Pago", "tomorrow", 9],
  ] as const)("at %s, a tenth birthday %s there: age %i in the list and the API", async (timeZone, when, age) => {
    const location = await createLocation({ timeZone });
    const today = todayAtLocation(new Date(), timeZone);
    const lastName = `Birthday${timeZone.replace(/\W/g, "")}${when}`;
    const client = await createPatient({ locationId: location.id, lastName, birthDate: tenYearsBefore(when === "today" ? today : nextDay(today)) });
    const viewer = await createUser({ permissions: ["view_clients"], locations: [location.id] });
    const answer = (await (await api(`/v2/patients/${client.id}`, { token: await apiToken(viewer) })).json()) as { data: { age: number } };
    expect(answer.data.age).toBe(age);
    const html = await (await request(`/patients/list?search=${lastName}`, { cookie: await signInCookie(viewer) })).text();
    const row = html.split("<tr").filter((r) => r.includes(lastName)).at(-1)!;
    expect([...row.matchAll(/<td[^>]*>(\d+)<\/td>/g)].map((m) => Number(m[1]))).toEqual([age]);
  });
});

// The employee's profile judges each location's compliance dates as the expiration-dates report does.
describe("an employee's profile", () => {
  it.each([
    ["the Kiritimati employee", "expired", () => kiriEmployee],
    ["the New York employee", "expiring_30", () => yorkEmployee],
  ] as const)("%s: a CPR date of 2026-11-27 is %s on today at the location", async (_who, state, id) => {
    const out = (await routes["routes/_app.doctors.profile.$id"]!.module.loader({
      request: new Request(`http://localhost/doctors/profile/${id()}`, { headers: { Cookie: cookie } }),
      params: { id: String(id()) },
      context: { app: { db: db(), now: () => NOW, ip: "127.0.0.1" } },
    })) as { employee: { locations: { compliance_state: Record<string, string> }[] } };
    expect(out.employee.locations.map((l) => l.compliance_state.cpr_every_2_years)).toEqual([state]);
  });
});
