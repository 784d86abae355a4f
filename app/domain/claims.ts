import * as v from "valibot";
import { FilterId, filterStatus } from "./list-filters";
import { chargeFor, type NotePrice } from "./billing";
import { optionalLine } from "./fields";
import { versionField } from "./validation";
import { isProductDate } from "./weeks";
import { claimDiagnoses, diagnosisKey, MAX_DIAGNOSES, MAX_LINES, uniqueDiagnoses } from "./x12-837p";

/**
 * Claims (platform §2 claims, claims/edit-viewer; issue 11 "Claims"): statuses and their transitions, the
 * grouping of billed notes into claims and service lines, and the input schemas of the screens and the API.
 * Pure. The 837P itself is written by app/domain/x12-837p.ts.
 */

export const CLAIM_STATUSES = ["draft", "generated", "sent", "accepted", "rejected"] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

/**
 * The allowed transitions. generated is reached only by generating the 837P (a file is written) and sent only
 * by sending that file; a person sets accepted or rejected from the payer's answer, and may void (reject) a
 * claim that was never sent, which frees its notes for another claim. accepted and rejected are final.
 */
export const TRANSITIONS: Readonly<Record<ClaimStatus, readonly ClaimStatus[]>> = {
  draft: ["generated", "rejected"],
  generated: ["sent", "rejected"],
  sent: ["accepted", "rejected"],
  accepted: [],
  rejected: [],
};

/** The statuses a person may set by hand (generate and send have their own actions). */
export const MANUAL_STATUSES: readonly ClaimStatus[] = ["accepted", "rejected"];

