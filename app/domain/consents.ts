import * as v from "valibot";
import { plainText } from "./validation";
import { flag, visibleLength } from "./fields";
import { isSignatureImage, SIGNATURE_IMAGE_MESSAGE } from "./signature-image";

/**
 * Client consents (clinical §2 client-consent-form, §3 consent sections, §7; docs/decisions/040). Pure.
 *
 * A consent covers some of the clinic's consent sections — each a numeric id, a label and the short text
 * the section says — and is signed once: a parent of the client types their name (and, with JavaScript,
 * draws a signature). A signed consent is read-only: nothing about it changes afterwards.
 */

export interface ConsentSection {
  id: number;
  label: string;
  text: string;
}

/** The clinic's consent sections, by numeric id (the ids are stored in consents: never renumber). */
export const CONSENT_SECTIONS: readonly ConsentSection[] = [
  {
    id: 1,
    label: "Consent to assessment and treatment",
    text: "I consent to the assessment of my child and to applied behavior analysis services as described in the treatment plan, which I may review and question at any time.",
  },
  {
    id: 2,
    label: "Release of information",
    text: "I authorize the clinic to exchange information about my child's care with the physicians, schools and payers named in the record, for treatment, coordination and payment.",
  },
  {
    id: 3,
    label: "Telehealth",
    text: "I consent to services delivered by secure video when the clinic offers them, and understand that I may ask for in-person services instead.",
  },
  {
    id: 4,
    label: "Photo and video",
    text: "I consent to photos or video of sessions taken only for treatment and staff supervision, kept in the clinical record and never shared publicly.",
  },
  {
    id: 5,
    label: "Financial responsibility",
    text: "I understand that I am responsible for co-payments, deductibles and services my insurance does not cover.",
  },
  {
    id: 6,
    label: "Notice of privacy practices",
    text: "I acknowledge that I received the clinic's notice of privacy practices, which explains how my child's health information is used and protected.",
  },
  {
    id: 7,
    label: "Emergency care",
    text: "In an emergency, when I cannot be reached, I authorize the clinic to call emergency services and to share the information needed for my child's care.",
  },
  {
    id: 8,
    label: "Cancellation policy",
    text: "I agree to give at least 24 hours' notice when cancelling a session; repeated late cancellations or no-shows may change the schedule offered.",
  },
];

export const CONSENT_SECTION_IDS: readonly number[] = CONSENT_SECTIONS.map(
  (s) => s.id
);

/** The sections call's answer (clinical §3, §7): a map from section id to label. */
export function consentSectionsMap(): Record<string, string> {
  return Object.fromEntries(
    CONSENT_SECTIONS.map((s) => [String(s.id), s.label])
  );
}

/** The sections with these ids, in the clinic's order; unknown ids are dropped. */
export function sectionsByIds(ids: readonly number[]): ConsentSection[] {
  const wanted = new Set(ids);
  return CONSENT_SECTIONS.filter((s) => wanted.has(s.id));
}

/** The stored JSON list of section ids (a bad or foreign value reads as no section). */
export function parseStoredSections(json: string | null | undefined): number[] {
  try {
    const raw: unknown = JSON.parse(json ?? "[]");
    return Array.isArray(raw)
      ? CONSENT_SECTION_IDS.filter((id) => raw.includes(id))
      : [];
  } catch {
    return [];
  }
}

/**
 * Who signed, as a parent reads a consent another parent signed (the client re-linked since): never the other
 * parent's name (decision 040, stop 45). "Signed by <this>" on the PDF, "signed by <this> on <day>" on the page.
 */
export const OTHER_SIGNER = "another parent or guardian";

