import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { locations, rateRecords } from "~/db/schema";
import type { ListQuery } from "~/domain/paging";
import type { Permission } from "~/domain/permissions";
import { parseRateInfo } from "~/domain/rates";
import { getActor } from "~/models/actors.server";
import type { ModelContext } from "~/models/context";
import { createRateRecord, deleteRateRecord, getRateRecord, listRateRecords, updateRateRecord } from "~/models/rate-records.server";
import { api, apiToken, createLocation, createUser, db, form, request, signInCookie, withoutFlashTag } from "./helpers";

/** Rate/pay records (platform §3): the model, and the screens under /insurance/rates. */

async function contextFor(locationIds: number[], role?: string): Promise<ModelContext> {
  const user = await createUser({ permissions: ["manage_insurances"], locations: locationIds, role });
  const actor = await getActor(db(), "user", user.id);
  return { db: db(), actor: actor!, ip: "127.0.0.1", now: () => new Date() };
}
const query: ListQuery = { page: 1, per_page: 100, search: "", date_from: "", date_to: "", cache: false };

describe("rate records", () => {
  it("creates, reads, updates (versioned) and soft-deletes within the actor's locations", async () => {
    const loc = await createLocation();
    const ctx = await contextFor([loc.id]);
    const created = await createRateRecord(ctx, { name: "Standard", location_id: loc.id, rbt: 20, bcba: "45.5", client: 60, info: { rbt: ["Per hour", " "], bcba: [], manager: ["Monthly"] } });
    expect(created.ok).toBe(true);
    if (!created.ok) return;
    expect(created.data).toMatchObject({ name: "Standard", rbt: 20, bcba: 45.5, manager: null, client: 60, info: { rbt: ["Per hour"], bcba: [], manager: ["Monthly"] }, version: 1 });

    const updated = await updateRateRecord(ctx, created.data.id, { rbt: 22 }, { partial: true, version: 1 });
    expect(updated).toMatchObject({ ok: true, data: { rbt: 22, bcba: 45.5, version: 2 } });
    const stale = await updateRateRecord(ctx, created.data.id, { rbt: 99 }, { partial: true, version: 1 });
    expect(stale).toMatchObject({ ok: false, status: 409, current: { rbt: 22 } });

    expect(((await listRateRecords(ctx, query)) as { data: { data: { id: number }[] } }).data.data.map((r) => r.id)).toEqual([created.data.id]);
    expect(await deleteRateRecord(ctx, created.data.id)).toMatchObject({ ok: true });
    expect(await getRateRecord(ctx, created.data.id)).toBeNull();
    const [row] = await db().select().from(rateRecords).where(eq(rateRecords.id, created.data.id));
    expect(row!.deletedAt).not.toBeNull();
  });

  it("hides another location's records (404) and refuses to write into one", async () => {
    const mine = await createLocation();
    const other = await createLocation();
    const ctx = await contextFor([mine.id]);
    const [theirs] = await db().insert(rateRecords).values({ name: "Theirs", locationId: other.id }).returning();
    expect(await getRateRecord(ctx, theirs!.id)).toBeNull();
    expect(((await listRateRecords(ctx, query)) as { data: { data: { id: number }[] } }).data.data.find((r) => r.id === theirs!.id)).toBeUndefined();
    expect(await updateRateRecord(ctx, theirs!.id, { name: "Mine now", location_id: mine.id }, { partial: false, version: null })).toMatchObject({ ok: false, status: 404 });
    expect(await deleteRateRecord(ctx, theirs!.id)).toMatchObject({ ok: false, status: 404 });
    expect(await createRateRecord(ctx, { name: "Sneaky", location_id: other.id })).toMatchObject({ ok: false, status: 422, errors: { location_id: "Choose a valid option." } });
  });

  it("a save that keeps a stored location deleted meanwhile saves; naming a deleted location is refused (decision 017, stop 40)", async () => {
    const gone = await createLocation();
    const alsoGone = await createLocation();
    const [stored] = await db().insert(rateRecords).values({ name: "Old clinic rates", locationId: gone.id, rbt: 20 }).returning();
    await db().update(locations).set({ deletedAt: "2026-01-01T00:00:00.000Z" }).where(eq(locations.id, gone.id));
    await db().update(locations).set({ deletedAt: "2026-01-01T00:00:00.000Z" }).where(eq(locations.id, alsoGone.id));
    const token = await apiToken(await createUser({ role: "ADMIN" }));
    const patch = (body: Record<string, unknown>) => api(`/v2/rate-records/${stored!.id}`, { method: "PATCH", token, body });
    const kept = await patch({ rbt: 21 });
    expect(kept.status, await kept.clone().text()).toBe(200);
    expect(await kept.json()).toMatchObject({ data: { rbt: 21, location_id: gone.id } });
    expect((await patch({ rbt: 22, location_id: gone.id })).status).toBe(200);
    const moved = await patch({ location_id: alsoGone.id });
    expect(moved.status).toBe(422);
    expect(((await moved.json()) as { errors: Record<string, string> }).errors.location_id).toBe("Choose a valid option.");
    expect((await db().select().from(rateRecords).where(eq(rateRecords.id, stored!.id)))[0]).toMatchObject({ locationId: gone.id, rbt: 22 });
  });

  it.each([
    [{ name: "" }, "name", "Name is required."],
    [{ name: "No place", location_id: "" }, "location_id", "Location is required."],
    [{ name: "Negative", rbt: -1 }, "rbt", "RBT amount must be 0 or more."],
    [{ name: "Bad info", info: { rbt: "x".repeat(256) } }, "info", "RBT info lines must be at most 255 characters."],
  ])("refuses bad input with 422 and writes nothing (%#)", async (input, field, message) => {
    const loc = await createLocation();
    const ctx = await contextFor([loc.id]);
    const before = await db().select().from(rateRecords);
    const result = await createRateRecord(ctx, { location_id: loc.id, ...input });
    expect(result.ok).toBe(false);
    if (!result.ok && result.status === 422) expect(Object.entries(result.errors).find(([k]) => k.startsWith(field))?.[1]).toBe(message);
    else throw new Error("expected 422");
    expect(await db().select().from(rateRecords)).toHaveLength(before.length);
  });
});

