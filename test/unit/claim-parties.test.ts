import { describe, expect, it } from "vitest";
import { claimParties, PARTY_DETAIL_KEYS, patientRelationship, profileDiagnoses, renderingProvider, type PartyRows, type RenderedNote } from "~/domain/claim-parties";

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
    ["a grandmother subscriber", { parent_name: "Nguyen, Mai", relationship: "Grandmother (legal guardian)", address: "5 Elm", city: "Chicago", state: "IL", zip: "60601", insuranceId: "M3" }],
    ["related causes and a referring provider", { is_self_subscriber: true, emmployment: true, auto_accident: "1", other_accident: 1, secondary_auto_accident: true, referring_provider_first_name: "Ana", referring_provider_last_name: "Lee", referring_provider_npi: "1306-849-450", referring_code: "R1", npi: "1234567893" }],
  ])("%s: the same parties and diagnoses", (_name, details) => {
    expect(claimParties(rows(only(details)))).toEqual(claimParties(rows(details)));
    expect(profileDiagnoses(JSON.stringify(only(details)))).toEqual(profileDiagnoses(JSON.stringify(details)));
  });
});

describe("a parent subscriber is their name and member id; the client's address and demographics are the client's own (probe 8981 §2)", () => {
  const client = { firstName: "Leo", lastName: "Park", birthDate: "2001-02-03", gender: "M", address: "5 Elm", city: "Chicago", state: "IL", zip: "60601" };
  it.each([
    ["a parent with a whole address of their own", { parent_address: "9 Oak", parent_city: "Evanston", parent_state: "IL", parent_zip: "60201" }],
    ["a parent with a city, state and ZIP but no street: nothing is taken from the client's record", { parent_city: "Denver", parent_state: "CO", parent_zip: "80202" }],
    ["a parent with no address", {}],
  ])("%s", (_name, parentAddress) => {
    const p = claimParties(rows({ parent_name: "Nguyen, Laura", parent_birth_date: "1980-01-01", parent_gender: "2", ...parentAddress, address: "5 Elm", city: "Chicago", state: "IL", zip: "60601", insuranceId: "M2", insured_policy_group: "G7" }));
    expect(p.subscriber).toEqual({ firstName: "Laura", lastName: "Nguyen", memberId: "M2", groupNumber: "G7", selfSubscriber: false });
    expect(p.patient).toEqual({ ...client, relationship: "19" });
  });

  it("a self-subscriber is the client, address and demographics included, and there is no separate client", () => {
    const p = claimParties(rows({ is_self_subscriber: true, parent_name: "Nguyen, Laura", parent_address: "9 Oak", ...client, insuranceId: "M1" }));
    expect(p.subscriber).toEqual({ ...client, memberId: "M1", groupNumber: null, selfSubscriber: true });
    expect(p.patient).toBeNull();
  });
});

describe("PAT01 from the parent's recorded relationship (probe 8981 §3)", () => {
  it.each<[string | null, string]>([
    [null, "19"],
    ["", "19"],
    ["  ", "19"],
    ["Mother", "19"],
    ["father", "19"],
    ["PARENT", "19"],
    ["Stepmother", "19"],
    ["Step-father", "19"],
    ["Adoptive mother", "19"],
    ["Mother (legal guardian)", "19"],
    ["Mom", "19"],
    ["Spouse", "01"],
    ["husband", "01"],
    ["Wife", "01"],
    ["Life partner", "53"],
    ["Domestic Partner", "53"],
    ["Grandmother (legal guardian)", "G8"],
    ["Grandfather", "G8"],
    ["Guardian", "G8"],
    ["Aunt", "G8"],
    ["Mother-in-law", "G8"],
    ["Ex-wife", "G8"],
    ["Partner", "G8"],
    ["Godparent", "G8"],
    // Spanish, as clinics record it; accented letters are letters of a word.
    ["Madre", "19"],
    ["padre (tutor legal)", "19"],
    ["Mamá", "19"],
    ["Esposa", "01"],
    ["Cónyuge", "01"],
    ["Abuela", "G8"],
    ["Suegra", "G8"],
    ["Comadre", "G8"],
  ])("%j → %s", (recorded, code) => {
    expect(patientRelationship(recorded)).toBe(code);
  });

  it("the client's PAT01 is read from the profile's relationship", () => {
    expect(claimParties(rows({ parent_name: "Nguyen, Mai", relationship: "Grandmother" })).patient?.relationship).toBe("G8");
    expect(claimParties(rows({ parent_name: "Park, Dae", relationship: "Husband" })).patient?.relationship).toBe("01");
  });
});