export function canTransition(from: ClaimStatus, to: ClaimStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export const STATUS_LABELS: Record<ClaimStatus, string> = { draft: "Draft", generated: "Generated", sent: "Sent", accepted: "Accepted", rejected: "Rejected" };

/** The claims' refusals that are not a field's (the build's and the send's races, decision 032). */
export const CLAIM_MESSAGES = {
  /** A build whose notes changed (amended, modifiers, billed flag) between its read and its write: nothing built. */
  notesChanged: (ids: readonly number[]) =>
    `${ids.length === 1 ? `Note ${ids[0]} was` : `Notes ${ids.slice(0, 5).join(", ")}${ids.length > 5 ? " …" : ""} were`} changed while the claims were being built, so nothing was built. Build again: the claims will bill what the notes say now.`,
  notesTaken: "Another build claimed some of these notes just now, so nothing was built. Reload the billed notes and build again.",
  /** A send of a claim that is not (or no longer) generated: the file is not handed to the sender. */
  notSendable: (status: ClaimStatus) => (status === "draft" ? "Generate the 837P before sending the claim." : `The claim is ${status}; only a generated claim is sent.`),
  /** The sender failed after the claim was marked sent: `putBack` when it is generated again (nobody changed it meanwhile). */
  notSent: (reason: string, putBack: boolean) => `The file was not sent: ${reason}${putBack ? " The claim is generated again: send it again later." : ""}`,
  senderDidNotAnswer: "the sender did not answer.",
  /**
   * A draft is priced again at generation (decision 032, stop 28); its notes no longer make the same claim and
   * lines at today's prices, payer and PA numbers (a price or PA number change merged or split lines, the client's
   * payer changed): nothing written.
   */
  regrouped: (claimNumbers: readonly string[]) =>
    `${claimNumbers.length === 1 ? `The notes of claim ${claimNumbers[0]} no longer make` : `The notes of claims ${claimNumbers.slice(0, 5).join(", ")}${claimNumbers.length > 5 ? " …" : ""} no longer make`} the same lines at today's prices, payer and PA numbers, so no file was written. Void ${claimNumbers.length === 1 ? "the claim" : "these claims"} (reject) and build again from ${claimNumbers.length === 1 ? "its" : "their"} notes.`,
  /**
   * A generation of claims whose client was deleted: nothing written. Their notes are never candidates again (a deleted
   * client's notes are out of every notes list), so they cannot be built again: voiding is all that is left.
   */
  clientDeleted: (claimNumbers: readonly string[]) =>
    `${claimNumbers.length === 1 ? `The client of claim ${claimNumbers[0]} was` : `The clients of claims ${claimNumbers.slice(0, 5).join(", ")}${claimNumbers.length > 5 ? " …" : ""} were`} deleted, so no file was written. A deleted client's notes cannot be billed or built into a claim again: ${claimNumbers.length === 1 ? "this claim" : "these claims"} can only be voided (reject).`,
  /**
   * A send of a file that holds a claim of a deleted client: nothing sent (decision 032, stop 41). The client's record
   * is hidden from staff, so a payer's rejection could not be corrected. `deleted` and `others` as `claimsNamed` sees them.
   */
  fileOfDeletedClient: (fileName: string, deleted: SeenClaims, others: SeenClaims) =>
    `Nothing was sent: the 837P ${fileName} holds ${claimsNamed(deleted.numbers, deleted.hidden)} of a deleted client, whose record can no longer be seen or corrected if the payer rejects the claim. Void (reject) ${deleted.numbers.length + deleted.hidden === 1 ? "that claim" : "those claims"}${others.numbers.length + others.hidden ? `; then ${generateAgain(others, ": the new file leaves it out")}` : ""}.`,
  /** A build naming notes that are not among its candidates (deleted, their client deleted, out of scope, unknown). */
  notCandidates: (ids: readonly number[]) =>
    `${ids.length === 1 ? `Note ${ids[0]} is` : `Notes ${ids.slice(0, 5).join(", ")}${ids.length > 5 ? " …" : ""} are`} not among the billed notes you can claim (deleted, of a deleted client, or not in your locations), so nothing was built. Untick ${ids.length === 1 ? "it" : "them"} or reload the billed notes, and build again.`,
  /** A draft's note the scrubber refuses at generation (a PA service or provider deleted since the build, decision 034). */
  unbillable: (claimNumber: string, noteId: number, reasons: string) => `Claim ${claimNumber}, note ${noteId}: ${reasons}`,
  /** "Remove from draft" on a claim that is not a draft: nothing changed (decision 032, stop 31). */
  lineOfNotDraft: (claimNumber: string, status: ClaimStatus) =>
    `Claim ${claimNumber} is ${status}: only a draft's lines can be removed, and nothing was changed.${status === "generated" ? " Its 837P is written: to bill its notes otherwise, void the claim (reject) and build again." : ""}`,
  /** "Remove from draft" on a draft's only line: refused, Void is the way (decision 032, stop 31). */
  lastLine: (claimNumber: string) =>
    `This line is the only one of draft ${claimNumber}, and a claim needs at least one, so nothing was changed. To drop it, void the claim (reject): its notes can then be built into another claim.`,
  /**
   * A send of a file that holds a voided (rejected) claim: nothing sent (decision 032, stop 33). `voided` and
   * `toGenerate` are the file's claims as the person may see them (`claimsNamed`, `generateAgain`).
   */
  fileHoldsVoided: (fileName: string, voided: SeenClaims, toGenerate: SeenClaims) =>
    `Nothing was sent: the 837P ${fileName} holds ${claimsNamed(voided.numbers, voided.hidden)}, voided (rejected) after the file was generated, and sending the file would bill it too. This file will never be sent. ${sentenceCase(generateAgain(toGenerate, ": the new file leaves the voided claim out"))}.`,
  /** Voiding a generated claim whose unsent file holds other generated claims (decision 032, stop 33). */
  voidedInUnsentFile: (fileName: string, others: SeenClaims) =>
    `Claim marked rejected. Its 837P ${fileName} was not sent and also holds ${claimsNamed(others.numbers, others.hidden)}, so that file will not be sent now: ${generateAgain(others, " (on the claim's page, or tick it on the claims list)")}.`,
  /**
   * A file that holds claims of locations the actor does not manage carries those clients' data, so only someone who
   * manages every location of the file downloads or sends it (decision 032, stop 33). `hidden`: how many such claims.
   */
  fileOfOtherLocations: (fileName: string, hidden: number, act: "download" | "send" | "download or send") =>
    `${act === "send" ? "Nothing was sent: the" : "The"} 837P ${fileName} also holds ${claimsNamed([], hidden)}, whose clients you cannot see, so only someone who manages every location of the file can ${act} it.`,
  /** A claim without a file (a draft, or voided before generation), or of another location: nothing to download. */
  noFile: "No 837P file for this claim.",
  /** A generated claim that is not in a file holding a voided claim: it is sent, not generated again. */
  notGeneratable: (claimNumber: string, status: ClaimStatus) =>
    `Claim ${claimNumber} is ${status}; only draft claims, and generated claims whose unsent file holds a voided claim, are generated.`,
  /** A line removed from a draft: its notes are build candidates again. */
  lineRemoved: (lineNumber: number, claimNumber: string, noteIds: readonly number[]) =>
    `Line ${lineNumber} was removed from draft ${claimNumber}. ${noteIds.length === 1 ? `Note ${noteIds[0]} is` : `Notes ${noteIds.join(", ")} are`} back among the billed notes you can build into a claim.`,
} as const;

/** Claims of one file as a person may see them: the numbers of those in their locations, and how many others. */
export interface SeenClaims {
  numbers: readonly string[];
  hidden: number;
}

/**
 * Who generates a stranded file's claims into a new 837P (decision 032, stop 33): the person those they can see
 * (`how`: where, or what the new file does), someone who manages the other locations the rest, which the person can
 * neither open nor generate. "generate a new 837P for claim C0000018 …; the 2 claims of other locations must be
 * generated again by someone who manages their locations".
 */
export function generateAgain(claims: SeenClaims, how: string): string {
  const parts: string[] = [];
  if (claims.numbers.length) parts.push(`generate a new 837P for ${claimsNamed(claims.numbers, 0)}${how}`);
  if (claims.hidden) parts.push(`${claims.hidden === 1 ? "the claim of another location" : `the ${claims.hidden} claims of other locations`} must be generated again by someone who manages ${claims.hidden === 1 ? "its location" : "their locations"}`);
  return parts.join("; ");
}

function sentenceCase(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Claims named for a person: by number those of their locations, the others only counted (another location's claim
 * is never named, decision 030). "claim C0000031", "claims C0000030 and C0000032", "claim C0000030 and 1 claim of
 * another location".
 */
export function claimsNamed(numbers: readonly string[], hidden: number): string {
  const parts: string[] = [];
  if (numbers.length) parts.push(`${numbers.length === 1 ? "claim" : "claims"} ${numbers.length === 1 ? numbers[0] : `${numbers.slice(0, -1).join(", ")} and ${numbers.at(-1)}`}`);
  if (hidden) parts.push(hidden === 1 ? "1 claim of another location" : `${hidden} claims of other locations`);
  return parts.join(" and ");
}

/** At most this many notes in one build (one batch write). */
export const MAX_BUILD_NOTES = 500;

/** An id of a list: a whole number, or its digits as text; any other value is answered with `message`. */
const idOf = (message: string) => v.pipe(v.union([v.number(), v.pipe(v.string(), v.regex(/^\d+$/, message), v.transform(Number))], message), v.number(), v.integer(message), v.minValue(1, message), v.maxValue(2_147_483_647, message));

/**
 * A list of ids as a form or a JSON body sends it: one id, or an array of them. Nothing (absent, null, "" or [])
 * is answered with `empty`; a value that is not an id or a list of ids ("abc", true, {}, ["x"], [[1]]) with the
 * ids' own message, never with `empty` (probe 9007 §4).
 */
const idList = (ids: string, empty: string, max: number, tooMany: string) =>
  v.pipe(
    v.unknown(),
    v.transform((x) => (x === undefined || x === null || x === "" ? [] : Array.isArray(x) ? x : [x])),
    v.array(idOf(ids), ids),
    v.transform((x) => [...new Set(x)]),
    v.minLength(1, empty),
    v.maxLength(max, tooMany),
  );

export const BuildInput = v.object({
  note_ids: idList("Note ids are whole numbers.", "Choose at least one billed note.", MAX_BUILD_NOTES, `Build at most ${MAX_BUILD_NOTES} notes at a time.`),
});

export const ClaimIdsInput = v.object({
  claim_ids: idList("Claim ids are whole numbers.", "Choose at least one claim.", 100, "Generate at most 100 claims in one file."),
});

export const StatusInput = v.object({
  status: v.picklist(MANUAL_STATUSES as unknown as ["accepted", "rejected"], "Choose accepted or rejected."),
  version: versionField,
});

/**
 * An imported 835's file name (the API's `file_name`, the screen's uploaded or carried name): decision 017's text rule,
 * one line, at most 200 characters; blank is none (the file is then named after its trace number).
 */
export const RemittanceFileInput = v.object({ file_name: optionalLine("File name", 200) });

const DATE_MESSAGE = "Dates must be real dates like 2026-01-31.";
const optionalDate = v.optional(v.union([v.literal(""), v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, DATE_MESSAGE), v.check(isProductDate, DATE_MESSAGE))], DATE_MESSAGE), "");
/** A list's id filter: the one rule of every list (app/domain/list-filters.ts). */
const optionalId = FilterId;
/** The build form's Client id, a typed field with no list (probe 8981 §8). */
const CLIENT_ID_MESSAGE = "Enter a client id (a whole number).";
const optionalClientId = v.optional(v.union([v.literal(""), v.pipe(v.string(), v.regex(/^\d{1,9}$/, CLIENT_ID_MESSAGE))], CLIENT_ID_MESSAGE), "");
/** To on or after From, refused at To (as the billing screens' filters, decision 030). */
const TO_AFTER_FROM = "To must be on or after From.";

