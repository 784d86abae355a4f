import { and, count, desc, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, claimLineNotes, claimLines, claims, clientReports, insurances, notes, remittanceClaimAdjustments, remittanceLines, remittances, x12Files } from "~/db/schema";
import { getActor } from "~/models/actors.server";
import { importRemittance } from "~/models/remittances.server";
import { write835, type Claim835, type Line835 } from "../support/x12-835";
import { claimState, createClaim, fixtureInsurer, type FixtureLine } from "./claim-fixtures";
import { BASE, api, apiToken, countingDb, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";
import { appFetch } from "./app-fetch";

/**
 * Remittances (decision 033): an 835 matched and applied, partly matched, and refused (unmatched claim, unknown
 * line, imbalance, malformed, duplicate trace) with nothing changed; permission 403; another location's claim
 * refused and its remittance 404. API and screens (JavaScript off: plain form posts).
 */

const LINES: FixtureLine[] = [
  { cpt: "97153", serviceDate: "2026-02-02", units: 8, chargeCents: 10000 },
  { cpt: "97153", modifiers: "HM", serviceDate: "2026-02-03", units: 10, chargeCents: 12550 },
  { cpt: "97155", serviceDate: "2026-02-04", units: 4, chargeCents: 5000 },
];

/** The 835 lines of a fixture claim's lines with the payer's outcomes. */
function svc(lines: readonly FixtureLine[], outcomes: Line835["outcome"][]): Line835[] {
  return lines.map((l, i) => ({ cpt: l.cpt, modifiers: l.modifiers ? l.modifiers.split("-") : [], serviceDate: l.serviceDate, chargeCents: l.chargeCents, units: l.units, outcome: outcomes[i]! }));
}
const MIXED: Line835["outcome"][] = [{ kind: "paid" }, { kind: "partial", paidCents: 9000 }, { kind: "denied" }];

let traceSeq = 0;
const trace = () => `TRC-${Date.now()}-${++traceSeq}`;

let locA: { id: number };
let locB: { id: number };
let managerToken: string;
let managerCookie: string;
let otherToken: string;
let otherCookie: string;
let noPermToken: string;
let noPermCookie: string;

async function patientIn(locationId: number) {
  return createPatient({ locationId, firstName: "Remy", lastName: "Payne" });
}

async function totals() {
  const [[r], [l], [f], [a]] = await Promise.all([
    db().select({ n: count() }).from(remittances),
    db().select({ n: count() }).from(remittanceLines),
    db().select({ n: count() }).from(x12Files),
    db().select({ n: count() }).from(remittanceClaimAdjustments),
  ]);
  return { remittances: r!.n, lines: l!.n, files: f!.n, claimAdjustments: a!.n };
}

function post835(text: string, token: string, query = "", type = "text/plain") {
  return appFetch(`${BASE}/api/v2/remittances${query}`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": type, Accept: "application/json" }, body: text });
}

beforeAll(async () => {
  locA = await createLocation();
  locB = await createLocation();
  const manager = await createUser({ permissions: ["manage_claims"], locations: [locA.id] });
  const other = await createUser({ permissions: ["manage_claims"], locations: [locB.id] });
  const noPerm = await createUser({ permissions: ["view_notes", "manage_notes"], locations: [locA.id] });
  [managerToken, managerCookie, otherToken, otherCookie, noPermToken, noPermCookie] = await Promise.all([apiToken(manager), signInCookie(manager), apiToken(other), signInCookie(other), apiToken(noPerm), signInCookie(noPerm)]);
});

describe("POST /api/v2/remittances: a matched file is applied", () => {
  it("records paid, partly paid and denied lines, the notes' pay flags, the claim's totals and status, the file and the audit row", async () => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES);
    const text = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES, MIXED) }], trace: trace() });
    const auditBefore = (await db().select({ n: count() }).from(auditLog))[0]!.n;

    const res = await post835(text, managerToken);
    const body = (await res.json()) as { message: string; data: { remittance_id: number; summary: Record<string, number> } };
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.message).toBe("Remittance imported. 3 service lines on 1 claim: 1 paid, 1 partly paid, 1 denied.");
    expect(body.data.summary).toEqual({ claims: 1, lines: 3, paid: 1, partial: 1, patient: 0, denied: 1 });

    const state = await claimState(claim.id);
    expect(state.lines.map((l) => [l.status, l.paidCents])).toEqual([
      ["paid", 10000],
      ["partial", 9000],
      ["denied", 0],
    ]);
    expect(JSON.parse(state.lines[1]!.adjustments)).toEqual([{ group: "CO", reason: "45", amount_cents: 3550 }]);
    expect(JSON.parse(state.lines[2]!.adjustments)).toEqual([{ group: "CO", reason: "197", amount_cents: 5000 }]);
    expect(JSON.parse(state.lines[2]!.remarks)).toEqual(["N54"]);
    // Pay flags: lines paid in full or in part; the denied line's note stays unpaid.
    expect(state.flags).toEqual([
      { notePaid: true, reportPay: true },
      { notePaid: true, reportPay: true },
      { notePaid: false, reportPay: false },
    ]);
    expect(state.claim).toMatchObject({ status: "accepted", paidCents: 19000, adjustedCents: 8550 });

    const [remittance] = await db().select().from(remittances).where(eq(remittances.id, body.data.remittance_id));
    expect(remittance).toMatchObject({ payerName: "DEMO HEALTH PLAN", totalPaidCents: 19000, paymentDate: "2026-02-15" });
    // The list counts this remittance's claims, lines and denied lines (not the line whose id is its own).
    const listed = (await (await api(`/v2/remittances?search=${remittance!.traceNumber}`, { token: managerToken })).json()) as { data: unknown[] };
    expect(listed.data).toEqual([expect.objectContaining({ id: remittance!.id, claims: 1, lines: 3, denied: 1 })]);
    const [file] = await db().select().from(x12Files).where(eq(x12Files.id, remittance!.fileId));
    expect(file).toMatchObject({ kind: "835", content: text });
    expect(await db().select().from(remittanceLines).where(eq(remittanceLines.remittanceId, remittance!.id))).toHaveLength(3);

    const audits = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect((await db().select({ n: count() }).from(auditLog))[0]!.n).toBe(auditBefore + 1);
    expect(audits[0]).toMatchObject({ action: "import", entity: "remittance", patientId: patient.id });
  });

  it("Pay that a remittance recorded cannot be unticked (422 at Pay, nothing changed); Pay ticked by hand on an unpaid note still saves (decision 030, stop 40)", async () => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES);
    const traceNo = trace();
    expect((await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES, MIXED) }], trace: traceNo }), managerToken)).status).toBe(201);
    const links = await db().select({ noteId: claimLineNotes.noteId }).from(claimLineNotes).innerJoin(claimLines, eq(claimLines.id, claimLineNotes.claimLineId)).where(eq(claimLines.claimId, claim.id)).orderBy(claimLines.lineNumber);
    const recordOf = async (noteId: number) => {
      const [n] = await db().select().from(notes).where(eq(notes.id, noteId));
      const [r] = await db().select().from(clientReports).where(eq(clientReports.noteId, noteId));
      return { n: n!, r: r! };
    };
    const save = async (noteId: number, pay: boolean) => {
      const { n, r } = await recordOf(noteId);
      return api(`/client_report/update/${r.id}`, { method: "POST", token: managerToken, body: { pay, version: r.version, note_version: n.version } });
    };
    // Line 1 paid, line 2 partly paid: their Pay stays ticked.
    for (const link of links.slice(0, 2)) {
      const before = await recordOf(link.noteId);
      const res = await save(link.noteId, false);
      const body = (await res.json()) as { errors: Record<string, string> };
      expect([res.status, body.errors]).toEqual([422, { pay: `Paid by remittance ${traceNo} on 2026-02-15; a payment recorded from a remittance cannot be unticked. Its claim and remittance still show it paid.` }]);
      expect(await recordOf(link.noteId)).toEqual(before);
    }
    // The denied line's note: Pay ticked by hand (paid outside an 835), then unticked again, both save.
    const denied = links[2]!.noteId;
    expect((await save(denied, true)).status).toBe(200);
    expect((await recordOf(denied)).n.paid).toBe(true);
    expect((await save(denied, false)).status).toBe(200);
    expect((await recordOf(denied)).n.paid).toBe(false);
  });

  it("takes JSON { content } too, and a file whose every line is denied rejects the claim", async () => {
    const patient = await patientIn(locA.id);
    const lines = LINES.slice(0, 2);
    const { claim } = await createClaim(patient, lines);
    const text = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(lines, [{ kind: "denied", reason: "15", remark: "M62" }, { kind: "denied" }]) }], trace: trace() });
    const res = await api("/v2/remittances", { method: "POST", token: managerToken, body: { content: text, file_name: "era.835" } });
    expect(res.status).toBe(201);
    const state = await claimState(claim.id);
    expect(state.claim).toMatchObject({ status: "rejected", paidCents: 0, adjustedCents: 22550 });
    expect(state.flags.every((f) => !f.notePaid && !f.reportPay)).toBe(true);
  });

  it("a line denied before can be paid by a later remittance (an appeal); a paid line cannot be paid twice", async () => {
    const patient = await patientIn(locA.id);
    const lines = LINES.slice(0, 1);
    const { claim } = await createClaim(patient, lines);
    expect((await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(lines, [{ kind: "denied" }]) }], trace: trace() }), managerToken)).status).toBe(201);
    expect((await claimState(claim.id)).claim.status).toBe("rejected");
    expect((await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(lines, [{ kind: "paid" }]) }], trace: trace() }), managerToken)).status).toBe(201);
    expect((await claimState(claim.id)).claim).toMatchObject({ status: "accepted", paidCents: 10000 });
    const again = await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(lines, [{ kind: "paid" }]) }], trace: trace() }), managerToken);
    expect(again.status).toBe(422);
    expect(((await again.json()) as { message: string }).message).toMatch(/line 1 \(97153 on 2026-02-02\) was already paid by an earlier remittance/);
  });

  // Probe 8961 #3: a processed claim wholly on the patient's deductible became "rejected" and its note billable again.
  it.each<[string, string, string, boolean, { group: string; reason: string; cents: number }[]]>([
    ["PR-1 deductible", "patient", "accepted", false, [{ group: "PR", reason: "1", cents: 12550 }]],
    ["PR-2 coinsurance", "patient", "accepted", false, [{ group: "PR", reason: "2", cents: 12550 }]],
    ["PR-3 co-payment", "patient", "accepted", false, [{ group: "PR", reason: "3", cents: 12550 }]],
    ["CO-45 and PR-1 summing to the charge", "patient", "accepted", false, [{ group: "CO", reason: "45", cents: 2550 }, { group: "PR", reason: "1", cents: 10000 }]],
    ["CO-50 (denied by the payer)", "denied", "rejected", true, [{ group: "CO", reason: "50", cents: 12550 }]],
    ["OA-23 (denied by the payer)", "denied", "rejected", true, [{ group: "OA", reason: "23", cents: 12550 }]],
  ])("a line paid nothing with %s: line %s, claim %s, note billable again: %s; its pay flag stays unset", async (_label, lineStatus, claimStatus, billableAgain, adjustments) => {
    const patient = await patientIn(locA.id);
    const lines = LINES.slice(1, 2);
    const { claim, lines: [fixture] } = await createClaim(patient, lines);
    const text = write835({ claims: [{ claimNumber: claim.claimNumber, statusCode: "1", lines: svc(lines, [{ kind: "adjusted", paidCents: 0, adjustments }]) }], trace: trace() });
    const res = await post835(text, managerToken);
    const body = (await res.json()) as { message: string; data: { remittance_id: number } };
    expect(res.status, JSON.stringify(body)).toBe(201);
    const state = await claimState(claim.id);
    expect(state.lines.map((l) => [l.status, l.paidCents])).toEqual([[lineStatus, 0]]);
    expect(state.claim).toMatchObject({ status: claimStatus, paidCents: 0, adjustedCents: 12550 });
    expect(state.flags).toEqual([{ notePaid: false, reportPay: false }]);
    const billable = (await (await api(`/v2/claims/billable-notes?location_id=${locA.id}&patient_id=${patient.id}`, { token: managerToken })).json()) as { data: { id: number }[] };
    expect(billable.data.some((n) => n.id === fixture!.noteId)).toBe(billableAgain);
    if (lineStatus !== "patient") return;
    expect(body.message).toBe("Remittance imported. 1 service line on 1 claim: 0 paid, 0 partly paid, 1 patient responsibility, 0 denied.");
    const page = textOf(await (await request(`/claims/remittances/${body.data.remittance_id}`, { cookie: managerCookie })).text());
    expect(page).toContain(`Claim ${claim.claimNumber} · Remy Payne · Accepted`);
    expect(page).toContain("1: 0 paid, 0 partly paid, 1 patient responsibility, 0 denied");
    expect(page).toMatch(/line-status-patient">Patient responsibility</);
  });

  it("a line on the patient's responsibility is not processed twice", async () => {
    const patient = await patientIn(locA.id);
    const lines = LINES.slice(1, 2);
    const { claim } = await createClaim(patient, lines);
    const deductible = () => write835({ claims: [{ claimNumber: claim.claimNumber, statusCode: "1", lines: svc(lines, [{ kind: "adjusted", paidCents: 0, adjustments: [{ group: "PR", reason: "1", cents: 12550 }] }]) }], trace: trace() });
    expect((await post835(deductible(), managerToken)).status).toBe(201);
    const before = await totals();
    const again = await post835(deductible(), managerToken);
    expect(again.status).toBe(422);
    expect(((await again.json()) as { message: string }).message).toMatch(/line 1 \(97153 HM on 2026-02-03\) was already processed by an earlier remittance: the patient's responsibility\.$/);
    expect(await totals()).toEqual(before);
  });

  // Probe 8961 #2: every 835 with a claim-level CAS was refused as out of balance. X12's balance: Σ SVC03 − Σ claim CAS = CLP04.
  describe("claim-level adjustments (CAS right after CLP) are the claim's", () => {
    // The probe's c27cas.835: 178.75 charged, the line paid 160.00 (CO-45 18.75), PR-3 10.00 on the claim, CLP04 150.00.
    const ONE: FixtureLine[] = [{ cpt: "97153", modifiers: "HM", serviceDate: "2026-11-09", units: 11, chargeCents: 17875 }];
    // The probe's plb.835: three lines paid 410.00, OA-23 10.00 on the claim (CLP04 400.00), a PLB of 10.00 (BPR02 390.00).
    const THREE: FixtureLine[] = [
      { cpt: "97156", modifiers: "HO", serviceDate: "2026-10-24", units: 4, chargeCents: 11800 },
      { cpt: "97155", modifiers: "HO", serviceDate: "2026-10-26", units: 5, chargeCents: 15375 },
      { cpt: "97151", modifiers: "HO", serviceDate: "2026-10-27", units: 6, chargeCents: 19500 },
    ];
    const co45 = (paidCents: number, cents: number): Line835["outcome"] => ({ kind: "adjusted", paidCents, adjustments: [{ group: "CO", reason: "45", cents }] });

    it.each<[string, FixtureLine[], Line835["outcome"][], { group: string; reason: string; cents: number }, { reason: string; amountCents: number } | undefined, { paid: number; adjusted: number; bpr: number; meaning: RegExp }]>([
      ["one line, PR-3 on the claim (c27cas.835)", ONE, [co45(16000, 1875)], { group: "PR", reason: "3", cents: 1000 }, undefined, { paid: 15000, adjusted: 2875, bpr: 15000, meaning: /Co-payment amount/ }],
      ["three lines, OA-23 on the claim and a PLB (plb.835)", THREE, [{ kind: "paid" }, co45(14200, 1175), co45(15000, 4500)], { group: "OA", reason: "23", cents: 1000 }, { reason: "L6", amountCents: 1000 }, { paid: 40000, adjusted: 6675, bpr: 39000, meaning: /prior payer/ }],
    ])("%s: imported; the claim's paid and adjusted totals count it, its lines do not carry it; the report and the remittance page show it", async (_label, lines, outcomes, claimCas, plb, want) => {
      const patient = await patientIn(locA.id);
      const { claim } = await createClaim(patient, lines);
      const text = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(lines, outcomes), adjustments: [claimCas] }], trace: trace(), plb });
      expect(text).toContain(`CLP*${claim.claimNumber}*1*${(lines.reduce((a, l) => a + l.chargeCents, 0) / 100).toFixed(2)}*${(want.paid / 100).toFixed(2)}*`);

      const check = await post835(text, managerToken, "?dry_run=1");
      const checked = (await check.json()) as { data: { claims: { paid_cents: number; adjustments: { group: string; reason: string; amount_cents: number; meaning: string }[] }[] } };
      expect(check.status, JSON.stringify(checked)).toBe(200);
      expect(checked.data.claims[0]).toMatchObject({ paid_cents: want.paid, adjustments: [{ group: claimCas.group, reason: claimCas.reason, amount_cents: claimCas.cents, meaning: expect.stringMatching(want.meaning) }] });
      const form = new FormData();
      form.append("intent", "check");
      form.append("content", text);
      const screen = textOf(await (await request("/claims/remittances/import", { method: "POST", body: form, cookie: managerCookie })).text());
      expect(screen).toContain("The file can be imported.");
      expect(screen).toMatch(new RegExp(`Adjustments of the claim itself .*${claimCas.group}</abbr>-${claimCas.reason} \\$${(claimCas.cents / 100).toFixed(2)}: `, "s"));

      const res = await post835(text, managerToken);
      const body = (await res.json()) as { data: { remittance_id: number } };
      expect(res.status, JSON.stringify(body)).toBe(201);
      const state = await claimState(claim.id);
      expect(state.claim).toMatchObject({ status: "accepted", paidCents: want.paid, adjustedCents: want.adjusted });
      expect(state.claim.paidCents + state.claim.adjustedCents).toBe(state.claim.totalCents);
      // The lines keep their own adjustments only.
      expect(state.lines.map((l) => JSON.parse(l.adjustments))).toEqual(outcomes.map((o) => (o.kind === "adjusted" ? o.adjustments.map((a) => ({ group: a.group, reason: a.reason, amount_cents: a.cents })) : [])));
      const id = body.data.remittance_id;
      expect((await db().select().from(remittances).where(eq(remittances.id, id)))[0]!.totalPaidCents).toBe(want.bpr);
      expect(await db().select({ claimId: remittanceClaimAdjustments.claimId, group: remittanceClaimAdjustments.adjustmentGroup, reason: remittanceClaimAdjustments.reason, cents: remittanceClaimAdjustments.amountCents }).from(remittanceClaimAdjustments).where(eq(remittanceClaimAdjustments.remittanceId, id))).toEqual([{ claimId: claim.id, ...claimCas }]);

      const detail = ((await (await api(`/v2/remittances/${id}`, { token: managerToken })).json()) as { data: { total_paid_cents: number; totals: { paid_cents: number; adjusted_cents: number }; claims: { paid_cents: number; adjusted_cents: number; adjustments: { group: string; reason: string; amount_cents: number }[] }[] } }).data;
      expect(detail.claims[0]).toMatchObject({ paid_cents: want.paid, adjusted_cents: want.adjusted, adjustments: [{ group: claimCas.group, reason: claimCas.reason, amount_cents: claimCas.cents }] });
      expect(detail.totals).toMatchObject({ paid_cents: want.paid, adjusted_cents: want.adjusted });
      const listed = ((await (await api(`/v2/remittances?search=${(await db().select().from(remittances).where(eq(remittances.id, id)))[0]!.traceNumber}`, { token: managerToken })).json()) as { data: { total_paid_cents: number }[] }).data;
      expect(listed[0]!.total_paid_cents).toBe(want.paid);
      const page = textOf(await (await request(`/claims/remittances/${id}`, { cookie: managerCookie })).text());
      expect(page).toMatch(new RegExp(`${claimCas.group}</abbr>-${claimCas.reason} \\$${(claimCas.cents / 100).toFixed(2)}: `));
      expect(page).toContain(`paid $${(want.paid / 100).toFixed(2)}, adjusted $${(want.adjusted / 100).toFixed(2)}.`);
    });

    // Probe 8965 §2: the viewer's and the API's per-remittance figure summed SVC03 and left out the claim's own CAS, and a
    // CAS that took the whole claim (CLP04 0) left its lines "paid" with their notes' pay flags set.
    const TESTER: FixtureLine[] = [{ cpt: "97153", modifiers: "HM", serviceDate: "2026-11-18", units: 10, chargeCents: 16425 }];
    it.each<[string, FixtureLine[], { group: string; reason: string; cents: number }, { lines: string[]; notesPaid: boolean; claim: string; paid: number; adjusted: number }]>([
      ["CLP04 154.25: CO-45 10.00 on the claim, the line paid 164.25 (T-CLAIMCAS-2)", TESTER, { group: "CO", reason: "45", cents: 1000 }, { lines: ["paid"], notesPaid: true, claim: "accepted", paid: 15425, adjusted: 1000 }],
      ["CLP04 0: CO-50 466.75 on the claim, its three lines paid in full (T-CLAIMCAS-1)", THREE, { group: "CO", reason: "50", cents: 46675 }, { lines: ["denied", "denied", "denied"], notesPaid: false, claim: "rejected", paid: 0, adjusted: 46675 }],
      ["CLP04 0: PR-1 164.25 on the claim (the patient's deductible)", TESTER, { group: "PR", reason: "1", cents: 16425 }, { lines: ["patient"], notesPaid: false, claim: "accepted", paid: 0, adjusted: 16425 }],
    ])("%s: the lines' status and the notes' pay flags follow what the claim was paid; the viewer and the API say what the remittance paid on it", async (_label, lines, claimCas, want) => {
      const patient = await patientIn(locA.id);
      const { claim } = await createClaim(patient, lines);
      const t = trace();
      const text = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(lines, lines.map(() => ({ kind: "paid" }))), adjustments: [claimCas] }], trace: t });
      const total = lines.reduce((a, l) => a + l.chargeCents, 0);
      expect(text).toContain(`CLP*${claim.claimNumber}*1*${(total / 100).toFixed(2)}*${(want.paid / 100).toFixed(2)}*`);
      const res = await post835(text, managerToken);
      expect(res.status, await res.clone().text()).toBe(201);

      const state = await claimState(claim.id);
      expect(state.lines.map((l) => l.status)).toEqual(want.lines);
      expect(state.flags).toEqual(lines.map(() => ({ notePaid: want.notesPaid, reportPay: want.notesPaid })));
      expect(state.claim).toMatchObject({ status: want.claim, paidCents: want.paid, adjustedCents: want.adjusted });

      const shown = ((await (await api(`/v2/claims/${claim.id}`, { token: managerToken })).json()) as { data: { paid_cents: number; remittances: { trace_number: string; paid_cents: number; lines: number }[] } }).data;
      expect(shown.paid_cents).toBe(want.paid);
      expect(shown.remittances.map((r) => [r.trace_number, r.paid_cents, r.lines])).toEqual([[t, want.paid, lines.length]]);
      const viewer = textOf(await (await request(`/claims/edit-viewer/${claim.id}`, { cookie: managerCookie })).text());
      expect(viewer).toContain(`<dt>Paid</dt><dd>$${(want.paid / 100).toFixed(2)} · adjusted $${(want.adjusted / 100).toFixed(2)}</dd>`);
      expect(viewer).toContain(`trace ${t}</a> — paid $${(want.paid / 100).toFixed(2)} on ${lines.length === 1 ? "1 line" : `${lines.length} lines`} of this claim</li>`);
    });

    it("a claim whose CLP04 does not take its claim-level CAS off its lines' payments is refused with the reason, nothing written (plb2.835)", async () => {
      const patient = await patientIn(locA.id);
      const { claim } = await createClaim(patient, THREE);
      // The probe's plb2.835: CLP04 410.00 (= Σ SVC03) and BPR02 400.00, with OA-23 10.00 on the claim.
      const text = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(THREE, [{ kind: "paid" }, co45(14200, 1175), co45(15000, 4500)]), adjustments: [{ group: "OA", reason: "23", cents: 1000 }] }], trace: trace(), plb: { reason: "L6", amountCents: 1000 } })
        .replace(`CLP*${claim.claimNumber}*1*466.75*400.00`, `CLP*${claim.claimNumber}*1*466.75*410.00`)
        .replace("BPR*I*390.00", "BPR*I*400.00");
      const before = await totals();
      const res = await post835(text, managerToken);
      const body = (await res.json()) as { message: string; report: { errors: { message: string }[] } };
      expect(res.status).toBe(422);
      expect(body.message).toBe(`The file cannot be read: Claim ${claim.claimNumber}: CLP04 paid 410.00, but its service lines paid 410.00 less the claim's own adjustments (CAS) 10.00, which is 400.00.`);
      expect(body.report.errors.map((e) => e.message)).toContain(`Claim ${claim.claimNumber}: charged 466.75, paid 410.00, but the adjustments (CAS) add up to 66.75, not 56.75.`);
      expect(await totals()).toEqual(before);
      const state = await claimState(claim.id);
      expect(state.claim).toMatchObject({ status: "sent", paidCents: 0, adjustedCents: 0 });
      expect(state.lines.every((l) => l.status === "open")).toBe(true);
    });
  });

  it("a dry run answers the report and changes nothing", async () => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES);
    const text = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES, MIXED) }], trace: trace() });
    const before = await totals();
    const res = await post835(text, managerToken, "?dry_run=1");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { message: string; data: { ok: boolean; dry_run: boolean; claims: { claim_id: number; lines: { status: string; claim_line_id: number; adjustments: { meaning: string }[]; remarks: { meaning: string }[] }[] }[] } };
    expect(body.message).toMatch(/^The file can be imported\./);
    expect(body.data).toMatchObject({ ok: true, dry_run: true });
    expect(body.data.claims[0]!.claim_id).toBe(claim.id);
    expect(body.data.claims[0]!.lines.map((l) => l.status)).toEqual(["paid", "partial", "denied"]);
    expect(body.data.claims[0]!.lines[2]!.adjustments[0]!.meaning).toMatch(/authorization/);
    expect(body.data.claims[0]!.lines[2]!.remarks[0]!.meaning).toMatch(/authorized/);
    expect(await totals()).toEqual(before);
    expect((await claimState(claim.id)).lines.every((l) => l.status === "open")).toBe(true);
  });
});

