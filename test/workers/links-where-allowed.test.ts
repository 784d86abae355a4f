import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { paServices, userLocations } from "~/db/schema";
import { todayAtLocation } from "~/domain/pa-pacing";
import { addDays } from "~/domain/reports";
import { api, apiToken, createLocation, createParent, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * A screen offers a link only where the user may go, and names a parent account only to a reader of parents
 * (decision 007): report names link to profiles the reader may open; the client profile and form name parents
 * without their email to a user without view_parents; the dashboard counts employees for whoever may list them;
 * everyone who may open /profile finds it in the user menu (decision 015); the billing screens link the scrubber
 * and employee by client.
 */

const html = async (path: string, cookie: string) => (await (await request(path, { cookie })).text()).replace(/<!-- -->/g, "");

let w: { here: number; client: number; parent: { id: number; email: string }; employee: number };

beforeAll(async () => {
  const here = await createLocation();
  const t = todayAtLocation(new Date(), "America/New_York");
  const parent = await createParent({ name: "Laura", surname: "Linked", locationId: here.id });
  const client = await createPatient({ locationId: here.id, firstName: "Liam", lastName: "Linkable", parentId: parent.id });
  await db().insert(paServices).values({ patientId: client.id, paService: "Direct therapy", cpt: "97153", nUnits: 50, startDate: addDays(t, -9), endDate: addDays(t, 20) });
  const employee = await createUser({ permissions: ["view_notes"], locations: [here.id], name: "Expiring" });
  await db()
    .update(userLocations)
    .set({ compliance: JSON.stringify({ cpr_every_2_years: addDays(t, -3) }) })
    .where(eq(userLocations.userId, employee.id));
  w = { here: here.id, client: client.id, parent, employee: employee.id };
});

describe("report rows link names only to profiles the reader may open", () => {
  it.each([
    ["manage_notes only: names are plain text", ["manage_notes"], false, false],
    ["with view_clients: client names link, employee names do not", ["manage_notes", "view_clients"], true, false],
    ["with manage_employees (a reader of employees): employee names link", ["manage_notes", "manage_employees"], false, true],
    ["with view_employees and view_clients: both link", ["manage_notes", "view_clients", "view_employees"], true, true],
  ] as const)("%s", async (_label, permissions, clientLinks, employeeLinks) => {
    const cookie = await signInCookie(await createUser({ permissions, locations: [w.here] }));
    const pas = await html(`/reports/pas?patient_id=${w.client}`, cookie);
    expect(pas).toContain("Linkable");
    expect(pas.includes(`href="/patients/profile/${w.client}"`)).toBe(clientLinks);
    const expiring = await html("/reports/expiration-dates", cookie);
    expect(expiring).toContain("Expiring");
    expect(expiring.includes(`href="/doctors/profile/${w.employee}"`)).toBe(employeeLinks);
    // Every profile link the page shows opens.
    for (const page of [pas, expiring])
      for (const [, path] of page.matchAll(/href="(\/(?:patients|doctors)\/profile\/\d+)"/g)) expect((await request(path!, { cookie })).status).toBe(200);
  });

  it("an admin's report rows link both", async () => {
    const cookie = await signInCookie(await createUser({ role: "ADMIN" }));
    expect(await html(`/reports/pas?patient_id=${w.client}`, cookie)).toContain(`href="/patients/profile/${w.client}"`);
    expect(await html("/reports/expiration-dates", cookie)).toContain(`href="/doctors/profile/${w.employee}"`);
  });
});

describe("a linked parent account is named only to a reader of parents", () => {
  it("without view_parents the profile says only that a parent account is linked; with it, name and email", async () => {
    const without = await signInCookie(await createUser({ permissions: ["view_clients"], locations: [w.here] }));
    const page = await html(`/patients/profile/${w.client}`, without);
    expect(page).toContain("A parent account is linked");
    expect(page).not.toContain(w.parent.email);
    expect(page).not.toContain("Laura Linked");
    const reader = await signInCookie(await createUser({ permissions: ["view_clients", "view_parents"], locations: [w.here] }));
    expect(await html(`/patients/profile/${w.client}`, reader)).toContain(`Laura Linked (${w.parent.email})`);
  });

  it.each([
    ["the add form", () => "/patients/add"],
    ["the edit form", () => `/patients/list/edit/${w.client}`],
  ])("%s: without view_parents the parent select names parents without their email; with it, with", async (_label, path) => {
    const without = await signInCookie(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [w.here] }));
    const page = await html(path(), without);
    expect(page).toContain(`Laura Linked (#${w.parent.id})`);
    expect(page).not.toContain(w.parent.email);
    const reader = await signInCookie(await createUser({ permissions: ["view_clients", "manage_clients", "view_parents"], locations: [w.here] }));
    expect(await html(path(), reader)).toContain(`Laura Linked (${w.parent.email})`);
  });
});