/** The claims list's filters (query string of the screen and the API). */
export const ClaimFilters = v.pipe(
  v.object({
    status: filterStatus(CLAIM_STATUSES),
    location_id: optionalId,
    patient_id: optionalId,
    insurer_id: optionalId,
    date_from: optionalDate,
    date_to: optionalDate,
  }),
  v.forward(
    v.check((q) => !q.date_from || !q.date_to || q.date_from <= q.date_to, TO_AFTER_FROM),
    ["date_to"],
  ),
);
export type ClaimFilters = v.InferOutput<typeof ClaimFilters>;

/** The notes picker of the build form: billed notes by client, location and period. */
export const NotePickFilters = v.pipe(
  v.object({
    location_id: optionalId,
    patient_id: optionalClientId,
    from: optionalDate,
    to: optionalDate,
  }),
  // Checked whenever both dates are, so a bad client id does not hide it: each bad filter says so at once (probe 8981 §8).
  v.forward(
    v.partialCheck([["from"], ["to"]], (q) => !q.from || !q.to || q.from <= q.to, TO_AFTER_FROM),
    ["to"],
  ),
);
export type NotePickFilters = v.InferOutput<typeof NotePickFilters>;

/** A billed note as grouping needs it, already priced by priceNote. */
export interface PricedClaimNote {
  id: number;
  patientId: number;
  locationId: number;
  /** The claim's rendering provider (renderingProvider: the note's provider, or its supervisor for a payer that bills under the supervisor). */
  providerId: number | null;
  /** notePayer(pa service insurer, client's primary insurer). */
  payerId: number | null;
  sessionDate: string;
  cptCode: string;
  units: number;
  pos: string;
  paNumber: string | null;
  diagnosisCode: string;
  price: NotePrice;
}