describe("POST /api/v2/remittances: a refused file changes nothing", () => {
  async function refused(make: (ctx: { claim: { claimNumber: string }; other: { claimNumber: string } }) => string, status: number, message: RegExp) {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES);
    const { claim: other } = await createClaim(await patientIn(locB.id), LINES);
    const before = await totals();
    const res = await post835(make({ claim, other }), managerToken);
    const body = (await res.json()) as { message: string; report: { errors: { message: string }[] } | null };
    expect(res.status, JSON.stringify(body)).toBe(status);
    expect(body.message).toMatch(message);
    expect(await totals()).toEqual(before);
    const state = await claimState(claim.id);
    expect(state.lines.every((l) => l.status === "open" && l.paidCents === 0)).toBe(true);
    expect(state.flags.every((f) => !f.notePaid && !f.reportPay)).toBe(true);
    expect(state.claim.status).toBe("sent");
    return body;
  }
  const good = (n: string): Claim835 => ({ claimNumber: n, lines: svc(LINES, MIXED) });

  it.each<[string, (x: { claim: { claimNumber: string }; other: { claimNumber: string } }) => string, number, RegExp]>([
    ["an unknown claim beside a good one", ({ claim }) => write835({ claims: [good(claim.claimNumber), good("NO-SUCH-CLAIM")], trace: trace() }), 422, /Claim NO-SUCH-CLAIM: no such claim in your locations/],
    ["another location's claim", ({ claim, other }) => write835({ claims: [good(claim.claimNumber), good(other.claimNumber)], trace: trace() }), 422, /no such claim in your locations/],
    ["an unknown line", ({ claim }) => write835({ claims: [{ claimNumber: claim.claimNumber, lines: [...svc(LINES, MIXED), { cpt: "97156", serviceDate: "2026-02-05", chargeCents: 1000, units: 1, outcome: { kind: "paid" } }] }], trace: trace() }), 422, /no claim line for 97156 on 2026-02-05/],
    ["a different date of service", ({ claim }) => write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES, MIXED).map((l, i) => (i === 0 ? { ...l, serviceDate: "2026-02-09" } : l)) }], trace: trace() }), 422, /no claim line for 97153 on 2026-02-09/],
    ["a different charge", ({ claim }) => write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES, MIXED).map((l, i) => (i === 0 ? { ...l, chargeCents: 9999 } : l)) }], trace: trace() }), 422, /the payer says \$99.99 was charged; the claim line charged \$100.00/],
    // Probe 8961 #7: a service repeated in one file was reported as "no claim line for …".
    ["a line twice in one CLP", ({ claim }) => write835({ claims: [{ claimNumber: claim.claimNumber, lines: [...svc(LINES, MIXED), svc(LINES, MIXED)[1]!] }], trace: trace() }), 422, /^Nothing was imported: Claim CLM-[\w-]+: the line 97153 HM on 2026-02-03 appears more than once in this file\.$/],
    ["a line in two CLPs of the same claim", ({ claim }) => write835({ claims: [good(claim.claimNumber), { claimNumber: claim.claimNumber, lines: [svc(LINES, MIXED)[1]!] }], trace: trace() }), 422, /^Nothing was imported: Claim CLM-[\w-]+: the line 97153 HM on 2026-02-03 appears more than once in this file\.$/],
    ["an unbalanced payment", ({ claim }) => write835({ claims: [good(claim.claimNumber)], trace: trace(), breakTotal: true }), 422, /does not balance/],
    ["a wrong segment count", ({ claim }) => write835({ claims: [good(claim.claimNumber)], trace: trace(), breakSeCount: true }), 422, /cannot be read: SE01 says/],
    ["not an 835 at all", () => "hello", 422, /not an X12 file/],
    // Decision 017's control and text-direction characters (probe 8921 §5): the payer's name as the probe sent it, and a trace.
    ["a payer name with a bidi override, a bell and an escape", ({ claim }) => write835({ claims: [good(claim.claimNumber)], trace: trace(), payerName: "SAFE\u202ETNEMYAP\x07\x1bBEL" }), 422, /^The file cannot be read: N102 holds a control or invisible character \(U\+202E\), which an 835's text cannot carry\. Ask the payer for a corrected file\.$/],
    ["a trace number with a bidi override", ({ claim }) => write835({ claims: [good(claim.claimNumber)], trace: "TR\u202E99" }), 422, /^The file cannot be read: TRN02 holds a control or invisible character \(U\+202E\)/],
    ["a payer name with a line feed inside", ({ claim }) => write835({ claims: [good(claim.claimNumber)], trace: trace(), payerName: "ACME\nHEALTH" }), 422, /N102 holds a control or invisible character \(U\+000A\)/],
    // Probe 8924 #5: the line separator and zero-width space the 837P side refuses too; the trace (TRN) comes before the payer (N1).
    ["a trace and payer name with a line separator and a zero-width space", ({ claim }) => write835({ claims: [good(claim.claimNumber)], trace: "LS\u2028TRACE\u200B42", payerName: "SUNSHINE\u2028HEALTH" }), 422, /^The file cannot be read: TRN02 holds a control or invisible character \(U\+2028\)/],
    // Probe 9007 §1: only the claim's own payer pays it (the fixture claims are billed to Demo Health Plan, DHP01).
    ["another payer's name, no payer id", ({ claim }) => write835({ claims: [good(claim.claimNumber)], trace: trace(), payerName: "ROCKY MOUNTAIN CARE" }), 422, /^Nothing was imported: Claim CLM-[\w-]+ was billed to Demo Health Plan \(DHP01\); this remittance is from ROCKY MOUNTAIN CARE\.$/],
    ["the claim's payer name with another payer id (N1*PR PI)", ({ claim }) => write835({ claims: [good(claim.claimNumber)], trace: trace(), payerIdentifier: "84980" }), 422, /was billed to Demo Health Plan \(DHP01\); this remittance is from DEMO HEALTH PLAN \(84980\)\.$/],
    ["another payer id in REF*2U", ({ claim }) => write835({ claims: [good(claim.claimNumber)], trace: trace(), payerRef: "68069" }), 422, /this remittance is from DEMO HEALTH PLAN \(68069\)\.$/],
  ])("%s", async (_label, make, status, message) => {
    await refused(make, status, message);
  });

  it("a file paying claims of two payers is refused whole, naming the other payer's claim", async () => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES);
    const { claim: rocky } = await createClaim(patient, LINES, { payer: { name: "Rocky Mountain Care", payerId: "84980" } });
    const before = await totals();
    const res = await post835(write835({ claims: [good(claim.claimNumber), good(rocky.claimNumber)], trace: trace() }), managerToken);
    const body = (await res.json()) as { message: string; report: { errors: { message: string }[] } };
    expect(res.status).toBe(422);
    expect(body.report.errors.map((e) => e.message)).toEqual([`Claim ${rocky.claimNumber} was billed to Rocky Mountain Care (84980); this remittance is from DEMO HEALTH PLAN.`]);
    expect(await totals()).toEqual(before);
    for (const id of [claim.id, rocky.id]) expect((await claimState(id)).lines.every((l) => l.status === "open")).toBe(true);
  });

  it.each<[string, (n: string) => string, { name: string; payerId: string | null } | undefined]>([
    ["the payer's name in other case and spacing", (n) => write835({ claims: [good(n)], trace: trace(), payerName: "  demo   health plan " }), undefined],
    ["another name, the claim's payer id in N1*PR", (n) => write835({ claims: [good(n)], trace: trace(), payerName: "DHP CLAIMS OFFICE", payerIdentifier: "dhp01" }), undefined],
    ["another name, the claim's payer id in REF*2U", (n) => write835({ claims: [good(n)], trace: trace(), payerName: "DHP CLAIMS OFFICE", payerRef: "DHP01" }), undefined],
    // What the 837P sent (claims.sent_data) names the payer, not the insurer's record today.
    ["the payer the claim's 837P named, since renamed", (n) => write835({ claims: [good(n)], trace: trace(), payerName: "OLD NAME HEALTH" }), { name: "Old Name Health", payerId: null }],
  ])("the claim's own payer: %s → imported", async (_label, make, sentPayer) => {
    const { claim } = await createClaim(await patientIn(locA.id), LINES, sentPayer ? { sentPayer } : {});
    const res = await post835(make(claim.claimNumber), managerToken);
    expect(res.status, await res.clone().text()).toBe(201);
    expect((await claimState(claim.id)).claim.status).toBe("accepted");
  });

  it("the same payer and trace a second time: 409, the first import stands", async () => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES.slice(0, 1));
    const { claim: second } = await createClaim(patient, LINES.slice(1, 2));
    const t = trace();
    expect((await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES.slice(0, 1), [{ kind: "paid" }]) }], trace: t }), managerToken)).status).toBe(201);
    const before = await totals();
    const res = await post835(write835({ claims: [{ claimNumber: second.claimNumber, lines: svc(LINES.slice(1, 2), [{ kind: "paid" }]) }], trace: t }), managerToken);
    expect(res.status).toBe(409);
    expect(((await res.json()) as { message: string }).message).toMatch(/was imported before/);
    expect(await totals()).toEqual(before);
    expect((await claimState(second.id)).lines[0]!.status).toBe("open");
  });

  // Probe 9007 §2: "imported before" told a manager of other locations that a payment's trace exists.
  it("a trace imported for another location's claims: the same 422 as any claim out of scope (dry run and import); one of their own answers 409", async () => {
    const { claim } = await createClaim(await patientIn(locA.id), LINES.slice(0, 1));
    const t = trace();
    const text = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES.slice(0, 1), [{ kind: "paid" }]) }], trace: t });
    expect((await post835(text, managerToken)).status).toBe(201);
    const never = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES.slice(0, 1), [{ kind: "paid" }]) }], trace: trace() });
    const before = await totals();
    for (const query of ["?dry_run=1", ""]) {
      const [seen, unseen] = await Promise.all([post835(text, otherToken, query), post835(never, otherToken, query)]);
      const [a, b] = (await Promise.all([seen.json(), unseen.json()])) as { message: string; report: { errors: unknown[] } }[];
      expect([seen.status, a!.message], query).toEqual([422, `Nothing was imported: Claim ${claim.claimNumber}: no such claim in your locations.`]);
      expect([unseen.status, b!.message]).toEqual([seen.status, a!.message]);
      expect(a!.report.errors).toEqual(b!.report.errors);
    }
    // The manager who sees it: the 409.
    const again = await post835(text, managerToken, "?dry_run=1");
    expect(again.status).toBe(409);
    // A file of their own claims under that payer and trace cannot be imported over it: the 409 too, dry run and import alike.
    const { claim: theirs } = await createClaim(await patientIn(locB.id), LINES.slice(0, 1));
    const own = write835({ claims: [{ claimNumber: theirs.claimNumber, lines: svc(LINES.slice(0, 1), [{ kind: "paid" }]) }], trace: t });
    for (const query of ["?dry_run=1", ""]) expect((await post835(own, otherToken, query)).status, query).toBe(409);
    expect(await totals()).toEqual(before);
  });

  // A generated claim's file is still sendable: paid here, the file would then bill it again (stop 34).
  it.each([
    ["draft", /is a draft: its 837P was never generated/],
    ["generated", /was generated but its 837P file was never sent, so no payer can have paid it\. If the file reached the payer another way, record it with Send/],
  ] as const)("a %s claim is refused: it was never sent; nothing is written", async (status, message) => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES.slice(0, 1), { status });
    const before = await totals();
    const res = await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES.slice(0, 1), [{ kind: "paid" }]) }], trace: trace() }), managerToken);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { message: string }).message).toMatch(message);
    expect(await totals()).toEqual(before);
    const state = await claimState(claim.id);
    expect(state.claim.status).toBe(status);
    expect(state.lines[0]!.status).toBe("open");
  });

  // Probe 8885 #5: a negative SVC03 with CLP02 = 1 was imported as "denied" with -$50.00 paid.
  it("a negative paid amount (a take-back) that is not a reversal is refused, naming the claim and line, and a negative BPR02", async () => {
    const body = await refused(({ claim }) => write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES.slice(0, 1), [{ kind: "partial", paidCents: -5000 }]) }], trace: trace() }), 422, /Negative paid amount \(take-back\) on claim/);
    const messages = body.report!.errors.map((e) => e.message);
    expect(messages).toContainEqual(expect.stringMatching(/^Negative paid amount \(take-back\) on claim CLM-[\w-]+, 97153 on 2026-02-02: not imported\.$/));
    expect(messages).toContainEqual(expect.stringMatching(/^The payment is negative \(-\$50\.00\)/));
  });

  // Probe 8885 #2: an 835 paid a voided claim whose notes had been rebuilt on another claim: paid twice.
  it("a claim voided by hand is refused: its notes may be on another claim", async () => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES.slice(0, 2), { status: "rejected" });
    const before = await totals();
    const res = await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES.slice(0, 2), [{ kind: "paid" }, { kind: "paid" }]) }], trace: trace() }), managerToken);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { message: string }).message).toBe(`Nothing was imported: Claim ${claim.claimNumber} was voided (rejected): this file pays it; its notes may be on another claim. Not imported.`);
    expect(await totals()).toEqual(before);
    const state = await claimState(claim.id);
    expect(state.claim).toMatchObject({ status: "rejected", paidCents: 0 });
    expect(state.lines.every((l) => l.status === "open")).toBe(true);
    expect(state.flags.every((f) => !f.notePaid && !f.reportPay)).toBe(true);
  });

  it("a claim rejected by a denial whose notes are now on another claim is refused, naming that claim", async () => {
    const patient = await patientIn(locA.id);
    const lines = LINES.slice(0, 1);
    const { claim, lines: [old] } = await createClaim(patient, lines);
    expect((await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(lines, [{ kind: "denied" }]) }], trace: trace() }), managerToken)).status).toBe(201);
    expect((await claimState(claim.id)).claim.status).toBe("rejected");
    // The freed note rebuilt on a new claim (as the claims screen would).
    const { claim: rebuilt, lines: [line] } = await createClaim(patient, lines);
    await db().insert(claimLineNotes).values({ claimLineId: line!.lineId, noteId: old!.noteId });
    const before = await totals();
    const res = await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(lines, [{ kind: "paid" }]) }], trace: trace() }), managerToken);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { message: string }).message).toMatch(new RegExp(`Claim ${claim.claimNumber} is rejected and its notes are now on claim ${rebuilt.claimNumber}: .* Not imported\\.$`));
    expect(await totals()).toEqual(before);
    expect((await claimState(claim.id)).claim).toMatchObject({ status: "rejected", paidCents: 0 });
  });

  // Probe 9046 #1: a denied claim and its denied rebuild bill the same note; each alone was refused once the other
  // was paid, but one 835 paying both imported and paid the session twice ($238 for one $119 session).
  describe("one 835 paying two rejected claims that bill the same note is refused, nothing written (decision 033, stop 45)", () => {
    const BILLED: FixtureLine[] = [{ cpt: "97153", serviceDate: "2026-03-09", units: 4, chargeCents: 11900 }];
    /** A claim denied in full, and its rebuild (billing the same note) sent and denied in full too. */
    async function deniedTwice() {
      const patient = await patientIn(locA.id);
      const { claim: first, lines: [old] } = await createClaim(patient, BILLED);
      expect((await post835(write835({ claims: [{ claimNumber: first.claimNumber, lines: svc(BILLED, [{ kind: "denied" }]) }], trace: trace() }), managerToken)).status).toBe(201);
      // The freed note rebuilt on a new claim (as the claims screen would): its line bills that note alone.
      const { claim: rebuilt, lines: [line] } = await createClaim(patient, BILLED);
      await db().update(claimLineNotes).set({ noteId: old!.noteId }).where(eq(claimLineNotes.claimLineId, line!.lineId));
      expect((await post835(write835({ claims: [{ claimNumber: rebuilt.claimNumber, lines: svc(BILLED, [{ kind: "denied" }]) }], trace: trace() }), managerToken)).status).toBe(201);
      expect([(await claimState(first.id)).claim.status, (await claimState(rebuilt.id)).claim.status]).toEqual(["rejected", "rejected"]);
      return { first, rebuilt, noteId: old!.noteId };
    }
    const noteOf = async (noteId: number) => (await db().select().from(notes).where(eq(notes.id, noteId)))[0]!;

    it("a file paying both (API, dry run and screen) names the note and both claims", async () => {
      const { first, rebuilt, noteId } = await deniedTwice();
      const both = write835({ claims: [{ claimNumber: first.claimNumber, lines: svc(BILLED, [{ kind: "paid" }]) }, { claimNumber: rebuilt.claimNumber, lines: svc(BILLED, [{ kind: "paid" }]) }], trace: trace() });
      const message = `Claims ${first.claimNumber} and ${rebuilt.claimNumber} both bill note #${noteId}, and this file pays both: that would pay the session twice. Not imported.`;
      const before = { totals: await totals(), first: await claimState(first.id), rebuilt: await claimState(rebuilt.id), note: await noteOf(noteId) };

      const res = await post835(both, managerToken);
      const body = (await res.json()) as { message: string; report: { errors: { claim_number?: string; message: string }[] } };
      expect([res.status, body.message]).toEqual([422, `Nothing was imported: ${message}`]);
      expect(body.report.errors).toEqual([expect.objectContaining({ claim_number: rebuilt.claimNumber, segment: "CLP", message })]);
      const dry = await post835(both, managerToken, "?dry_run=1");
      expect([dry.status, ((await dry.json()) as { message: string }).message]).toEqual([422, `Nothing was imported: ${message}`]);

      const form = new FormData();
      form.append("intent", "import");
      form.append("content", both);
      const screen = await request("/claims/remittances/import", { method: "POST", body: form, cookie: managerCookie });
      expect(screen.status, screen.headers.get("location") ?? "").toBe(422);
      expect(textOf(await screen.text())).toContain(`Claims ${first.claimNumber} and ${rebuilt.claimNumber} both bill note #${noteId}`);

      // Nothing written: no remittance, file or line; both claims rejected and unpaid; the note not paid.
      expect({ totals: await totals(), first: await claimState(first.id), rebuilt: await claimState(rebuilt.id), note: await noteOf(noteId) }).toEqual(before);
      expect(before.first.claim).toMatchObject({ status: "rejected", paidCents: 0 });
      expect(before.note.paid).toBe(false);
    });

    it("a file paying one and denying the other is imported; the other can then no longer be paid", async () => {
      const { first, rebuilt, noteId } = await deniedTwice();
      const res = await post835(
        write835({ claims: [{ claimNumber: first.claimNumber, lines: svc(BILLED, [{ kind: "denied" }]) }, { claimNumber: rebuilt.claimNumber, lines: svc(BILLED, [{ kind: "paid" }]) }], trace: trace() }),
        managerToken,
      );
      expect(res.status, ((await res.json()) as { message: string }).message).toBe(201);
      expect((await claimState(first.id)).claim).toMatchObject({ status: "rejected", paidCents: 0 });
      expect((await claimState(rebuilt.id)).claim).toMatchObject({ status: "accepted", paidCents: 11900 });
      expect((await noteOf(noteId)).paid).toBe(true);
      const again = await post835(write835({ claims: [{ claimNumber: first.claimNumber, lines: svc(BILLED, [{ kind: "paid" }]) }], trace: trace() }), managerToken);
      expect(again.status).toBe(422);
      expect(((await again.json()) as { message: string }).message).toContain(`its notes are now on claim ${rebuilt.claimNumber}`);
    });
  });

  // Probe 9035 §1: after a full denial the claim's notes are free (decision 032); an appeal paid the claim line's
  // 4 units / $119.00 against a note amended to 2 units, or re-modified, and locked it as paid history.
  describe("an appeal of a fully denied claim whose notes changed since is refused, nothing written (decision 033, stop 43)", () => {
    const BILLED: FixtureLine[] = [{ cpt: "97153", modifiers: "HM", serviceDate: "2026-03-02", units: 4, chargeCents: 11900 }];
    const noteRow = async (noteId: number) => {
      const [n] = await db().select().from(notes).where(eq(notes.id, noteId));
      const [r] = await db().select().from(clientReports).where(eq(clientReports.noteId, noteId));
      return { n: n!, r: r! };
    };
    const change: [string, string | null, (noteId: number) => Promise<void>][] = [
      ["units changed as an amendment writes them (4 → 2)", "units", async (id) => void (await db().update(notes).set({ units: 2, minutes: 30, version: sql`${notes.version} + 1` }).where(eq(notes.id, id)))],
      [
        // The save unticks Billed too (a billed note's modifiers are scrubbed), so the note is also no longer billed.
        "modifiers changed on the billing row (HM → HM GT), Billed unticked in the same save",
        "modifiers, no longer billed",
        async (id) => {
          const { n, r } = await noteRow(id);
          const res = await api(`/client_report/update/${r.id}`, { method: "POST", token: managerToken, body: { md: "HM", md2: "GT", billed: false, version: r.version, note_version: n.version } });
          expect(res.status, await res.clone().text()).toBe(200);
          expect((await noteRow(id)).n).toMatchObject({ md: "HM", md2: "GT" });
        },
      ],
      ["CPT changed (97153 → 97155)", "CPT", async (id) => void (await db().update(notes).set({ cptCode: "97155" }).where(eq(notes.id, id)))],
      ["date of service changed", "date of service", async (id) => void (await db().update(notes).set({ sessionDate: "2026-03-03" }).where(eq(notes.id, id)))],
      ["CPT and date changed", "CPT, date of service", async (id) => void (await db().update(notes).set({ cptCode: "97155", sessionDate: "2026-03-03" }).where(eq(notes.id, id)))],
      ["the note deleted", "deleted", async (id) => void (await db().update(notes).set({ deletedAt: new Date().toISOString() }).where(eq(notes.id, id)))],
      // Decision 033, stop 44: unticking Billed after the denial withdraws the note from billing; an appeal paid it and
      // left it "paid, not billed", a state the billing row could no longer correct.
      [
        "Billed unticked on the billing row, nothing else changed",
        "no longer billed",
        async (id) => {
          const { n, r } = await noteRow(id);
          const res = await api(`/client_report/update/${r.id}`, { method: "POST", token: managerToken, body: { md: "HM", billed: false, version: r.version, note_version: n.version } });
          expect(res.status, await res.clone().text()).toBe(200);
          expect((await noteRow(id)).n).toMatchObject({ md: "HM", billed: false });
        },
      ],
      [
        // Ticked again in the table (the fixture's note lacks what the billing row's scrub asks for).
        "Billed unticked and ticked again (the note bills what the claim billed)",
        null,
        async (id) => {
          const { n, r } = await noteRow(id);
          const res = await api(`/client_report/update/${r.id}`, { method: "POST", token: managerToken, body: { md: "HM", billed: false, version: r.version, note_version: n.version } });
          expect(res.status, await res.clone().text()).toBe(200);
          await db().update(notes).set({ billed: true }).where(eq(notes.id, id));
        },
      ],
      ["the note unticked as Billed and deleted", "deleted", async (id) => void (await db().update(notes).set({ billed: false, deletedAt: new Date().toISOString() }).where(eq(notes.id, id)))],
      ["the modifiers only reordered (nothing billed changed)", null, async (id) => void (await db().update(notes).set({ md: null, md2: "HM" }).where(eq(notes.id, id)))],
      ["nothing changed", null, async () => {}],
    ];
    it.each(change)("%s", async (_label, fields, edit) => {
      const patient = await patientIn(locA.id);
      const { claim, lines: [line] } = await createClaim(patient, BILLED);
      expect((await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(BILLED, [{ kind: "denied" }]) }], trace: trace() }), managerToken)).status).toBe(201);
      expect((await claimState(claim.id)).claim.status).toBe("rejected");
      await edit(line!.noteId);

      const stateBefore = await claimState(claim.id);
      const noteBefore = await noteRow(line!.noteId);
      const before = await totals();
      const importsBefore = (await db().select({ n: count() }).from(auditLog).where(eq(auditLog.action, "import")))[0]!.n;
      const appeal = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(BILLED, [{ kind: "paid" }]) }], trace: trace() });
      const res = await post835(appeal, managerToken);
      const body = (await res.json()) as { message: string };
      if (fields === null) {
        // Decision 033's appeal: the notes still say what the line billed, so it pays.
        expect(res.status, body.message).toBe(201);
        expect((await claimState(claim.id)).claim).toMatchObject({ status: "accepted", paidCents: 11900 });
        expect((await noteRow(line!.noteId)).n).toMatchObject({ paid: true, billed: true });
        return;
      }
      // A deleted note, or one no longer billed, is not to be billed on a new claim.
      const rebuild = fields === "deleted" || fields.includes("no longer billed") ? "" : " Build a new claim for it.";
      expect([res.status, body.message]).toEqual([
        422,
        `Nothing was imported: Claim ${claim.claimNumber}: note #${line!.noteId} changed after the claim was built (${fields}); this file pays what the claim billed, not what the note says now.${rebuild} Not imported.`,
      ]);
      // Nothing written: no remittance, file or line; the claim, its line, the note and its billing row as they were; no import recorded.
      expect(await totals()).toEqual(before);
      expect(await claimState(claim.id)).toEqual(stateBefore);
      expect(stateBefore.claim).toMatchObject({ status: "rejected", paidCents: 0 });
      expect(await noteRow(line!.noteId)).toEqual(noteBefore);
      expect(noteBefore.n.paid).toBe(false);
      expect((await db().select({ n: count() }).from(auditLog).where(eq(auditLog.action, "import")))[0]!.n).toBe(importsBefore);
      // The screen's import (one function with the API) refuses it alike.
      const form = new FormData();
      form.append("intent", "import");
      form.append("content", appeal);
      const screen = await request("/claims/remittances/import", { method: "POST", body: form, cookie: managerCookie });
      expect(screen.status, screen.headers.get("location") ?? "").toBe(422);
      expect(textOf(await screen.text())).toContain(`Claim ${claim.claimNumber}: note #${line!.noteId} changed after the claim was built (${fields})`);
      expect(await totals()).toEqual(before);
      expect(await claimState(claim.id)).toEqual(stateBefore);
    });

    it("a line billing several notes names every note when their units no longer add up, and a deleted one as deleted", async () => {
      const patient = await patientIn(locA.id);
      const { claim, lines: made } = await createClaim(patient, BILLED);
      // A second note on the same line (a line's units are its notes' sum): 2 + 2 units.
      const [first] = made;
      await db().update(notes).set({ units: 2 }).where(eq(notes.id, first!.noteId));
      const [second] = await db().insert(notes).values({ type: "rbt", patientId: patient.id, locationId: locA.id, sessionDate: "2026-03-02", cptCode: "97153", units: 2, minutes: 30, md: "HM", pos: "12", billed: true }).returning();
      await db().insert(claimLineNotes).values({ claimLineId: first!.lineId, noteId: second!.id });
      expect((await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(BILLED, [{ kind: "denied" }]) }], trace: trace() }), managerToken)).status).toBe(201);
      await db().update(notes).set({ units: 1 }).where(eq(notes.id, first!.noteId));
      const res = await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(BILLED, [{ kind: "paid" }]) }], trace: trace() }), managerToken);
      expect(res.status).toBe(422);
      expect(((await res.json()) as { message: string }).message).toBe(
        `Nothing was imported: Claim ${claim.claimNumber}: notes #${first!.noteId} (units) and #${second!.id} (units) changed after the claim was built; this file pays what the claim billed, not what the notes say now. Build a new claim for them. Not imported.`,
      );
      await db().update(notes).set({ units: 2 }).where(eq(notes.id, first!.noteId));
      await db().update(notes).set({ deletedAt: new Date().toISOString() }).where(eq(notes.id, second!.id));
      const again = await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(BILLED, [{ kind: "paid" }]) }], trace: trace() }), managerToken);
      expect(((await again.json()) as { message: string }).message).toBe(
        `Nothing was imported: Claim ${claim.claimNumber}: note #${second!.id} changed after the claim was built (deleted); this file pays what the claim billed, not what the note says now. Not imported.`,
      );
      expect((await claimState(claim.id)).claim).toMatchObject({ status: "rejected", paidCents: 0 });
    });
  });

  it.each([
    ["an empty body", "", "text/plain", 422],
    ["an unknown content type", "ISA", "image/png", 415],
  ])("%s answers %s… with a message", async (_l, body, type, status) => {
    const res = await post835(body, managerToken, "", type);
    expect(res.status).toBe(status);
    expect(((await res.json()) as { message: string }).message).toBeTruthy();
  });

  it.each([
    ["{}", {}],
    ["no content", { file: "x" }],
    ["a blank content", { content: "  " }],
    ["content that is not text", { content: 835 }],
  ])("JSON with %s answers 422 with the message at content, nothing imported (probe 8913 #8)", async (_l, body) => {
    const before = await totals();
    const res = await api("/v2/remittances", { method: "POST", token: managerToken, body });
    expect(res.status).toBe(422);
    const message = "Send the 835 file's text as `content`.";
    expect(await res.json()).toEqual({ message, errors: { content: message } });
    expect(await totals()).toEqual(before);
  });

  // Probe 8961 #6: the file name was stored with control and bidi characters (decision 017's text rule).
  it.each([
    ["a right-to-left override and a bell", "evil\u202Egnp.835\u0007", "File name: remove control or text-direction characters."],
    ["an escape", "era\u001B[31m.835", "File name: remove control or text-direction characters."],
    ["a line break", "era\nfeb.835", "Keep file name on one line."],
    ["201 characters", `${"a".repeat(197)}.835`, "File name must be at most 200 characters."],
  ])("JSON with a file_name holding %s: 422 at file_name, nothing imported (a check too)", async (_label, fileName, message) => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES);
    const content = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES, MIXED) }], trace: trace() });
    const before = await totals();
    for (const query of ["", "?dry_run=1"]) {
      const res = await api(`/v2/remittances${query}`, { method: "POST", token: managerToken, body: { content, file_name: fileName } });
      expect(res.status, query).toBe(422);
      expect(await res.json()).toMatchObject({ message, errors: { file_name: message } });
    }
    expect(await totals()).toEqual(before);
    expect((await claimState(claim.id)).lines.every((l) => l.status === "open")).toBe(true);
  });

  it("a file name with accents and spaces is kept as sent", async () => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES.slice(0, 1));
    const content = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES.slice(0, 1), [{ kind: "paid" }]) }], trace: trace() });
    const res = await api("/v2/remittances", { method: "POST", token: managerToken, body: { content, file_name: " remesa de año.835 " } });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { data: { remittance_id: number } }).data.remittance_id;
    expect(((await (await api(`/v2/remittances/${id}`, { token: managerToken })).json()) as { data: { file_name: string } }).data.file_name).toBe("remesa de año.835");
  });

  it("a malformed file's report names the segment's position", async () => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES);
    const text = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES, MIXED) }], trace: trace() }).replace("DTM*472*20260203", "DTM*472*20260231");
    const res = await post835(text, managerToken);
    expect(res.status).toBe(422);
    const body = (await res.json()) as { report: { errors: { position: number; segment: string; message: string }[] } };
    expect(body.report.errors[0]).toMatchObject({ position: 18, segment: "DTM" });
  });
});

