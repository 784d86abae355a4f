import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { claimedPrice, priceNote, type PriceService } from "~/domain/billing";
import { BuildInput, canTransition, changedNotesMessage, ClaimIdsInput, CLAIM_MESSAGES, CLAIM_STATUSES, claimsNamed, diagnosesWithoutLine, generateAgain, groupClaims, notesChangedSinceClaim, notesPaidTwice, notesPaidTwiceMessage, type BilledLine, type ClaimStatus, type NoteNow, type PricedClaimNote } from "~/domain/claims";
import { LocationInput } from "~/domain/locations";
import { npiFrom } from "~/domain/npi";
import { diagnosisPointers } from "~/domain/x12-837p";
import { parseWith } from "~/domain/validation";

const services: PriceService[] = [
  { id: 1, insuranceId: 1, locationId: null, cptCode: "97153", modifiers: "", provider: "rbt", type: "rbt", unitPrice: 12.5, multiplier: 1, maxPerDay: null },
  { id: 2, insuranceId: 2, locationId: null, cptCode: "97153", modifiers: "", provider: "rbt", type: "rbt", unitPrice: 15, multiplier: 1, maxPerDay: null },
];
let nextId = 1;
function note(over: Partial<PricedClaimNote> & { md?: string[]; unitPriceCents?: number } = {}): PricedClaimNote {
  const { md, unitPriceCents, ...rest } = over;
  const base = { patientId: 1, locationId: 1, providerId: 10, payerId: 1, sessionDate: "2026-11-02", cptCode: "97153", units: 4, pos: "12", paNumber: "PA1", diagnosisCode: "F84.0", ...rest };
  return { id: nextId++, ...base, price: priceNote(services, { type: "rbt", cptCode: base.cptCode, units: base.units, modifiers: md ?? [], locationId: base.locationId, insurerId: base.payerId, providerCredential: null, unitPriceCents }) };
}

describe("groupClaims: one claim per client + location + provider + payer, one line per CPT + date + modifiers", () => {
  it.each([
    ["same client, provider, payer, day → one claim, one line with summed units", [note(), note()], [[[8, 10000]]]],
    ["two days → two lines", [note(), note({ sessionDate: "2026-11-03" })], [[[4, 5000], [4, 5000]]]],
    ["modifiers split a line", [note(), note({ md: ["HM"] })], [[[4, 5000], [4, 5000]]]],
    ["XP line is $0", [note({ md: ["XP"] })], [[[4, 0]]]],
    ["another provider → another claim", [note(), note({ providerId: 11 })], [[[4, 5000]], [[4, 5000]]]],
    ["another payer → another claim, its own price", [note(), note({ payerId: 2 })], [[[4, 5000]], [[4, 6000]]]],
    ["another client → another claim", [note(), note({ patientId: 2 })], [[[4, 5000]], [[4, 5000]]]],
  ] as const)("%s", (_name, notes, expected) => {
    const claims = groupClaims(notes);
    expect(claims.map((c) => c.lines.map((l) => [l.units, l.chargeCents]))).toEqual(expected);
    for (const c of claims) {
      expect(c.totalCents).toBe(c.lines.reduce((s, l) => s + l.chargeCents, 0));
      expect(c.lines.map((l) => l.lineNumber)).toEqual(c.lines.map((_, i) => i + 1));
    }
  });

  // Probe 8885 #3: a combined note's own price merged with a priced note gave "8 units × $28.50 = $214.04".
  it.each([
    ["same price → one line", [note(), note({ unitPriceCents: 1250 })], [[8, 1250, 10000]]],
    ["a note's own price → its own line", [note(), note({ unitPriceCents: 2501 })], [[4, 1250, 5000], [4, 2501, 10004]]],
  ] as const)("a line carries one unit price: %s", (_name, notes, expected) => {
    const [c] = groupClaims(notes);
    expect(c!.lines.map((l) => [l.units, l.unitPriceCents, l.chargeCents])).toEqual(expected);
    for (const l of c!.lines) expect(l.chargeCents).toBe(l.units * l.unitPriceCents);
  });

  it("diagnoses: the notes' first, then the profile's, without repeats", () => {
    const [c] = groupClaims([note({ diagnosisCode: "F84.0" }), note({ diagnosisCode: "F80.2" })], () => ["F84.0", "F90.9"]);
    expect(c!.diagnosisCodes).toEqual(["F84.0", "F80.2", "F90.9"]);
  });

  // Probe 8941 §1: one code's identity is the form the 837P writes (no dot, upper case); the first-written form is shown.
  it.each<[string, string[][], string[], string[], string[][]]>([
    // [label, notes' codes per day, profile, claim codes, each line's codes]
    ["a note's F840 on a client of F84.0", [["F840"]], ["F84.0", "F80.2"], ["F840", "F80.2"], [["F840"]]],
    ["two notes of one line, F84.0 and f840", [["F84.0", "f840"]], ["F84.0"], ["F84.0"], [["F84.0"]]],
    ["two lines, F84.0 and F840", [["F84.0"], ["F840"]], [], ["F84.0"], [["F84.0"], ["F840"]]],
    ["a profile writing the principal again without its dot", [["F84.0"]], ["F84.0", "F840", "f80.2", "F80.2", "F80.20"], ["F84.0", "F80.2", "F80.20"], [["F84.0"]]],
    ["a note without a code takes the principal; its other form on another note is the same code", [[""], ["f84.0"]], ["F84.0"], ["F84.0"], [["F84.0"], ["F84.0"]]],
  ])("a code with and without its dot is one code: %s", (_name, perDay, profile, claimCodes, lineCodes) => {
    const notes = perDay.flatMap((codes, d) => codes.map((diagnosisCode) => note({ sessionDate: `2026-11-0${d + 2}`, diagnosisCode })));
    const [c, ...more] = groupClaims(notes, () => profile);
    expect(more).toHaveLength(0);
    expect(c!.diagnosisCodes).toEqual(claimCodes);
    expect(c!.lines.map((l) => l.diagnosisCodes)).toEqual(lineCodes);
    // Each line points first to its own code, which HI holds once.
    for (const l of c!.lines) expect(c!.diagnosisCodes[diagnosisPointers(c!.diagnosisCodes, l.diagnosisCodes)[0]! - 1]!.replace(".", "")).toBe(l.diagnosisCodes[0]!.replace(".", ""));
  });
});