export interface GroupedLine {
  lineNumber: number;
  serviceDate: string;
  cptCode: string;
  modifiers: string[];
  units: number;
  unitPriceCents: number;
  /** The price's multiplier (priceNote's; in the line key, so every note of the line has it). */
  multiplier: number;
  /** The multiplier of its notes' XP amount (priceNote's `xpMultiplier`, the service's own; in the line key too). */
  xpMultiplier: number;
  /** units × unit price × multiplier, rounded once (`chargeFor`): the line is priced once for its units (decision 032, stop 40). */
  chargeCents: number;
  pos: string;
  paNumber: string | null;
  /** The line's own diagnoses (SV107's first pointers): each note's code, else the client's principal code; the first note's first. */
  diagnosisCodes: string[];
  noteIds: number[];
}

export interface GroupedClaim {
  key: string;
  patientId: number;
  locationId: number;
  providerId: number | null;
  payerId: number | null;
  diagnosisCodes: string[];
  lines: GroupedLine[];
  totalCents: number;
}

/**
 * One claim per client + location + rendering provider (`providerId`) + payer; within it one line per CPT + date of service +
 * modifiers (and place of service, authorization, unit price and multiplier, which a line carries once). A line's
 * units are the sum of its notes' (each priced by priceNote) and its charge is its units × unit price × multiplier,
 * rounded once (`chargeFor`, decision 032, stop 40): what a payer repricing the line gets. The notes' own charges,
 * each rounded, may add up to a cent or so off it; the claim's total is its lines'. Claims and lines come out in a
 * stable order.
 *
 * Each line carries its own diagnoses (`diagnosisCodes`: each note's code, else the client's principal code, one per
 * `diagnosisKey`), which its SV107 points to first (decision 032, stop 31). A claim's codes (HI) are its lines' own codes,
 * then the client's profile codes (`extraDiagnoses`) while there is room (`claimDiagnoses`, decision 032, stop 31, later).
 * A claim carries at most MAX_LINES service lines and MAX_DIAGNOSES codes of its lines' own. When one grouping has more,
 * it is split, as clearinghouses expect (decision 034, stop 31): its lines, in date order, fill a claim until the next
 * line would make it 51 lines or bring its lines' own codes over 12, then start the next claim of the same client,
 * location, provider and payer. A single line whose own codes are over 12 is a claim alone, for the 837P check to refuse.
 */