describe("the dashboard counts employees for whoever may list them", () => {
  it("manage_employees alone: the employee count, not the no-access message; the API answers a number", async () => {
    const user = await createUser({ permissions: ["manage_employees"], locations: [w.here] });
    const page = await html("/dashboard", await signInCookie(user));
    expect(page).toContain('data-testid="total-employees"');
    expect(page).not.toContain('data-testid="dashboard-nothing"');
    const body = (await (await api("/dashboard/admin", { token: await apiToken(user) })).json()) as { total_employees: unknown };
    expect(typeof body.total_employees).toBe("number");
  });

  it("no employee permission: no count (null)", async () => {
    const user = await createUser({ permissions: ["manage_notes"], locations: [w.here] });
    const body = (await (await api("/dashboard/admin", { token: await apiToken(user) })).json()) as { total_employees: unknown };
    expect(body.total_employees).toBeNull();
  });
});

describe("the user menu's Profile link", () => {
  it.each([
    ["a parent", async () => signInCookie(await createParent({ locationId: w.here }), true)],
    ["a BCaBA", async () => signInCookie(await createUser({ role: "BCaBA", permissions: ["view_clients"], locations: [w.here] }))],
    ["a custom role", async () => signInCookie(await createUser({ permissions: ["manage_notes"], locations: [w.here] }))],
  ])("%s finds /profile, and it opens", async (_label, cookieOf) => {
    const cookie = await cookieOf();
    const res = await request("/profile", { cookie });
    expect(res.status).toBe(200);
    expect((await res.text()).replace(/<!-- -->/g, "")).toMatch(/<a href="\/profile">Profile<\/a>/);
  });
});

describe("the billing screens link the pre-billing check and employee by client", () => {
  it("a manager with manage_claims sees the links, and they open", async () => {
    const cookie = await signInCookie(await createUser({ permissions: ["manage_claims", "view_clients", "manage_notes"], locations: [w.here] }));
    const list = await html("/billing/list", cookie);
    expect(list).toContain('href="/billing/scrubber"');
    expect(list).toContain('href="/client-report/employee-by-client"');
    expect(await html("/claims", cookie)).toContain('href="/billing/scrubber"');
    expect([200, 302]).toContain((await request("/billing/scrubber", { cookie, redirect: "manual" })).status);
    expect((await request("/client-report/employee-by-client", { cookie })).status).toBe(200);
  });

  it("a user without manage_claims is offered neither (the billing screens and the links' targets answer 403)", async () => {
    const cookie = await signInCookie(await createUser({ permissions: ["view_clients", "manage_notes", "view_notes"], locations: [w.here] }));
    for (const path of ["/dashboard", "/reports", "/billing/list", "/claims"]) {
      const page = await html(path, cookie);
      expect(page).not.toContain('href="/billing/scrubber"');
      expect(page).not.toContain('href="/client-report/employee-by-client"');
    }
    expect((await request("/billing/scrubber", { cookie, redirect: "manual" })).status).toBe(403);
  });
});