/** `n` notes of one client, provider and payer on `n` days from 2026-01-01: one line each. */
const days = (n: number, over: (i: number) => Partial<PricedClaimNote> = () => ({})) =>
  Array.from({ length: n }, (_, i) => note({ sessionDate: new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10), ...over(i) }));
const ICD = (i: number) => `F${80 + Math.floor(i / 10)}.${i % 10}`;
/** Probe 8941 §2's client: a principal and 10 secondary codes. */
const ELEVEN = ["F84.0", "F80.2", "F90.9", "F41.1", "F93.0", "F98.8", "F80.1", "F80.9", "F82", "F90.0", "F80.4"];

describe("groupClaims splits a claim at 50 lines and 12 diagnosis codes (decision 034, stop 31)", () => {
  it.each([
    ["50 lines: one claim", 50, [50]],
    ["51 lines: two claims, 50 and 1", 51, [50, 1]],
    ["101 lines: 50, 50 and 1", 101, [50, 50, 1]],
  ] as const)("%s", (_name, n, sizes) => {
    const notes = days(n);
    const claims = groupClaims(notes);
    expect(claims.map((c) => c.lines.length)).toEqual(sizes);
    // Same client, location, provider and payer; dates in order across the claims; each numbered from 1; totals its own.
    expect(new Set(claims.map((c) => `${c.patientId}|${c.locationId}|${c.providerId}|${c.payerId}`)).size).toBe(1);
    const dates = claims.flatMap((c) => c.lines.map((l) => l.serviceDate));
    expect(dates).toEqual(notes.map((x) => x.sessionDate));
    for (const c of claims) {
      expect(c.lines.map((l) => l.lineNumber)).toEqual(c.lines.map((_, i) => i + 1));
      expect(c.totalCents).toBe(c.lines.reduce((s, l) => s + l.chargeCents, 0));
    }
    expect(new Set(claims.map((c) => c.key)).size).toBe(claims.length);
    expect(claims.flatMap((c) => c.lines.flatMap((l) => l.noteIds))).toEqual(notes.map((x) => x.id));
  });

  it.each([
    // [notes' own codes, profile codes, codes per claim]
    ["12 distinct note codes: one claim", 12, [], [12]],
    ["13 distinct note codes: the 13th starts a second claim", 13, [], [12, 1]],
    ["10 note codes and 2 profile codes: one claim of 12", 10, ["F99", "F98.0"], [12]],
    // Decision 032 (stop 31, later): profile codes no line names fill only the room there is; they never split a claim.
    ["11 note codes and 2 profile codes: one claim, the 2nd profile code left out", 11, ["F99", "F98.0"], [12]],
    ["12 note codes and 2 profile codes: one claim, the profile's left out", 12, ["F99", "F98.0"], [12]],
    ["13 note codes and 2 profile codes: the 13th starts a second claim, which has room for the profile's", 13, ["F99", "F98.0"], [12, 3]],
  ] as const)("%s", (_name, n, profile, perClaim) => {
    const notes = days(n, (i) => ({ diagnosisCode: ICD(i) }));
    const codeOf = new Map(notes.map((x) => [x.id, x.diagnosisCode]));
    const claims = groupClaims(notes, () => [...profile]);
    expect(claims.map((c) => c.diagnosisCodes.length)).toEqual(perClaim);
    for (const c of claims) {
      // Each claim: its lines' own codes in line order, none left out, then the profile's while there is room.
      expect(c.diagnosisCodes).toEqual([...c.lines.map((l) => codeOf.get(l.noteIds[0]!)), ...profile].slice(0, 12));
    }
  });

  it("a profile of 13 codes: one claim of 12, the lines' code first, then the profile's while there is room", () => {
    const profile = Array.from({ length: 13 }, (_, i) => ICD(i + 20));
    const claims = groupClaims(days(3), () => profile);
    expect(claims).toHaveLength(1);
    expect(claims[0]!.diagnosisCodes).toEqual(["F84.0", ...profile.slice(0, 11)]);
  });

  // Probe 8941 §2: 11 profile codes, two same-day notes written for F70 and F71 merged into one line.
  it.each<[string, Partial<PricedClaimNote>[], string[][]]>([
    ["two same-day notes F70 and F71: one line, HI F70, F71 and 10 profile codes", [{ diagnosisCode: "F70" }, { diagnosisCode: "F71" }], [["F70", "F71", ...ELEVEN.slice(0, 10)]]],
    ["and a clean note the next day: the same claim, its code among the 12", [{ diagnosisCode: "F70" }, { diagnosisCode: "F71" }, { diagnosisCode: "F84.0", sessionDate: "2026-11-03" }], [["F70", "F71", ...ELEVEN.slice(0, 10)]]],
    ["and a next-day note of a 12th code: the same claim, a profile code gives way", [{ diagnosisCode: "F70" }, { diagnosisCode: "F71" }, { diagnosisCode: "F88", sessionDate: "2026-11-03" }], [["F70", "F71", "F88", ...ELEVEN.slice(0, 9)]]],
  ])("%s", (_name, over, hi) => {
    const claims = groupClaims(over.map((o) => note(o)), () => ELEVEN);
    expect(claims.map((c) => c.diagnosisCodes)).toEqual(hi);
    for (const c of claims) {
      for (const l of c.lines) {
        const p = diagnosisPointers(c.diagnosisCodes, l.diagnosisCodes);
        expect(c.diagnosisCodes[p[0]! - 1]).toBe(l.diagnosisCodes[0]);
        expect(Math.max(...p)).toBeLessThanOrEqual(c.diagnosisCodes.length);
      }
    }
  });

  it("a line whose own codes are over 12 (13 same-day notes) is a claim alone: the lines before and after make valid claims", () => {
    const thirteen = Array.from({ length: 13 }, (_, i) => note({ sessionDate: "2026-11-03", diagnosisCode: ICD(i) }));
    const claims = groupClaims([note({ sessionDate: "2026-11-02" }), ...thirteen, note({ sessionDate: "2026-11-04" })], () => ELEVEN);
    expect(claims.map((c) => c.lines.map((l) => l.serviceDate))).toEqual([["2026-11-02"], ["2026-11-03"], ["2026-11-04"]]);
    expect(claims.map((c) => c.diagnosisCodes.length)).toEqual([11, 13, 11]);
    expect(claims[1]!.diagnosisCodes).toEqual(thirteen.map((n) => n.diagnosisCode));
    expect(new Set(claims.map((c) => c.key)).size).toBe(3);
  });
});