export function groupClaims(notes: readonly PricedClaimNote[], extraDiagnoses: (patientId: number) => string[] = () => []): GroupedClaim[] {
  const claims = new Map<string, GroupedClaim & { lineMap: Map<string, GroupedLine> }>();
  const profiles = new Map<number, string[]>();
  const profileOf = (patientId: number) => profiles.get(patientId) ?? profiles.set(patientId, uniqueDiagnoses(extraDiagnoses(patientId))).get(patientId)!;
  const sorted = [...notes].sort((a, b) => a.sessionDate.localeCompare(b.sessionDate) || a.cptCode.localeCompare(b.cptCode) || a.id - b.id);
  for (const n of sorted) {
    const key = `${n.patientId}|${n.locationId}|${n.providerId ?? ""}|${n.payerId ?? ""}`;
    let c = claims.get(key);
    if (!c) {
      c = { key, patientId: n.patientId, locationId: n.locationId, providerId: n.providerId, payerId: n.payerId, diagnosisCodes: [], lines: [], totalCents: 0, lineMap: new Map() };
      claims.set(key, c);
    }
    const code = n.diagnosisCode.trim().toUpperCase();
    // The unit price and multiplier are in the key: a line carries one unit price, so notes priced differently
    // (a note's own price, another credential's service) stay on separate lines and units × price = charge.
    const lineKey = `${n.cptCode}|${n.sessionDate}|${n.price.modifiers.join("-")}|${n.pos}|${n.paNumber ?? ""}|${n.price.unitPriceCents}|${n.price.multiplier}|${n.price.xpMultiplier}`;
    let line = c.lineMap.get(lineKey);
    if (!line) {
      line = { lineNumber: 0, serviceDate: n.sessionDate, cptCode: n.cptCode.trim().toUpperCase(), modifiers: n.price.modifiers.slice(0, 4), units: 0, unitPriceCents: n.price.unitPriceCents, multiplier: n.price.multiplier, xpMultiplier: n.price.xpMultiplier, chargeCents: 0, pos: n.pos, paNumber: n.paNumber, diagnosisCodes: [], noteIds: [] };
      c.lineMap.set(lineKey, line);
      c.lines.push(line);
    }
    // The note's own diagnosis, else the client's principal code.
    const own = code || profileOf(n.patientId)[0];
    if (own && !line.diagnosisCodes.some((d) => diagnosisKey(d) === diagnosisKey(own))) line.diagnosisCodes.push(own);
    line.units += n.units;
    line.chargeCents = chargeFor(line.units, line.unitPriceCents, [], line.multiplier).chargesCents;
    line.noteIds.push(n.id);
  }
  for (const c of claims.values()) c.totalCents = c.lines.reduce((s, l) => s + l.chargeCents, 0);
  return [...claims.values()]
    .sort((a, b) => a.patientId - b.patientId || a.locationId - b.locationId || (a.providerId ?? 0) - (b.providerId ?? 0) || (a.payerId ?? 0) - (b.payerId ?? 0))
    .flatMap(({ lineMap: _m, ...c }) => splitClaim(c, profileOf(c.patientId)));
}

