import { describe, expect, it } from "vitest";
import { changeDetail, changeText } from "~/domain/audit-changes";

/** An update's audit detail (decision 019, stop 43): names for every changed field, values only for the shown ones. */
describe("changeDetail", () => {
  it.each([
    ["nothing changed", { a: 1, note: "x" }, { a: 1, note: "x" }, { changed: [] }],
    ["a shown field: old and new value", { n_units: 960 }, { n_units: 100 }, { changed: ["n_units"], from: { n_units: 960 }, to: { n_units: 100 } }],
    ["a text field: its name only", { note: "old secret" }, { note: "new secret" }, { changed: ["note"] }],
    ["both, in the written order", { note: "a", n_units: 1 }, { note: "b", n_units: 2 }, { changed: ["note", "n_units"], from: { n_units: 1 }, to: { n_units: 2 } }],
    ["a shown field cleared", { n_units: 5 }, { n_units: null }, { changed: ["n_units"], from: { n_units: 5 }, to: { n_units: null } }],
    ["blank, null, an unticked flag and an empty list read as no value", { note: "", flag: undefined, list: null }, { note: null, flag: false, list: [] }, { changed: [] }],
    ["a field not written did not change", { note: "a", n_units: 1 }, { n_units: 1 }, { changed: [] }],
    ["lists compare as given", { roles: [1, 2] }, { roles: [1, 3] }, { changed: ["roles"], from: { roles: [1, 2] }, to: { roles: [1, 3] } }],
    ["a switch turned off: false is shown, not dropped", { n_units: true }, { n_units: false }, { changed: ["n_units"], from: { n_units: true }, to: { n_units: false } }],
    ["a switch turned on", { n_units: false }, { n_units: true }, { changed: ["n_units"], from: { n_units: false }, to: { n_units: true } }],
    ["every permission removed", { roles: ["view_notes"] }, { roles: [] }, { changed: ["roles"], from: { roles: ["view_notes"] }, to: { roles: [] } }],
    ["a price", { n_units: 17.25 }, { n_units: 20 }, { changed: ["n_units"], from: { n_units: 17.25 }, to: { n_units: 20 } }],
  ])("%s", (_name, stored, written, expected) => {
    expect(changeDetail(stored, written, ["n_units", "roles"])).toEqual(expected);
  });
});

describe("changeText (the logs report's Changes)", () => {
  it.each([
    [null, ""],
    ["not json", ""],
    [JSON.stringify({ patients: [1, 2] }), ""],
    [JSON.stringify({ changed: [] }), "no field changed"],
    [JSON.stringify({ changed: ["phone", "note"] }), "phone; note"],
    [JSON.stringify({ changed: ["n_units", "insurance_id"], from: { n_units: 960, insurance_id: 3 }, to: { n_units: 100, insurance_id: null } }), "n_units: 960 → 100; insurance_id: 3 → none"],
    [JSON.stringify({ changed: ["roles"], from: { roles: [{ id: 3, name: "RBT" }] }, to: { roles: [{ id: 3, name: "RBT" }, { id: 8, name: "MANAGER" }] } }), "roles: [#3 RBT] → [#3 RBT, #8 MANAGER]"],
    [JSON.stringify({ changed: ["portal_show_narrative"], from: { portal_show_narrative: true }, to: { portal_show_narrative: false } }), "portal_show_narrative: true → false"],
    [JSON.stringify({ changed: ["permissions"], from: { permissions: ["view_clients"] }, to: { permissions: ["manage_employees", "view_clients"] } }), "permissions: [view_clients] → [manage_employees, view_clients]"],
    [JSON.stringify({ insurance_id: 4, changed: ["unit_price", "description"], from: { unit_price: 17.25 }, to: { unit_price: 20 } }), "unit_price: 17.25 → 20; description"],
    [JSON.stringify({ changed: ["rbt"], from: { rbt: 21 }, to: { rbt: 35 }, effective_from: "2026-11-28" }), "rbt: 21 → 35"],
    [JSON.stringify({ changed: ["locations", "employment"], from: { locations: [1] }, to: { locations: [1, 2] }, cancelled_future_sessions: "provider_left_location" }), "locations: [1] → [1, 2]; employment"],
  ])("%s → %s", (detail, text) => {
    expect(changeText(detail)).toBe(text);
  });
});