describe("groupClaims: each line carries its own diagnoses, always among its claim's (decision 032, stop 31)", () => {
  it.each<[string, Partial<PricedClaimNote>[], string[], string[][]]>([
    ["a note's own code", [{ diagnosisCode: "F93.0" }], ["F84.0"], [["F93.0"]]],
    ["a note without a code takes the client's principal", [{ diagnosisCode: "" }], ["F84.0", "F80.2"], [["F84.0"]]],
    ["two notes of one line written for two codes: both, the first note's first", [{ diagnosisCode: "f90.9" }, { diagnosisCode: "F41.9" }], ["F84.0"], [["F90.9", "F41.9"]]],
    ["one note with a code and one without on a line: its code, then the principal", [{ diagnosisCode: "F41.9" }, { diagnosisCode: "" }], ["F84.0"], [["F41.9", "F84.0"]]],
    ["two lines, each its note's", [{ diagnosisCode: "F41.9" }, { diagnosisCode: "F93.0", sessionDate: "2026-11-03" }], ["F84.0"], [["F41.9"], ["F93.0"]]],
  ])("%s", (_name, over, profile, expected) => {
    const [c] = groupClaims(over.map((o) => note(o)), () => profile);
    expect(c!.lines.map((l) => l.diagnosisCodes)).toEqual(expected);
  });

  it("a grouping split at 12 codes: every line's codes are among its own claim's", () => {
    const claims = groupClaims(days(30, (i) => ({ diagnosisCode: i % 3 === 0 ? "" : ICD(i) })), () => ["F84.0", "F80.2"]);
    expect(claims.length).toBeGreaterThan(1);
    for (const c of claims) for (const l of c.lines) for (const d of l.diagnosisCodes) expect(c.diagnosisCodes).toContain(d);
  });
});

