import { dollarsOf } from "~/domain/billing";

/**
 * An 835 writer for fixtures (tests, golden files, the demo seed): from claim lines and what the payer did with
 * each — paid in full, paid in part (CO-45 by default), or denied (CO-197 with N54 by default) — it writes a
 * balanced 835 with a correct envelope. Options break it on purpose (a wrong count, an unbalanced payment).
 */

export interface Adj {
  group: string;
  reason: string;
  cents: number;
}

export type Outcome =
  | { kind: "paid" }
  | { kind: "partial"; paidCents: number; group?: string; reason?: string; patientCents?: number }
  | { kind: "denied"; group?: string; reason?: string; remark?: string }
  /** Paid `paidCents` with exactly these adjustments (they must add up to the rest of the charge). */
  | { kind: "adjusted"; paidCents: number; adjustments: readonly Adj[] };

export interface Line835 {
  cpt: string;
  modifiers?: readonly string[];
  serviceDate: string;
  chargeCents: number;
  units: number;
  outcome: Outcome;
}

export interface Claim835 {
  claimNumber: string;
  lines: readonly Line835[];
  /** CLP02; default 1 (processed as primary), 4 when every line is denied. */
  statusCode?: string;
  /** Claim-level adjustments (CAS right after CLP): they reduce CLP04 below the lines' payments (005010X221A1's balance). */
  adjustments?: readonly Adj[];
  patientName?: { last: string; first: string };
}

export interface Write835 {
  claims: readonly Claim835[];
  trace: string;
  payerName?: string;
  /** TRN03 (the payer's id on the trace; default 1512345678). */
  payerId?: string;
  /** The payer's identification in its loop: N1*PR's N103 PI and N104 (or REF*2U with `payerRef`). None by default. */
  payerIdentifier?: string;
  payerRef?: string;
  paymentDate?: string;
  control?: number;
  /** Segment terminator (default "~") and whether a newline follows it (default true). */
  terminator?: string;
  newlines?: boolean;
  /** Break the file: the SE count off by one, BPR02 off by a cent. */
  breakSeCount?: boolean;
  breakTotal?: boolean;
  /** A provider-level adjustment (PLB): reduces the payment. */
  plb?: { reason: string; amountCents: number };
}

const x12Date = (iso: string) => iso.replace(/-/g, "");
const amt = (cents: number) => dollarsOf(cents);

function lineResult(line: Line835): { paid: number; adjustments: Adj[]; remarks: string[] } {
  const o = line.outcome;
  if (o.kind === "paid") return { paid: line.chargeCents, adjustments: [], remarks: [] };
  if (o.kind === "adjusted") return { paid: o.paidCents, adjustments: [...o.adjustments], remarks: [] };
  if (o.kind === "denied") return { paid: 0, adjustments: [{ group: o.group ?? "CO", reason: o.reason ?? "197", cents: line.chargeCents }], remarks: [o.remark ?? "N54"] };
  const rest = line.chargeCents - o.paidCents;
  const patient = Math.min(o.patientCents ?? 0, rest);
  const adjustments: Adj[] = [];
  if (rest - patient) adjustments.push({ group: o.group ?? "CO", reason: o.reason ?? "45", cents: rest - patient });
  if (patient) adjustments.push({ group: "PR", reason: "2", cents: patient });
  return { paid: o.paidCents, adjustments, remarks: [] };
}

function casSegments(adjustments: readonly Adj[]): string[][] {
  const byGroup = new Map<string, Adj[]>();
  for (const a of adjustments) byGroup.set(a.group, [...(byGroup.get(a.group) ?? []), a]);
  return [...byGroup].map(([group, list]) => ["CAS", group, ...list.flatMap((a) => [a.reason, amt(a.cents), ""])].slice(0, -1));
}