describe("permissions and scope", () => {
  it("without manage_claims: 403 on every call and screen", async () => {
    for (const [method, path] of [["GET", "/v2/remittances"], ["GET", "/v2/remittances/1"], ["POST", "/v2/remittances"]] as const) {
      const res = await api(path, { method, token: noPermToken, body: method === "POST" ? { content: "x" } : undefined });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    for (const path of ["/claims/remittances", "/claims/remittances/import", "/claims/remittances/1"]) expect((await request(path, { cookie: noPermCookie })).status, path).toBe(403);
  });

  it("a remittance paying claims of two locations shows each manager their locations' part only (list and view)", async () => {
    const both = await apiToken(await createUser({ permissions: ["manage_claims"], locations: [locA.id, locB.id] }));
    const { claim: a } = await createClaim(await patientIn(locA.id), LINES.slice(0, 1));
    const { claim: b } = await createClaim(await patientIn(locB.id), LINES.slice(0, 2));
    const t = trace();
    const res = await post835(write835({ claims: [{ claimNumber: a.claimNumber, lines: svc(LINES.slice(0, 1), [{ kind: "paid" }]) }, { claimNumber: b.claimNumber, lines: svc(LINES.slice(0, 2), [{ kind: "paid" }, { kind: "denied" }]) }], trace: t }), both);
    expect(res.status, await res.clone().text()).toBe(201);
    const id = ((await res.json()) as { data: { remittance_id: number } }).data.remittance_id;
    const listed = async (token: string) => ((await (await api(`/v2/remittances?search=${t}`, { token })).json()) as { data: Record<string, number>[] }).data[0];
    const viewed = async (token: string) => ((await (await api(`/v2/remittances/${id}`, { token })).json()) as { data: { total_paid_cents: number; claims: { claim_number: string }[] } }).data;
    expect(await listed(both)).toMatchObject({ claims: 2, lines: 3, denied: 1, total_paid_cents: 20000 });
    expect(await listed(managerToken)).toMatchObject({ claims: 1, lines: 1, denied: 0, total_paid_cents: 10000 });
    expect(await listed(otherToken)).toMatchObject({ claims: 1, lines: 2, denied: 1, total_paid_cents: 10000 });
    expect(await viewed(managerToken)).toMatchObject({ total_paid_cents: 10000, claims: [expect.objectContaining({ claim_number: a.claimNumber })] });
    expect((await viewed(otherToken)).claims.map((c) => c.claim_number)).toEqual([b.claimNumber]);
  });

  it("a remittance of another location's claims is not listed and answers 404 (API and screen)", async () => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES.slice(0, 1));
    const t = trace();
    const res = await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES.slice(0, 1), [{ kind: "paid" }]) }], trace: t }), managerToken);
    const id = ((await res.json()) as { data: { remittance_id: number } }).data.remittance_id;

    const mine = (await (await api(`/v2/remittances?search=${t}`, { token: managerToken })).json()) as { data: { id: number; trace_number: string; claims: number }[] };
    expect(mine.data).toEqual([expect.objectContaining({ id, trace_number: t, claims: 1, lines: 1, denied: 0 })]);
    const theirs = (await (await api(`/v2/remittances?search=${t}`, { token: otherToken })).json()) as { data: unknown[] };
    expect(theirs.data).toEqual([]);
    expect((await api(`/v2/remittances/${id}`, { token: otherToken })).status).toBe(404);
    expect((await request(`/claims/remittances/${id}`, { cookie: otherCookie })).status).toBe(404);

    const detail = (await (await api(`/v2/remittances/${id}`, { token: managerToken })).json()) as { data: { claims: { claim_number: string; patient_name: string; lines: { status: string }[] }[] } };
    expect(detail.data.claims).toEqual([expect.objectContaining({ claim_number: claim.claimNumber, patient_name: "Remy Payne" })]);
    expect((await api(`/v2/remittances/abc`, { token: managerToken })).status).toBe(404);
  });
});