describe("diagnosesWithoutLine: a draft's codes once a line is removed (decision 032, stop 31)", () => {
  it.each([
    ["a code only the removed line named goes", ["F80.2", "F84.0"], ["F80.2"], [["F84.0"]], ["F84.0"], ["F84.0"]],
    ["a code another line names stays, in the remaining lines' order", ["F84.0", "F80.2"], ["F80.2"], [["F80.2", "F84.0"]], [], ["F80.2", "F84.0"]],
    ["a code the profile carries stays, after the lines' own", ["F90.9", "F84.0", "F80.2"], ["F84.0"], [["F90.9"], ["F80.2"]], ["F84.0"], ["F90.9", "F80.2", "F84.0"]],
    ["the principal removed: the others keep their order", ["F93.0", "F84.0", "F41.9"], ["F93.0"], [["F84.0"], ["F41.9"]], ["F84.0"], ["F84.0", "F41.9"]],
    ["a profile code no line names stays", ["F84.0", "F80.2", "F90.9"], ["F80.2"], [["F84.0"]], ["F84.0", "F90.9"], ["F84.0", "F90.9"]],
    ["a code no line nor the profile names any more goes", ["F84.0", "F80.2", "F90.9"], ["F80.2"], [["F84.0"]], ["F84.0"], ["F84.0"]],
    ["a profile code left out for room takes the room the line freed", ["F70", "F71", ...ELEVEN.slice(0, 10)], ["F71"], [["F70"]], ELEVEN, ["F70", ...ELEVEN]],
    ["a line's F840 and the profile's F84.0 are one code", ["F840", "F80.2", "F93.0"], ["F93.0"], [["F840"]], ["F84.0", "F80.2"], ["F840", "F80.2"]],
    ["lines built before stop 31 (no codes of their own): kept as they are", ["F84.0", "F80.2"], null, [null], [], ["F84.0", "F80.2"]],
    ["a remaining line without codes: kept as they are", ["F84.0", "F80.2"], ["F80.2"], [null], [], ["F84.0", "F80.2"]],
  ] as [string, string[], string[] | null, (string[] | null)[], string[], string[]][])("%s", (_label, claim, removed, kept, profile, expected) => {
    const codes = diagnosesWithoutLine(claim, removed, kept, profile);
    expect(codes).toEqual(expected);
    // Every remaining line's own codes are still among the claim's: its pointers stay valid.
    for (const l of kept) for (const c of l ?? []) expect(codes).toContain(c);
    expect(codes.length).toBeLessThanOrEqual(12);
  });
});

describe("claim status transitions", () => {
  const allowed: [ClaimStatus, ClaimStatus][] = [
    ["draft", "generated"],
    ["draft", "rejected"],
    ["generated", "sent"],
    ["generated", "rejected"],
    ["sent", "accepted"],
    ["sent", "rejected"],
  ];
  it.each(CLAIM_STATUSES.flatMap((from) => CLAIM_STATUSES.map((to) => [from, to] as const)))("%s → %s", (from, to) => {
    expect(canTransition(from, to)).toBe(allowed.some(([a, b]) => a === from && b === to));
  });
});

describe("build input", () => {
  it.each([
    [{ note_ids: [1, 2, 2] }, [1, 2]],
    [{ note_ids: "7" }, [7]],
    [{ note_ids: ["3", "4"] }, [3, 4]],
  ])("%j → %j", (input, ids) => {
    const r = v.safeParse(BuildInput, input);
    expect(r.success && r.output.note_ids).toEqual(ids);
  });
  it.each([{}, { note_ids: [] }, { note_ids: [0] }, { note_ids: ["1.5"] }, { note_ids: Array.from({ length: 501 }, (_, i) => i + 1) }])("refuses %j", (input) => {
    expect(v.safeParse(BuildInput, input).success).toBe(false);
  });
  // Probe 9007 §4: a value that is not an id list was answered "Choose at least one billed note.".
  it.each<[unknown, string, string]>([
    [undefined, "Choose at least one billed note.", "Choose at least one claim."],
    [null, "Choose at least one billed note.", "Choose at least one claim."],
    ["", "Choose at least one billed note.", "Choose at least one claim."],
    [[], "Choose at least one billed note.", "Choose at least one claim."],
    ["abc", "Note ids are whole numbers.", "Claim ids are whole numbers."],
    [["abc"], "Note ids are whole numbers.", "Claim ids are whole numbers."],
    [["1", "x"], "Note ids are whole numbers.", "Claim ids are whole numbers."],
    [true, "Note ids are whole numbers.", "Claim ids are whole numbers."],
    [{}, "Note ids are whole numbers.", "Claim ids are whole numbers."],
    [[[1]], "Note ids are whole numbers.", "Claim ids are whole numbers."],
    [-1, "Note ids are whole numbers.", "Claim ids are whole numbers."],
    [[0], "Note ids are whole numbers.", "Claim ids are whole numbers."],
    ["1.5", "Note ids are whole numbers.", "Claim ids are whole numbers."],
  ])("ids %j: the build answers %j, the generation %j", (value, build, generate) => {
    expect(parseWith(BuildInput, value === undefined ? {} : { note_ids: value })).toEqual({ ok: false, errors: { note_ids: build } });
    expect(parseWith(ClaimIdsInput, value === undefined ? {} : { claim_ids: value })).toEqual({ ok: false, errors: { claim_ids: generate } });
  });
});

