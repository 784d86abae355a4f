import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { priceNote, type PriceService } from "~/domain/billing";
import { isValidNpi, npiFrom } from "~/domain/npi";
import { addressLines, DEFAULT_ENVELOPE, diagnosisPointers, ELEMENT_MAX, payerIssues, readable837P, splitName, transliterate, validateClaim, write837P, type ClaimData, type ClaimIssue, type ClaimLineData, type Envelope } from "~/domain/x12-837p";
import { readBack837 } from "../support/x12";

const GOLDEN = join(__dirname, "../golden/837p");
const env = (fileId: number): Envelope => ({ ...DEFAULT_ENVELOPE, fileId, createdAt: "2026-11-26T01:02:03.000Z" });

const services: PriceService[] = [
  { id: 1, insuranceId: 7, locationId: null, cptCode: "97153", modifiers: "", provider: "rbt", type: "rbt", unitPrice: 12.5, multiplier: 1, maxPerDay: null },
  { id: 2, insuranceId: 7, locationId: null, cptCode: "97155", modifiers: "", provider: "bcba", type: "bcba", unitPrice: 31.13, multiplier: 1, maxPerDay: null },
];
/** A line priced by the one price function. */
function line(cpt: string, type: "rbt" | "bcba", date: string, units: number, modifiers: string[], pos = "12", paNumber: string | null = null): ClaimLineData {
  const p = priceNote(services, { type, cptCode: cpt, units, modifiers, locationId: 1, insurerId: 7, providerCredential: null });
  return { serviceDate: date, cptCode: cpt, modifiers: p.modifiers, units, chargeCents: p.chargesCents, pos, paNumber };
}

/** The client as the subscriber (SBR02 18): 2010BA carries their address and demographics, and there is no 2000C. */
const client = { memberId: "W123456789", groupNumber: "GRP01", selfSubscriber: true, firstName: "Ana", lastName: "Lopez", birthDate: "2018-04-02", gender: "F", address: "5 Palm Ave", city: "Miami", state: "FL", zip: "33102" } satisfies ClaimData["subscriber"];

function claim(over: Partial<ClaimData> = {}): ClaimData {
  return {
    claimNumber: "C000001",
    billingProvider: { name: "Sunrise ABA Miami", address: "100 Main St", city: "Miami", state: "FL", zip: "33101-1234", npi: "1234567893", taxId: "591234567", phone: "(305) 555-0100" },
    subscriber: client,
    patient: null,
    payer: { name: "Florida Blue", payerId: "00590" },
    renderingProvider: { firstName: "Rita", lastName: "Baker", npi: npiFrom("111222333") },
    diagnosisCodes: ["F84.0"],
    lines: [line("97153", "rbt", "2026-11-02", 8, [])],
    ...over,
  };
}

/** A parent as the subscriber: their name and member id only (2010BA carries no N3, N4 or DMG for them, probe 8981 §2). */
const parent: ClaimData["subscriber"] = { memberId: "W123456789", groupNumber: "GRP01", selfSubscriber: false, firstName: "Maria", lastName: "Lopez" };
/** The client when the parent is the subscriber (2000C: PAT01 19, child; 2010CA their address and demographics). */
const child: NonNullable<ClaimData["patient"]> = { firstName: "Leo", lastName: "Lopez", birthDate: "2019-09-09", gender: "M", address: "5 Palm Ave", city: "Miami", state: "FL", zip: "33102", relationship: "19" };

function golden(name: string, content: string) {
  const path = join(GOLDEN, `${name}.x12`);
  if (process.env.UPDATE_GOLDEN || !existsSync(path)) writeFileSync(path, content);
  expect(content).toBe(readFileSync(path, "utf8"));
}

describe("837P writer: golden files, read back", () => {
  it("one claim, one line", () => {
    const r = write837P([claim()], env(1));
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    golden("one-claim-one-line", r.file.content);
    const back = readBack837(r.file.content);
    expect(back.interchangeControl).toBe("000000001");
    expect(back.groupControl).toBe("1");
    expect(back.sets).toHaveLength(1);
    expect(back.sets[0]!.count).toBe(r.file.sets[0]!.segments);
    expect(r.file.content).toContain("SV1*HC:97153*100.00*UN*8***1~");
    expect(r.file.content).toContain("CLM*C000001*100.00***12:B:1*Y*A*Y*Y~");
  });

  it("two claims in one batch, with XP/HM modifiers, two diagnoses, a dependent client, related causes and a referring provider", () => {
    const second = claim({
      claimNumber: "C000002",
      subscriber: { memberId: "X99", groupNumber: null, selfSubscriber: false, firstName: "Maria", lastName: "Perez" },
      patient: { firstName: "Leo", lastName: "Perez", birthDate: "2019-09-09", gender: "M", address: "9 Bay Rd", city: "Doral", state: "FL", zip: "33172", relationship: "19" },
      relatedCauses: ["EM", "OA"],
      referringProvider: { firstName: "Ana", lastName: "Lee", npi: "1306849450" },
      diagnosisCodes: ["F84.0", "F80.2"],
      lines: [line("97153", "rbt", "2026-11-03", 4, ["XP", "HM"]), line("97153", "rbt", "2026-11-04", 6, ["HM"], "03")],
    });
    const r = write837P([claim({ diagnosisCodes: ["F84.0", "F90.9"] }), second], env(42));
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    golden("two-claims-modifiers", r.file.content);
    const back = readBack837(r.file.content);
    expect(back.interchangeControl).toBe("000000042");
    expect(back.sets.map((s) => s.control)).toEqual(["0001", "0002"]);
    expect(back.sets.map((s) => s.count)).toEqual(r.file.sets.map((s) => s.segments));
    // XP bills nothing (priceNote multiplies by 0): the line goes out with its units and a $0 charge.
    expect(r.file.content).toContain("SV1*HC:97153:XP:HM*0.00*UN*4***1:2~");
    expect(back.sets[1]!.segments).toContain("PAT");
    expect(r.file.content).toContain("HI*ABK:F840*ABF:F802~");
    expect(r.file.content).toContain("SV1*HC:97153:HM*75.00*UN*6*03**1:2~");
    // Set 2 carries CLM11 and 2310A (probe 8981 §5), set 1 neither; each SE01 counts its own segments.
    // NM1 41, 40, 85, IL, PR, QC, DN and 82 in set 2 (SE01 30 → 31 with 2310A); set 1 has no QC and no DN.
    expect(back.sets[1]!.segments.filter((id) => id === "NM1")).toHaveLength(8);
    expect(back.sets[0]!.segments.filter((id) => id === "NM1")).toHaveLength(6);
    expect(back.sets.map((s) => s.count)).toEqual([24, 31]);
    expect(r.file.content).toContain("CLM*C000002*75.00***12:B:1*Y*A*Y*Y**EM:OA~\nHI*ABK:F840*ABF:F802~\nNM1*DN*1*LEE*ANA****XX*1306849450~\nNM1*82*");
    expect(r.file.content).toContain("CLM*C000001*100.00***12:B:1*Y*A*Y*Y~\nHI*ABK:F840*ABF:F909~\nNM1*82*");
  });

  it("a BCBA 97155 with a prior authorization number", () => {
    const r = write837P([claim({ claimNumber: "C000003", lines: [line("97155", "bcba", "2026-11-05", 4, [], "11", "PA-7788")] })], env(7));
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    golden("bcba-97155-pa", r.file.content);
    readBack837(r.file.content);
    expect(r.file.content).toContain("SV1*HC:97155*124.52*UN*4***1~\nDTP*472*D8*20261105~\nREF*G1*PA-7788~");
  });

  it("is the same bytes for the same input (no clock inside)", () => {
    const a = write837P([claim()], env(5));
    const b = write837P([claim()], env(5));
    expect(a).toEqual(b);
  });

  it("a read-back catches a wrong SE01", () => {
    const r = write837P([claim()], env(1));
    if (!r.ok) throw new Error("not written");
    expect(() => readBack837(r.file.content.replace(/\nSE\*\d+\*/, "\nSE*3*"))).toThrow();
  });
});