/** A grouping as claims of at most MAX_LINES lines and MAX_DIAGNOSES codes of their lines' own, in line order (see groupClaims). */
function splitClaim(c: GroupedClaim, profile: readonly string[]): GroupedClaim[] {
  const ownCodes = (lines: readonly GroupedLine[]) => uniqueDiagnoses(lines.flatMap((l) => l.diagnosisCodes)).length;
  const parts: GroupedLine[][] = [];
  for (const line of c.lines) {
    const part = parts.at(-1);
    // A line whose own codes are over 12 fails the check whatever it joins: alone, it takes no other line with it.
    if (part && part.length < MAX_LINES && ownCodes([...part, line]) <= MAX_DIAGNOSES) part.push(line);
    else parts.push([line]);
  }
  const key = (i: number) => (parts.length === 1 ? c.key : `${c.key}|${i + 1}`);
  return parts.map((lines, i) => {
    lines.forEach((l, j) => (l.lineNumber = j + 1));
    return { ...c, key: key(i), diagnosisCodes: claimDiagnoses(lines.map((l) => l.diagnosisCodes), profile), lines, totalCents: lines.reduce((s, l) => s + l.chargeCents, 0) };
  });
}

/**
 * A draft's diagnosis codes (HI) once one of its lines is removed (decision 032, stop 31): the one HI rule
 * (`claimDiagnoses`) on the remaining lines' own codes (`claim_lines.diagnosis_codes`) and the client's profile
 * (`profile`: principal, secondary), as a build of the remaining notes would make them (stop 31, later): a code only
 * the removed line named goes unless the profile carries it, and a profile code may take the room it freed. Lines built
 * before stop 31 have no codes of their own (null): then nothing is known to drop and the codes are kept as they are.
 */
export function diagnosesWithoutLine(claimCodes: readonly string[], removed: readonly string[] | null, kept: readonly (readonly string[] | null)[], profile: readonly string[]): string[] {
  if (removed === null || kept.some((l) => l === null)) return [...claimCodes];
  return claimDiagnoses(kept.map((l) => l ?? []), profile);
}

/** A claim line as stored (`claim_lines`): what the claim billed of its notes. */
export interface BilledLine {
  cptCode: string;
  serviceDate: string;
  /** Dash-separated, as stored. */
  modifiers: string;
  units: number;
  unitPriceCents: number;
  pos: string;
}

/** A note of that line as it is now. */
export interface NoteNow {
  id: number;
  deleted: boolean;
  cptCode: string;
  sessionDate: string;
  md: string | null;
  md2: string | null;
  pos: string;
  units: number;
  /** The note's own unit price (combined notes), or null. */
  unitPriceCents: number | null;
  /** Its Billed tick: a note unticked after the denial is withdrawn from billing, so no appeal pays it. */
  billed: boolean;
}

export interface ChangedNote {
  noteId: number;
  /** What no longer matches the line, in a fixed order ("deleted" alone when the note was deleted). */
  changes: string[];
}

const modifierSet = (mods: readonly (string | null)[]) =>
  mods
    .map((m) => (m ?? "").trim().toUpperCase())
    .filter(Boolean)
    .sort()
    .join("-");

/** What no longer matches for a note unticked as Billed (`ChangedNote.changes`). */
const NO_LONGER_BILLED = "no longer billed";

/**
 * The notes of a claim's lines that no longer match what the line billed (decision 033, stop 43): a rejected claim
 * frees its notes (decision 032), so they may have been amended, re-modified or deleted since; a payment of the line
 * would then be recorded against a session the note no longer describes. Compared with the stored line as the build
 * made it (groupClaims): CPT (trimmed, upper-case), date of service, modifiers (as a set, as an 835 is matched),
 * place of service, the note's own unit price when it has one, and the units — a line's units are the sum of its
 * notes', so when they no longer add up every note of the line is named. The price from the payer's services is
 * not recomputed: the line keeps what it charged, and a note's units and modifiers decide what it would charge now.
 * A note the clinic unticked as Billed since then no longer matches either ("no longer billed", decision 033, stop 44):
 * the appeal is refused rather than paying a note left "paid, not billed", or ticking it again behind the clinic's back.
 */