describe("location NPI and tax id", () => {
  const base = { title: "Clinic", time_zone: "America/New_York", pos_codes: ["11"] };
  it.each([
    [{}, null, null],
    [{ npi: "", tax_id: "" }, null, null],
    [{ npi: "1234567893", tax_id: "59-1234567" }, "1234567893", "591234567"],
    [{ npi: npiFrom("987654321") }, npiFrom("987654321"), null],
  ])("%j is accepted", (input, npi, taxId) => {
    const r = v.safeParse(LocationInput, { ...base, ...input });
    expect(r.success).toBe(true);
    if (r.success) expect([r.output.npi, r.output.tax_id]).toEqual([npi, taxId]);
  });
  it.each([{ npi: "1234567890" }, { npi: "123456789" }, { npi: "12345678ab" }, { tax_id: "12345678" }, { tax_id: "1234567890" }])("%j is refused", (input) => {
    expect(v.safeParse(LocationInput, { ...base, ...input }).success).toBe(false);
  });
});

describe("claimsNamed: a file's claims named for a person, another location's only counted (decision 032, stop 33)", () => {
  it.each([
    [["C0000031"], 0, "claim C0000031"],
    [["C0000030", "C0000032"], 0, "claims C0000030 and C0000032"],
    [["C0000030", "C0000032", "C0000033"], 0, "claims C0000030, C0000032 and C0000033"],
    [["C0000030"], 1, "claim C0000030 and 1 claim of another location"],
    [[], 1, "1 claim of another location"],
    [[], 3, "3 claims of other locations"],
  ] as const)("%j and %i hidden → %s", (numbers, hidden, text) => {
    expect(claimsNamed(numbers, hidden)).toBe(text);
  });
});

describe("generateAgain and the stranded file's messages: the person generates theirs, someone who manages the other locations the rest (probe 8965 §6; decision 032, stop 33)", () => {
  const how = " (on the claim's page, or tick it on the claims list)";
  it.each([
    ["an admin (sees every claim)", { numbers: ["C0000016", "C0000018"], hidden: 0 }, "generate a new 837P for claims C0000016 and C0000018 (on the claim's page, or tick it on the claims list)"],
    ["a manager with one of theirs and two of other locations", { numbers: ["C0000018"], hidden: 2 }, "generate a new 837P for claim C0000018 (on the claim's page, or tick it on the claims list); the 2 claims of other locations must be generated again by someone who manages their locations"],
    ["a manager with only another location's claim left", { numbers: [], hidden: 1 }, "the claim of another location must be generated again by someone who manages its location"],
  ] as const)("%s", (_who, claims, text) => {
    expect(generateAgain(claims, how)).toBe(text);
  });

  it.each([
    ["a manager", { numbers: ["C0000018"], hidden: 2 }, "Claim marked rejected. Its 837P 837P-000000008.x12 was not sent and also holds claim C0000018 and 2 claims of other locations, so that file will not be sent now: generate a new 837P for claim C0000018 (on the claim's page, or tick it on the claims list); the 2 claims of other locations must be generated again by someone who manages their locations."],
    ["an admin", { numbers: ["C0000015", "C0000017", "C0000018"], hidden: 0 }, "Claim marked rejected. Its 837P 837P-000000008.x12 was not sent and also holds claims C0000015, C0000017 and C0000018, so that file will not be sent now: generate a new 837P for claims C0000015, C0000017 and C0000018 (on the claim's page, or tick it on the claims list)."],
  ] as const)("voiding, for %s", (_who, others, text) => {
    expect(CLAIM_MESSAGES.voidedInUnsentFile("837P-000000008.x12", others)).toBe(text);
  });

  it.each([
    ["a manager", { numbers: ["C0000018"], hidden: 2 }, "Generate a new 837P for claim C0000018: the new file leaves the voided claim out; the 2 claims of other locations must be generated again by someone who manages their locations."],
    ["a manager whose claims all left the file", { numbers: [], hidden: 1 }, "The claim of another location must be generated again by someone who manages its location."],
    ["an admin", { numbers: ["C0000015", "C0000017", "C0000018"], hidden: 0 }, "Generate a new 837P for claims C0000015, C0000017 and C0000018: the new file leaves the voided claim out."],
  ] as const)("a send refused, for %s", (_who, toGenerate, tail) => {
    const text = CLAIM_MESSAGES.fileHoldsVoided("837P-000000008.x12", { numbers: ["C0000016"], hidden: 0 }, toGenerate);
    expect(text).toBe(`Nothing was sent: the 837P 837P-000000008.x12 holds claim C0000016, voided (rejected) after the file was generated, and sending the file would bill it too. This file will never be sent. ${tail}`);
  });
});

