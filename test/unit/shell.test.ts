import { describe, expect, it } from "vitest";
import { percentChange, patientsByGender, MONTHS_NAME } from "~/domain/dashboard";
import type { Actor } from "~/domain/permissions";
import { badgeText, headerBadgeCount, initials, showsLogoLink, showsProfileLink, sidebarBadgeCount, versionMismatchText, visibleSidebar } from "~/domain/shell";
import { zonedDate, zonedMonthStart, zonedYearMonth } from "~/domain/time";

function actor(roles: string[], permissions: Actor["permissions"] = [], kind: Actor["kind"] = "user"): Actor {
  return { kind, id: 1, name: "A", surname: "B", email: "a@b.c", roles, permissions, locationIds: [], locationId: null, timeZone: null, avatar: null, status: "active", phone: null, twoFactorEnabled: false };
}
const summary = (responses: number, tickets = 0) => ({ unread_tickets_count: tickets, unread_responses_count: responses, new_tickets_count: 0, total_unread: tickets + responses });

describe("sidebar", () => {
  it.each([
    ["ADMIN sees every item", actor(["ADMIN"]), ["Home", "Employees", "Clients", "Parents", "Behavior plans", "Notes", "Calendar", "Billing", "Claims", "Insurance", "Location", "Reports", "Tickets", "Roles"]],
    ["SUPERADMIN sees every item and Settings", actor(["SUPERADMIN"]), ["Home", "Employees", "Clients", "Parents", "Behavior plans", "Notes", "Calendar", "Billing", "Claims", "Insurance", "Location", "Reports", "Tickets", "Roles", "Settings"]],
    ["a MANAGER holding every permission still does not see Settings", actor(["MANAGER"], ["manage_employees", "view_clients", "view_parents", "view_bips", "view_notes", "manage_insurances", "manage_locations_access", "manage_notes", "manage_tickets", "manage_roles", "manage_claims"]), ["Home", "Employees", "Clients", "Parents", "Behavior plans", "Notes", "Calendar", "Billing", "Claims", "Insurance", "Location", "Reports", "Tickets", "Roles"]],
    ["an RBT with view_notes, view_clients and view_bips sees Home, Clients, Behavior plans, Notes, Calendar", actor(["RBT"], ["view_notes", "view_clients", "view_bips"]), ["Home", "Clients", "Behavior plans", "Notes", "Calendar"]],
    ["view_notes alone does not show Clients (its screens need view_clients)", actor(["RBT"], ["view_notes"]), ["Home", "Notes", "Calendar"]],
    ["no permissions: only Home", actor(["BCBA"]), ["Home"]],
    ["manage_roles shows Roles", actor(["MANAGER"], ["manage_roles"]), ["Home", "Roles"]],
    ["a parent sees Home only", actor([], [], "parent"), ["Home"]],
  ] as const)("%s", (_l, who, labels) => {
    expect(visibleSidebar(who).map((i) => i.label)).toEqual(labels);
  });
});

describe("header", () => {
  it.each([
    [["SUPERADMIN"], true, true],
    [["ADMIN"], true, true],
    [["MANAGER"], true, true],
    [["DOCTOR"], false, true],
    [["LM"], false, true],
    [["BCBA"], true, true],
    [["RBT"], true, true],
    // /profile is everyone's own settings page (decision 015, stop 40): the link is wider than platform §2's list.
    [["BCaBA"], false, true],
    [["NOTESMGR"], false, true],
    [[], false, true],
  ])("%j: logo link %s, profile link %s", (roles, logo, profile) => {
    expect(showsLogoLink(actor(roles))).toBe(logo);
    expect(showsProfileLink(actor(roles))).toBe(profile);
  });

  it("a parent has the Profile link (two-factor, email and avatar are changed there) and no logo link", () => {
    expect(showsProfileLink(actor([], [], "parent"))).toBe(true);
    expect(showsLogoLink(actor([], [], "parent"))).toBe(false);
  });
});

describe("ticket badges", () => {
  it.each([
    [0, "0"],
    [7, "7"],
    [99, "99"],
    [100, "99+"],
    [5000, "99+"],
  ])("%i shows %s", (n, text) => expect(badgeText(n)).toBe(text));

  it("manage_tickets shows 0 in the header, others their unread responses", () => {
    expect(headerBadgeCount(actor(["MANAGER"], ["manage_tickets"]), summary(12))).toBe(0);
    expect(headerBadgeCount(actor(["RBT"]), summary(12))).toBe(12);
  });

  it("the sidebar Tickets badge is only for manage_tickets", () => {
    expect(sidebarBadgeCount(actor(["MANAGER"], ["manage_tickets"]), summary(0, 150))).toBe(150);
    expect(sidebarBadgeCount(actor(["RBT"]), summary(0, 150))).toBeNull();
  });
});