describe("rate record screens", () => {
  const screenUser = async (locationIds: number[], permissions: Permission[] = ["manage_insurances"]) => signInCookie(await createUser({ permissions, locations: locationIds }));
  const fields = (locationId: number, over: Record<string, string> = {}) => ({
    intent: "save",
    name: "Weekday",
    location_id: String(locationId),
    rbt: "21.5",
    bcba: "48",
    manager: "",
    client: "75",
    info_rbt: "Per hour\r\nTravel paid",
    info_bcba: "",
    info_manager: "Monthly",
    ...over,
  });
  const stored = (id: number) => db().select().from(rateRecords).where(eq(rateRecords.id, id)).then((r) => r[0]!);

  it("lists with search, location filter and pages; registers; the insurance list links here", async () => {
    const mine = await createLocation();
    const second = await createLocation();
    const cookie = await screenUser([mine.id, second.id]);
    await db().insert(rateRecords).values([{ name: "Alpha rates", locationId: mine.id }, { name: "Beta rates", locationId: second.id }, { name: "Faraway rates", locationId: (await createLocation()).id }]);

    expect(await (await request("/insurance/list", { cookie })).text()).toContain('href="/insurance/rates"');
    const all = await (await request("/insurance/rates", { cookie })).text();
    expect(all).toContain("Alpha rates");
    expect(all).toContain("Beta rates");
    expect(all).not.toContain("Faraway rates");
    const searched = await (await request("/insurance/rates?search=Alpha", { cookie })).text();
    expect(searched).toContain("Alpha rates");
    expect(searched).not.toContain("Beta rates");
    const filtered = await (await request(`/insurance/rates?location_id=${second.id}`, { cookie })).text();
    expect(filtered).toContain("Beta rates");
    expect(filtered).not.toContain("Alpha rates");
    const paged = await (await request("/insurance/rates?per_page=1&page=2", { cookie })).text();
    expect(paged).toContain("Beta rates");
    expect(paged).not.toContain("Alpha rates");

    expect((await request("/insurance/rates/register", { cookie })).status).toBe(200);
    const created = await form("/insurance/rates/register", fields(mine.id, { name: "Gamma rates" }), cookie);
    expect(created.status).toBe(303);
    expect(withoutFlashTag(created.headers.get("Location"))).toMatch(/^\/insurance\/rates\?flash=/);
    const [row] = await db().select().from(rateRecords).where(eq(rateRecords.name, "Gamma rates"));
    expect(row).toMatchObject({ locationId: mine.id, rbt: 21.5, bcba: 48, manager: null, client: 75 });
    expect(parseRateInfo(row!.info)).toEqual({ rbt: ["Per hour", "Travel paid"], bcba: [], manager: ["Monthly"] });
  });

  it("the info lists round-trip through the edit screen", async () => {
    const loc = await createLocation();
    const cookie = await screenUser([loc.id]);
    const [rec] = await db()
      .insert(rateRecords)
      .values({ name: "Round trip", locationId: loc.id, info: JSON.stringify({ rbt: ["One", "Two & three"], bcba: ["<b>Bold</b>"], manager: [] }) })
      .returning();
    const html = await (await request(`/insurance/rates/edit/${rec!.id}`, { cookie })).text();
    expect(html).toMatch(/name="info_rbt"[^>]*>\s*One\nTwo &amp; three<\/textarea>/);
    expect(html).toMatch(/name="info_bcba"[^>]*>\s*&lt;b&gt;Bold&lt;\/b&gt;<\/textarea>/);
    // Posting back what the screen showed keeps the lists as they were.
    const res = await form(`/insurance/rates/edit/${rec!.id}`, { ...fields(loc.id, { name: "Round trip" }), version: "1", info_rbt: "One\nTwo & three", info_bcba: "<b>Bold</b>", info_manager: "" }, cookie);
    expect(res.status).toBe(303);
    expect(parseRateInfo((await stored(rec!.id)).info)).toEqual({ rbt: ["One", "Two & three"], bcba: ["<b>Bold</b>"], manager: [] });
  });

  it("an info entry stored with a line break (before the one-line rule) reads with a space: untouched save and API PATCH keep it one entry (probe 8925 §4)", async () => {
    const loc = await createLocation();
    const user = await createUser({ permissions: ["manage_insurances"], locations: [loc.id] });
    const [rec] = await db().insert(rateRecords).values({ name: "Old break", locationId: loc.id }).returning();
    const id = rec!.id;
    const stored2 = (info: unknown) => db().update(rateRecords).set({ info: JSON.stringify(info) }).where(eq(rateRecords.id, id));
    await stored2({ rbt: ["Hourly\nrate", "Weekend rate"], bcba: ["Line\r\nbreak"], manager: [] });
    const token = await apiToken(user);
    const got = await api(`/v2/rate-records/${id}`, { token });
    expect(((await got.json()) as { data: { info: unknown } }).data.info).toEqual({ rbt: ["Hourly rate", "Weekend rate"], bcba: ["Line break"], manager: [] });
    // The edit screen shows the entry on one line; saving it untouched keeps two RBT entries.
    const cookie = await signInCookie(user);
    const html = await (await request(`/insurance/rates/edit/${id}`, { cookie })).text();
    expect(html).toMatch(/name="info_rbt"[^>]*>\s*Hourly rate\nWeekend rate<\/textarea>/);
    const saved = await form(`/insurance/rates/edit/${id}`, { ...fields(loc.id, { name: "Old break" }), version: "1", info_rbt: "Hourly rate\nWeekend rate", info_bcba: "Line break", info_manager: "" }, cookie);
    expect(saved.status).toBe(303);
    expect(parseRateInfo((await stored(id)).info)).toEqual({ rbt: ["Hourly rate", "Weekend rate"], bcba: ["Line break"], manager: [] });
    // An API PATCH of another field saves (no 422 for the stored entry) and stores the entry as read.
    await stored2({ rbt: ["Hourly\nrate", "Weekend rate"], bcba: [], manager: [] });
    const patched = await api(`/v2/rate-records/${id}`, { method: "PATCH", token, body: { name: "Renamed" } });
    expect(patched.status, await patched.clone().text()).toBe(200);
    expect(await stored(id)).toMatchObject({ name: "Renamed", version: 3 });
    expect(parseRateInfo((await stored(id)).info).rbt).toEqual(["Hourly rate", "Weekend rate"]);
  });

  it("403 without manage_insurances; another location's record is 404 for show, save and delete", async () => {
    const mine = await createLocation();
    const other = await createLocation();
    const [theirs] = await db().insert(rateRecords).values({ name: "Theirs", locationId: other.id }).returning();
    const denied = await screenUser([mine.id], ["view_clients"]);
    for (const path of ["/insurance/rates", "/insurance/rates/register", `/insurance/rates/edit/${theirs!.id}`]) expect((await request(path, { cookie: denied })).status, path).toBe(403);
    expect((await form("/insurance/rates/register", fields(mine.id), denied)).status).toBe(403);
    expect((await form(`/insurance/rates/edit/${theirs!.id}`, { intent: "delete", confirmed: "yes" }, denied)).status).toBe(403);

    const cookie = await screenUser([mine.id]);
    expect((await request(`/insurance/rates/edit/${theirs!.id}`, { cookie })).status).toBe(404);
    expect((await form(`/insurance/rates/edit/${theirs!.id}`, { ...fields(mine.id), version: "1" }, cookie)).status).toBe(404);
    expect((await form(`/insurance/rates/edit/${theirs!.id}`, { intent: "delete", confirmed: "yes" }, cookie)).status).toBe(404);
    expect((await form(`/insurance/rates/edit/${theirs!.id}`, { intent: "other" }, cookie)).status).toBe(404);
    expect(await stored(theirs!.id)).toMatchObject({ name: "Theirs", version: 1, deletedAt: null });
  });

  it.each([
    [{ name: "" }, "Name is required."],
    [{ location_id: "" }, "Location is required."],
    [{ rbt: "-3" }, "RBT amount must be 0 or more."],
    [{ client: "lots" }, "Client amount must be a number."],
    [{ info_manager: "x".repeat(256) }, "Manager info lines must be at most 255 characters."],
  ])("register refuses bad input with the field message, keeps the typed values and writes nothing (%#)", async (over, message) => {
    const loc = await createLocation();
    const cookie = await screenUser([loc.id]);
    const before = (await db().select().from(rateRecords)).length;
    const res = await form("/insurance/rates/register", fields(loc.id, { name: "Typed name", bcba: "48.25", info_rbt: "Kept line", ...over }), cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain(message);
    expect(html).toContain('class="field-error"');
    if (!("name" in over)) expect(html).toContain('value="Typed name"');
    expect(html).toContain('value="48.25"');
    expect(html).toMatch(/name="info_rbt"[^>]*>\s*Kept line<\/textarea>/);
    expect(await db().select().from(rateRecords)).toHaveLength(before);
  });

  it("a location outside the actor's is refused on register", async () => {
    const loc = await createLocation();
    const cookie = await screenUser([loc.id]);
    const before = (await db().select().from(rateRecords)).length;
    const res = await form("/insurance/rates/register", fields((await createLocation()).id), cookie);
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("Choose a valid option.");
    expect(await db().select().from(rateRecords)).toHaveLength(before);
  });

  it("edit: bad input keeps the typed values; a stale version answers 409 with the current values; delete needs the confirm step", async () => {
    const loc = await createLocation();
    const cookie = await screenUser([loc.id]);
    const [rec] = await db().insert(rateRecords).values({ name: "Versioned", locationId: loc.id, rbt: 20 }).returning();
    const path = `/insurance/rates/edit/${rec!.id}`;

    const bad = await form(path, { ...fields(loc.id, { name: "Typed edit", rbt: "-1" }), version: "1" }, cookie);
    expect(bad.status).toBe(422);
    const badHtml = await bad.text();
    expect(badHtml).toContain("RBT amount must be 0 or more.");
    expect(badHtml).toContain('value="Typed edit"');
    expect(await stored(rec!.id)).toMatchObject({ name: "Versioned", rbt: 20, version: 1 });

    const saved = await form(path, { ...fields(loc.id, { name: "Saved once", rbt: "22" }), version: "1" }, cookie);
    expect(saved.status).toBe(303);
    expect(withoutFlashTag(saved.headers.get("Location"))).toMatch(new RegExp(`^${path}\\?flash=`));
    expect(await stored(rec!.id)).toMatchObject({ name: "Saved once", rbt: 22, version: 2 });

    const stale = await form(path, { ...fields(loc.id, { name: "Stale edit", rbt: "99" }), version: "1" }, cookie);
    expect(stale.status).toBe(409);
    const staleHtml = await stale.text();
    expect(staleHtml).toContain("Someone else saved a newer version of this record.");
    expect(staleHtml).toContain('value="Saved once"');
    expect(staleHtml).toContain('name="version" value="2"');
    // The form shows the stored name; the name typed is listed as not saved (decision 017, stop 37).
    expect(staleHtml).not.toContain('value="Stale edit"');
    expect(staleHtml).toContain('<dt>Name</dt><dd style="white-space:pre-line">Stale edit</dd>');
    expect(await stored(rec!.id)).toMatchObject({ name: "Saved once", rbt: 22, version: 2 });

    const page = await (await request(path, { cookie })).text();
    expect(page).toContain('?confirm=delete"');
    expect(page).not.toContain('name="intent" value="delete"');
    const confirm = await (await request(`${path}?confirm=delete`, { cookie })).text();
    expect(confirm).toContain("Are you sure you want to delete the rate record");
    expect(confirm).toContain('name="intent" value="delete"');
    const deleted = await form(path, { intent: "delete", confirmed: "yes" }, cookie);
    expect(deleted.status).toBe(303);
    expect(withoutFlashTag(deleted.headers.get("Location"))).toMatch(/^\/insurance\/rates\?flash=/);
    expect((await stored(rec!.id)).deletedAt).not.toBeNull();
    expect((await request(path, { cookie })).status).toBe(404);
  });
});