describe("a claimed note's price is its claim line's (decision 030, stop 34); the line is priced once for its units (decision 032, stop 40)", () => {
  // Prices and multipliers whose per-note charges round (half up) differently than the line's units would.
  // [name, unit price, service multiplier, modifiers, notes' units, the line's charge, the notes' charges]
  const priced: [string, number, number, readonly string[], readonly number[], number, readonly number[]][] = [
    ["one note", 12.5, 1, ["HM"], [9], 11250, [11250]],
    ["two notes, 1.15 (8 and 11 units at $21.33)", 21.33, 1.15, ["HM"], [8, 11], 46606, [19624, 26982]],
    // 14 × $16.25 × 1.15 = $261.625 → $261.63, while the notes' own are $205.56 + $56.06 = $261.62.
    ["two notes, 1.15 (11 and 3 units at $16.25): the line is a cent over the notes", 16.25, 1.15, ["HM"], [11, 3], 26163, [20556, 5606]],
    ["three notes, 1.5 at an odd price", 3.33, 1.5, [], [1, 1, 1], 1499, [500, 500, 500]],
    ["XP (multiplier 0)", 12.5, 1, ["HM", "XP"], [4, 5], 0, [0, 0]],
    ["four decimals", 12.99, 0.8735, [], [3, 7, 2, 5], 19290, [3404, 7943, 2269, 5673]],
    ["a price of 0", 0, 1.15, [], [4, 4], 0, [0, 0]],
  ];
  it.each(priced)("%s", (_, unitPrice, multiplier, md, units, lineCharge, noteCharges) => {
    const own: PriceService[] = [{ id: 9, insuranceId: 9, locationId: null, cptCode: "97153", modifiers: md.filter((m) => m !== "XP").join("-"), provider: "rbt", type: "rbt", unitPrice, multiplier, maxPerDay: null }];
    const notes = units.map((u) => ({ id: nextId++, patientId: 1, locationId: 1, providerId: 10, payerId: 9, sessionDate: "2026-11-02", cptCode: "97153", units: u, pos: "12", paNumber: "PA1", diagnosisCode: "F84.0", price: priceNote(own, { type: "rbt", cptCode: "97153", units: u, modifiers: [...md], locationId: 1, insurerId: 9, providerCredential: null }) }));
    const [claim] = groupClaims(notes);
    expect(claim!.lines).toHaveLength(1);
    const line = claim!.lines[0]!;
    // The line's charge is its units × unit price × multiplier, rounded once (what a payer repricing it gets).
    expect(line.chargeCents).toBe(lineCharge);
    expect(claim!.totalCents).toBe(lineCharge);
    const stored = { unitPriceCents: line.unitPriceCents, multiplier: line.multiplier, chargeCents: line.chargeCents, units: line.units, xpMultiplier: line.xpMultiplier };
    const each = notes.map((n) => claimedPrice(n.price, n.units, stored));
    // Each note is charged exactly what generation charged it.
    expect(each.map((p) => p.chargesCents)).toEqual([...noteCharges]);
    expect(each.map((p) => p.chargesCents)).toEqual(notes.map((n) => n.price.chargesCents));
    expect(each.every((p) => p.unitPriceCents === line.unitPriceCents && p.multiplier === line.multiplier)).toBe(true);
    // A line built before stop 28 (no multiplier): the line's charge shared by units; a one-note line's is exact.
    const old = notes.map((n) => claimedPrice(n.price, n.units, { ...stored, multiplier: null }));
    if (notes.length === 1) expect(old[0]!.chargesCents).toBe(line.chargeCents);
    if (multiplier === 1 || md.includes("XP")) expect(old.map((p) => p.chargesCents)).toEqual(notes.map((n) => n.price.chargesCents));
  });

  // A claimed XP note's amount beside its $0 charge is the claim's: units × the line's unit price × the service's own
  // multiplier as the line kept it, whatever the payer's service says today (decision 030, stop 40).
  // [name, the price at the claim, multiplier at the claim, the price today, multiplier today, units, XP amount]
  const xp: [string, number, number, number, number, number, number][] = [
    ["the price changed since", 16.25, 1, 16.29, 1, 10, 16250],
    ["the multiplier changed since", 16.25, 1, 16.25, 1.15, 10, 16250],
    ["both changed since (probe: $162.50, not $187.34)", 16.25, 1, 16.29, 1.15, 10, 16250],
    ["claimed at 1.15, then the price changed", 16.25, 1.15, 17, 1.15, 10, 18688],
    ["claimed at 1.15 with a half cent: half up", 12.9, 1.15, 20, 1, 1, 1484],
    ["nothing changed", 12.5, 1, 12.5, 1, 4, 5000],
  ];
  const serviceAt = (unitPrice: number, multiplier: number): PriceService[] => [{ id: 9, insuranceId: 9, locationId: null, cptCode: "97153", modifiers: "HM", provider: "rbt", type: "rbt", unitPrice, multiplier, maxPerDay: null }];
  const xpNote = (svc: PriceService[], units: number) => priceNote(svc, { type: "rbt", cptCode: "97153", units, modifiers: ["HM", "XP"], locationId: 1, insurerId: 9, providerCredential: null });
  it.each(xp)("XP amount of a claimed note: %s", (_, priceThen, multThen, priceNow, multNow, units, expected) => {
    const then = xpNote(serviceAt(priceThen, multThen), units);
    const [claim] = groupClaims([{ id: nextId++, patientId: 1, locationId: 1, providerId: 10, payerId: 9, sessionDate: "2026-11-09", cptCode: "97153", units, pos: "12", paNumber: "PA1", diagnosisCode: "F84.0", price: then }]);
    const line = claim!.lines[0]!;
    expect([line.multiplier, line.chargeCents, line.xpMultiplier]).toEqual([0, 0, multThen]);
    const shown = claimedPrice(xpNote(serviceAt(priceNow, multNow), units), units, { unitPriceCents: line.unitPriceCents, multiplier: line.multiplier, chargeCents: line.chargeCents, units: line.units, xpMultiplier: line.xpMultiplier });
    // The same amount the row showed when the claim was made, and the same rule (chargeFor) as an unclaimed row.
    expect(shown.xpCents).toBe(expected);
    expect(shown.xpCents).toBe(then.xpCents);
    expect([shown.unitPriceCents, shown.chargesCents]).toEqual([Math.round(priceThen * 100), 0]);
    // A line built before stop 40 kept no XP multiplier: the claim's price at today's multiplier.
    const old = claimedPrice(xpNote(serviceAt(priceNow, multNow), units), units, { unitPriceCents: line.unitPriceCents, multiplier: 0, chargeCents: 0, units, xpMultiplier: null });
    expect(old.xpCents).toBe(xpNote(serviceAt(priceThen, multNow), units).xpCents);
  });

  it("a note without XP has no XP amount on a claim either", () => {
    const p = priceNote(serviceAt(16.25, 1.15), { type: "rbt", cptCode: "97153", units: 10, modifiers: ["HM"], locationId: 1, insurerId: 9, providerCredential: null });
    expect(claimedPrice(p, 10, { unitPriceCents: 1625, multiplier: 1.15, chargeCents: 18688, units: 10, xpMultiplier: 1.15 }).xpCents).toBe(0);
  });

  it("no claim line: the price as it is today", () => {
    const price = priceNote(services, { type: "rbt", cptCode: "97153", units: 4, modifiers: [], locationId: 1, insurerId: 1, providerCredential: null });
    expect(claimedPrice(price, 4, null)).toBe(price);
  });
});