describe("CLM11 and 2310A from the client's profile (probe 8981 §5)", () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ["no flag", {}, []],
    ["each flag, in the order EM, AA, OA", { other_accident: true, emmployment: "on", auto_accident: 1 }, ["EM", "AA", "OA"]],
    ["flags unticked", { emmployment: false, auto_accident: "0", other_accident: "" }, []],
    ["the secondary insurance's flags are not the claim's (it goes to the primary payer)", { secondary_emmployment: true, secondary_other_accident: true }, []],
  ])("related causes: %s", (_name, details, causes) => {
    expect(claimParties(rows(details)).relatedCauses).toEqual(causes);
  });

  it.each<[string, Record<string, unknown>, unknown]>([
    ["none", { referring_code: "R1" }, null],
    ["blank fields", { referring_provider_first_name: " ", referring_provider_last_name: "", referring_provider_npi: " " }, null],
    ["a name and an NPI typed with dashes", { referring_provider_first_name: " Ana ", referring_provider_last_name: "Lee", referring_provider_npi: "1306-849 450" }, { firstName: "Ana", lastName: "Lee", npi: "1306849450" }],
    ["a name alone (refused by its check)", { referring_provider_last_name: "Lee" }, { firstName: "", lastName: "Lee", npi: null }],
  ])("referring provider: %s", (_name, details, referring) => {
    expect(claimParties(rows(details)).referringProvider).toEqual(referring);
  });
});

describe("the claim's rendering provider: the note's, or its supervisor for a payer that bills under the supervisor (probe 8981 §4)", () => {
  const records = { provider: "RBT's record", supervisor: "supervisor's record" };
  const rbt: RenderedNote = { type: "rbt", providerCredential: "rbt", providerId: 8, supervisorId: 9 };
  it.each<[string, RenderedNote, boolean, { id: number | null; record: string; bySupervisor: boolean }]>([
    ["an RBT's note, the payer bills under the supervisor", rbt, true, { id: 9, record: "supervisor's record", bySupervisor: true }],
    ["an RBT's note, another payer", rbt, false, { id: 8, record: "RBT's record", bySupervisor: false }],
    ["an RBT's note without a supervisor: no rendering provider", { ...rbt, supervisorId: null }, true, { id: null, record: "supervisor's record", bySupervisor: true }],
    ["an RBT note without a credential on record: the note's type says RBT", { ...rbt, providerCredential: null }, true, { id: 9, record: "supervisor's record", bySupervisor: true }],
    ["an RBT note written by a BCBA: the BCBA renders", { ...rbt, providerCredential: "bcba" }, true, { id: 8, record: "RBT's record", bySupervisor: false }],
    ["a BCBA's note", { type: "bcba", providerCredential: "bcba", providerId: 7, supervisorId: null }, true, { id: 7, record: "RBT's record", bySupervisor: false }],
    ["a combined note", { type: "combined", providerCredential: null, providerId: 7, supervisorId: 9 }, true, { id: 7, record: "RBT's record", bySupervisor: false }],
  ])("%s", (_name, note, uses, expected) => {
    expect(renderingProvider(note, uses, records)).toEqual(expected);
  });
});