describe("version mismatch", () => {
  it("the alert text", () => {
    expect(versionMismatchText("0.1.1-beta")).toBe(
      "Your browser is running an outdated version (v0.1.1-beta) of the application. Please reload the page to get the latest version. If the issue persists, try using Ctrl+F5 to clear your browser cache.",
    );
  });
});

describe("dashboard figures", () => {
  it.each([
    [5, 10, 100],
    [10, 5, -50],
    [0, 0, 0],
    [0, 3, 100],
    [3, 1, -66.67],
  ])("from %i last month to %i this month is %s%%", (before, current, pct) => {
    expect(percentChange(current, before)).toBe(pct);
  });

  it("fills twelve months and splits hombre / mujer / no_indicado (gender not given or another code)", () => {
    const out = patientsByGender(2026, [
      { month: 1, gender: 1, n: 2 },
      { month: 1, gender: 2, n: 3 },
      { month: 12, gender: 2, n: 1 },
      { month: 5, gender: null, n: 4 },
      { month: 5, gender: 3, n: 1 },
    ]);
    expect(out).toHaveLength(12);
    expect(out[0]).toEqual({ year: 2026, month: 1, hombre: 2, mujer: 3, no_indicado: 0 });
    expect(out[11]).toEqual({ year: 2026, month: 12, hombre: 0, mujer: 1, no_indicado: 0 });
    expect(out[4]).toEqual({ year: 2026, month: 5, hombre: 0, mujer: 0, no_indicado: 5 });
    expect(MONTHS_NAME[0]).toBe("Enero");
  });
});

describe("time zones", () => {
  it.each([
    ["America/New_York", "2026-11-01T04:00:00.000Z", "2026-10-01T04:00:00.000Z"],
    ["America/Denver", "2026-11-01T06:00:00.000Z", "2026-10-01T06:00:00.000Z"],
    ["America/Los_Angeles", "2026-11-01T07:00:00.000Z", "2026-10-01T07:00:00.000Z"],
  ])("%s month starts honour daylight saving", (tz, thisMonth, lastMonth) => {
    const at = new Date("2026-11-22T12:00:00Z");
    expect(zonedMonthStart(at, tz, 0).toISOString()).toBe(thisMonth);
    expect(zonedMonthStart(at, tz, -1).toISOString()).toBe(lastMonth);
  });

  it("an instant just after UTC midnight on the 1st is still the previous month in Los Angeles", () => {
    expect(zonedYearMonth(new Date("2026-12-01T03:00:00Z"), "America/Los_Angeles")).toEqual({ year: 2026, month: 11 });
    expect(zonedMonthStart(new Date("2026-01-15T12:00:00Z"), "America/New_York", -1).toISOString()).toBe("2025-12-01T05:00:00.000Z");
  });

  it.each([
    ["2026-12-01T03:00:00Z", "America/Los_Angeles", "2026-11-30"],
    ["2026-12-01T03:00:00Z", "America/New_York", "2026-11-30"],
    ["2026-12-01T05:00:00Z", "America/New_York", "2026-12-01"],
    ["2026-03-08T08:30:00Z", "America/Denver", "2026-03-08"],
    ["2026-07-04T23:59:59Z", "UTC", "2026-07-04"],
    ["2027-01-01T00:00:00Z", "Pacific/Honolulu", "2026-12-31"],
  ])("the calendar date of %s in %s is %s (one cached formatter per zone, used again and again)", (at, tz, date) => {
    expect(zonedDate(new Date(at), tz)).toBe(date);
    expect(zonedDate(new Date(at), tz)).toBe(date);
  });
});

describe("header initials (probe 8921 #7)", () => {
  it.each([
    ["Jasmine Carter", "JC"],
    ["  ana   maría  ", "AM"],
    ["😀 Jasmine", "😀J"],
    ["𝒜lice 𝔅ob", "𝒜𝔅"],
    ["👩🏽‍⚕️ Rivera", "👩🏽‍⚕️R"],
    ["Zoë Núñez-O’Brien", "ZN"],
    ["e\u0301mile zola", "E\u0301Z"],
    ["Émile", "É"],
    ["", "U"],
    ["   ", "U"],
  ])("%j → %j", (name, expected) => {
    const got = initials(name);
    expect(got).toBe(expected);
    expect(got).not.toMatch(/\p{Cs}/u); // never half a surrogate pair
  });
});
