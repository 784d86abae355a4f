import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { locations, rateRecords, userLocations, users } from "~/db/schema";
import { createLocation, createPatient, createUser, db, form, request, signInCookie, withoutFlashTag, withFlashTag } from "./helpers";

/** The location screens (platform §2 location routes, §3 Location), driven as a browser without JavaScript would. */

const MANAGE = ["manage_locations_access", "manage_locations"] as const;

function post(path: string, fields: Record<string, string | string[]>, cookie: string) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
  return request(path, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

const valid = { intent: "save", title: "Tampa Clinic", address: "1 Bay St", city: "Tampa", state: "FL", zip: "33602", phone1: "813-555-0100", phone2: "", email: "tampa@clinic.test", telfax: "", time_zone: "America/New_York", pos_codes: ["11", "12"] };

async function row(id: number) {
  const [r] = await db().select().from(locations).where(eq(locations.id, id));
  return r!;
}

async function manager(locationIds: number[]) {
  return signInCookie(await createUser({ permissions: [...MANAGE], locations: locationIds }));
}

describe("/location and /location/list", () => {
  it("/location redirects to the list", async () => {
    const cookie = await signInCookie(await createUser({ permissions: ["manage_locations_access"] }));
    const res = await request("/location", { cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/location/list");
  });

  it("lists only the user's own locations, with POS labels; no manage links without manage_locations", async () => {
    const mine = await createLocation({ title: "Mine Clinic", city: "Miami", posCodes: "02,11" });
    const other = await createLocation({ title: "Other Clinic" });
    const cookie = await signInCookie(await createUser({ permissions: ["manage_locations_access"], locations: [mine.id] }));
    const res = await request("/location/list", { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Mine Clinic");
    expect(html).toContain("02 Telehealth, 11 Office");
    expect(html).toContain(`/location/view/${mine.id}`);
    expect(html).not.toContain(other.title);
    expect(html).not.toContain("Register location");
    expect(html).not.toContain(`/location/list/edit/${mine.id}`);
    expect(html).toContain("Showing 1 to 1 of 1 entries");
  });

  it("shows edit links and the register button to a manager, and a flash message", async () => {
    const mine = await createLocation();
    const res = await request(await withFlashTag("/location/list?flash=Location%20deleted."), { cookie: await manager([mine.id]) });
    const html = await res.text();
    expect(html).toContain(`/location/list/edit/${mine.id}`);
    expect(html).toContain("Register location");
    expect(html).toContain("Location deleted.");
  });

  it("search filters by title or city; nothing found shows the empty state", async () => {
    const a = await createLocation({ title: "Harbor Clinic", city: "Boston" });
    const b = await createLocation({ title: "Summit Clinic", city: "Denver" });
    const cookie = await manager([a.id, b.id]);
    const byTitle = await (await request("/location/list?search=harbor", { cookie })).text();
    expect(byTitle).toContain("Harbor Clinic");
    expect(byTitle).not.toContain("Summit Clinic");
    const byCity = await (await request("/location/list?search=Denver", { cookie })).text();
    expect(byCity).toContain("Summit Clinic");
    expect(byCity).not.toContain("Harbor Clinic");
    const none = await (await request("/location/list?search=nowhere-at-all", { cookie })).text();
    expect(none).toContain("No data to display.");
  });

  it("paginates", async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createLocation({ title: `Page Clinic ${i}` })).id);
    const html = await (await request("/location/list?per_page=2&page=2", { cookie: await manager(ids) })).text();
    expect(html).toContain("Page Clinic 2");
    expect(html).not.toContain("Page Clinic 0");
    expect(html).toContain("Showing 3 to 3 of 3 entries");
  });
});

describe("/location/register", () => {
  it("creates the location and redirects to its page with a flash", async () => {
    const cookie = await manager([]);
    const title = `Tampa ${Date.now()}`;
    const res = await post("/location/register", { ...valid, title }, cookie);
    expect(res.status).toBe(303);
    const to = res.headers.get("Location")!;
    expect(withoutFlashTag(to)).toMatch(/^\/location\/view\/\d+\?flash=Location%20created\.$/);
    const id = Number(/view\/(\d+)/.exec(to)![1]);
    const saved = await row(id);
    expect(saved).toMatchObject({ title, city: "Tampa", zip: "33602", posCodes: "11,12", timeZone: "America/New_York", phone2: null });
    const page = await (await request(to, { cookie })).text();
    expect(page).toContain("Location created.");
    expect(page).toContain("11 Office, 12 Home");
  });

  it("refuses bad input with 422, shows the message, keeps what was typed and writes nothing", async () => {
    const cookie = await manager([]);
    const before = (await db().select().from(locations)).length;
    const res = await post("/location/register", { ...valid, title: "Typed Title Kept", email: "not-an-email", pos_codes: [] }, cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain("Enter a valid email address.");
    expect(html).toContain("Choose at least one place-of-service code.");
    expect(html).toContain('value="Typed Title Kept"');
    expect(html).toContain('value="not-an-email"');
    expect((await db().select().from(locations)).length).toBe(before);
  });

  it("offers the common time zones and every POS code", async () => {
    const html = await (await request("/location/register", { cookie: await manager([]) })).text();
    expect(html).toContain('<option value="America/Chicago">');
    expect(html).toContain("02 Telehealth");
    expect(html).toContain("10 Telehealth in Patient Home");
  });

  it("refuses to delete a location where an employee still works, with the message; once they move, it goes", async () => {
    const loc = await createLocation({ title: "Has Staff" });
    const other = await createLocation();
    const rbt = await createUser({ permissions: ["view_clients"], locations: [loc.id] });
    const cookie = await manager([loc.id, other.id]);
    // From the confirm step (probe 8972): the refusal is said there, as before.
    const res = await form(`/location/list/edit/${loc.id}?confirm=delete`, { intent: "delete", confirmed: "yes" }, cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain("1 employee(s) still work at this location: move them to another location first.");
    expect(html).toContain('value="Has Staff"');
    expect((await row(loc.id)).deletedAt).toBeNull();
    await db().update(userLocations).set({ locationId: other.id }).where(eq(userLocations.userId, rbt.id));
    await db().update(users).set({ locationId: other.id }).where(eq(users.id, rbt.id));
    expect((await form(`/location/list/edit/${loc.id}`, { intent: "delete", confirmed: "yes" }, cookie)).status).toBe(303);
    expect((await row(loc.id)).deletedAt).not.toBeNull();
  });

  it("refuses to delete a location that rate records still name, with the message (decision 015, stop 40)", async () => {
    const loc = await createLocation({ title: "Has Rates" });
    await db().insert(rateRecords).values({ name: "Rates", locationId: loc.id, rbt: 20 });
    const res = await form(`/location/list/edit/${loc.id}`, { intent: "delete", confirmed: "yes" }, await manager([loc.id]));
    expect(res.status).toBe(422);
    const body = await res.text();
    expect(body).toContain("1 rate record(s) name this location: give them another location or delete them first.");
    expect((await row(loc.id)).deletedAt).toBeNull();
  });

  it("answers 403 to a user with only manage_locations_access", async () => {
    const cookie = await signInCookie(await createUser({ permissions: ["manage_locations_access"] }));
    expect((await request("/location/register", { cookie })).status).toBe(403);
    expect((await post("/location/register", valid, cookie)).status).toBe(403);
  });
});

describe("/location/list/edit/:id", () => {
  it("shows the stored values and saves a change", async () => {
    const loc = await createLocation({ title: "Before Edit", timeZone: "Europe/Lisbon", posCodes: "03" });
    const cookie = await manager([loc.id]);
    const page = await (await request(`/location/list/edit/${loc.id}`, { cookie })).text();
    expect(page).toContain('value="Before Edit"');
    expect(page).toContain('<option value="Europe/Lisbon" selected="">');
    expect(page).toContain('name="version" value="1"');
    const res = await post(`/location/list/edit/${loc.id}`, { ...valid, title: "After Edit", version: "1" }, cookie);
    expect(res.status).toBe(303);
    expect(withoutFlashTag(res.headers.get("Location"))).toBe(`/location/view/${loc.id}?flash=Location%20updated.`);
    expect(await row(loc.id)).toMatchObject({ title: "After Edit", posCodes: "11,12", version: 2 });
  });

  it("bad input → 422 with the message and the typed value; nothing changes", async () => {
    const loc = await createLocation({ title: "Stays" });
    const res = await post(`/location/list/edit/${loc.id}`, { ...valid, title: "Typed", zip: "ABC", version: "1" }, await manager([loc.id]));
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain("Enter a valid ZIP code (12345 or 12345-6789).");
    expect(html).toContain('value="ABC"');
    expect((await row(loc.id)).title).toBe("Stays");
  });

  // One state rule (decision 017, stop 36): the 2-letter code a claim needs, upper-cased; a stored one kept as it is.
  it.each<[state: string, status: number, stored: string | null]>([
    ["Texas", 422, null],
    ["XX", 422, null],
    ["tx", 303, "TX"],
    ["", 303, null],
  ])("the edit screen with state %j → %s", async (state, status, stored) => {
    const loc = await createLocation({ title: `State ${state}` });
    const res = await post(`/location/list/edit/${loc.id}`, { ...valid, title: `State ${state}`, state, version: "1" }, await manager([loc.id]));
    expect(res.status).toBe(status);
    if (status === 422) {
      const html = await res.text();
      expect(html).toContain("Enter the 2-letter state code (for example FL).");
      expect(html).toContain(`value="${state}"`);
      expect((await row(loc.id)).version).toBe(1);
    } else expect((await row(loc.id)).state).toBe(stored);
  });

  it("a state stored before the rule stays while the form sends it back; changing it to another refused value is 422", async () => {
    const loc = await createLocation({ title: "Old State", state: "Texas" });
    const cookie = await manager([loc.id]);
    expect((await post(`/location/list/edit/${loc.id}`, { ...valid, title: "Old State", state: "Texas", phone1: "813-555-0101", version: "1" }, cookie)).status).toBe(303);
    expect(await row(loc.id)).toMatchObject({ state: "Texas", phone1: "813-555-0101" });
    expect((await post(`/location/list/edit/${loc.id}`, { ...valid, title: "Old State", state: "Florida", version: "2" }, cookie)).status).toBe(422);
    expect((await row(loc.id)).state).toBe("Texas");
  });

  it("a stale version → 409 with a clear message and the current values; nothing changes", async () => {
    const loc = await createLocation({ title: "Original" });
    const cookie = await manager([loc.id]);
    expect((await post(`/location/list/edit/${loc.id}`, { ...valid, title: "First Save", version: "1" }, cookie)).status).toBe(303);
    const res = await post(`/location/list/edit/${loc.id}`, { ...valid, title: "Second Save", version: "1" }, cookie);
    expect(res.status).toBe(409);
    const html = await res.text();
    expect(html).toContain("Someone else saved a newer version of this record.");
    expect(html).toContain('value="First Save"');
    expect(html).toContain('name="version" value="2"');
    expect(await row(loc.id)).toMatchObject({ title: "First Save", version: 2 });
  });

  it("deletes a location without clients and returns to the list with a flash", async () => {
    const loc = await createLocation({ title: "To Delete" });
    const cookie = await manager([loc.id]);
    const res = await form(`/location/list/edit/${loc.id}`, { intent: "delete", confirmed: "yes" }, cookie);
    expect(res.status).toBe(303);
    expect(withoutFlashTag(res.headers.get("Location"))).toBe("/location/list?flash=Location%20deleted.");
    expect((await row(loc.id)).deletedAt).not.toBeNull();
    const list = await (await request("/location/list", { cookie })).text();
    expect(list).not.toContain("To Delete");
    expect((await request(`/location/view/${loc.id}`, { cookie })).status).toBe(404);
  });

  it("refuses to delete a location that still has a client, with the message", async () => {
    const loc = await createLocation({ title: "Has Client" });
    await createPatient({ locationId: loc.id });
    const res = await form(`/location/list/edit/${loc.id}`, { intent: "delete", confirmed: "yes" }, await manager([loc.id]));
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain("This location still has 1 client(s). Move them to another location first.");
    expect(html).toContain('value="Has Client"');
    expect((await row(loc.id)).deletedAt).toBeNull();
  });

  it("answers 403 to a user with only manage_locations_access", async () => {
    const loc = await createLocation();
    const cookie = await signInCookie(await createUser({ permissions: ["manage_locations_access"], locations: [loc.id] }));
    expect((await request(`/location/list/edit/${loc.id}`, { cookie })).status).toBe(403);
    expect((await post(`/location/list/edit/${loc.id}`, { ...valid, version: "1" }, cookie)).status).toBe(403);
    expect((await form(`/location/list/edit/${loc.id}`, { intent: "delete", confirmed: "yes" }, cookie)).status).toBe(403);
    expect((await row(loc.id)).deletedAt).toBeNull();
  });
});

describe("another location's pages", () => {
  it("answer 404 on view and edit, GET and POST, and change nothing", async () => {
    const mine = await createLocation();
    const other = await createLocation({ title: "Not Yours" });
    const cookie = await manager([mine.id]);
    expect((await request(`/location/view/${other.id}`, { cookie })).status).toBe(404);
    expect((await request(`/location/list/edit/${other.id}`, { cookie })).status).toBe(404);
    expect((await post(`/location/list/edit/${other.id}`, { ...valid, version: "1" }, cookie)).status).toBe(404);
    expect((await form(`/location/list/edit/${other.id}`, { intent: "delete", confirmed: "yes" }, cookie)).status).toBe(404);
    expect(await row(other.id)).toMatchObject({ title: "Not Yours", deletedAt: null, version: 1 });
    expect((await request("/location/view/abc", { cookie })).status).toBe(404);
  });

  it("the view page shows details, with an edit link only for managers", async () => {
    const loc = await createLocation({ title: "Detail Clinic", city: "Austin", zip: "73301", posCodes: "99" });
    const viewer = await signInCookie(await createUser({ permissions: ["manage_locations_access"], locations: [loc.id] }));
    const html = await (await request(`/location/view/${loc.id}`, { cookie: viewer })).text();
    expect(html).toContain("Austin");
    expect(html).toContain("73301");
    expect(html).toContain("99 Other");
    expect(html).not.toContain(`/location/list/edit/${loc.id}`);
    const asManager = await (await request(`/location/view/${loc.id}`, { cookie: await manager([loc.id]) })).text();
    expect(asManager).toContain(`/location/list/edit/${loc.id}`);
  });
});

describe("a duplicate title on the location screens (probe 8962 item 4)", () => {
  it("register and edit answer 422 with the message at the title and the typed values; nothing written", async () => {
    const taken = await createLocation({ title: `Miami Clinic ${Date.now()}` });
    const cookie = await manager([]);
    const before = (await db().select().from(locations)).length;
    const res = await post("/location/register", { ...valid, title: ` ${taken.title.toLowerCase()} `, city: "Typed City" }, cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain('id="f-title-error"');
    expect(html).toContain("A location with this title already exists.");
    expect(html).toContain('value="Typed City"');
    expect((await db().select().from(locations)).length).toBe(before);

    const mine = await createLocation({ title: `Mine ${Date.now()}` });
    const edit = await post(`/location/list/edit/${mine.id}`, { ...valid, title: taken.title.toUpperCase(), version: "1" }, await manager([mine.id]));
    expect(edit.status).toBe(422);
    expect(await edit.text()).toContain("A location with this title already exists.");
    expect(await row(mine.id)).toMatchObject({ title: mine.title, version: 1 });
  });
});