/** A page's HTML without React's text separators (<!-- -->). */
const textOf = (html: string) => html.replace(/<!-- -->/g, "");

describe("screens (plain form posts, as without JavaScript)", () => {
  function upload(fields: Record<string, string>, file: { name: string; text: string } | null, cookie: string) {
    const body = new FormData();
    for (const [k, v] of Object.entries(fields)) body.append(k, v);
    if (file) body.append("file", new File([file.text], file.name, { type: "text/plain" }));
    return request("/claims/remittances/import", { method: "POST", body, cookie });
  }

  it("the claims screen links to the remittances and the 835 import, which open (probe 8961 §4)", async () => {
    const html = await (await request("/claims", { cookie: managerCookie })).text();
    const links = [...html.matchAll(/<a [^>]*href="(\/claims\/remittances[^"]*)"[^>]*>([^<]*)<\/a>/g)].map((m) => [m[1], m[2]]);
    expect(links).toEqual([
      ["/claims/remittances", "Remittances"],
      ["/claims/remittances/import", "Import an 835"],
    ]);
    for (const [to] of links) expect((await request(to!, { cookie: managerCookie })).status).toBe(200);
  });

  it("the claim viewer and GET /api/v2/claims/{id} show what the remittances recorded: per line paid, status, adjustments and remarks; the claim's totals; each remittance linked (probe 8961 §5)", async () => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES);
    const viewer = async () => textOf(await (await request(`/claims/edit-viewer/${claim.id}`, { cookie: managerCookie })).text());
    // Not answered yet: no payment columns, no remittances.
    const before = await viewer();
    expect(before).not.toContain("<th>Payment status</th>");
    expect(before).not.toContain("<h2>Remittances</h2>");

    const first = trace();
    expect((await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES, MIXED) }], trace: first }), managerToken)).status).toBe(201);
    const once = await viewer();
    expect(once).toContain("<dt>Paid</dt><dd>$190.00 · adjusted $85.50</dd>");
    const rowOf = (html: string, n: number) => html.slice(html.indexOf(`<tr><td>${n}</td>`), html.indexOf("</tr>", html.indexOf(`<tr><td>${n}</td>`)));
    expect(rowOf(once, 1)).toMatch(/<td>\$100\.00<\/td><td><span class="line-status line-status-paid">Paid<\/span><\/td><td>—<\/td>$/);
    expect(rowOf(once, 2)).toContain("<td>$90.00</td><td><span class=\"line-status line-status-partial\">Partly paid</span></td>");
    expect(rowOf(once, 2)).toMatch(/CO<\/abbr>-45 \$35.50: Charge exceeds fee schedule/);
    expect(rowOf(once, 3)).toContain("<td>$0.00</td><td><span class=\"line-status line-status-denied\">Denied</span></td>");
    expect(rowOf(once, 3)).toMatch(/CO<\/abbr>-197 \$50.00: Precertification, notification, authorization or pre-treatment absent/);
    expect(rowOf(once, 3)).toContain("N54: Claim information is inconsistent with pre-certified or authorized services");

    // An appeal pays the denied line: two remittances linked, the line as the latest one recorded it.
    const second = trace();
    expect((await post835(write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES.slice(2), [{ kind: "paid" }]) }], trace: second }), managerToken)).status).toBe(201);
    const twice = await viewer();
    expect(twice).toContain("<dt>Paid</dt><dd>$240.00 · adjusted $35.50</dd>");
    expect(rowOf(twice, 3)).toMatch(/<td>\$50\.00<\/td><td><span class="line-status line-status-paid">Paid<\/span><\/td><td>—<\/td>$/);
    const links = [...twice.matchAll(/<a [^>]*href="\/claims\/remittances\/(\d+)"[^>]*>([^<]*)<\/a> — paid ([^<]*)<\/li>/g)].map((m) => [m[2], m[3]]);
    expect(links).toHaveLength(2);
    expect(links[0]![0]).toContain(`trace ${first}`);
    expect(links[0]![1]).toBe("$190.00 on 3 lines of this claim");
    expect(links[1]![0]).toContain(`trace ${second}`);
    expect(links[1]![1]).toBe("$50.00 on 1 line of this claim");

    const shown = ((await (await api(`/v2/claims/${claim.id}`, { token: managerToken })).json()) as { data: { paid_cents: number; adjusted_cents: number; lines: { status: string; paid_cents: number; adjustments: { group: string; reason: string; amount_cents: number }[]; remarks: { code: string }[] }[]; remittances: { trace_number: string; paid_cents: number; lines: number }[] } }).data;
    expect({ paid: shown.paid_cents, adjusted: shown.adjusted_cents }).toEqual({ paid: 24000, adjusted: 3550 });
    expect(shown.lines.map((l) => [l.status, l.paid_cents, l.adjustments.map((a) => `${a.group}-${a.reason} ${a.amount_cents}`), l.remarks.map((r) => r.code)])).toEqual([
      ["paid", 10000, [], []],
      ["partial", 9000, ["CO-45 3550"], []],
      ["paid", 5000, [], []],
    ]);
    expect(shown.remittances.map((r) => [r.trace_number, r.paid_cents, r.lines])).toEqual([
      [first, 19000, 3],
      [second, 5000, 1],
    ]);
    // Read in the viewer's one batch: the same round trips as before (the batch, then the audit row, whose chain tail
    // a screen's guard reads and a bare model call reads itself).
    const counting = countingDb();
    const user = await createUser({ permissions: ["manage_claims"], locations: [locA.id] });
    const { getClaim } = await import("~/models/claims.server");
    await getClaim({ db: counting.db, actor: (await getActor(db(), "user", user.id))!, ip: "127.0.0.1", now: () => new Date() }, claim.id);
    expect(counting.roundTrips()).toBe(3);
  });

  it("upload and import: 303 to the remittance, which shows what was paid, adjusted and denied, with the codes' meanings", async () => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES);
    const t = trace();
    const text = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES, MIXED) }], trace: t });
    expect((await request("/claims/remittances/import", { cookie: managerCookie })).status).toBe(200);
    const res = await upload({ intent: "import", content: "" }, { name: "era-feb.835", text }, managerCookie);
    expect(res.status).toBe(303);
    const location = res.headers.get("Location")!;
    expect(location).toMatch(/^\/claims\/remittances\/\d+\?flash=Remittance%20imported/);
    const page = await request(location, { cookie: managerCookie });
    expect(page.status).toBe(200);
    const html = textOf(await page.text());
    expect(html).toContain(`Claim ${claim.claimNumber} · Remy Payne · Accepted`);
    expect(html).toContain("Remittance imported. 3 service lines on 1 claim: 1 paid, 1 partly paid, 1 denied.");
    expect(html).toContain("Partly paid");
    expect(html).toContain("Denied");
    expect(html).toMatch(/CO<\/abbr>-45 \$35.50: Charge exceeds fee schedule/);
    expect(html).toMatch(/CO<\/abbr>-197 \$50.00: Precertification, notification, authorization or pre-treatment absent/);
    expect(html).toContain("N54: Claim information is inconsistent with pre-certified or authorized services");
    expect(html).toContain("era-feb.835");

    const list = textOf(await (await request(`/claims/remittances?search=${t}`, { cookie: managerCookie })).text());
    expect(list).toContain(t);
    expect(list).toContain("$190.00");
  });

  it("paste and check: the report, nothing recorded, the text kept for Import", async () => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES);
    const text = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES, MIXED) }], trace: trace() });
    const before = await totals();
    const res = await upload({ intent: "check", content: text }, null, managerCookie);
    expect(res.status).toBe(200);
    const html = textOf(await res.text());
    expect(html).toContain("The file can be imported.");
    expect(html).toContain("What the import will record");
    expect(html).toContain(`Claim ${claim.claimNumber}: Processed as primary`);
    expect(html).toContain(`TRN*1*`);
    expect(await totals()).toEqual(before);
  });

  it("a refused import re-shows the form with the reasons and the text, and changes nothing", async () => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES);
    const text = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES, MIXED) }, { claimNumber: "NOT-OURS", lines: svc(LINES, MIXED) }], trace: trace() });
    const before = await totals();
    const res = await upload({ intent: "import", content: text }, null, managerCookie);
    expect(res.status).toBe(422);
    const html = textOf(await res.text());
    expect(html).toContain("Why the file cannot be imported");
    expect(html).toContain("Claim NOT-OURS: no such claim in your locations.");
    expect(html).toContain("CLP*NOT-OURS");
    expect(await totals()).toEqual(before);
    expect((await claimState(claim.id)).lines.every((l) => l.status === "open")).toBe(true);
  });

  it("an 835 from another payer is refused on the screen too: 422, both payers named, nothing recorded (probe 9007 §1)", async () => {
    const { claim } = await createClaim(await patientIn(locA.id), LINES, { payer: { name: "Sunshine Health", payerId: "68069" } });
    const text = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES, MIXED) }], trace: trace(), payerName: "ROCKY MOUNTAIN CARE" });
    const before = await totals();
    for (const intent of ["check", "import"]) {
      const res = await upload({ intent, content: text }, null, managerCookie);
      expect(res.status, intent).toBe(422);
      expect(textOf(await res.text())).toContain(`Claim ${claim.claimNumber} was billed to Sunshine Health (68069); this remittance is from ROCKY MOUNTAIN CARE.`);
    }
    expect(await totals()).toEqual(before);
    expect((await claimState(claim.id)).claim.status).toBe("sent");
  });

  // Probe 8961 #6, on the screen: the carried file name (hidden field) and an uploaded file's own name.
  it.each([
    ["the carried file name", { intent: "import", file_name: "remit\u202Etxt.exe\u0007.835" }, null],
    ["the uploaded file's name", { intent: "import", content: "" }, "remit\u202Etxt.exe.835"],
  ])("%s with a text-direction character: 422 with the field's message, nothing imported", async (_label, fields, uploadName) => {
    const patient = await patientIn(locA.id);
    const { claim } = await createClaim(patient, LINES);
    const text = write835({ claims: [{ claimNumber: claim.claimNumber, lines: svc(LINES, MIXED) }], trace: trace() });
    const before = await totals();
    const res = await upload(uploadName ? fields : { ...fields, content: text }, uploadName ? { name: uploadName, text } : null, managerCookie);
    expect(res.status).toBe(422);
    const html = textOf(await res.text());
    expect(html).toContain("File name: remove control or text-direction characters.");
    expect(html).toMatch(/id="f-file"[^>]*aria-invalid="true"/);
    expect(html).not.toContain("\u202E");
    expect(await totals()).toEqual(before);
  });

  it("nothing chosen: 422 with the field's message", async () => {
    const res = await upload({ intent: "import", content: "  " }, null, managerCookie);
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("Choose an 835 file or paste its text.");
  });
});