// Decision 033, stop 43: an appeal pays a rejected claim only while its notes still say what its lines billed.
describe("notesChangedSinceClaim", () => {
  const line: BilledLine = { cptCode: "97155", serviceDate: "2026-11-02", modifiers: "HO", units: 4, unitPriceCents: 2975, pos: "12" };
  const note: NoteNow = { id: 162, deleted: false, cptCode: "97155", sessionDate: "2026-11-02", md: "HO", md2: null, pos: "12", units: 4, unitPriceCents: null, billed: true };
  it.each<[string, Partial<NoteNow>, string[]]>([
    ["nothing changed", {}, []],
    ["CPT written in lower case with spaces (as the build trims it)", { cptCode: " 97155 " }, []],
    ["modifiers in another order or case", { md: null, md2: "ho" }, []],
    ["units amended 4 → 2", { units: 2 }, ["units"]],
    ["a modifier added on the billing row", { md2: "GT" }, ["modifiers"]],
    ["a modifier removed", { md: null }, ["modifiers"]],
    ["CPT changed", { cptCode: "97153" }, ["CPT"]],
    ["date of service changed", { sessionDate: "2026-11-03" }, ["date of service"]],
    ["place of service changed", { pos: "02" }, ["place of service"]],
    ["its own unit price changed", { unitPriceCents: 3000 }, ["unit price"]],
    ["its own unit price as billed", { unitPriceCents: 2975 }, []],
    ["units and modifiers (the probe's two cases at once)", { units: 2, md2: "GT" }, ["units", "modifiers"]],
    ["unticked as Billed (decision 033, stop 44)", { billed: false }, ["no longer billed"]],
    ["units amended and unticked as Billed", { units: 2, billed: false }, ["units", "no longer billed"]],
    ["deleted (whatever else changed)", { deleted: true, units: 2 }, ["deleted"]],
    ["deleted and unticked as Billed", { deleted: true, billed: false }, ["deleted"]],
  ])("%s → %j", (_label, over, changes) => {
    expect(notesChangedSinceClaim([{ line, notes: [{ ...note, ...over }] }])).toEqual(changes.length ? [{ noteId: 162, changes }] : []);
  });

  it("a line's units are its notes' sum: when they no longer add up, every note of the line is named", () => {
    const two = { ...line, units: 4 };
    expect(notesChangedSinceClaim([{ line: two, notes: [{ ...note, id: 1, units: 2 }, { ...note, id: 2, units: 2 }] }])).toEqual([]);
    expect(notesChangedSinceClaim([{ line: two, notes: [{ ...note, id: 1, units: 2 }, { ...note, id: 2, units: 1 }] }])).toEqual([
      { noteId: 1, changes: ["units"] },
      { noteId: 2, changes: ["units"] },
    ]);
  });

  it.each<[string, { noteId: number; changes: string[] }[], string]>([
    ["one note", [{ noteId: 162, changes: ["units", "modifiers"] }], "Claim C0000013: note #162 changed after the claim was built (units, modifiers); this file pays what the claim billed, not what the note says now. Build a new claim for it. Not imported."],
    ["one deleted note", [{ noteId: 162, changes: ["deleted"] }], "Claim C0000013: note #162 changed after the claim was built (deleted); this file pays what the claim billed, not what the note says now. Not imported."],
    ["one note no longer billed", [{ noteId: 162, changes: ["no longer billed"] }], "Claim C0000013: note #162 changed after the claim was built (no longer billed); this file pays what the claim billed, not what the note says now. Not imported."],
    ["one note no longer billed, one amended", [{ noteId: 1, changes: ["units", "no longer billed"] }, { noteId: 2, changes: ["units"] }], "Claim C0000013: notes #1 (units, no longer billed) and #2 (units) changed after the claim was built; this file pays what the claim billed, not what the notes say now. Build a new claim for note #2. Not imported."],
    ["several", [{ noteId: 1, changes: ["units"] }, { noteId: 2, changes: ["deleted"] }, { noteId: 3, changes: ["CPT"] }], "Claim C0000013: notes #1 (units), #2 (deleted) and #3 (CPT) changed after the claim was built; this file pays what the claim billed, not what the notes say now. Build a new claim for notes #1, #3. Not imported."],
  ])("the message: %s", (_label, changed, message) => {
    expect(changedNotesMessage("C0000013", changed)).toBe(message);
  });
});

