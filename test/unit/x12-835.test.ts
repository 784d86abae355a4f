import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { carcText, centsFromX12, dateFromX12, lineStatus, payerMismatch, rarcText, read835, serviceStatus, type Adjustment } from "~/domain/x12-835";
import { write835, type Claim835 } from "../support/x12-835";

const claimA: Claim835 = {
  claimNumber: "CLM-1",
  lines: [
    { cpt: "97153", serviceDate: "2026-02-02", chargeCents: 10000, units: 8, outcome: { kind: "paid" } },
    { cpt: "97153", modifiers: ["HM"], serviceDate: "2026-02-03", chargeCents: 12550, units: 10, outcome: { kind: "partial", paidCents: 9000 } },
    { cpt: "97155", serviceDate: "2026-02-04", chargeCents: 5000, units: 4, outcome: { kind: "denied" } },
  ],
};
const good = () => write835({ claims: [claimA], trace: "EFT-001" });

function errorsOf(text: string): string[] {
  const r = read835(text);
  expect(r.ok).toBe(false);
  return r.ok ? [] : r.errors.map((e) => `${e.position ?? "-"} ${e.segment ?? "-"}: ${e.message}`);
}

describe("amounts and dates", () => {
  it.each([
    ["120", 12000],
    ["120.5", 12050],
    ["120.50", 12050],
    ["0.07", 7],
    [".75", 75],
    ["-12.5", -1250],
    ["12.500", 1250],
    ["0", 0],
    ["19.99", 1999], // a float sum would drift; string arithmetic does not
  ])("%s → %i cents", (text, cents) => expect(centsFromX12(text)).toBe(cents));

  it.each(["", "12.345", "1e3", "12,00", "abc", "-", ".", "1.2.3", "0x10"])("%j is not an amount", (text) => expect(centsFromX12(text)).toBeNull());

  it.each([
    ["20260215", "2026-02-15"],
    ["20240229", "2024-02-29"],
    ["20260230", null],
    ["2026021", null],
    ["2026-02-15", null],
  ])("date %s → %s", (text, iso) => expect(dateFromX12(text)).toBe(iso));
});

describe("reading a balanced 835", () => {
  it("reads the payment, trace, payer, claims, lines, adjustments and remarks", () => {
    const r = read835(good());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const p = r.remittance;
    expect(p).toMatchObject({ traceNumber: "EFT-001", payerName: "DEMO HEALTH PLAN", paymentDate: "2026-02-15", totalPaidCents: 19000, interchangeControl: "000000001", groupControl: "1", setControl: "0001" });
    expect(p.claims).toHaveLength(1);
    const [c] = p.claims;
    expect(c).toMatchObject({ claimNumber: "CLM-1", statusCode: "1", chargeCents: 27550, paidCents: 19000 });
    expect(c!.services.map((s) => [s.cptCode, s.modifiers, s.serviceDate, s.chargeCents, s.paidCents, s.units])).toEqual([
      ["97153", [], "2026-02-02", 10000, 10000, 8],
      ["97153", ["HM"], "2026-02-03", 12550, 9000, 10],
      ["97155", [], "2026-02-04", 5000, 0, 4],
    ]);
    expect(c!.services[1]!.adjustments).toEqual([{ group: "CO", reason: "45", amountCents: 3550 }]);
    expect(c!.services[2]!.adjustments).toEqual([{ group: "CO", reason: "197", amountCents: 5000 }]);
    expect(c!.services[2]!.remarks).toEqual(["N54"]);
  });

  it.each([
    ["~ and newlines", { terminator: "~", newlines: true }],
    ["~ on one line", { terminator: "~", newlines: false }],
    ["' as terminator", { terminator: "'", newlines: false }],
  ])("takes its separators from the ISA segment (%s)", (_label, opts) => {
    const r = read835(write835({ claims: [claimA], trace: "T1", ...opts }));
    expect(r.ok).toBe(true);
  });

  it("reads other element and component separators", () => {
    const text = good().replace(/\*/g, "|").replace(/:/g, ">");
    const r = read835(text);
    expect(r.ok, JSON.stringify(!r.ok && r.errors)).toBe(true);
    if (r.ok) expect(r.remittance.claims[0]!.services[1]!.modifiers).toEqual(["HM"]);
  });

  it("subtracts a provider-level adjustment (PLB) from the payment", () => {
    const r = read835(write835({ claims: [claimA], trace: "T2", plb: { reason: "WO", amountCents: 500 } }));
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.remittance.totalPaidCents).toBe(18500);
  });

  it("keeps several adjustments of a line and the patient's share", () => {
    const r = read835(write835({ claims: [{ claimNumber: "C2", lines: [{ cpt: "97153", serviceDate: "2026-02-02", chargeCents: 10000, units: 8, outcome: { kind: "partial", paidCents: 6000, patientCents: 1500 } }] }], trace: "T3" }));
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.remittance.claims[0]!.services[0]!.adjustments).toEqual([
      { group: "CO", reason: "45", amountCents: 2500 },
      { group: "PR", reason: "2", amountCents: 1500 },
    ]);
  });

  it("prefers the original procedure (SVC06) when the payer changed it", () => {
    const text = good().replace("SVC*HC:97155*50.00*0.00**4", "SVC*HC:97156*50.00*0.00**4*HC:97155");
    const r = read835(text);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.remittance.claims[0]!.services[2]).toMatchObject({ cptCode: "97155", paidCptCode: "97156" });
  });
});

