import { describe, expect, it } from "vitest";
import { claimParties, PARTY_DETAIL_KEYS, profileDiagnoses, type PartyRows } from "~/domain/claim-parties";

/** The scrubber reads only PARTY_DETAIL_KEYS of a client's details (decision 034): they must give the same parties. */
const rows = (details: Record<string, unknown>): PartyRows => ({
  patient: { firstName: "Leo", lastName: "Park", birthDate: "2001-02-03", gender: 1, details: JSON.stringify(details) },
  location: { title: "Chicago North", address: "1 State St", city: "Chicago", state: "IL", zip: "60602-1234", phone1: "312-555-0100", npi: "1234567893", taxId: "361234567" },
  provider: { name: "Ryan", surname: "Ortiz", profile: JSON.stringify({ npi: "1234567893", bio: "x" }) },
  insurer: { name: "Prairie Health", payerId: "PRH01" },
});

const only = (d: Record<string, unknown>) => Object.fromEntries(Object.entries(d).filter(([k]) => (PARTY_DETAIL_KEYS as readonly string[]).includes(k)));

describe("profileDiagnoses: principal then secondary, one per code as the file writes it (decision 032, stop 31, later)", () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ["a secondary written without the dot is the principal", { diagnosis_code: "F84.0", secondary_diagnosis_codes: "F840, f80.2, F80.2, F80.20" }, ["F84.0", "F80.2", "F80.20"]],
    ["lower case and spaces, in a list", { diagnosis_code: " f84.0 ", secondary_diagnosis_codes: ["F840", " f90.9", "F90.9", "f909"] }, ["F84.0", "F90.9"]],
    ["the first-written form is kept", { diagnosis_code: "", secondary_diagnosis_codes: "F802; F80.2" }, ["F802"]],
  ])("%s", (_name, details, expected) => {
    expect(profileDiagnoses(JSON.stringify(details))).toEqual(expected);
  });
});

describe("claimParties read through PARTY_DETAIL_KEYS", () => {
  it.each([
    ["a self-subscriber", { is_self_subscriber: "1", insuranceId: "M1", insured_policy_group: "G", address: "5 Elm", city: "Chicago", state: "IL", zip: "60601", diagnosis_code: "F84.0", special_note: "long text" }],
    ["a parent subscriber with their own address", { parent_name: "Nguyen, Laura", parent_birth_date: "1980-01-01", parent_gender: "2", parent_address: "9 Oak", parent_city: "Evanston", parent_state: "IL", parent_zip: "60201", address: "5 Elm", city: "Chicago", state: "IL", zip: "60601", insuranceId: "M2", secondary_diagnosis_codes: ["F90.2"] }],
    ["a parent subscriber without one", { parent_name: "Laura Nguyen", address: "5 Elm", zip: "60601", secondary_diagnosis_codes: "F90.2; F41.1" }],
  ])("%s: the same parties and diagnoses", (_name, details) => {
    expect(claimParties(rows(only(details)))).toEqual(claimParties(rows(details)));
    expect(profileDiagnoses(JSON.stringify(only(details)))).toEqual(profileDiagnoses(JSON.stringify(details)));
  });
});