export const CONSENT_MESSAGES = {
  sectionsRequired: "Choose at least one section.",
  unknownSection: "Choose sections from the list.",
  noCoveredSection: "Choose at least one of this consent's sections.",
  signedReadOnly: "This consent is signed and can no longer be changed.",
  notesTooLong: "Notes: at most 2000 characters.",
  notesNotText: "Notes must be text.",
  nameRequired: "Type your full name (2 to 120 characters).",
  signatureBad: SIGNATURE_IMAGE_MESSAGE,
  signatureTooLarge:
    "The drawn signature is too large; clear it and sign again.",
  agreeRequired: "Tick the box to confirm you agree.",
  sectionsLoadError: "Error loading sections. Please try again.",
  withdrawnReadOnly: "This consent was withdrawn and can no longer be changed.",
  withdrawSigned: "A signed consent cannot be withdrawn: it is on record as signed.",
  alreadyWithdrawn: "This consent is already withdrawn.",
  withdrawnNotSignable: "The clinic withdrew this consent, so there is nothing to sign.",
  changedBeforeSigning: "The clinic changed this consent after you opened it, so it was not signed. Read the current text below and sign again if you agree.",
  signedWhileEditing: "The parent signed this consent while you were editing it: your changes were not saved, and a signed consent can no longer be changed.",
  chooseClient: "Choose a client: their consents open from the client's page (Consents).",
  withdrawnWhileEditing: "This consent was withdrawn while you were editing it: your changes were not saved.",
  withdrawn: "Consent withdrawn: the parent no longer sees it.",
  created: "Consent saved as a draft.",
  updated: "Consent updated.",
  signed: "Consent signed. Thank you.",
} as const;

/** The longest drawn signature kept (characters of its data URL: about 75 KB of PNG). */
export const SIGNATURE_MAX_CHARS = 100_000;

/**
 * True when the data URL is a drawn signature the product keeps: a well-formed PNG of 20×10 to
 * 2000×1000 pixels (the one rule, app/domain/signature-image.ts; decision 040). That it shows ink is the
 * server's check on signing (signConsent).
 */
export const isPngDataUrl = isSignatureImage;

/** A list of section ids from a form (repeated checkbox) or JSON (numbers or numeric strings). */
const sectionIds = v.pipe(
  v.unknown(),
  v.transform((x) =>
    x === undefined || x === null || x === "" ? [] : Array.isArray(x) ? x : [x]
  ),
  v.array(v.unknown()),
  v.check(
    (xs) => xs.length <= CONSENT_SECTIONS.length * 2,
    CONSENT_MESSAGES.unknownSection
  ),
  v.transform((xs) =>
    xs.map((x) =>
      typeof x === "string" && /^\d{1,3}$/.test(x.trim()) ? Number(x) : x
    )
  ),
  v.check(
    (xs) =>
      xs.every((x) => typeof x === "number" && CONSENT_SECTION_IDS.includes(x)),
    CONSENT_MESSAGES.unknownSection
  ),
  v.transform((xs) =>
    CONSENT_SECTION_IDS.filter((id) => (xs as number[]).includes(id))
  ),
  v.check((xs) => xs.length > 0, CONSENT_MESSAGES.sectionsRequired)
);

const patientId = v.optional(
  v.pipe(
    v.unknown(),
    v.transform((x) =>
      typeof x === "string" && /^\d{1,15}$/.test(x) ? Number(x) : x
    ),
    v.number("Choose a client."),
    v.integer("Choose a client."),
    v.minValue(1, "Choose a client.")
  ),
  ""
);

/** A consent draft as staff write it (form or JSON): the client, the sections, optional notes. */
export const ConsentDraftInput = v.object({
  patient_id: patientId,
  sections: v.optional(sectionIds, ""),
  notes: v.optional(
    v.pipe(
      v.string(CONSENT_MESSAGES.notesNotText),
      v.trim(),
      v.maxLength(2000, CONSENT_MESSAGES.notesTooLong),
      plainText()
    ),
    ""
  ),
});
export type ConsentDraftInput = v.InferOutput<typeof ConsentDraftInput>;