export function notesChangedSinceClaim(lines: readonly { line: BilledLine; notes: readonly NoteNow[] }[]): ChangedNote[] {
  const changed = new Map<number, string[]>();
  const add = (id: number, what: string) => {
    const list = changed.get(id) ?? changed.set(id, []).get(id)!;
    if (!list.includes(what)) list.push(what);
  };
  for (const { line, notes } of lines) {
    const unitsNow = notes.reduce((a, n) => a + n.units, 0);
    for (const n of notes) {
      if (n.deleted) {
        changed.set(n.id, ["deleted"]);
        continue;
      }
      if (n.cptCode.trim().toUpperCase() !== line.cptCode.trim().toUpperCase()) add(n.id, "CPT");
      if (n.sessionDate !== line.serviceDate) add(n.id, "date of service");
      if (unitsNow !== line.units) add(n.id, "units");
      if (modifierSet([n.md, n.md2]) !== modifierSet(line.modifiers.split("-"))) add(n.id, "modifiers");
      if (n.pos.trim() !== line.pos.trim()) add(n.id, "place of service");
      if (n.unitPriceCents !== null && n.unitPriceCents > 0 && n.unitPriceCents !== line.unitPriceCents) add(n.id, "unit price");
      if (!n.billed) add(n.id, NO_LONGER_BILLED);
    }
  }
  return [...changed.entries()].sort(([a], [b]) => a - b).map(([noteId, changes]) => ({ noteId, changes }));
}

/** A claim that an 835 pays (it would turn accepted), with the notes of all its lines. */
export interface PaidClaimNotes {
  claimNumber: string;
  noteIds: readonly number[];
}

/** Notes of a paid claim that an earlier claim paid by the same file also bills. */
export interface NotesPaidTwice {
  claimNumber: string;
  otherClaimNumber: string;
  noteIds: number[];
}

/**
 * The notes one 835 would pay twice (decision 033, stop 45): a rejected claim frees its notes (decision 032), so a
 * denied claim and its denied rebuild both bill the same note, and each is on no live claim. A file paying both would
 * pay the session twice. In the file's order: each paid claim's notes that an earlier paid claim also bills, by that
 * claim (the first one billing them). A claim named twice in the file is one claim.
 */
export function notesPaidTwice(claims: readonly PaidClaimNotes[]): NotesPaidTwice[] {
  const firstBiller = new Map<number, string>();
  const out: NotesPaidTwice[] = [];
  for (const claim of claims) {
    const shared = new Map<string, number[]>();
    for (const id of new Set(claim.noteIds)) {
      const other = firstBiller.get(id);
      if (other === undefined) firstBiller.set(id, claim.claimNumber);
      else if (other !== claim.claimNumber) shared.set(other, [...(shared.get(other) ?? []), id]);
    }
    for (const [otherClaimNumber, noteIds] of shared) out.push({ claimNumber: claim.claimNumber, otherClaimNumber, noteIds: noteIds.sort((a, b) => a - b) });
  }
  return out;
}

/** The import's refusal of a file that pays two claims billing the same notes (notesPaidTwice). */
export function notesPaidTwiceMessage(twice: NotesPaidTwice): string {
  const ids = twice.noteIds.map((id) => `#${id}`);
  const named = ids.length === 1 ? `note ${ids[0]}` : `notes ${ids.slice(0, -1).join(", ")} and ${ids.at(-1)}`;
  return `Claims ${twice.otherClaimNumber} and ${twice.claimNumber} both bill ${named}, and this file pays both: that would pay ${ids.length === 1 ? "the session" : "these sessions"} twice. Not imported.`;
}

/**
 * The import's refusal of an appeal for a claim whose notes changed (notesChangedSinceClaim, decision 033, stop 43):
 * which notes and what changed; the notes still there are to be billed on a new claim.
 */
export function changedNotesMessage(claimNumber: string, changed: readonly ChangedNote[]): string {
  const fields = (c: ChangedNote) => c.changes.join(", ");
  const list =
    changed.length === 1
      ? `note #${changed[0]!.noteId} changed after the claim was built (${fields(changed[0]!)})`
      : `notes ${changed.slice(0, -1).map((c) => `#${c.noteId} (${fields(c)})`).join(", ")} and #${changed.at(-1)!.noteId} (${fields(changed.at(-1)!)}) changed after the claim was built`;
  // A deleted note, or one no longer ticked Billed, is not to be billed again.
  const live = changed.filter((c) => !c.changes.includes("deleted") && !c.changes.includes(NO_LONGER_BILLED));
  const rebuild = !live.length ? "" : changed.length === 1 ? " Build a new claim for it." : live.length === 1 ? ` Build a new claim for note #${live[0]!.noteId}.` : ` Build a new claim for ${live.length === changed.length ? "them" : `notes ${live.map((c) => `#${c.noteId}`).join(", ")}`}.`;
  return `Claim ${claimNumber}: ${list}; this file pays what the claim billed, not what the ${changed.length === 1 ? "note says" : "notes say"} now.${rebuild} Not imported.`;
}