describe("837P validation: what a person must fix", () => {
  const cases: [string, Partial<ClaimData> | ((c: ClaimData) => ClaimData), string, RegExp][] = [
    ["missing location NPI", (c) => ({ ...c, billingProvider: { ...c.billingProvider, npi: null } }), "billing.npi", /^The location Sunrise ABA Miami has no NPI\./],
    ["bad location NPI check digit", (c) => ({ ...c, billingProvider: { ...c.billingProvider, npi: "1234567890" } }), "billing.npi", /not a valid NPI/],
    ["missing tax id", (c) => ({ ...c, billingProvider: { ...c.billingProvider, taxId: null } }), "billing.tax_id", /no tax id/],
    ["missing member id", (c) => ({ ...c, subscriber: { ...c.subscriber, memberId: "" } }), "subscriber.member_id", /Member id/],
    ["no diagnosis", { diagnosisCodes: [] }, "diagnosis", /No diagnosis code/],
    ["bad diagnosis", { diagnosisCodes: ["84"] }, "diagnosis", /not an ICD-10/],
    ["rendering NPI missing", (c) => ({ ...c, renderingProvider: { ...c.renderingProvider, npi: null } }), "rendering.npi", /Rita Baker has no NPI/],
    ["no payer id", { payer: { name: "X", payerId: null } }, "payer.payer_id", /payer id/],
    ["separator in a name", (c) => ({ ...c, subscriber: { ...c.subscriber, lastName: "Lo*pez" } }), "subscriber.last_name", /^Subscriber last name contains '\*', which a claim cannot carry \(\* ~ : \^ separate the file's parts\)\. Edit it on the client's profile\.$/],
    // Identifiers go out letter for letter (probe 8987 §3): an accent is refused, not transliterated into another id.
    ["an accented member id", (c) => ({ ...c, subscriber: { ...c.subscriber, memberId: "ÄB123" } }), "subscriber.member_id", /^Member id \(primary insurance identifier\) contains 'Ä', which a claim cannot carry as typed: an identifier goes out letter for letter \(A–Z, digits and basic punctuation\)\. Edit it on the client's insurance details\.$/],
    ["an accented policy group", (c) => ({ ...c, subscriber: { ...c.subscriber, groupNumber: "GRÜP" } }), "subscriber.group", /^Insured policy group contains 'Ü', which a claim cannot carry as typed/],
    ["an accented prior authorization number", (c) => ({ ...c, lines: [{ ...c.lines[0]!, paNumber: "PÁ-77" }] }), "lines.0.pa_number", /prior authorization number contains 'Á', which a claim cannot carry as typed/],
    ["zero charge", (c) => ({ ...c, lines: [{ ...c.lines[0]!, chargeCents: 0 }] }), "lines.0.charge", /\$0/],
    ["no units", (c) => ({ ...c, lines: [{ ...c.lines[0]!, units: 0, chargeCents: 0 }] }), "lines.0.units", /^Line 1 \(97153 on [\d-]+\): no units to bill\.$/],
    ["five modifiers", (c) => ({ ...c, lines: [{ ...c.lines[0]!, modifiers: ["HM", "HN", "HO", "XP", "GT"] }] }), "lines.0.modifiers", /at most 4/],
    ["no lines", { lines: [] }, "lines", /no service lines/],
    // A line's own checks (serviceLineIssues, also run by the scrubber on each note: decision 034, stop 31).
    ["a CPT of 4 digits", (c) => ({ ...c, lines: [{ ...c.lines[0]!, cptCode: "9715" }] }), "lines.0.cpt", /^Line 1 \(9715 on 2026-11-02\): the CPT code 9715 must be 5 letters or digits \(for example 97153\)\. Correct the CPT code on the note\.$/],
    ["a date of service that is not a date", (c) => ({ ...c, lines: [{ ...c.lines[0]!, serviceDate: "2026-02-30" }] }), "lines.0.date", /^Line 1 \(97153 on 2026-02-30\): the date of service 2026-02-30 is not a date\. Correct the session date on the note\.$/],
    ["a POS of one digit", (c) => ({ ...c, lines: [{ ...c.lines[0]!, pos: "2" }] }), "lines.0.pos", /^Line 1 \(97153 on 2026-11-02\): the place of service 2 must be a 2-digit code \(for example 12, Home\)\. Choose a place of service on the note\.$/],
    ["a modifier of three letters", (c) => ({ ...c, lines: [{ ...c.lines[0]!, modifiers: ["HMX"] }] }), "lines.0.modifiers", /modifier HMX must be 2 letters or digits/],
    ["a PA number with a separator", (c) => ({ ...c, lines: [{ ...c.lines[0]!, paNumber: "PA~1" }] }), "lines.0.pa_number", /^Line 1 \(97153 on 2026-11-02\): the prior authorization number contains '~'/],
    ["13 diagnosis codes", { diagnosisCodes: ["F84.0", "F90.0", "F90.1", "F90.2", "F90.8", "F90.9", "F91.0", "F91.1", "F91.2", "F91.3", "F91.8", "F91.9", "F93.0"] }, "diagnosis", /^The claim would carry 13 diagnosis codes \(F84\.0, .*F93\.0\), but a claim carries at most 12, and its notes are written for all of them\. Correct the diagnosis codes on its notes \(at most 12 different ones\), then generate it again\.$/],
    ["51 lines", (c) => ({ ...c, lines: Array.from({ length: 51 }, () => c.lines[0]!) }), "lines", /at most 50 service lines/],
    // 2010AA N403: the billing provider's ZIP is the full nine digits (005010X222A1).
    ["a 5-digit location ZIP", (c) => ({ ...c, billingProvider: { ...c.billingProvider, zip: "33101" } }), "billing.zip", /^The ZIP code of the location Sunrise ABA Miami is 33101: a claim's billing provider needs the 9-digit ZIP\+4 \(for example 33101-1234\)\. Enter the ZIP\+4 on the location's page\.$/],
    ["no location ZIP", (c) => ({ ...c, billingProvider: { ...c.billingProvider, zip: null } }), "billing.zip", /location Sunrise ABA Miami is missing: .*9-digit ZIP\+4/],
    ["a malformed location ZIP", (c) => ({ ...c, billingProvider: { ...c.billingProvider, zip: "3310-11234" } }), "billing.zip", /is 3310-11234: .*9-digit ZIP\+4/],
    ["a subscriber ZIP of 4 digits", (c) => ({ ...c, subscriber: { ...c.subscriber, zip: "3310" } }), "subscriber.zip", /5 or 9 digits/],
  ];
  it.each(cases)("%s", (_name, change, field, message) => {
    const c = typeof change === "function" ? change(claim()) : claim(change);
    const errors = validateClaim(c);
    expect(errors.find((e) => e.field === field)?.message).toMatch(message);
    const r = write837P([c], env(1));
    expect(r.ok).toBe(false);
  });

  it("a line without units is not blamed on a missing price; a priced-at-$0 line with units is", () => {
    const noUnits = validateClaim({ ...claim(), lines: [{ ...claim().lines[0]!, units: 0, chargeCents: 0 }] });
    expect(noUnits.map((e) => e.field)).toContain("lines.0.units");
    expect(noUnits.filter((e) => e.field === "lines.0.charge")).toEqual([]);
    expect(noUnits.map((e) => e.message).join("\n")).not.toMatch(/Set a price/);
    const unpriced = validateClaim({ ...claim(), lines: [{ ...claim().lines[0]!, units: 3, chargeCents: 0 }] });
    expect(unpriced.find((e) => e.field === "lines.0.charge")?.message).toMatch(/the charge is \$0\. Set a price for this CPT/);
  });

  it.each([
    ["ZIP+4 with its dash at the location, 5 digits for the self-subscriber and the client", "33101-1234", "33102", "33172"],
    ["ZIP+4 without the dash at the location, 9 digits elsewhere", "331011234", "331021234", "33172-0001"],
  ])("only the billing provider needs 9 digits: %s", (_l, billing, subscriber, patient) => {
    const self = claim({ subscriber: { ...client, zip: subscriber } });
    const dependent = claim({ subscriber: parent, patient: { ...child, zip: patient } });
    for (const c of [self, dependent]) expect(validateClaim({ ...c, billingProvider: { ...c.billingProvider, zip: billing } })).toEqual([]);
  });

  it("a valid claim has no errors", () => {
    expect(validateClaim(claim())).toEqual([]);
  });
});

describe("837P text in X12's character set (probe 8921)", () => {
  it.each([
    ["Zoë", "ZOE"],
    ["Núñez-O’Brien", "NUNEZ-O'BRIEN"],
    ["María José", "MARIA JOSE"],
    ["Müller", "MULLER"],
    ["Straße", "STRASSE"],
    ["STRAẞE", "STRASSE"],
    ["Æsa Œuvre", "AESA OEUVRE"],
    ["æ œ", "AE OE"],
    ["Søren Ørsted", "SOREN ORSTED"],
    ["Łukasz łódź", "LUKASZ LODZ"],
    ["Đorđe", "DORDE"],
    ["Þór þorn", "THOR THORN"],
    ["Yıldız", "YILDIZ"],
    ["Ça‘va’", "CA'VA'"],
    ["“Bo” Smith", '"BO" SMITH'],
    ["Ann–Marie — Lee", "ANN-MARIE - LEE"],
    ["e\u0301 decomposed", "E DECOMPOSED"],
    ["a\u00a0b\u3000c", "A B C"],
    ["100 Main St., #4", "100 MAIN ST., #4"],
    ["山田 😀", "山田 😀"],
    ["a*b\tc", "A*B\tC"],
  ])("%j → %j", (typed, written) => expect(transliterate(typed)).toBe(written));

  const dependent = (over: Partial<typeof child>) => claim({ subscriber: parent, patient: { ...child, ...over } });
  const tail = "which a claim cannot carry (letters, digits and basic punctuation only). Edit it on the client's profile.";

  it.each([
    ["an accented first name goes out", { firstName: "Zoë" }, null],
    ["an accented last name goes out", { lastName: "Núñez-O’Brien" }, null],
    ["CJK is refused, naming the character", { firstName: "山田" }, `Client first name contains '山', ${tail}`],
    ["an emoji is named whole", { lastName: "Lopez 😀" }, `Client last name contains '😀', ${tail}`],
    ["a letter with no ASCII spelling", { firstName: "Ŋoma" }, `Client first name contains 'Ŋ', ${tail}`],
    ["a tab is named by its code", { firstName: "Leo\tX" }, "Client first name contains a control or invisible character (U+0009), which a claim cannot carry. Edit it on the client's profile."],
    ["a line break", { lastName: "Lo\npez" }, "Client last name contains a control or invisible character (U+000A), which a claim cannot carry. Edit it on the client's profile."],
    ["a bidi override", { lastName: "Lo\u202Epez" }, "Client last name contains a control or invisible character (U+202E), which a claim cannot carry. Edit it on the client's profile."],
    ["a zero-width space", { firstName: "Le\u200Bo" }, "Client first name contains a control or invisible character (U+200B), which a claim cannot carry. Edit it on the client's profile."],
    ["each separator keeps its refusal", { city: "Mia~mi" }, "Client city contains '~', which a claim cannot carry (* ~ : ^ separate the file's parts). Edit it on the client's profile."],
    ["a colon", { address: "5 Palm: Ave" }, "Client address contains ':', which a claim cannot carry (* ~ : ^ separate the file's parts). Edit it on the client's profile."],
    ["a caret", { lastName: "Lo^pez" }, "Client last name contains '^', which a claim cannot carry (* ~ : ^ separate the file's parts). Edit it on the client's profile."],
    ["a first name of 35 fits", { firstName: "A".repeat(35) }, null],
    ["a first name of 36 does not", { firstName: "A".repeat(36) }, "Client first name is longer than the 35 characters a claim can carry. Shorten it on the client's profile."],
    ["the length is counted after transliteration (ß → SS)", { firstName: `${"A".repeat(34)}ß` }, "Client first name is longer than the 35 characters a claim can carry. Shorten it on the client's profile."],
    ["inner runs of spaces count once, outer spaces not at all", { firstName: `  ${"A".repeat(17)}    ${"B".repeat(17)}  ` }, null],
    ["a last name of 61", { lastName: "L".repeat(61) }, "Client last name is longer than the 60 characters a claim can carry. Shorten it on the client's profile."],
    ["a city of 31", { city: "Rancho Santa Margarita Heights Village" }, "Client city is longer than the 30 characters a claim can carry. Shorten it on the client's profile."],
    ["an address of two lines goes out", { address: "12345 North Very Long Boulevard Name Extension, Building 7, Suite 1200 East Wing" }, null],
    ["an address longer than two lines", { address: `${"Word ".repeat(22)}End` }, "Client address is longer than the two lines of 55 characters a claim can carry. Shorten it on the client's profile."],
    ["an address with a word longer than a line", { address: `1 ${"X".repeat(56)}` }, "Client address is longer than the two lines of 55 characters a claim can carry. Shorten it on the client's profile."],
  ])("%s", (_name, over, message) => {
    const c = dependent(over);
    const issues = validateClaim(c).filter((e) => e.field.startsWith("patient."));
    expect(issues.map((e) => e.message)).toEqual(message ? [message] : []);
    expect(write837P([c], env(1)).ok).toBe(message === null);
  });

  // Generation reads the parties again (decision 032), so an address is fixed where it is kept, not by a new build (probe 8974 §5).
  it.each([
    ["a location address with a separator", (c: ClaimData) => ({ ...c, billingProvider: { ...c.billingProvider, address: "1 Main~St" } }), "billing.address", "Location address contains '~', which a claim cannot carry (* ~ : ^ separate the file's parts). Edit it on the location's page."],
    ["a location city too long", (c: ClaimData) => ({ ...c, billingProvider: { ...c.billingProvider, city: "C".repeat(31) } }), "billing.city", "Location city is longer than the 30 characters a claim can carry. Shorten it on the location's page."],
    ["a location address longer than two lines", (c: ClaimData) => ({ ...c, billingProvider: { ...c.billingProvider, address: `${"Word ".repeat(22)}End` } }), "billing.address", "Location address is longer than the two lines of 55 characters a claim can carry. Shorten it on the location's page."],
  ])("an address says where to fix it, not to build again: %s", (_name, change, field, message) => {
    expect(validateClaim(change(claim()))).toEqual([{ field, message }]);
  });

  it.each([
    ["no payer id", null, "The insurer Acme Health has no payer id (letters and digits). Add it on the insurer's page."],
    ["a blank one", "  ", "The insurer Acme Health has no payer id (letters and digits). Add it on the insurer's page."],
    ["one with a colon", "849:80", 'The insurer Acme Health\'s payer id "849:80" is not valid: a claim carries 2 to 80 letters and digits only. Correct it on the insurer\'s page.'],
    ["one with a dash", "PAY-77", 'The insurer Acme Health\'s payer id "PAY-77" is not valid: a claim carries 2 to 80 letters and digits only. Correct it on the insurer\'s page.'],
    ["one of one character (probe 8975 §4)", "Z", 'The insurer Acme Health\'s payer id "Z" is not valid: a claim carries 2 to 80 letters and digits only. Correct it on the insurer\'s page.'],
  ])("the payer id: %s (probe 8974 §5)", (_name, payerId, message) => {
    expect(payerIssues({ name: "Acme Health", payerId })).toEqual([{ field: "payer.payer_id", message }]);
  });

  it.each([
    ["subscriber first name", (c: ClaimData) => ({ ...c, subscriber: { ...c.subscriber, firstName: "J".repeat(36) } }), "subscriber.first_name", `Subscriber first name is longer than the ${ELEMENT_MAX.firstName} characters`, "on the client's profile"],
    ["member id", (c: ClaimData) => ({ ...c, subscriber: { ...c.subscriber, memberId: "M".repeat(81) } }), "subscriber.member_id", "Member id (primary insurance identifier) is longer than the 80 characters", "on the client's insurance details"],
    ["policy group", (c: ClaimData) => ({ ...c, subscriber: { ...c.subscriber, groupNumber: "G".repeat(51) } }), "subscriber.group", "Insured policy group is longer than the 50 characters", "on the client's insurance details"],
    ["location name", (c: ClaimData) => ({ ...c, billingProvider: { ...c.billingProvider, name: "N".repeat(61) } }), "billing.name", "Billing provider (location) name is longer than the 60 characters", "on the location's page"],
    ["payer name", (c: ClaimData) => ({ ...c, payer: { ...c.payer, name: "P".repeat(61) } }), "payer.name", "Payer name is longer than the 60 characters", "on the insurer's page"],
    ["rendering first name", (c: ClaimData) => ({ ...c, renderingProvider: { ...c.renderingProvider, firstName: "R".repeat(36) } }), "rendering.first_name", "Rendering provider first name is longer than the 35 characters", "on the employee's profile"],
    ["rendering last name", (c: ClaimData) => ({ ...c, renderingProvider: { ...c.renderingProvider, lastName: "R".repeat(61) } }), "rendering.last_name", "Rendering provider last name is longer than the 60 characters", "on the employee's profile"],
    ["prior authorization", (c: ClaimData) => ({ ...c, lines: [{ ...c.lines[0]!, paNumber: "A".repeat(51) }] }), "lines.0.pa_number", "Line 1 (97153 on 2026-11-02): the prior authorization number is longer than the 50 characters", "and build again"],
  ])("every element's limit is checked, never cut, and says where to shorten it: %s", (_name, change, field, message, where) => {
    const c = change(claim());
    // A party's value is read again at generation (decision 032): it is shortened where it is kept. A line's PA number is the line's own.
    expect(validateClaim(c)).toEqual([{ field, message: `${message} a claim can carry. Shorten it ${where}.` }]);
    expect(write837P([c], env(1)).ok).toBe(false);
  });

  it.each([
    ["short", "100 Main St", ["100 MAIN ST"]],
    ["exactly 55", `${"A".repeat(50)} BCDE`, [`${"A".repeat(50)} BCDE`]],
    ["split at the last space that fits", "12345 North Very Long Boulevard Name Extension, Building 7, Suite 1200 East Wing", ["12345 NORTH VERY LONG BOULEVARD NAME EXTENSION,", "BUILDING 7, SUITE 1200 EAST WING"]],
    ["a space at 55 ends the first line there", `${"A".repeat(55)} REST`, ["A".repeat(55), "REST"]],
    ["a word of 56 cannot be split", `${"A".repeat(56)} REST`, null],
    ["a second line over 55", `${"A".repeat(10)} ${"B".repeat(56)}`, null],
  ])("address lines: %s", (_name, typed, lines) => {
    expect(addressLines(typed)).toEqual(lines);
    for (const l of lines ?? []) expect(l.length).toBeLessThanOrEqual(ELEMENT_MAX.addressLine);
  });

  it("the file carries every character and word of the record: accents written in ASCII, a long address on N301 and N302", () => {
    const long = "12345 North Very Long Boulevard Name Extension, Building 7, Suite 1200 East Wing";
    const c = claim({
      subscriber: { ...parent, firstName: "José", lastName: "Müller" },
      patient: { ...child, firstName: "Zoë", lastName: "Núñez-O’Brien", address: long, city: "Rancho Santa Margarita Hts" },
    });
    const r = write837P([c], env(1));
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    readBack837(r.file.content);
    expect(r.file.content).toContain("NM1*IL*1*MULLER*JOSE****MI*W123456789~\nNM1*PR*");
    expect(r.file.content).toContain("NM1*QC*1*NUNEZ-O'BRIEN*ZOE~\nN3*12345 NORTH VERY LONG BOULEVARD NAME EXTENSION,*BUILDING 7, SUITE 1200 EAST WING~\nN4*RANCHO SANTA MARGARITA HTS*FL*33102~");
    const n3 = readable837P(r.file.content).find((seg) => seg.id === "N3" && seg.loop.startsWith("2010CA"));
    expect(n3?.parts).toEqual([
      { name: "Address", value: "12345 NORTH VERY LONG BOULEVARD NAME EXTENSION," },
      { name: "Address, second line", value: "BUILDING 7, SUITE 1200 EAST WING" },
    ]);
    // Nothing but ASCII in the file.
    expect(r.file.content).toMatch(/^[\x20-\x7e\n]*$/);
  });
});

describe("NPI check digit", () => {
  it.each([
    ["1234567893", true],
    ["1234567890", false],
    ["123456789", false],
    [npiFrom("987654321"), true],
  ])("%s → %s", (npi, ok) => expect(isValidNpi(npi)).toBe(ok));
});

describe("readable837P", () => {
  it("names loops and elements for people", () => {
    const r = write837P([claim({ lines: [line("97155", "bcba", "2026-11-05", 4, [], "11", "PA-1")] })], env(3));
    if (!r.ok) throw new Error("not written");
    const rows = readable837P(r.file.content);
    expect(rows.find((s) => s.id === "NM1" && s.loop.startsWith("2010AA"))?.parts).toContainEqual({ name: "Id", value: "1234567893" });
    expect(rows.find((s) => s.id === "REF" && s.loop.startsWith("2400"))?.label).toBe("Prior authorization number");
    expect(rows.find((s) => s.id === "SE")?.parts[0]).toEqual({ name: "Segment count", value: String(r.file.sets[0]!.segments) });
  });
});

describe("837P for 1,000 notes (its time is measured by npm run bench, test/bench/claims-837p.ts)", () => {
  it("writes 1,000 lines (20 claims of 50) that read back whole", () => {
    const claims = Array.from({ length: 20 }, (_, i) =>
      claim({ claimNumber: `B${i}`, lines: Array.from({ length: 50 }, (_, j) => line("97153", "rbt", `2026-0${1 + (j % 9)}-${String(1 + (j % 28)).padStart(2, "0")}`, 4 + (j % 5), j % 3 ? [] : ["HM"])) }),
    );
    const r = write837P(claims, env(10));
    expect(r.ok).toBe(true);
    if (r.ok) readBack837(r.file.content);
  });
});

describe("the subscriber's first and last names from the parent's one name field (decision 032, stop 29)", () => {
  // [as written on the profile, first name, last name, refused as unclear]
  it.each<[string, string, string, boolean]>([
    ["Cruz", "", "Cruz", false],
    ["Mary Cruz", "Mary", "Cruz", false],
    ["  Mary   Cruz ", "Mary", "Cruz", false],
    ["de la Cruz, Mary Ann", "Mary Ann", "de la Cruz", false],
    ["Pérez García, Juan Carlos", "Juan Carlos", "Pérez García", false],
    ["Mary Ann de la Cruz", "Mary Ann de la", "Cruz", true],
    ["Juan Carlos Pérez García", "Juan Carlos Pérez", "García", true],
    ["", "", "", false],
  ])("%s → first %s, last %s (unclear: %s)", (written, firstName, lastName, unclear) => {
    const split = splitName(written);
    expect({ firstName: split.firstName, lastName: split.lastName }).toEqual({ firstName, lastName });
    expect(split.unclear !== undefined).toBe(unclear);
  });

  it("a parent's name of three words or more without a comma is refused, naming the name and how to write it", () => {
    const c = claim();
    const issues = validateClaim({ ...c, subscriber: { ...c.subscriber, ...splitName("Mary Ann de la Cruz") } });
    expect(issues).toEqual([
      {
        field: "subscriber.last_name",
        message: 'The parent\'s name "Mary Ann de la Cruz" has more than two words, so its first and last names cannot be told apart. In "Parent name" (the "Parent or guardian" section) on the client\'s profile, write it as "Last name, First name" (for example "de la Cruz, Mary Ann").',
      },
    ]);
    expect(validateClaim({ ...c, subscriber: { ...c.subscriber, ...splitName("de la Cruz, Mary Ann") } })).toEqual([]);
  });
});

describe("a missing subscriber name points at the field to fill, by the client form's label and section", () => {
  it.each<[string, boolean, boolean, string]>([
    ["a parent subscriber", false, false, 'Subscriber last name is missing. Add it in "Parent name" (the "Parent or guardian" section) on the client\'s profile.'],
    [
      "a parent subscriber, a parent account linked (its name is not used: decision 032)",
      false,
      true,
      'Subscriber last name is missing. Add it in "Parent name" (the "Parent or guardian" section) on the client\'s profile. The linked parent account\'s name is not used as the insurance subscriber.',
    ],
    ["the client is the subscriber", true, false, "Subscriber last name is missing. Add it on the client's profile."],
  ])("%s", (_l, selfSubscriber, linked, message) => {
    const c = selfSubscriber ? claim() : claim({ subscriber: { ...parent, parentAccountLinked: linked }, patient: child });
    const issues = validateClaim({ ...c, subscriber: { ...c.subscriber, ...splitName(", Maria") } });
    expect(issues.find((i) => i.field === "subscriber.last_name")?.message).toBe(message);
  });
});

describe("SV107: each service line points to its own diagnosis first (decision 032, stop 31)", () => {
  const six = ["F84.0", "F80.2", "F90.9", "F41.9", "F42.2", "F93.0"];
  /** The SV107 of each SV1 of a written file, in line order. */
  const pointersOf = (content: string) => content.split("~\n").filter((s) => s.startsWith("SV1*")).map((s) => s.split("*")[7] ?? "");

  it("a claim of 6 codes: the line for code 6 points to 6 first, then the claim's first codes, 4 in all; golden, read back", () => {
    const c = claim({
      claimNumber: "C000006",
      diagnosisCodes: six,
      lines: [
        { ...line("97153", "rbt", "2026-11-02", 8, []), diagnosisCodes: ["F84.0"] },
        { ...line("97153", "rbt", "2026-11-03", 8, []), diagnosisCodes: ["F93.0"] },
        { ...line("97153", "rbt", "2026-11-04", 8, []), diagnosisCodes: ["F42.2", "F80.2"] },
      ],
    });
    expect(validateClaim(c)).toEqual([]);
    const r = write837P([c], env(6));
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    golden("six-diagnoses-pointers", r.file.content);
    readBack837(r.file.content);
    expect(r.file.content).toContain("HI*ABK:F840*ABF:F802*ABF:F909*ABF:F419*ABF:F422*ABF:F930~");
    expect(pointersOf(r.file.content)).toEqual(["1:2:3:4", "6:1:2:3", "5:2:1:3"]);
    // The viewer shows the same pointers from the same rule.
    expect(readable837P(r.file.content).filter((s) => s.id === "SV1").map((s) => s.parts.find((p) => p.name === "Diagnosis pointers")?.value)).toEqual(["1:2:3:4", "6:1:2:3", "5:2:1:3"]);
  });

  it("a claim of 1 code points to 1", () => {
    const r = write837P([claim({ diagnosisCodes: ["F84.0"], lines: [{ ...line("97153", "rbt", "2026-11-02", 8, []), diagnosisCodes: ["F84.0"] }] })], env(1));
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(pointersOf(r.file.content)).toEqual(["1"]);
  });

  // Every size of HI a claim carries, and a line for each of its codes: the line's code first, never past HI, no repeat.
  const sizes = Array.from({ length: 12 }, (_, i) => i + 1);
  it.each(sizes)("a claim of %i codes: every line's pointers are its own code's first, at most 4, none past the HI count", (n) => {
    const codes = Array.from({ length: n }, (_, i) => `F${80 + i}.0`);
    for (let k = 1; k <= n; k++) {
      const p = diagnosisPointers(codes, [codes[k - 1]!]);
      expect(p[0]).toBe(k);
      expect(p).toHaveLength(Math.min(4, n));
      expect(Math.max(...p)).toBeLessThanOrEqual(n);
      expect(new Set(p).size).toBe(p.length);
    }
  });

  it.each<[string, string[], string[] | undefined, number[]]>([
    ["a line built before stop 31 (no codes of its own) points to 1 to 4, as it was sent", six, undefined, [1, 2, 3, 4]],
    ["written with or without the dot", ["F84.0", "F80.2"], ["F802"], [2, 1]],
    ["a line of notes written for 5 codes points to its first 4", six, ["F93.0", "F42.2", "F41.9", "F90.9", "F80.2"], [6, 5, 4, 3]],
  ])("%s", (_name, codes, own, expected) => {
    expect(diagnosisPointers(codes, own)).toEqual(expected);
  });

  it("a line whose own diagnosis the claim does not carry is refused, never pointed elsewhere", () => {
    const c = claim({ diagnosisCodes: ["F84.0"], lines: [{ ...line("97153", "rbt", "2026-11-02", 8, []), diagnosisCodes: ["F93.0"] }] });
    expect(validateClaim(c)).toEqual([{ field: "lines.0.diagnosis", message: "Line 1 (97153 on 2026-11-02): its diagnosis F93.0 is not among the claim's diagnosis codes, so the line could not point to it. Void the claim (reject) and build it again." }]);
    expect(write837P([c], env(1)).ok).toBe(false);
  });
});

describe("2010BA carries N3, N4 and DMG only for a self-subscriber; PAT01 from the relationship (probe 8981 §2, §3)", () => {
  /** Loops 2000B to 2010CA of a written claim: its segments from HL*2 up to CLM. */
  const subscriberLoops = (c: ClaimData) => {
    const r = write837P([c], env(1));
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    readBack837(r.file.content);
    const segments = r.file.content.split("~\n");
    return segments.slice(segments.findIndex((s) => s.startsWith("HL*2*")), segments.findIndex((s) => s.startsWith("CLM*")));
  };
  it.each<[string, ClaimData, string[]]>([
    [
      "the client is the subscriber: their address and demographics in 2010BA, no 2000C",
      claim(),
      ["HL*2*1*22*0", "SBR*P*18*GRP01******CI", "NM1*IL*1*LOPEZ*ANA****MI*W123456789", "N3*5 PALM AVE", "N4*MIAMI*FL*33102", "DMG*D8*20180402*F", "NM1*PR*2*FLORIDA BLUE*****PI*00590"],
    ],
    [
      "a parent is the subscriber: 2010BA is their name and member id, the client's address and demographics in 2010CA only",
      claim({ subscriber: parent, patient: child }),
      ["HL*2*1*22*1", "SBR*P**GRP01******CI", "NM1*IL*1*LOPEZ*MARIA****MI*W123456789", "NM1*PR*2*FLORIDA BLUE*****PI*00590", "HL*3*2*23*0", "PAT*19", "NM1*QC*1*LOPEZ*LEO", "N3*5 PALM AVE", "N4*MIAMI*FL*33102", "DMG*D8*20190909*M"],
    ],
    ["a grandmother as the subscriber: PAT01 G8", claim({ subscriber: parent, patient: { ...child, relationship: "G8" } }), ["HL*2*1*22*1", "SBR*P**GRP01******CI", "NM1*IL*1*LOPEZ*MARIA****MI*W123456789", "NM1*PR*2*FLORIDA BLUE*****PI*00590", "HL*3*2*23*0", "PAT*G8", "NM1*QC*1*LOPEZ*LEO", "N3*5 PALM AVE", "N4*MIAMI*FL*33102", "DMG*D8*20190909*M"]],
    ["a spouse as the subscriber: PAT01 01", claim({ subscriber: parent, patient: { ...child, relationship: "01" } }), ["HL*2*1*22*1", "SBR*P**GRP01******CI", "NM1*IL*1*LOPEZ*MARIA****MI*W123456789", "NM1*PR*2*FLORIDA BLUE*****PI*00590", "HL*3*2*23*0", "PAT*01", "NM1*QC*1*LOPEZ*LEO", "N3*5 PALM AVE", "N4*MIAMI*FL*33102", "DMG*D8*20190909*M"]],
  ])("%s", (_name, c, expected) => {
    expect(subscriberLoops(c)).toEqual(expected);
  });

  it("a parent subscriber needs no address or birth date; the client's own are still required, for 2010CA", () => {
    expect(validateClaim(claim({ subscriber: parent, patient: child }))).toEqual([]);
    expect(validateClaim(claim({ subscriber: parent, patient: { ...child, birthDate: null, address: null, city: "" } }))).toEqual([
      { field: "patient.birth_date", message: "The client's birth date is missing. Add it on the client's profile." },
      { field: "patient.address", message: "Client address is missing. Add it on the client's profile." },
      { field: "patient.city", message: "Client city is missing. Add it on the client's profile." },
    ]);
  });
});

describe("X12 minimum lengths: NM109 and N401 take 2 characters or more (probe 8981 §6)", () => {
  it.each<[string, (c: ClaimData) => ClaimData, ClaimIssue[]]>([
    ["a member id of one character", (c) => ({ ...c, subscriber: { ...c.subscriber, memberId: "7" } }), [{ field: "subscriber.member_id", message: "Member id (primary insurance identifier) is shorter than the 2 characters a claim needs. Correct it on the client's insurance details." }]],
    ["one character between spaces", (c) => ({ ...c, subscriber: { ...c.subscriber, memberId: " 7 " } }), [{ field: "subscriber.member_id", message: "Member id (primary insurance identifier) is shorter than the 2 characters a claim needs. Correct it on the client's insurance details." }]],
    ["a self-subscriber's city of one letter", (c) => ({ ...c, subscriber: { ...client, city: "X" } }), [{ field: "subscriber.city", message: "Subscriber city is shorter than the 2 characters a claim needs. Correct it on the client's profile." }]],
    ["a dependent client's city of one letter", () => claim({ subscriber: parent, patient: { ...child, city: "X" } }), [{ field: "patient.city", message: "Client city is shorter than the 2 characters a claim needs. Correct it on the client's profile." }]],
    ["a location's city of one letter", (c) => ({ ...c, billingProvider: { ...c.billingProvider, city: "X" } }), [{ field: "billing.city", message: "Location city is shorter than the 2 characters a claim needs. Correct it on the location's page." }]],
    ["a member id of 2 and a city of 2 go out", (c) => ({ ...c, subscriber: { ...client, memberId: "77", city: "Ai" } }), []],
    ["a last name of one letter goes out (NM103 is 1 to 60)", (c) => ({ ...c, subscriber: { ...c.subscriber, lastName: "O" }, renderingProvider: { ...c.renderingProvider, lastName: "X" } }), []],
  ])("%s", (_name, change, issues) => {
    const c = change(claim());
    expect(validateClaim(c)).toEqual(issues);
    expect(write837P([c], env(1)).ok).toBe(issues.length === 0);
  });
});

describe("PER04: the location's phone as 10 digits (probe 8981 §7)", () => {
  const refused = (typed: string) => `The location Sunrise ABA Miami's phone number ${typed} is not a 10-digit number (for example (305) 555-0100; a leading +1 may be typed). Correct it on the location's page.`;
  it.each<[string, string | null, string | null, string | null]>([
    ["10 digits", "(305) 555-0100", "3055550100", null],
    ["typed with +1", "+1 (303) 555-0102", "3035550102", null],
    ["typed with a leading 1", "1-303-555-0102", "3035550102", null],
    ["7 digits", "555-0100", null, refused("555-0100")],
    ["11 digits not starting with 1", "2 303 555 0102", null, refused("2 303 555 0102")],
    ["another country's number", "+44 20 7946 0958", null, refused("+44 20 7946 0958")],
    ["with an extension", "(305) 555-0100 ext 12", null, refused("(305) 555-0100 ext 12")],
    ["none", null, null, "The location Sunrise ABA Miami needs a phone number (10 digits) for the claim's contact. Add it on the location's page."],
  ])("%s", (_name, phone, per04, message) => {
    const c = claim({ billingProvider: { ...claim().billingProvider, phone } });
    expect(validateClaim(c)).toEqual(message ? [{ field: "billing.phone", message }] : []);
    const r = write837P([c], env(1));
    expect(r.ok ? r.file.content.split("~\n").find((s) => s.startsWith("PER*")) : null).toBe(per04 && `PER*IC*SUNRISE ABA MIAMI*TE*${per04}`);
  });
});

describe("CLM11 related causes and the 2310A referring provider from the client's profile (probe 8981 §5)", () => {
  /** The segments of a written claim from CLM up to the first LX. */
  const claimLoop = (c: ClaimData) => {
    const r = write837P([c], env(1));
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const back = readBack837(r.file.content);
    expect(back.sets[0]!.count).toBe(r.file.sets[0]!.segments);
    const segments = r.file.content.split("~\n");
    return segments.slice(segments.findIndex((s) => s.startsWith("CLM*")), segments.findIndex((s) => s.startsWith("LX*")));
  };
  const ana = { firstName: "Ana", lastName: "Lee", npi: "1306849450" };
  const rita = `NM1*82*1*BAKER*RITA****XX*${npiFrom("111222333")}`;
  it.each<[string, Partial<ClaimData>, string[]]>([
    ["none: no CLM10 or CLM11, no 2310A", { relatedCauses: [], referringProvider: null }, ["CLM*C000001*100.00***12:B:1*Y*A*Y*Y", "HI*ABK:F840", rita]],
    ["employment related", { relatedCauses: ["EM"] }, ["CLM*C000001*100.00***12:B:1*Y*A*Y*Y**EM", "HI*ABK:F840", rita]],
    ["employment and other accident", { relatedCauses: ["EM", "OA"] }, ["CLM*C000001*100.00***12:B:1*Y*A*Y*Y**EM:OA", "HI*ABK:F840", rita]],
    ["a referring provider: 2310A between HI and 2310B", { referringProvider: ana }, ["CLM*C000001*100.00***12:B:1*Y*A*Y*Y", "HI*ABK:F840", "NM1*DN*1*LEE*ANA****XX*1306849450", rita]],
    ["a referring provider without a first name", { referringProvider: { ...ana, firstName: "" }, relatedCauses: ["OA"] }, ["CLM*C000001*100.00***12:B:1*Y*A*Y*Y**OA", "HI*ABK:F840", "NM1*DN*1*LEE*****XX*1306849450", rita]],
  ])("%s", (_name, over, expected) => {
    const c = claim(over);
    expect(validateClaim(c)).toEqual([]);
    expect(claimLoop(c)).toEqual(expected);
  });

  const profile = "on the client's profile";
  it.each<[string, Partial<ClaimData>, ClaimIssue[]]>([
    [
      "an auto accident: its state cannot be sent, so the claim is refused",
      { relatedCauses: ["EM", "AA"] },
      [{ field: "related_causes.auto_accident", message: 'An auto accident claim needs the accident\'s state (where it happened), and the client\'s profile has no place to record it, so this claim cannot be sent from here. If the services are not related to an auto accident, untick "Auto accident" on the client\'s profile.' }],
    ],
    ["a referring name without an NPI", { referringProvider: { ...ana, npi: null } }, [{ field: "referring.npi", message: "The client's profile names the referring provider Ana Lee without an NPI. Add the referring provider's 10-digit NPI on the client's profile, or clear the name if there is no referral." }]],
    ["a referring NPI without a name", { referringProvider: { firstName: "", lastName: "", npi: "1306849450" } }, [{ field: "referring.last_name", message: "The client's profile names a referring provider (NPI 1306849450) without a last name. Add the referring provider's last name on the client's profile, or clear the referring provider's fields if there is no referral." }]],
    ["a referring first name alone", { referringProvider: { firstName: "Ana", lastName: "", npi: null } }, [
      { field: "referring.last_name", message: "The client's profile names a referring provider (Ana) without a last name. Add the referring provider's last name on the client's profile, or clear the referring provider's fields if there is no referral." },
      { field: "referring.npi", message: "The client's profile names the referring provider Ana without an NPI. Add the referring provider's 10-digit NPI on the client's profile, or clear the name if there is no referral." },
    ]],
    ["a referring NPI with a wrong check digit", { referringProvider: { ...ana, npi: "1306849451" } }, [{ field: "referring.npi", message: "The referring provider's NPI 1306849451 on the client's profile is not a valid NPI (10 digits with a check digit). Correct it on the client's profile." }]],
    ["a referring last name too long", { referringProvider: { ...ana, lastName: "L".repeat(61) } }, [{ field: "referring.last_name", message: `Referring provider last name is longer than the 60 characters a claim can carry. Shorten it ${profile}.` }]],
    ["a referring first name with a separator", { referringProvider: { ...ana, firstName: "An*a" } }, [{ field: "referring.first_name", message: `Referring provider first name contains '*', which a claim cannot carry (* ~ : ^ separate the file's parts). Edit it ${profile}.` }]],
  ])("%s", (_name, over, issues) => {
    const c = claim(over);
    expect(validateClaim(c)).toEqual(issues);
    expect(write837P([c], env(1)).ok).toBe(false);
  });

  it("the viewer's readable 837P names 2310A and CLM11", () => {
    const r = write837P([claim({ relatedCauses: ["EM"], referringProvider: ana })], env(1));
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const rows = readable837P(r.file.content);
    expect(rows.find((s) => s.id === "NM1" && s.loop === "2310A Referring provider")?.label).toBe("Referring provider");
    expect(rows.find((s) => s.id === "CLM")?.parts.at(-1)).toEqual({ name: "Related causes", value: "EM" });
  });
});
