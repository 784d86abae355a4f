import { describe, expect, it } from "vitest";
import { createLocation, createPatient, createUser, request, signInCookie } from "./helpers";

/**
 * A list parameter given twice with two values is not read by the screens (decision 017): the API answers 422 "Give
 * page once."; a screen shows the same message, the first page for a list query parameter, and the list without the
 * filters for a filter. It used to take the last value without a word.
 */
describe("a list screen's parameter given twice", () => {
  it("the clients list shows 'Give … once.' and does not pick one of the two values", async () => {
    const loc = await createLocation();
    await createPatient({ locationId: loc.id, lastName: "Ashford", status: "active" });
    await createPatient({ locationId: loc.id, lastName: "Brennan", status: "active" });
    await createPatient({ locationId: loc.id, lastName: "Castillo", status: "inactive" });
    const cookie = await signInCookie(await createUser({ permissions: ["view_clients"], locations: [loc.id] }));
    const page = async (query: string) => {
      const res = await request(`/patients/list?${query}`, { cookie });
      expect(res.status, query).toBe(200);
      return res.text();
    };
    type Case = [query: string, message: string | null, shows: RegExp, names: string[]];
    const cases: Case[] = [
      // The first page of the whole list, whichever order the two values come in.
      ["per_page=1&page=2&page=1", "Give page once.", /Showing 1 to 3 of 3 entries/, ["Ashford", "Brennan", "Castillo"]],
      ["per_page=1&page=1&page=2", "Give page once.", /Showing 1 to 3 of 3 entries/, ["Ashford", "Brennan", "Castillo"]],
      ["per_page=1&per_page=2", "Give per_page once.", /Showing 1 to 3 of 3 entries/, ["Ashford", "Brennan", "Castillo"]],
      ["search=Ashford&search=Brennan", "Give search once.", /Showing 1 to 3 of 3 entries/, ["Ashford", "Brennan", "Castillo"]],
      // A filter given twice: the list without the filters, the page asked for kept.
      ["status=active&status=inactive", "Give status once.", /Showing 1 to 3 of 3 entries/, ["Ashford", "Brennan", "Castillo"]],
      [`location_id=${loc.id}&location_id=999999&per_page=2&page=2`, "Give location_id once.", /Showing 3 to 3 of 3 entries/, []],
      // The same value twice is one value.
      ["per_page=1&page=2&page=2", null, /Showing 2 to 2 of 3 entries/, []],
      ["status=inactive&status=inactive", null, /Showing 1 to 1 of 1 entries/, ["Castillo"]],
    ];
    for (const [query, message, shows, names] of cases) {
      const html = await page(query);
      for (const said of ["page", "per_page", "search", "status", "location_id"].map((k) => `Give ${k} once.`)) {
        if (said === message) expect(html, query).toContain(said);
        else expect(html, query).not.toContain(said);
      }
      expect(html, query).toMatch(shows);
      for (const name of names) expect(html, `${query}: ${name}`).toContain(name);
      expect(html, query).not.toContain("There is no page");
    }
  });

  it("the notes list shows 'Give … once.' and no filter chip for a filter it did not apply", async () => {
    const loc = await createLocation();
    const a = await createPatient({ locationId: loc.id, lastName: "Ashford" });
    const b = await createPatient({ locationId: loc.id, lastName: "Brennan" });
    const cookie = await signInCookie(await createUser({ permissions: ["view_notes"], locations: [loc.id] }));
    const cases: [query: string, message: string | null][] = [
      ["page=2&page=1", "Give page once."],
      ["date_from=2026-01-01&date_from=2026-02-01", "Give date_from once."],
      [`patient_id=${a.id}&patient_id=${b.id}`, "Give patient_id once."],
      ["type=rbt&type=bcba", "Give type once."],
      [`patient_id=${a.id}&patient_id=${a.id}`, null],
    ];
    for (const [query, message] of cases) {
      const res = await request(`/notes-list?${query}`, { cookie });
      expect(res.status, query).toBe(200);
      const html = await res.text();
      if (message) {
        expect(html, query).toContain(message);
        // No chip says the list is of one client.
        expect(html, query).not.toContain(`client #${a.id}`);
        expect(html, query).not.toContain(`client #${b.id}`);
      } else {
        expect(html, query).not.toMatch(/Give \w+ once\./);
      }
    }
  });
});