describe("malformed files are refused with the segment's position and a reason", () => {
  const cases: [string, (t: string) => string, RegExp][] = [
    ["empty", () => "", /empty/],
    ["not X12", () => "hello world", /not an X12 file/],
    ["a cut-short ISA", (t) => t.slice(0, 40), /cut short/],
    ["SE01 off by one", () => write835({ claims: [claimA], trace: "T", breakSeCount: true }), /SE01 says \d+ segments; the set has \d+/],
    ["SE02 not ST02", (t) => t.replace("SE*", "SE*").replace(/SE\*(\d+)\*0001/, "SE*$1*0002"), /SE02 "0002" does not match ST02 "0001"/],
    ["GE01 wrong", (t) => t.replace("GE*1*", "GE*2*"), /GE01 says 2 transaction sets; the group has 1/],
    ["GE02 not GS06", (t) => t.replace(/GE\*1\*1/, "GE*1*9"), /GE02 "9" does not match GS06 "1"/],
    ["IEA01 wrong", (t) => t.replace("IEA*1*", "IEA*3*"), /IEA01 says 3 groups; the interchange has 1/],
    ["IEA02 not ISA13", (t) => t.replace("IEA*1*000000001", "IEA*1*000000002"), /IEA02 "000000002" does not match ISA13/],
    ["no IEA", (t) => t.replace(/IEA[^~]*~\n?/, ""), /ends without its IEA/],
    ["an 837 set", (t) => t.replace("ST*835", "ST*837"), /835 remittances only/],
    ["GS01 not HP", (t) => t.replace("GS*HP", "GS*HC"), /GS01 is "HC"/],
    ["a bad amount", (t) => t.replace("CLP*CLM-1*1*275.50", "CLP*CLM-1*1*275.505"), /CLP03 \(claim charge\) "275.505" is not an amount/],
    ["a bad date", (t) => t.replace("DTM*472*20260202", "DTM*472*20260231"), /DTM02 \(service date\) "20260231" is not a date/],
    ["a bad CAS group", (t) => t.replace("CAS*CO*45", "CAS*XX*45"), /CAS01 \(adjustment group\) "XX"/],
    ["no payer", (t) => t.replace(/N1\*PR\*[^~]*~\n/, ""), /names no payer \(an N1\*PR segment\)/],
    ["no trace", (t) => t.replace(/TRN\*1\*EFT-001/, "TRN*1*"), /TRN02 .* missing/],
    ["a segment outside the set", (t) => t.replace("GE*1*1", "REF*EV*X~\nGE*1*1"), /outside a transaction set/],
    ["two payments in one file", (t) => t.replace(/(SE\*\d+\*0001~\n)/, "$1ST*835*0002~\nBPR*I*0*C*NON************20260215~\nTRN*1*X*1~\nSE*4*0002~\n").replace("GE*1*1", "GE*2*1"), /more than one payment/],
    ["SVC before CLP", (t) => t.replace("LX*1", "SVC*HC:97153*1*1**1"), /SVC segment before any claim/],
  ];
  it.each(cases)("%s", (_label, mutate, message) => {
    const errors = errorsOf(mutate(good()));
    expect(errors.join("\n")).toMatch(message);
  });

  it("names the segment's position (ISA = 1)", () => {
    const text = good().replace("CLP*CLM-1*1*275.50", "CLP*CLM-1*1*2x");
    const r = read835(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const lines = text.split("~\n");
    const at = lines.findIndex((l) => l.startsWith("CLP")) + 1;
    expect(r.errors[0]).toMatchObject({ position: at, segment: "CLP" });
  });
});

describe("control and invisible characters are refused, naming the segment and element (decisions 017, 033)", () => {
  const refusal = (where: string, code: string) => `${where} holds a control or invisible character (${code}), which an 835's text cannot carry. Ask the payer for a corrected file.`;
  it.each([
    ["a right-to-left override in the payer's name", (t: string) => t.replace("N1*PR*DEMO HEALTH PLAN", "N1*PR*SAFE\u202ETNEMYAP"), 7, "N1", refusal("N102", "U+202E")],
    ["a bell and an escape", (t: string) => t.replace("N1*PR*DEMO HEALTH PLAN", "N1*PR*DEMO\x07\x1bPLAN"), 7, "N1", refusal("N102", "U+0007")],
    ["a line feed inside the payer's name", (t: string) => t.replace("N1*PR*DEMO HEALTH PLAN", "N1*PR*ACME\nHEALTH"), 7, "N1", refusal("N102", "U+000A")],
    ["a carriage return inside an element", (t: string) => t.replace("N1*PR*DEMO HEALTH PLAN", "N1*PR*ACME\rHEALTH"), 7, "N1", refusal("N102", "U+000D")],
    ["a tab", (t: string) => t.replace("N1*PR*DEMO HEALTH PLAN", "N1*PR*DEMO\tPLAN"), 7, "N1", refusal("N102", "U+0009")],
    ["a C1 control", (t: string) => t.replace("N1*PR*DEMO HEALTH PLAN", "N1*PR*DEMO\u0085PLAN"), 7, "N1", refusal("N102", "U+0085")],
    ["a bidi isolate in the trace number", (t: string) => t.replace("TRN*1*EFT-001", "TRN*1*TR\u2066 99"), 5, "TRN", refusal("TRN02", "U+2066")],
    ["a NUL in a claim number", (t: string) => t.replace("CLP*CLM-1", "CLP*CLM\u0000-1"), 12, "CLP", refusal("CLP01", "U+0000")],
    ["inside a composite", (t: string) => t.replace("SVC*HC:97153*100.00", "SVC*HC:97153:\u202D*100.00"), 14, "SVC", refusal("SVC01", "U+202D")],
    ["in a segment id", (t: string) => t.replace("N3*PO BOX", "N\u202E3*PO BOX"), 8, null, refusal("Segment 8's id", "U+202E")],
    ["in a sender id in the ISA", (t: string) => t.replace("PAYERID        ", "PAYER\u202EID       "), 1, "ISA", refusal("ISA06", "U+202E")],
    // Probe 8924 #5: the trace as the probe sent it (more characters in the next table).
    ["a line separator and a zero-width space in the trace number", (t: string) => t.replace("TRN*1*EFT-001", "TRN*1*LS\u2028TRACE\u200B42"), 5, "TRN", refusal("TRN02", "U+2028")],
  ])("%s", (_label, mutate, position, segment, message) => {
    const r = read835(mutate(good()));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([{ position, segment, message }]);
    expect(r.remittance).toBeNull();
  });

  // Probe 8924 #5: what the 837P side refuses as "a control or invisible character" (one rule, app/domain/x12.ts).
  it.each([
    ["a line separator", "\u2028", "U+2028"],
    ["a paragraph separator", "\u2029", "U+2029"],
    ["a zero-width space", "\u200B", "U+200B"],
    ["a zero-width non-joiner", "\u200C", "U+200C"],
    ["a zero-width joiner", "\u200D", "U+200D"],
    ["a word joiner", "\u2060", "U+2060"],
    ["a byte-order mark inside the text", "\uFEFF", "U+FEFF"],
    ["a soft hyphen", "\u00AD", "U+00AD"],
    ["a left-to-right mark", "\u200E", "U+200E"],
    ["a right-to-left mark", "\u200F", "U+200F"],
    ["an Arabic letter mark", "\u061C", "U+061C"],
    // Probe 8925 §5: invisible characters Unicode marks as ignorable outside its C category.
    ["a Hangul filler", "\u3164", "U+3164"],
    ["a halfwidth Hangul filler", "\uFFA0", "U+FFA0"],
    ["a combining grapheme joiner", "\u034F", "U+034F"],
    ["a variation selector", "\uFE0F", "U+FE0F"],
  ])("%s in the payer's name", (_label, ch, code) => {
    const r = read835(good().replace("N1*PR*DEMO HEALTH PLAN", `N1*PR*DEMO${ch}HEALTH PLAN`));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([{ position: 7, segment: "N1", message: refusal("N102", code) }]);
  });

  it.each([
    ["CR LF between segments", (t: string) => t.replace(/~\n/g, "~\r\n")],
    ["blank lines between segments", (t: string) => t.replace(/~\n/g, "~\n\n")],
    ["a control character as the component separator (ISA16)", (t: string) => t.replace(/:/g, "\x1f")],
    ["accents, CJK and the X12 punctuation in text", (t: string) => t.replace("N1*PR*DEMO HEALTH PLAN", "N1*PR*SALUD MÉXICO 山田 (A&B), #1")],
    ["a byte-order mark before the ISA", (t: string) => `\uFEFF${t}`],
    ["a space of another width (no-break, ideographic) in text", (t: string) => t.replace("N1*PR*DEMO HEALTH PLAN", "N1*PR*DEMO\u00A0HEALTH\u3000PLAN")],
  ])("still reads: %s", (_label, mutate) => {
    const r = read835(mutate(good()));
    expect(r.ok, JSON.stringify(!r.ok && r.errors)).toBe(true);
  });
});

describe("balance checks", () => {
  it("BPR02 must equal the claims' payments", () => {
    expect(errorsOf(write835({ claims: [claimA], trace: "T", breakTotal: true })).join("\n")).toMatch(/does not balance: BPR02 is 190.01, the claims paid 190.00/);
  });
  it("a line's charge − paid must equal its adjustments", () => {
    const text = good().replace("CAS*CO*45*35.50", "CAS*CO*45*35.00");
    expect(errorsOf(text).join("\n")).toMatch(/CLM-1, 97153: charged 125.50, paid 90.00, but the adjustments \(CAS\) add up to 35.00, not 35.50/);
  });
  it("a claim's payment must equal its lines'", () => {
    const text = good().replace("CLP*CLM-1*1*275.50*190.00", "CLP*CLM-1*1*275.50*180.00").replace("BPR*I*190.00", "BPR*I*180.00");
    expect(errorsOf(text).join("\n")).toMatch(/CLP04 paid 180.00, its service lines 190.00/);
  });
});

// Probe 8961 #3: a line the payer processed and put wholly on the patient (PR-1 deductible) was "denied", which rejected
// its claim and freed its notes for a second claim of the same session.
describe("a service line's status (decision 033, stop 33)", () => {
  const adj = (group: Adjustment["group"], reason: string, amountCents: number): Adjustment => ({ group, reason, amountCents });
  it.each<[string, number, number, Adjustment[], string]>([
    ["paid in full", 13800, 13800, [], "paid"],
    ["an XP line of no charge, paid 0", 0, 0, [], "paid"],
    ["paid in part (CO-45)", 13800, 10000, [adj("CO", "45", 3800)], "partial"],
    ["paid in part, the rest coinsurance (PR-2)", 13800, 10000, [adj("PR", "2", 3800)], "partial"],
    ["nothing paid, PR-1 deductible", 13800, 0, [adj("PR", "1", 13800)], "patient"],
    ["nothing paid, PR-2 coinsurance", 13800, 0, [adj("PR", "2", 13800)], "patient"],
    ["nothing paid, PR-3 co-payment", 13800, 0, [adj("PR", "3", 13800)], "patient"],
    ["nothing paid, CO-45 and PR-1 summing to the charge", 13800, 0, [adj("CO", "45", 3800), adj("PR", "1", 10000)], "patient"],
    ["nothing paid, CO-50 (not medically necessary)", 13800, 0, [adj("CO", "50", 13800)], "denied"],
    ["nothing paid, CO-97 (bundled)", 13800, 0, [adj("CO", "97", 13800)], "denied"],
    ["nothing paid, OA-23 (a prior payer's adjudication)", 13800, 0, [adj("OA", "23", 13800)], "denied"],
    ["nothing paid, PI-204 (not covered)", 13800, 0, [adj("PI", "204", 13800)], "denied"],
    ["nothing paid, CO-45 of the whole charge (nothing allowed)", 13800, 0, [adj("CO", "45", 13800)], "denied"],
    ["nothing paid, PR-1 beside a CO-50 denial", 13800, 0, [adj("PR", "1", 5000), adj("CO", "50", 8800)], "denied"],
    ["nothing paid, PR-1 beside a CO-45 for another reason group (OA-45)", 13800, 0, [adj("PR", "1", 5000), adj("OA", "45", 8800)], "denied"],
  ])("%s", (_label, charge, paid, adjustments, status) => {
    expect(lineStatus(charge, paid, adjustments)).toBe(status);
  });
});

// Probe 8965 §2: a claim-level CAS that took the whole claim (CLP04 0) left its lines "paid" and set their notes' pay flags.
describe("a service line's status in its claim's payment: a claim paid nothing pays none of its lines (decision 033, stop 33)", () => {
  const adj = (group: Adjustment["group"], reason: string, amountCents: number): Adjustment => ({ group, reason, amountCents });
  const line = (chargeCents: number, paidCents: number, adjustments: Adjustment[] = []) => ({ chargeCents, paidCents, adjustments });
  it.each<[string, { paidCents: number; adjustments: Adjustment[] }, ReturnType<typeof line>, string]>([
    // CLP04 0: the claim's adjustments took the lines' payments.
    ["CLP04 0, CO-50 on the claim, the line paid in full by SVC03", { paidCents: 0, adjustments: [adj("CO", "50", 46675)] }, line(16425, 16425), "denied"],
    ["CLP04 0, PR-1 on the claim", { paidCents: 0, adjustments: [adj("PR", "1", 16425)] }, line(16425, 16425), "patient"],
    ["CLP04 0, PR-1 on the claim, CO-45 on the line", { paidCents: 0, adjustments: [adj("PR", "1", 15425)] }, line(16425, 15425, [adj("CO", "45", 1000)]), "patient"],
    ["CLP04 0, PR-1 and OA-23 on the claim", { paidCents: 0, adjustments: [adj("PR", "1", 10000), adj("OA", "23", 6425)] }, line(16425, 16425), "denied"],
    ["CLP04 0, CO-45 of the whole claim (nothing allowed)", { paidCents: 0, adjustments: [adj("CO", "45", 16425)] }, line(16425, 16425), "denied"],
    ["CLP04 0, PR-2 on the claim, the line paid in part by SVC03", { paidCents: 0, adjustments: [adj("PR", "2", 9000)] }, line(12550, 9000, [adj("CO", "45", 3550)]), "patient"],
    // A line paid nothing keeps its own rule, whatever the claim's adjustments.
    ["CLP04 0, CO-50 on the claim, a line of its own PR-1", { paidCents: 0, adjustments: [adj("CO", "50", 10000)] }, line(5000, 0, [adj("PR", "1", 5000)]), "patient"],
    ["CLP04 0, no claim adjustment, a line denied CO-97", { paidCents: 0, adjustments: [] }, line(5000, 0, [adj("CO", "97", 5000)]), "denied"],
    ["CLP04 0, an XP line of no charge", { paidCents: 0, adjustments: [] }, line(0, 0), "paid"],
    // CLP04 > 0: the line's own rule (a claim-level adjustment does not make a paid line partial).
    ["CLP04 154.25, CO-45 10.00 on the claim, the line paid in full by SVC03", { paidCents: 15425, adjustments: [adj("CO", "45", 1000)] }, line(16425, 16425), "paid"],
    ["CLP04 > 0, the line paid in part", { paidCents: 9000, adjustments: [] }, line(12550, 9000, [adj("CO", "45", 3550)]), "partial"],
  ])("%s", (_label, claim, service, status) => {
    expect(serviceStatus(claim, service)).toBe(status);
  });
});

// Probe 8961 #2: CLP03 − Σ(claim CAS + line CAS) = CLP04 and Σ SVC03 = CLP04 together refused every claim-level CAS.
describe("claim-level adjustments (CAS right after CLP) balance as 005010X221A1 says: Σ SVC03 − Σ claim CAS = CLP04", () => {
  const golden = (name: string) => readFileSync(path.join(import.meta.dirname, "../golden/835", name), "utf8");
  it.each<[string, string, { charge: number; paid: number; claimCas: [string, string, number][]; linesPaid: number[] }]>([
    // The probe's c27cas.835: 178.75 − PR-3 10.00 (claim) − CO-45 18.75 (line) = 150.00.
    ["one line, PR-3 on the claim", "claim-level-cas.x12", { charge: 17875, paid: 15000, claimCas: [["PR", "3", 1000]], linesPaid: [16000] }],
    // The probe's plb.835: lines 410.00 − OA-23 10.00 = CLP04 400.00; BPR02 390.00 after a PLB of 10.00.
    ["three lines, OA-23 on the claim and a PLB", "claim-level-cas-plb.x12", { charge: 46675, paid: 40000, claimCas: [["OA", "23", 1000]], linesPaid: [11800, 14200, 15000] }],
  ])("%s (%s) reads with the right cents", (_label, file, want) => {
    const r = read835(golden(file));
    expect(r.ok, JSON.stringify(!r.ok && r.errors)).toBe(true);
    if (!r.ok) return;
    const c = r.remittance.claims[0]!;
    expect({ charge: c.chargeCents, paid: c.paidCents, claimCas: c.adjustments.map((a) => [a.group, a.reason, a.amountCents]), linesPaid: c.services.map((s) => s.paidCents) }).toEqual(want);
  });

  it("the writer's claim-level CAS read back", () => {
    const r = read835(write835({ claims: [{ ...claimA, adjustments: [{ group: "PR", reason: "3", cents: 1000 }] }], trace: "T4" }));
    expect(r.ok, JSON.stringify(!r.ok && r.errors)).toBe(true);
    if (r.ok) expect(r.remittance).toMatchObject({ totalPaidCents: 18000, claims: [{ paidCents: 18000, patientResponsibilityCents: 1000, adjustments: [{ group: "PR", reason: "3", amountCents: 1000 }] }] });
  });

  it("a claim whose CLP04 is its lines' payments, the claim-level CAS not taken off, is refused: both ways it is written", () => {
    // The probe's plb2.835: CLP04 410.00 = Σ SVC03, but charged 466.75 − 410.00 is not the adjustments' 66.75.
    expect(errorsOf(golden("bad-claim-level-cas-not-subtracted.x12"))).toEqual([
      "10 CLP: Claim C0000009: CLP04 paid 410.00, but its service lines paid 410.00 less the claim's own adjustments (CAS) 10.00, which is 400.00.",
      "10 CLP: Claim C0000009: charged 466.75, paid 410.00, but the adjustments (CAS) add up to 66.75, not 56.75.",
    ]);
    // CLP04 400.00 with the lines paying 405.00: the lines and the claim disagree.
    const text = golden("claim-level-cas-plb.x12").replace("SVC*HC:97151:HO*195.00*150.00**6", "SVC*HC:97151:HO*195.00*145.00**6").replace("CAS*CO*45*45.00", "CAS*CO*45*50.00");
    expect(errorsOf(text)).toEqual([
      "10 CLP: Claim C0000009: CLP04 paid 400.00, but its service lines paid 405.00 less the claim's own adjustments (CAS) 10.00, which is 395.00.",
      "10 CLP: Claim C0000009: charged 466.75, paid 400.00, but the adjustments (CAS) add up to 71.75, not 66.75.",
    ]);
  });
});

describe("codes for people", () => {
  it.each([
    ["45", /fee schedule/],
    ["197", /authorization/],
    ["1", /Deductible/],
  ])("CARC %s", (code, text) => expect(carcText(code)).toMatch(text));
  it("N54 and an unknown code", () => {
    expect(rarcText("N54")).toMatch(/authorized/);
    expect(carcText("ZZ9")).toBeNull();
  });
});

describe("golden 835 files read without error", () => {
  const dir = path.join(import.meta.dirname, "../golden/835");
  const files = readdirSync(dir).filter((f) => f.endsWith(".x12"));
  it.each(files)("%s", (file) => {
    const text = readFileSync(path.join(dir, file), "utf8");
    const r = read835(text);
    if (file.startsWith("bad-")) expect(r.ok).toBe(false);
    else expect(r.ok, JSON.stringify(!r.ok && r.errors)).toBe(true);
  });
});

// Probe 9007 §1: only the claim's own payer pays it (decision 033, stop 37).
describe("payerMismatch: the remittance's payer against the claim's (NM1*PR of its 837P)", () => {
  const sunshine = { name: "Sunshine Health", payerId: "68069" };
  it.each<[string, { name: string; payerId: string | null } | null, { payerName: string; payerIds: string[] }, string | null]>([
    ["same name, no id in the file", sunshine, { payerName: "SUNSHINE HEALTH", payerIds: [] }, null],
    ["name in other case, spaces around and inside", sunshine, { payerName: "  sunshine   health ", payerIds: [] }, null],
    ["accents as the 837P writes them", { name: "Salud Médica", payerId: "11111" }, { payerName: "SALUD MEDICA", payerIds: [] }, null],
    ["another name, no id", sunshine, { payerName: "ROCKY MOUNTAIN CARE", payerIds: [] }, "Claim C0000008 was billed to Sunshine Health (68069); this remittance is from ROCKY MOUNTAIN CARE."],
    ["the claim's id, another name: the id decides", sunshine, { payerName: "SUNSHINE CLAIMS OFFICE", payerIds: ["68069"] }, null],
    ["one of two ids is the claim's", sunshine, { payerName: "SUNSHINE HEALTH", payerIds: ["H1234", "68069"] }, null],
    ["the same name but another id", sunshine, { payerName: "SUNSHINE HEALTH", payerIds: ["84980"] }, "Claim C0000008 was billed to Sunshine Health (68069); this remittance is from SUNSHINE HEALTH (84980)."],
    ["an id, and the claim's payer has none", { name: "Sunshine Health", payerId: null }, { payerName: "SUNSHINE HEALTH", payerIds: ["68069"] }, "Claim C0000008 was billed to Sunshine Health; this remittance is from SUNSHINE HEALTH (68069)."],
    ["a claim with no payer", null, { payerName: "SUNSHINE HEALTH", payerIds: [] }, "Claim C0000008 names no payer, so this remittance from SUNSHINE HEALTH cannot be its payer's."],
  ])("%s", (_label, claimPayer, file, expected) => {
    expect(payerMismatch("C0000008", claimPayer, file)).toBe(expected);
  });

  it.each<[string, Partial<Parameters<typeof write835>[0]>, string[]]>([
    ["no identification", {}, []],
    ["N1*PR with PI", { payerIdentifier: "68069" }, ["68069"]],
    ["REF*2U in the payer loop", { payerRef: "68069" }, ["68069"]],
    ["both", { payerIdentifier: "H1", payerRef: "68069" }, ["H1", "68069"]],
  ])("read835 reads the payer's ids: %s", (_label, opts, ids) => {
    const read = read835(write835({ claims: [{ claimNumber: "C1", lines: [{ cpt: "97153", serviceDate: "2026-02-02", units: 1, chargeCents: 1000, outcome: { kind: "paid" } }] }], trace: "T1", ...opts }));
    expect(read.ok && read.remittance.payerIds).toEqual(ids);
  });

  it("N103 other than XV, PI or FI, and a REF*2U outside the payer loop, identify no payer", () => {
    const text = write835({ claims: [{ claimNumber: "C1", lines: [{ cpt: "97153", serviceDate: "2026-02-02", units: 1, chargeCents: 1000, outcome: { kind: "paid" } }] }], trace: "T1" })
      .replace("N1*PR*DEMO HEALTH PLAN~", "N1*PR*DEMO HEALTH PLAN*ZZ*68069~")
      .replace("N1*PE*BASELINE ABA*XX*1234567893~", "N1*PE*BASELINE ABA*XX*1234567893~\nREF*2U*68069~")
      .replace(/SE\*(\d+)\*/, (_m, n: string) => `SE*${Number(n) + 1}*`);
    const read = read835(text);
    expect(read.ok, JSON.stringify(!read.ok && read.errors)).toBe(true);
    expect(read.ok && read.remittance.payerIds).toEqual([]);
  });
});