describe("scale (issue 11: an 835 of 1,000 lines; its time is measured by npm run bench, test/bench/remittance-835.ts)", () => {
  /** 100 claims of 10 lines each (each line billing one note), inserted in a few batches. */
  async function bigClaims(patient: { id: number; locationId: number }) {
    const tag = Date.now().toString(36);
    const insurerId = await fixtureInsurer();
    const claimRows = await db().batch(
      Array.from({ length: 20 }, (_, b) =>
        db()
          .insert(claims)
          .values(Array.from({ length: 5 }, (_, i) => ({ patientId: patient.id, locationId: patient.locationId, insurerId, claimNumber: `BIG-${tag}-${b * 5 + i}`, status: "sent" as const, totalCents: 100_000 })))
          .returning({ id: claims.id, claimNumber: claims.claimNumber }),
      ) as unknown as [never],
    ) as unknown as { id: number; claimNumber: string }[][];
    const all = claimRows.flat();
    const lineValues = all.flatMap((c) => Array.from({ length: 10 }, (_, i) => ({ claimId: c.id, lineNumber: i + 1, serviceDate: `2026-03-${String(i + 1).padStart(2, "0")}`, cptCode: "97153", modifiers: "", units: 8, unitPriceCents: 1250, chargeCents: 10_000, pos: "12" })));
    const chunks = <T,>(xs: T[], n: number) => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));
    const lineRows = (await db().batch(chunks(lineValues, 5).map((c) => db().insert(claimLines).values(c).returning({ id: claimLines.id })) as unknown as [never])) as unknown as { id: number }[][];
    const noteRows = (await db().batch(
      chunks(lineValues, 5).map((c) => db().insert(notes).values(c.map((l) => ({ type: "rbt" as const, patientId: patient.id, locationId: patient.locationId, sessionDate: l.serviceDate, cptCode: "97153", units: 8 }))).returning({ id: notes.id })) as unknown as [never],
    )) as unknown as { id: number }[][];
    const lineIds = lineRows.flat().map((r) => r.id);
    const noteIds = noteRows.flat().map((r) => r.id);
    await db().batch(chunks(lineIds.map((id, i) => ({ claimLineId: id, noteId: noteIds[i]! })), 25).map((c) => db().insert(claimLineNotes).values(c)) as unknown as [never]);
    return all;
  }

  it("1,000 service lines on 100 claims: applied in ≤ 3 round trips (lookup, write; the audit tail read here)", { timeout: 120_000 }, async () => {
    const patient = await patientIn(locA.id);
    const big = await bigClaims(patient);
    const outcomes: Line835["outcome"][] = [{ kind: "paid" }, { kind: "partial", paidCents: 8000 }, { kind: "denied" }];
    const text = write835({
      claims: big.map((c) => ({ claimNumber: c.claimNumber, lines: Array.from({ length: 10 }, (_, i) => ({ cpt: "97153", serviceDate: `2026-03-${String(i + 1).padStart(2, "0")}`, chargeCents: 10_000, units: 8, outcome: outcomes[i % 3]! })) })),
      trace: trace(),
    });
    const user = await createUser({ permissions: ["manage_claims"], locations: [locA.id] });
    const counting = countingDb();
    const ctx = { db: counting.db, actor: (await getActor(db(), "user", user.id))!, ip: "127.0.0.1", now: () => new Date() };
    const result = await importRemittance(ctx, text, { dryRun: false });
    expect(result.ok, JSON.stringify(!result.ok && result.message)).toBe(true);
    // Without the audit tail from a guard, withAudit reads it: one more round trip than through a screen or the API.
    expect(counting.roundTrips()).toBeLessThanOrEqual(3);
    if (result.ok) expect(result.report.summary).toEqual({ claims: 100, lines: 1000, paid: 400, partial: 300, patient: 0, denied: 300 });
    const [paid] = await db().select({ n: count() }).from(notes).where(and(eq(notes.patientId, patient.id), eq(notes.paid, true)));
    expect(paid!.n).toBe(700);
  });
});

