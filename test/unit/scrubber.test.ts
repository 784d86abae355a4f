import { describe, expect, it } from "vitest";
import type { PriceService } from "~/domain/billing";
import { allowedPos, codeList, scrubNote, SCRUB_RULES, unbillableMessage, type ScrubFacts } from "~/domain/scrubber";
import { dayNumber } from "~/domain/weeks";

const DAY = dayNumber("2026-10-05")! * 1440;
const at = (h: number, m = 0) => DAY + h * 60 + m;

const svc = (over: Partial<PriceService> = {}): PriceService => ({
  id: 1, insuranceId: 7, locationId: null, cptCode: "97153", modifiers: "HM", provider: "rbt", type: "rbt", unitPrice: 12.5, multiplier: 1, maxPerDay: 16, ...over,
});

/** A note that passes every rule: signed RBT 97153 at home, within its PA, priced, no overlap. */
function base(): ScrubFacts {
  return {
    note: {
      id: 100, type: "rbt", patientId: 1, locationId: 1, cptCode: "97153", diagnosisCode: "F84.0", pos: "12", sessionDate: "2026-10-05", minutes: 120, units: 8,
      signedAt: "2026-10-05T18:00:00Z", providerId: 8, modifiers: ["HM", null], unitPriceCents: null, pairs: [{ start: at(9), end: at(11) }],
    },
    client: { insurerId: 7, diagnosisCode: "F84.0", posCovered: ["12", "03"] },
    insurer: { id: 7, name: "Acme", posAllowedToCg: ["11", "12"], posAllowedToTt: ["12", "03"], extraPosForBcba: ["11"] },
    services: [svc(), svc({ id: 2, cptCode: "97155", provider: "bcba", type: "bcba", modifiers: "HO", unitPrice: 20, maxPerDay: 8 }), svc({ id: 3, cptCode: "97156", provider: "bcba", type: "bcba", modifiers: "HO" })],
    provider: { name: "Jane Doe", credential: "rbt", compliance: { bacb_license_expiration: "2027-01-01", cpr_every_2_years: "2027-06-01" } },
    pa: { id: 5, patientId: 1, name: "ABA 97153", cpt: "97153", nUnits: 240, startDate: "2026-09-01", endDate: "2026-12-31", insuranceId: null, unitsBefore: 100 },
    clientSameDay: [],
    providerNearby: [],
    // Parties a claim can carry: the location with NPI, tax id and ZIP+4, a self-subscriber client with an address, the RBT's NPI, a payer id.
    parties: {
      location: { title: "Main Clinic", address: "100 Main St", city: "Miami", state: "FL", zip: "33101-1234", phone1: "305-555-0100", npi: "1234567893", taxId: "591234567" },
      patient: { firstName: "Mia", lastName: "Lopez", birthDate: "2018-04-02", gender: 2, details: JSON.stringify({ insuranceId: "W123", is_self_subscriber: true, address: "5 Palm Ave", city: "Miami", state: "FL", zip: "33102", diagnosis_code: "F84.0" }) },
      provider: { name: "Jane", surname: "Doe", profile: JSON.stringify({ npi: "1234567893" }) },
      insurer: { name: "Acme", payerId: "ACME1" },
    },
  };
}

/** The payer bills an RBT's note under its supervisor, Noah Fischer, who has an NPI (probe 8981 §4). */
const underSupervisor = (f: ScrubFacts) => {
  f.insurer = { ...f.insurer!, usesSupervisorAsProvider: true };
  f.note.supervisorId = 9;
  f.supervisor = { name: "Noah", surname: "Fischer", profile: JSON.stringify({ npi: "1306849450" }) };
};

/** The client's details with some keys set (undefined: removed). */
const details = (f: ScrubFacts, set: Record<string, unknown>) => (f.parties.patient.details = JSON.stringify({ ...JSON.parse(f.parties.patient.details), ...set }));

type Change = (f: ScrubFacts) => void;
/** Twelve ICD-10 codes, the first the note's and the client's principal. */
const TWELVE = ["F84.0", "F90.0", "F90.1", "F90.2", "F90.8", "F90.9", "F91.0", "F91.1", "F91.2", "F91.3", "F91.8", "F91.9"];
const codes = (f: ScrubFacts) => scrubNote(f).map((r) => r.code);