describe("notesPaidTwice: one 835 paying two claims that bill the same note (decision 033, stop 45)", () => {
  it.each<[string, { claimNumber: string; noteIds: number[] }[], { claimNumber: string; otherClaimNumber: string; noteIds: number[] }[]]>([
    ["no claims", [], []],
    ["one claim", [{ claimNumber: "C1", noteIds: [5, 6] }], []],
    ["two claims, other notes", [{ claimNumber: "C1", noteIds: [5] }, { claimNumber: "C2", noteIds: [6] }], []],
    ["a denied claim and its rebuild (the probe)", [{ claimNumber: "C1", noteIds: [5] }, { claimNumber: "C2", noteIds: [5] }], [{ claimNumber: "C2", otherClaimNumber: "C1", noteIds: [5] }]],
    ["the same claim named twice in the file", [{ claimNumber: "C1", noteIds: [5] }, { claimNumber: "C1", noteIds: [5] }], []],
    ["a note twice on one claim (two lines)", [{ claimNumber: "C1", noteIds: [5, 5] }], []],
    ["several shared notes, named in order", [{ claimNumber: "C1", noteIds: [7, 5, 9] }, { claimNumber: "C2", noteIds: [9, 8, 5] }], [{ claimNumber: "C2", otherClaimNumber: "C1", noteIds: [5, 9] }]],
    [
      "three claims: each later claim named with the first claim billing each note",
      [{ claimNumber: "C1", noteIds: [5] }, { claimNumber: "C2", noteIds: [5, 6] }, { claimNumber: "C3", noteIds: [6, 5] }],
      [
        { claimNumber: "C2", otherClaimNumber: "C1", noteIds: [5] },
        { claimNumber: "C3", otherClaimNumber: "C2", noteIds: [6] },
        { claimNumber: "C3", otherClaimNumber: "C1", noteIds: [5] },
      ],
    ],
  ])("%s", (_label, claims, twice) => {
    expect(notesPaidTwice(claims)).toEqual(twice);
  });

  it.each<[number[], string]>([
    [[5], "Claims C1 and C2 both bill note #5, and this file pays both: that would pay the session twice. Not imported."],
    [[5, 9], "Claims C1 and C2 both bill notes #5 and #9, and this file pays both: that would pay these sessions twice. Not imported."],
    [[5, 8, 9], "Claims C1 and C2 both bill notes #5, #8 and #9, and this file pays both: that would pay these sessions twice. Not imported."],
  ])("the message for notes %j", (noteIds, message) => {
    expect(notesPaidTwiceMessage({ claimNumber: "C2", otherClaimNumber: "C1", noteIds })).toBe(message);
  });
});