/** A parent's signature: the typed name (required), the drawn one (optional PNG), and the agreement box. */
export const ConsentSignInput = v.object({
  signer_name: v.optional(
    v.pipe(
      v.string(CONSENT_MESSAGES.nameRequired),
      v.transform((s) => s.trim().replace(/\s+/g, " ")),
      v.minLength(2, CONSENT_MESSAGES.nameRequired),
      // Two characters that print: a name of zero-width characters signs nobody (probe 8893, stop 25).
      v.check((s) => visibleLength(s) >= 2, CONSENT_MESSAGES.nameRequired),
      v.maxLength(120, CONSENT_MESSAGES.nameRequired),
      plainText()
    ),
    ""
  ),
  signature: v.optional(
    v.pipe(
      v.string(CONSENT_MESSAGES.signatureBad),
      v.trim(),
      v.maxLength(SIGNATURE_MAX_CHARS, CONSENT_MESSAGES.signatureTooLarge),
      v.check(
        (s) => s === "" || isPngDataUrl(s),
        CONSENT_MESSAGES.signatureBad
      ),
      v.transform((s) => (s === "" ? null : s))
    ),
    ""
  ),
  agree: v.optional(
    v.pipe(
      v.unknown(),
      v.check(
        (x) => x === true || x === "on" || x === "true" || x === "1",
        CONSENT_MESSAGES.agreeRequired
      )
    ),
    ""
  ),
});
export type ConsentSignInput = v.InferOutput<typeof ConsentSignInput>;

export type ConsentStatus = "draft" | "signed" | "withdrawn";

/** Why a consent that is not a draft cannot be edited. */
export function readOnlyMessage(status: string): string {
  return status === "withdrawn" ? CONSENT_MESSAGES.withdrawnReadOnly : CONSENT_MESSAGES.signedReadOnly;
}

/** How staff see a consent's status. */
export function consentStatusLabel(status: string): string {
  return status === "signed" ? "Signed" : status === "withdrawn" ? "Withdrawn" : "Draft";
}

/**
 * Why a consent cannot be withdrawn, or null when it can: only a draft is withdrawn (a signed consent
 * is on record as signed; a withdrawn one stays withdrawn).
 */
export function withdrawRefusal(consent: { status: string; deleted_at?: string | null }): string | null {
  if (consent.status === "signed") return CONSENT_MESSAGES.withdrawSigned;
  if (consent.status === "withdrawn") return CONSENT_MESSAGES.alreadyWithdrawn;
  return isConsentEditable(consent) ? null : CONSENT_MESSAGES.withdrawSigned;
}

/** The rule: only a draft may change (edit, sign); a signed consent is read-only. */
export function isConsentEditable(consent: {
  status: string;
  deleted_at?: string | null;
}): boolean {
  return consent.status === "draft" && !consent.deleted_at;
}

/** The PDF call's options (clinical §7: sections and isPrint): which sections to print; inline or download. */
export const ConsentPdfInput = v.object({
  sections: v.optional(
    v.pipe(
      v.unknown(),
      v.transform((x) =>
        x === undefined || x === null || x === ""
          ? []
          : Array.isArray(x)
          ? x
          : String(x).split(",")
      ),
      v.array(v.unknown()),
      v.transform((xs) =>
        xs.map((x) =>
          typeof x === "string" && /^\d{1,3}$/.test(x.trim()) ? Number(x) : x
        )
      ),
      v.check(
        (xs) =>
          xs.length <= 64 &&
          xs.every(
            (x) => typeof x === "number" && CONSENT_SECTION_IDS.includes(x)
          ),
        CONSENT_MESSAGES.unknownSection
      ),
      v.transform((xs) => xs as number[])
    ),
    []
  ),
  // The app's one boolean field (true/false, 1/0, on/off, yes/no; missing or "" is false): anything else is
  // refused at isPrint, never read as false (decision 040, 2026-11-28).
  isPrint: flag,
});

/** The sections a PDF prints: those asked for that the consent covers; none asked → all it covers. */
export function pdfSections(
  covered: readonly number[],
  asked: readonly number[]
): ConsentSection[] {
  const chosen = asked.length
    ? covered.filter((id) => asked.includes(id))
    : covered;
  return sectionsByIds(chosen);
}

/**
 * Whether a PDF request names sections but none the consent covers: the PDF would show a signature under no
 * section, a signed document that says nothing of what was signed, so it is refused (decision 040, stop 24).
 */
export function asksNoCoveredSection(covered: readonly number[], asked: readonly number[]): boolean {
  return asked.length > 0 && !covered.some((id) => asked.includes(id));
}

/** The PDF's file name. */
export function consentPdfFilename(consentId: number): string {
  return `consent-${consentId}.pdf`;
}