/** The 835 text. */
export function write835(opts: Write835): string {
  const control = opts.control ?? 1;
  const isa13 = String(control).padStart(9, "0");
  const paymentDate = opts.paymentDate ?? "2026-02-15";
  const body: string[][] = [];
  let total = 0;
  for (const [i, claim] of opts.claims.entries()) {
    const results = claim.lines.map(lineResult);
    const charge = claim.lines.reduce((a, l) => a + l.chargeCents, 0);
    const claimAdjustments = claim.adjustments ?? [];
    const paid = results.reduce((a, r) => a + r.paid, 0) - claimAdjustments.reduce((a, x) => a + x.cents, 0);
    const patient = [...claimAdjustments, ...results.flatMap((r) => r.adjustments)].filter((x) => x.group === "PR").reduce((a, x) => a + x.cents, 0);
    total += paid;
    const allDenied = results.every((r) => r.paid === 0);
    if (i === 0) body.push(["LX", "1"]);
    body.push(["CLP", claim.claimNumber, claim.statusCode ?? (allDenied ? "4" : "1"), amt(charge), amt(paid), patient ? amt(patient) : "", "12", `PCN${claim.claimNumber}`, "11", "1"]);
    body.push(...casSegments(claimAdjustments));
    body.push(["NM1", "QC", "1", claim.patientName?.last ?? "DOE", claim.patientName?.first ?? "JANE", "", "", "", "MI", "MEMBER1"]);
    for (const [j, line] of claim.lines.entries()) {
      const r = results[j]!;
      body.push(["SVC", ["HC", line.cpt, ...(line.modifiers ?? [])].join(":"), amt(line.chargeCents), amt(r.paid), "", String(line.units)]);
      body.push(["DTM", "472", x12Date(line.serviceDate)]);
      body.push(...casSegments(r.adjustments));
      if (r.paid > 0) body.push(["AMT", "B6", amt(r.paid)]);
      for (const code of r.remarks) body.push(["LQ", "HE", code]);
    }
  }
  if (opts.plb) {
    total -= opts.plb.amountCents;
    body.push(["PLB", "1234567893", `${paymentDate.slice(0, 4)}1231`, `${opts.plb.reason}:REF1`, amt(opts.plb.amountCents)]);
  }
  const bpr = ["BPR", "I", amt(opts.breakTotal ? total + 1 : total), "C", "ACH", "CCP", "01", "011000015", "DA", "123456", "1512345678", "", "01", "021000021", "DA", "654321", x12Date(paymentDate)];
  const set = [
    ["ST", "835", "0001"],
    bpr,
    ["TRN", "1", opts.trace, opts.payerId ?? "1512345678"],
    ["DTM", "405", x12Date(paymentDate)],
    ["N1", "PR", opts.payerName ?? "DEMO HEALTH PLAN", ...(opts.payerIdentifier ? ["PI", opts.payerIdentifier] : [])],
    ["N3", "PO BOX 1000"],
    ["N4", "HARTFORD", "CT", "06101"],
    ...(opts.payerRef ? [["REF", "2U", opts.payerRef]] : []),
    ["N1", "PE", "BASELINE ABA", "XX", "1234567893"],
    ...body,
  ];
  set.push(["SE", String(set.length + 1 + (opts.breakSeCount ? 1 : 0)), "0001"]);
  const isa = ["ISA", "00", "          ", "00", "          ", "ZZ", "PAYERID".padEnd(15), "ZZ", "BASELINE".padEnd(15), "260215", "1200", "^", "00501", isa13, "0", "P", ":"];
  const segments = [isa, ["GS", "HP", "PAYERID", "BASELINE", x12Date(paymentDate), "1200", String(control), "X", "005010X221A1"], ...set, ["GE", "1", String(control)], ["IEA", "1", isa13]];
  const t = opts.terminator ?? "~";
  return segments.map((s) => s.join("*") + t).join(opts.newlines === false ? "" : "\n") + (opts.newlines === false ? "" : "\n");
}