describe("the scrubber's rules, each passing and failing", () => {
  it("a clean note has no reason", () => {
    expect(scrubNote(base())).toEqual([]);
  });

  const cases: [string, Change, string[], RegExp?][] = [
    ["unsigned", (f) => (f.note.signedAt = null), ["unsigned"], /^Note is not signed by the provider\.$/],
    ["no provider", (f) => (f.provider = null), ["no_provider"], /no rendering provider/],
    ["diagnosis on the client only passes", (f) => (f.note.diagnosisCode = ""), []],
    ["diagnosis missing on both", (f) => ((f.note.diagnosisCode = ""), (f.client.diagnosisCode = " ")), ["missing_diagnosis"], /Diagnosis code is missing/],
    // A stored code of dots alone is no code to a claim (probe 8975 §1): missing, not "ready".
    ["diagnosis of dots alone on both", (f) => ((f.note.diagnosisCode = ""), (f.client.diagnosisCode = "...")), ["missing_diagnosis"], /Diagnosis code is missing/],
    ["POS missing", (f) => (f.note.pos = ""), ["missing_pos"], /Place of service/],
    // Units from minutes (unitsForMinutes): 8 minutes make a unit, 7 make none.
    ["an 8-minute session: one unit, billable", (f) => ((f.note.minutes = 8), (f.note.units = 1)), []],
    ["a 7-minute session: no units", (f) => ((f.note.minutes = 7), (f.note.units = 0)), ["no_units"], /^No units to bill: the session is 7 minutes long, shorter than the 8 minutes a unit needs\.$/],
    ["a 1-minute session: no units", (f) => ((f.note.minutes = 1), (f.note.units = 0)), ["no_units"], /^No units to bill: the session is 1 minute long, shorter/],
    ["no session minutes at all", (f) => ((f.note.minutes = 0), (f.note.units = 0)), ["no_units"], /^No units to bill: the note has no session minutes\.$/],
    ["an old row storing 0 units for 30 minutes", (f) => ((f.note.minutes = 30), (f.note.units = 0)), ["no_units"], /^No units to bill: the note records 0 units for its 30 minutes\.$/],
    ["RBT at the office: not in pos_allowed_to_tt", (f) => ((f.note.pos = "11"), (f.client.posCovered = [])), ["pos_not_allowed"], /^POS 11 \(Office\) is not allowed by Acme for RBT services \(allowed: 12, 03\)\.$/],
    ["BCBA at the office: extra_pos_for_bcba allows it", (f) => ((f.note.type = "bcba"), (f.note.modifiers = ["HO", null]), (f.note.cptCode = "97155"), (f.pa!.cpt = "97155"), (f.provider!.credential = "bcba"), (f.note.pos = "11"), (f.client.posCovered = []), (f.note.units = 4)), []],
    ["BCBA at POS 99: neither list", (f) => ((f.note.type = "bcba"), (f.note.modifiers = ["HO", null]), (f.note.cptCode = "97155"), (f.pa!.cpt = "97155"), (f.provider!.credential = "bcba"), (f.note.pos = "99"), (f.client.posCovered = []), (f.note.units = 4)), ["pos_not_allowed"], /POS 99 \(Other\) is not allowed by Acme for BCBA services \(allowed: 12, 03, 11\)/],
    ["caregiver training at school: not in pos_allowed_to_cg", (f) => ((f.note.type = "bcba"), (f.note.modifiers = ["HO", null]), (f.note.cptCode = "97156"), (f.pa!.cpt = "97156"), (f.provider!.credential = "bcba"), (f.note.pos = "03")), ["pos_not_allowed"], /for caregiver training \(97156\)/],
    ["empty technician list: no restriction", (f) => ((f.insurer!.posAllowedToTt = []), (f.note.pos = "99"), (f.client.posCovered = [])), []],
    ["POS not covered for the client", (f) => ((f.note.pos = "03"), (f.client.posCovered = ["12"])), ["pos_not_covered"], /POS 03 \(School\) is not covered for this client \(covered: 12\)/],
    ["BACB license expires on the session date: still valid", (f) => (f.provider!.compliance = { bacb_license_expiration: "2026-10-05" }), []],
    ["BACB license expired the day before", (f) => (f.provider!.compliance = { bacb_license_expiration: "2026-10-04" }), ["credential_expired"], /^BACB license \(RBT\) of Jane Doe expired on 2026-10-04, before the session date 2026-10-05\.$/],
    ["BACB license date missing: not a reason", (f) => (f.provider!.compliance = {}), []],
    ["CPR and liability expired", (f) => (f.provider!.compliance = { cpr_every_2_years: "2026-01-01", liability_insurance_annually: "2026-10-01", driver_license_expiration: "2020-01-01" }), ["compliance_expired", "compliance_expired"], /Liability insurance \(annually\) of Jane Doe expired on 2026-10-01/],
    ["no PA", (f) => (f.pa = null), ["no_pa"], /no prior authorization/],
    ["PA of another client", (f) => (f.pa!.patientId = 2), ["pa_other_client"], /belongs to another client/],
    ["PA ends on the session date: covered", (f) => (f.pa!.endDate = "2026-10-05"), []],
    ["PA ended the day before", (f) => (f.pa!.endDate = "2026-10-04"), ["pa_out_of_dates"], /^PA 'ABA 97153' expired on 2026-10-04, before the session date 2026-10-05\.$/],
    ["PA starts on the session date: covered", (f) => (f.pa!.startDate = "2026-10-05"), []],
    ["PA starts the day after", (f) => (f.pa!.startDate = "2026-10-06"), ["pa_out_of_dates"], /starts on 2026-10-06, after the session date/],
    ["PA for another CPT", (f) => (f.pa!.cpt = "97155"), ["pa_other_cpt"], /covers CPT 97155, not 97153/],
    ["PA exactly used up by this note", (f) => (f.pa!.unitsBefore = 232), []],
    ["PA one unit short", (f) => (f.pa!.unitsBefore = 233), ["pa_exhausted"], /^PA 'ABA 97153' ran out: 7 of 240 units left, and this session needs 8\.$/],
    ["PA already spent", (f) => (f.pa!.unitsBefore = 240), ["pa_exhausted"], /ran out: 0 of 240 units left, and this session needs 8\.$/],
    // Never a negative "units left" (probe 8973, stop 34): said as the note form and the booking say it.
    ["PA already overspent", (f) => (f.pa!.unitsBefore = 300), ["pa_exhausted"], /^PA 'ABA 97153' ran out: already 60 units over its 240 authorized units, and this session needs 8\.$/],
    ["client's note touching ends: no overlap", (f) => (f.clientSameDay = [{ id: 101, cptCode: "97155", units: 4, pairs: [{ start: at(11), end: at(12) }] }]), []],
    ["client's note overlapping", (f) => (f.clientSameDay = [{ id: 100, cptCode: "97153", units: 8, pairs: [{ start: at(9), end: at(11) }] }, { id: 101, cptCode: "97155", units: 4, pairs: [{ start: at(10, 45), end: at(12) }] }]), ["client_overlap"], /overlaps the client's note #101 on 2026-10-05/],
    ["provider's note overlapping (second pair)", (f) => (f.providerNearby = [{ id: 102, cptCode: "97153", units: 4, pairs: [{ start: at(7), end: at(8) }, { start: at(8, 30), end: at(9, 15) }] }]), ["provider_overlap"], /overlaps note #102 of the same provider, Jane Doe/],
    ["provider's note at another location: not named", (f) => (f.providerNearby = [{ id: 105, locationId: 2, cptCode: "97153", units: 4, pairs: [{ start: at(10), end: at(12) }] }]), ["provider_overlap"], /^Session overlaps a note of the same provider, Jane Doe, at another location\.$/],
    // Across time zones the provider's notes are compared as moments (decision 024): this note is 09:00–11:00 in New York (−240).
    ["provider's note at the same moment in Los Angeles (06:30 there): overlaps", (f) => ((f.note.utcOffset = -240), (f.providerNearby = [{ id: 106, locationId: 2, cptCode: "97153", units: 4, pairs: [{ start: at(6, 30), end: at(7, 30) }], utcOffset: -420 }])), ["provider_overlap"], /at another location/],
    ["provider's note at the same clock time in Los Angeles (three hours later): no overlap", (f) => ((f.note.utcOffset = -240), (f.providerNearby = [{ id: 107, locationId: 2, cptCode: "97153", units: 4, pairs: [{ start: at(9), end: at(11) }], utcOffset: -420 }])), []],
    ["an older note without an offset: clock times, as before", (f) => ((f.note.utcOffset = -240), (f.providerNearby = [{ id: 108, cptCode: "97153", units: 4, pairs: [{ start: at(10), end: at(12) }], utcOffset: null }])), ["provider_overlap"], /overlaps note #108/],
    ["no insurer at all", (f) => ((f.client.insurerId = null), (f.insurer = null)), ["no_payer"], /No payer/],
    // The payer is the PA service's insurer; a claim carries the client's primary insurance as its subscriber (probe 8981 §1).
    ["the PA service's insurer is the client's primary: billable", (f) => (f.pa!.insuranceId = 7), []],
    ["the PA service's insurer is not the client's primary", (f) => ((f.pa!.insuranceId = 9), (f.insurer = { ...f.insurer!, id: 9, name: "Rocky Care" }), (f.services = f.services.map((s) => ({ ...s, insuranceId: 9 })))), ["payer_not_primary"], /^The PA service 'ABA 97153' is with Rocky Care, but that is not the client's primary insurer: a claim carries the primary insurance's member id and goes out as the primary claim, so Rocky Care would receive another insurance's member id\. Make Rocky Care the client's primary insurer \(with its member id\), or give the PA service the client's primary insurer\.$/],
    ["a PA service's insurer for a client without a primary insurer", (f) => ((f.client.insurerId = null), (f.pa!.insuranceId = 7)), ["payer_not_primary"], /but the client has no primary insurer:/],
    ["no price for the CPT", (f) => (f.services = [svc({ cptCode: "97155" })]), ["no_price"], /^Acme has no price for CPT 97153 for RBT providers\.$/],
    ["a $0 unit price", (f) => (f.services = [svc({ unitPrice: 0 })]), ["zero_charge"], /^The charge is \$0: Acme's price for CPT 97153 \(its unit price is \$0\.00\)\. Set a price on the insurer's services\.$/],
    ["a service multiplier of 0", (f) => (f.services = [svc({ multiplier: 0 })]), ["zero_charge"], /\(its multiplier is 0\)/],
    ["a $0 unit price and a multiplier of 0: the multiplier is named", (f) => (f.services = [svc({ unitPrice: 0, multiplier: 0 })]), ["zero_charge"], /\(its multiplier is 0\)/],
    // A tiny multiplier rounds the charge to $0 (probe 8914): the unit price is not $0.00, the product is.
    ["$0.40 × 0.001 for 4 units rounds to $0", (f) => ((f.services = [svc({ unitPrice: 0.4, multiplier: 0.001 })]), (f.note.units = 4)), ["zero_charge"], /^The charge is \$0: Acme's price for CPT 97153 \(\$0\.40 × 0\.001 rounds to \$0\.00 for 4 units\)\. Set a price on the insurer's services\.$/],
    ["$0.01 × 0.05 for 1 unit rounds to $0", (f) => ((f.services = [svc({ unitPrice: 0.01, multiplier: 0.05 })]), (f.note.units = 1)), ["zero_charge"], /\(\$0\.01 × 0\.05 rounds to \$0\.00 for 1 unit\)/],
    ["$0.40 × 0.001 for 2,000 units is $0.80: no reason", (f) => ((f.services = [svc({ unitPrice: 0.4, multiplier: 0.001, maxPerDay: null })]), (f.note.units = 2000), (f.pa!.nUnits = 5000)), []],
    ["XP: $0 by design, no reason", (f) => (f.note.modifiers = ["HM", "XP"]), []],
    ["a $0 price with XP: no reason", (f) => ((f.services = [svc({ unitPrice: 0 })]), (f.note.modifiers = ["HM", "XP"])), []],
    ["combined note with its own price: no price reason", (f) => ((f.note.type = "combined"), (f.note.modifiers = ["HO", null]), (f.note.unitPriceCents = 2000), (f.services = [])), []],
    // A combined note's own price is what the charge uses: the reason names it, not the insurer's price.
    ["combined note, its own $0.40 × the insurer's 0.001 for 4 units rounds to $0", (f) => ((f.note.type = "combined"), (f.note.modifiers = ["HO", null]), (f.note.unitPriceCents = 40), (f.services = [svc({ cptCode: "97153", unitPrice: 20, multiplier: 0.001 })]), (f.note.units = 4)), ["zero_charge"], /^The charge is \$0: this note's own unit price for CPT 97153 \(\$0\.40 × 0\.001 rounds to \$0\.00 for 4 units\)\. Raise the note's unit price or the multiplier on Acme's services\.$/],
    ["combined note with its own price, the insurer's multiplier 0", (f) => ((f.note.type = "combined"), (f.note.modifiers = ["HO", null]), (f.note.unitPriceCents = 2000), (f.services = [svc({ multiplier: 0 })])), ["zero_charge"], /^The charge is \$0: Acme's multiplier for CPT 97153 is 0\. Set a multiplier on the insurer's services\.$/],
    // A modifier of another provider type, or given twice, stored before the writers refused it (probe 8922 §4).
    ["an RBT note with GT (all types): no reason", (f) => (f.note.modifiers = ["HM", "GT"]), []],
    ["a BCBA note with the RBT's XP: its $0 is not by design", (f) => ((f.note.type = "bcba"), (f.note.cptCode = "97155"), (f.pa!.cpt = "97155"), (f.provider!.credential = "bcba"), (f.note.units = 4), (f.note.modifiers = ["XP", null])), ["modifier_misfit", "price_for_other_modifier"], /^Modifier XP \(RBT overlap, not reimbursed\) is for RBT notes and does not fit a BCBA note: choose XE, HO, GT, TS, 95\.\n/],
    ["an RBT note with the BCBA's HO (and so priced by the HM service)", (f) => (f.note.modifiers = ["HO", null]), ["modifier_misfit", "price_for_other_modifier"], /^Modifier HO \(BCBA\) is for BCBA notes and does not fit an RBT note: choose HM, XE, XP, GT, TS, 95\.\n/],
    // A note a generated, sent or accepted claim bills is judged at its claim line's price (decision 030, stop 35):
    // the payer's price of today, changed or gone since, is not the charge the claim carries.
    ["claimed: its price deleted since the claim", (f) => ((f.services = [svc({ cptCode: "97155" })]), (f.note.claimedLine = { unitPriceCents: 1250, multiplier: 1, chargeCents: 10000, units: 8, xpMultiplier: null })), []],
    ["claimed: the price set to $0 since the claim", (f) => ((f.services = [svc({ unitPrice: 0 })]), (f.note.claimedLine = { unitPriceCents: 1250, multiplier: 1, chargeCents: 10000, units: 8, xpMultiplier: null })), []],
    ["claimed: today's price is for a modifier the note lacks", (f) => ((f.note.modifiers = [null, null]), (f.note.claimedLine = { unitPriceCents: 1250, multiplier: 1, chargeCents: 10000, units: 8, xpMultiplier: null })), []],
    ["claimed on a line built before stop 28 (no multiplier)", (f) => ((f.services = []), (f.note.claimedLine = { unitPriceCents: 1250, multiplier: null, chargeCents: 20000, units: 16, xpMultiplier: null })), []],
    ["claimed: still judged on everything else", (f) => ((f.note.signedAt = null), (f.services = []), (f.note.claimedLine = { unitPriceCents: 1250, multiplier: 1, chargeCents: 10000, units: 8, xpMultiplier: null })), ["unsigned"]],
    ["a combined note with HM", (f) => ((f.note.type = "combined"), (f.note.modifiers = ["HM", null])), ["modifier_misfit"], /does not fit a combined note \(billed as BCBA\)/],
    ["the same modifier twice", (f) => (f.note.modifiers = ["HM", "hm"]), ["modifier_misfit"], /^Modifier HM is chosen twice: give each modifier once\.$/],
    ["exactly the max per day", (f) => (f.clientSameDay = [{ id: 103, cptCode: "97153", units: 8, pairs: [{ start: at(13), end: at(15) }] }]), []],
    ["above the max per day", (f) => (f.clientSameDay = [{ id: 103, cptCode: "97153", units: 9, pairs: [{ start: at(13), end: at(15, 15) }] }, { id: 104, cptCode: "97155", units: 8, pairs: [{ start: at(16), end: at(18) }] }]), ["above_max_per_day"], /^17 units of CPT 97153 on 2026-10-05 for this client, above Acme's maximum of 16 a day\.$/],
    // The note's own service line (stop 31): the 837P validator's line checks, each a reason with a code.
    ["a CPT of 4 digits (an imported row)", (f) => ((f.note.cptCode = "9715"), (f.pa!.cpt = "9715"), (f.services = [svc({ cptCode: "9715" })])), ["invalid_cpt"], /^The claim line of this note \(9715 on 2026-10-05\): the CPT code 9715 must be 5 letters or digits \(for example 97153\)\. Correct the CPT code on the note\.$/],
    ["a CPT with spaces around it passes (the claim trims it)", (f) => (f.note.cptCode = " 97153 "), []],
    ["a session date that is not a date", (f) => (f.note.sessionDate = "2026-10-5"), ["pa_out_of_dates", "invalid_session_date"], /\nThe claim line of this note \(97153 on 2026-10-5\): the date of service 2026-10-5 is not a date\. Correct the session date on the note\.$/],
    ["a POS written as a word (an imported row)", (f) => ((f.note.pos = "Home"), (f.client.posCovered = []), (f.insurer!.posAllowedToTt = [])), ["invalid_pos"], /^The claim line of this note \(97153 on 2026-10-05\): the place of service Home must be a 2-digit code \(for example 12, Home\)\. Choose a place of service on the note\.$/],
    ["an empty POS is missing_pos alone", (f) => (f.note.pos = " "), ["missing_pos"]],
    ["a billing record's PA number with a separator", (f) => (f.note.paNumber = "PA*77"), ["invalid_pa_number"], /^The claim line of this note \(97153 on 2026-10-05\): the PA number saved on its billing record contains '\*', which a claim cannot carry \(\* ~ : \^ separate the file's parts\)\. Edit it and build again\.$/],
    ["a billing record's PA number of 51 characters", (f) => (f.note.paNumber = "P".repeat(51)), ["invalid_pa_number"], /the PA number saved on its billing record is longer than the 50 characters a claim can carry\. Shorten it and build again\.$/],
    ["a billing record's PA number of 50 characters passes", (f) => (f.note.paNumber = "P".repeat(50)), []],
    ["no record PA number: the PA service's name of 60 characters is sent", (f) => (f.pa!.name = "N".repeat(60)), ["invalid_pa_number"], /^The claim line of this note \(97153 on 2026-10-05\): the prior authorization number \(the name of PA service 'N{60}', sent when the billing record has no PA number: edit it on the client's PA services\) is longer than the 50 characters/],
    ["a long PA service name with a record PA number passes (the record's is sent)", (f) => ((f.pa!.name = "N".repeat(60)), (f.note.paNumber = "AUTH-1")), []],
    ["a blank record PA number sends the PA service's name", (f) => ((f.pa!.name = "ABA~97153"), (f.note.paNumber = "  ")), ["invalid_pa_number"], /PA service 'ABA~97153'.*contains '~'/],
    ["a modifier of another shape is modifier_misfit alone (every table code is 2 letters or digits)", (f) => (f.note.modifiers = ["HM", "H*"]), ["modifier_misfit"], /^Modifier H\* is not in the modifiers table/],
    // pickService's last fallback (decision 030): a price for a modifier the note lacks.
    ["priced by the HM service, the note without modifiers", (f) => (f.note.modifiers = [null, null]), ["price_for_other_modifier"], /^Acme's price for this note is its service 97153 HM \(\$12\.50\), a price for modifier HM, which this note lacks: Acme has no price for CPT 97153 without modifiers for RBT providers\. Add HM to the note's modifiers on its billing row, or add a price for CPT 97153 without modifiers for RBT providers on Acme's services\.$/],
    ["priced by the HM service, the note with GT only", (f) => (f.note.modifiers = ["GT", null]), ["price_for_other_modifier"], /which this note lacks: Acme has no price for CPT 97153 with only GT for RBT providers\. Add HM to the note's modifiers on its billing row, or add a price for CPT 97153 with only GT for RBT providers on Acme's services\.$/],
    // Advice the row can follow (probe 8984 §L2): an RBT note written by a BCBA is priced by the BCBA's HO service, which an RBT note cannot carry.
    ["an RBT note by a BCBA, priced by the BCBA's HO service", (f) => ((f.provider!.credential = "bcba"), (f.services = [...f.services, svc({ id: 9, modifiers: "HO", provider: "bcba", type: "bcba" })])), ["price_for_other_modifier"], /^Acme's price for this note is its service 97153 HO \(\$12\.50\), a price for modifier HO, which this note lacks and an RBT note cannot carry HO: Acme has no price for CPT 97153 with only HM for BCBA providers\. Add a price for CPT 97153 with only HM for BCBA providers on Acme's services\.$/],
    ["a BCaBA's note: the provider type as users write it (probe 8987 §2)", (f) => ((f.note.type = "bcba"), (f.note.cptCode = "97155"), (f.pa!.cpt = "97155"), (f.provider!.credential = "bcaba"), (f.note.units = 4), (f.note.modifiers = [null, null]), (f.services = [svc({ cptCode: "97155", provider: "bcaba", type: "bcba", modifiers: "HN" })])), ["price_for_other_modifier"], /Acme has no price for CPT 97155 without modifiers for BCaBA providers\./],
    ["a service for more modifiers than the row has room for", (f) => ((f.note.modifiers = ["GT", "TS"]), (f.services = [svc({ modifiers: "HM" })])), ["price_for_other_modifier"], /which this note lacks and the note's billing row has room for 2 modifiers: Acme has no price for CPT 97153 with only GT and TS for RBT providers\. Add a price for CPT 97153 with only GT and TS for RBT providers on Acme's services\.$/],
    ["priced by a service for two modifiers the note lacks", (f) => ((f.note.modifiers = [null, null]), (f.services = [svc({ modifiers: "HM-GT", multiplier: 1.15 })])), ["price_for_other_modifier"], /^Acme's price for this note is its service 97153 HM GT \(\$12\.50 × 1\.15\), a price for modifiers HM and GT, which this note lacks/],
    ["a price without modifiers beside the HM one: no reason", (f) => ((f.note.modifiers = [null, null]), (f.services = [svc(), svc({ id: 9, modifiers: "" })])), []],
    ["an HM GT note priced by the HM service (a part of its modifiers): no reason", (f) => (f.note.modifiers = ["HM", "GT"]), []],
    ["a combined note with its own price through the HM service: its own price, no reason", (f) => ((f.note.type = "combined"), (f.note.modifiers = ["HO", null]), (f.note.unitPriceCents = 2000)), []],
    // HI (decision 032, stop 31, later): the note's code, then the profile's while there is room, up to 12; a profile
    // code past the room is left out of the note's claim, so it is no reason (nor checked: it is never sent).
    ["12 diagnosis codes (the note's and the profile's) pass", (f) => details(f, { secondary_diagnosis_codes: TWELVE.slice(1) }), []],
    ["13 profile codes: the 13th is left out, no reason", (f) => details(f, { secondary_diagnosis_codes: [...TWELVE.slice(1), "F93.0"] }), []],
    ["a 13th profile code that is not ICD-10 is never sent: no reason", (f) => details(f, { secondary_diagnosis_codes: [...TWELVE.slice(1), "X"] }), []],
    ["the note's own code beside 12 profile codes: no reason (a profile code gives way)", (f) => ((f.note.diagnosisCode = "F93.0"), details(f, { secondary_diagnosis_codes: TWELVE.slice(1) })), []],
    // One code's identity is the form the file writes (no dot, upper case): F840 and f84.0 are F84.0, taking no room.
    ["F840 and f84.0 beside F84.0 are one code: the 12th distinct code is within the room and checked", (f) => details(f, { secondary_diagnosis_codes: ["F840", "f84.0", ...TWELVE.slice(1, 11), "X"] }), ["invalid_diagnosis"], /^Diagnosis code X is not an ICD-10 code/],
    ["a note written F840 on a client of F84.0 and 11 others: one code, no reason", (f) => ((f.note.diagnosisCode = "F840"), details(f, { secondary_diagnosis_codes: TWELVE.slice(1) })), []],
    // The claim's parties (probe 8933 §2): the 837P validator's own checks, each a reason with a code.
    ["a 5-digit location ZIP", (f) => (f.parties.location.zip = "60602"), ["location_zip"], /^The ZIP code of the location Main Clinic is 60602: a claim's billing provider needs the 9-digit ZIP\+4 \(for example 60602-1234\)\. Enter the ZIP\+4 on the location's page\.$/],
    ["a ZIP+4 without its dash passes", (f) => (f.parties.location.zip = "331011234"), []],
    ["no location NPI", (f) => (f.parties.location.npi = null), ["location_npi"], /^The location Main Clinic has no NPI\. Add the billing provider's 10-digit NPI on the location's page\.$/],
    ["a location NPI with a wrong check digit", (f) => (f.parties.location.npi = "1234567890"), ["location_npi"], /NPI 1234567890 is not a valid NPI/],
    ["no location tax id", (f) => (f.parties.location.taxId = null), ["location_tax_id"], /^The location Main Clinic has no tax id\. Add the 9-digit tax id \(EIN\) on the location's page\.$/],
    ["no location address or phone", (f) => ((f.parties.location.address = null), (f.parties.location.phone1 = "")), ["location_details", "location_details"], /^Location address is missing\. Add it on the location's page\.\nThe location Main Clinic needs a phone number/],
    ["the rendering provider without an NPI", (f) => (f.parties.provider!.profile = "{}"), ["provider_npi"], /^Jane Doe has no NPI\. Add the rendering provider's NPI on the employee's profile\.$/],
    ["no provider: no_provider alone, not also no NPI", (f) => ((f.provider = null), (f.parties.provider = null)), ["no_provider"]],
    ["a self-subscriber without address, city or state", (f) => details(f, { address: undefined, city: undefined, state: undefined }), ["subscriber_details", "subscriber_details", "subscriber_details"], /^Subscriber address is missing\. Add it on the client's profile\.\nSubscriber city is missing\. Add it on the client's profile\.\nSubscriber state must be a 2-letter code \(for example FL\)\. Set it on the client's profile\.$/],
    // A parent subscriber's address and birth date are not sent (2010BA is their name, probe 8981 §2): not asked for.
    ["a parent subscriber without an address or birth date", (f) => details(f, { is_self_subscriber: false, parent_name: "Laura Nguyen" }), []],
    ["a parent subscriber with part of an address", (f) => details(f, { is_self_subscriber: false, parent_name: "Laura Nguyen", parent_city: "Denver", parent_state: "CO", parent_zip: "80202" }), []],
    ["a parent subscriber, the client without an address", (f) => details(f, { is_self_subscriber: false, parent_name: "Laura Nguyen", parent_address: "9 Oak", address: undefined }), ["client_details"], /^Client address is missing\. Add it on the client's profile\.$/],
    ["a parent's name of three words", (f) => details(f, { is_self_subscriber: false, parent_name: "Mary Ann Cruz", parent_birth_date: "1985-02-03" }), ["subscriber_details"], /cannot be told apart/],
    ["no member id", (f) => details(f, { insuranceId: undefined }), ["member_id"], /^Member id \(primary insurance identifier\) is missing\. Add it on the client's insurance details\.$/],
    ["no payer id", (f) => (f.parties.insurer!.payerId = null), ["payer_id"], /^The insurer Acme has no payer id \(letters and digits\)\. Add it on the insurer's page\.$/],
    ["a payer id a claim cannot carry (probe 8974 §5)", (f) => (f.parties.insurer!.payerId = "849:80"), ["payer_id"], /^The insurer Acme's payer id "849:80" is not valid: a claim carries 2 to 80 letters and digits only\. Correct it on the insurer's page\.$/],
    ["a payer without a name", (f) => (f.parties.insurer!.name = " "), ["payer_details"], /^Payer name is missing\. Add it on the insurer's page\.$/],
    ["a provider's name with a separator", (f) => (f.parties.provider!.surname = "Do*e"), ["provider_name"], /^Rendering provider last name contains '\*'/],
    ["no payer: no_payer alone, not also no payer id", (f) => ((f.client.insurerId = null), (f.insurer = null), (f.parties.insurer = null)), ["no_payer"]],
    ["a diagnosis that is not ICD-10", (f) => (f.note.diagnosisCode = "autism"), ["invalid_diagnosis"], /^Diagnosis code AUTISM is not an ICD-10 code \(for example F84\.0\)\. Correct it on the note or the client's profile\.$/],
    ["a client's secondary diagnosis that is not ICD-10", (f) => details(f, { secondary_diagnosis_codes: ["F90.2", "X"] }), ["invalid_diagnosis"], /Diagnosis code X is not/],
    // A payer that bills an RBT's note under its supervisor (probe 8981 §4): the supervisor is the rendering provider.
    ["the supervisor's payer, a supervisor with an NPI: no reason", (f) => underSupervisor(f), []],
    ["the supervisor's payer, the RBT without an NPI: not checked (the supervisor renders)", (f) => (underSupervisor(f), (f.parties.provider!.profile = "{}")), []],
    ["the supervisor's payer, no supervisor on the note", (f) => (underSupervisor(f), (f.note.supervisorId = null), (f.supervisor = null)), ["no_supervisor"], /^Acme bills an RBT's sessions under the supervising BCBA \("Uses the supervisor as provider" on the insurer's page\), so the claim names the note's supervisor as the rendering provider, and this note names no supervisor\. Choose the BCBA who supervised the session as the note's supervisor \(on a signed note, by an amendment\)\.$/],
    ["the supervisor's payer, the note's supervisor deleted", (f) => (underSupervisor(f), (f.supervisor = null)), ["no_supervisor"], /, and this note's supervisor was deleted\. Choose the BCBA/],
    ["the supervisor's payer, the supervisor without an NPI", (f) => (underSupervisor(f), (f.supervisor!.profile = "{}")), ["provider_npi"], /^Acme bills an RBT's sessions under the supervising BCBA \("Uses the supervisor as provider" on the insurer's page\), so the claim names the note's supervisor as the rendering provider: Noah Fischer has no NPI\. Add the rendering provider's NPI on the employee's profile\.$/],
    ["the supervisor's payer, a BCBA's own note without a supervisor: the BCBA renders", (f) => (underSupervisor(f), (f.note.type = "bcba"), (f.note.modifiers = ["HO", null]), (f.note.cptCode = "97155"), (f.pa!.cpt = "97155"), (f.provider!.credential = "bcba"), (f.note.units = 4), (f.supervisor = null), (f.note.supervisorId = null)), []],
    ["another payer: the RBT renders, no supervisor needed", (f) => ((f.note.supervisorId = null), (f.supervisor = null)), []],
    // CLM11 and 2310A from the client's profile (probe 8981 §5).
    ["employment related and other accident go out", (f) => details(f, { emmployment: true, other_accident: "1" }), []],
    ["an auto accident needs a state the profile cannot hold", (f) => details(f, { auto_accident: true }), ["auto_accident_state"], /^An auto accident claim needs the accident's state \(where it happened\), and the client's profile has no place to record it, so this claim cannot be sent from here\. If the services are not related to an auto accident, untick "Auto accident" on the client's profile\.$/],
    ["a referring provider with a last name and an NPI goes out", (f) => details(f, { referring_provider_first_name: "Ana", referring_provider_last_name: "Lee", referring_provider_npi: "1306849450" }), []],
    ["a referring provider without an NPI", (f) => details(f, { referring_provider_first_name: "Ana", referring_provider_last_name: "Lee" }), ["referring_provider"], /^The client's profile names the referring provider Ana Lee without an NPI\. Add the referring provider's 10-digit NPI on the client's profile, or clear the name if there is no referral\.$/],
    ["several reasons at once, in the table's order", (f) => ((f.note.signedAt = null), (f.pa = null), (f.note.pos = "")), ["unsigned", "missing_pos", "no_pa"]],
    ["party reasons come last, location first", (f) => ((f.note.signedAt = null), (f.parties.provider!.profile = "{}"), (f.parties.location.zip = "60602")), ["unsigned", "location_zip", "provider_npi"]],
  ];

  it.each(cases)("%s", (_name, change, expected, message) => {
    const f = base();
    change(f);
    expect(codes(f)).toEqual(expected);
    if (message) expect(scrubNote(f).map((r) => r.message).join("\n")).toMatch(message);
  });

  it("notes scrubbed together with one party memo (a billing page) each get their own parties' reasons", () => {
    const memo = new Map();
    const notes = cases.map(([, change]) => {
      const f = base();
      change(f);
      return f;
    });
    for (const f of notes) expect(scrubNote(f, memo)).toEqual(scrubNote(f));
    // A second pass answers every party check from the memo: nothing new is checked.
    const checked = memo.size;
    for (const f of notes) expect(scrubNote(f, memo)).toEqual(scrubNote(f));
    expect(memo.size).toBe(checked);
  });

  it("every rule of the table is exercised by a failing case", () => {
    const seen = new Set(cases.flatMap(([, , c]) => c));
    for (const { code } of SCRUB_RULES) expect(seen.has(code), code).toBe(true);
  });
});

describe("helpers", () => {
  it.each([
    ["12,03", ["12", "03"]],
    [" 12 , ,03 ", ["12", "03"]],
    [["02", "12"], ["02", "12"]],
    ["", []],
    [null, []],
  ])("codeList(%j) → %j", (stored, expected) => expect(codeList(stored)).toEqual(expected));

  it("allowedPos: caregiver list for 97156/97157, technicians for RBT, technicians + extra for BCBA, null when empty", () => {
    const ins = { id: 1, name: "A", posAllowedToCg: ["12"], posAllowedToTt: ["03"], extraPosForBcba: ["11"] };
    expect(allowedPos(ins, "97157", "bcba")?.codes).toEqual(["12"]);
    expect(allowedPos(ins, "97153", "rbt")?.codes).toEqual(["03"]);
    expect(allowedPos(ins, "97155", "bcba")?.codes).toEqual(["03", "11"]);
    expect(allowedPos({ ...ins, posAllowedToCg: [] }, "97156", "bcba")).toBeNull();
    expect(allowedPos({ ...ins, posAllowedToTt: [] }, "97155", "bcba")).toBeNull();
  });

  it("a refusal reads as one sentence a biller can act on", () => {
    expect(unbillableMessage([{ code: "unsigned", message: "Note is not signed by the provider." }, { code: "no_pa", message: "Note has no prior authorization (PA service)." }])).toBe(
      "Cannot bill this note: Note is not signed by the provider. Note has no prior authorization (PA service).",
    );
  });
});