describe("demo seed", () => {
  it("imports one remittance against two sent claims of locations 1 and 2 billed to one payer, from that payer, once, paid after the services it pays", async () => {
    const { seedDemoRemittances, DEMO_TRACE } = await import("../../scripts/demo-remittances");
    const patient = await patientIn(locA.id);
    await createClaim(patient, LINES);
    // Probe 9007 §1: the seed's remittance was from "DEMO HEALTH PLAN" and paid claims billed to Rocky Mountain Care.
    const { claim: rocky } = await createClaim(patient, LINES, { payer: { name: "Rocky Mountain Care", payerId: "84980" } });
    await createClaim(patient, LINES);
    const today = "2026-12-31";
    const first = await seedDemoRemittances(db(), new Date(`${today}T12:00:00Z`));
    expect(first, first.message).toMatchObject({ imported: true });
    const [r] = await db().select().from(remittances).where(eq(remittances.traceNumber, DEMO_TRACE));
    const lines = await db().select({ status: remittanceLines.status, serviceDate: claimLines.serviceDate }).from(remittanceLines).innerJoin(claimLines, eq(claimLines.id, remittanceLines.claimLineId)).where(eq(remittanceLines.remittanceId, r!.id));
    expect(new Set(lines.map((l) => l.status))).toEqual(new Set(["paid", "partial", "denied"]));
    // Every claim it paid was billed to the payer the file names (N1*PR name and, as PI, its payer id).
    const paid = await db().selectDistinct({ claimId: remittanceLines.claimId, payer: insurances.name }).from(remittanceLines).innerJoin(claims, eq(claims.id, remittanceLines.claimId)).innerJoin(insurances, eq(insurances.id, claims.insurerId)).where(eq(remittanceLines.remittanceId, r!.id));
    expect(paid).toHaveLength(2);
    expect(paid.map((p) => p.payer.toUpperCase())).toEqual([r!.payerName, r!.payerName]);
    expect(paid.map((p) => p.claimId)).not.toContain(rocky.id);
    expect((await db().select({ content: x12Files.content }).from(x12Files).where(eq(x12Files.id, r!.fileId)))[0]!.content).toMatch(new RegExp(`N1\\*PR\\*${r!.payerName}\\*PI\\*\\w+~`));
    // A month after the last service it pays (derived from the claims, not a fixed date before them), by today.
    const last = lines.map((l) => l.serviceDate).sort().at(-1)!;
    expect(r!.paymentDate! > last, `${r!.paymentDate} after ${last}`).toBe(true);
    expect(r!.paymentDate! <= today).toBe(true);
    expect(await seedDemoRemittances(db())).toMatchObject({ imported: false });
  });

  it.each([
    [["2026-10-16", "2026-10-21"], "2026-11-26", "2026-11-20"],
    [["2026-11-20"], "2026-11-26", "2026-11-26"],
    [["2026-11-26"], "2026-11-26", "2026-11-27"],
  ])("demoPaymentDate(%j, today %s) = %s: a month after the last service, by today, never on or before it", async (dates, today, expected) => {
    const { demoPaymentDate } = await import("../../scripts/demo-remittances");
    expect(demoPaymentDate(dates, today)).toBe(expected);
  });
});
