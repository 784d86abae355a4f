import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  CONSENT_MESSAGES,
  CONSENT_SECTIONS,
  ConsentDraftInput,
  ConsentPdfInput,
  ConsentSignInput,
  consentSectionsMap,
  consentStatusLabel,
  isConsentEditable,
  isPngDataUrl,
  parseStoredSections,
  pdfSections,
  readOnlyMessage,
  SIGNATURE_MAX_CHARS,
  withdrawRefusal,
} from "~/domain/consents";
import { parseWith } from "~/domain/validation";
import { SIGNATURE_PNG } from "../support/note-fixtures";

/** A small real drawing (24×10): a 1×1 image is below the signature's minimum size (decision 040, stop 42). */
const PNG = SIGNATURE_PNG;

describe("consent sections", () => {
  it("have unique numeric ids, a label and the text each says", () => {
    const ids = CONSENT_SECTIONS.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of CONSENT_SECTIONS) {
      expect(Number.isInteger(s.id)).toBe(true);
      expect(s.label.length).toBeGreaterThan(3);
      expect(s.text.length).toBeGreaterThan(20);
    }
  });

  it("the sections call answers a map from id to label", () => {
    const map = consentSectionsMap();
    expect(Object.keys(map)).toHaveLength(CONSENT_SECTIONS.length);
    expect(map["1"]).toBe("Consent to assessment and treatment");
    expect(map["3"]).toBe("Telehealth");
  });

  it.each([
    ["[1,3]", [1, 3]],
    ["[3,1,99]", [1, 3]],
    ["not json", []],
    ['{"a":1}', []],
    [null, []],
  ] as const)("stored sections %s read as %j", (json, ids) => {
    expect(parseStoredSections(json)).toEqual(ids);
  });

  it.each([
    [[1, 2, 3], [], [1, 2, 3]],
    [[1, 2, 3], [2], [2]],
    [[1, 2], [3], []],
    [[2, 1], [1, 2], [1, 2]],
  ] as const)("a PDF of sections %j asked %j prints %j", (covered, asked, printed) => {
    expect(pdfSections(covered, asked).map((s) => s.id)).toEqual(printed);
  });
});

describe("the draft schema", () => {
  it.each([
    [{ patient_id: 4, sections: [1, 2] }, { patient_id: 4, sections: [1, 2], notes: "" }],
    [{ patient_id: "4", sections: ["2", "1"], notes: "  hello " }, { patient_id: 4, sections: [1, 2], notes: "hello" }],
    [{ patient_id: 4, sections: "3" }, { patient_id: 4, sections: [3], notes: "" }],
    [{ patient_id: 4, sections: [1, 1, 2] }, { patient_id: 4, sections: [1, 2], notes: "" }],
  ])("accepts %j", (input, out) => {
    expect(v.parse(ConsentDraftInput, input)).toEqual(out);
  });

  it.each([
    [{ patient_id: 4, sections: [] }, "sections", CONSENT_MESSAGES.sectionsRequired],
    [{ patient_id: 4 }, "sections", CONSENT_MESSAGES.sectionsRequired],
    [{ patient_id: 4, sections: [99] }, "sections", CONSENT_MESSAGES.unknownSection],
    [{ patient_id: 4, sections: ["x"] }, "sections", CONSENT_MESSAGES.unknownSection],
    [{ patient_id: 4, sections: [1.5] }, "sections", CONSENT_MESSAGES.unknownSection],
    [{ patient_id: 0, sections: [1] }, "patient_id", "Choose a client."],
    [{ patient_id: "abc", sections: [1] }, "patient_id", "Choose a client."],
    [{ patient_id: 4, sections: [1], notes: "x".repeat(2001) }, "notes", CONSENT_MESSAGES.notesTooLong],
    [{ patient_id: 4, sections: [1], notes: 123 }, "notes", CONSENT_MESSAGES.notesNotText],
    [{ patient_id: 4, sections: [1], notes: "a\u202Eb" }, "notes", "Remove control or text-direction characters."],
  ])("refuses %j on %s", (input, field, message) => {
    const parsed = parseWith(ConsentDraftInput, input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors[field]).toBe(message);
  });
});

describe("the signature schema", () => {
  it.each([
    [{ signer_name: "  Ana   Lopez ", agree: "on" }, { signer_name: "Ana Lopez", signature: null }],
    [{ signer_name: "Ana Lopez", signature: "", agree: "on" }, { signer_name: "Ana Lopez", signature: null }],
    [{ signer_name: "Ana Lopez", signature: PNG, agree: true }, { signer_name: "Ana Lopez", signature: PNG }],
  ])("accepts %j", (input, out) => {
    expect(v.parse(ConsentSignInput, input)).toMatchObject(out);
  });

  it.each([
    [{ signer_name: "A", agree: "on" }, "signer_name", CONSENT_MESSAGES.nameRequired],
    // Names that print nothing, or one character (probe 8893, stop 25): zero-width space, word joiner, BOM, a Hangul filler.
    [{ signer_name: "\u200b\u200b\u200b", agree: "on" }, "signer_name", CONSENT_MESSAGES.nameRequired],
    [{ signer_name: "\u2060\u2060", agree: "on" }, "signer_name", CONSENT_MESSAGES.nameRequired],
    [{ signer_name: "A\u200b\ufeff", agree: "on" }, "signer_name", CONSENT_MESSAGES.nameRequired],
    [{ signer_name: "\u3164\u3164", agree: "on" }, "signer_name", CONSENT_MESSAGES.nameRequired],
    [{ signer_name: "x".repeat(121), agree: "on" }, "signer_name", CONSENT_MESSAGES.nameRequired],
    [{ agree: "on" }, "signer_name", CONSENT_MESSAGES.nameRequired],
    [{ signer_name: "Ana\u0000", agree: "on" }, "signer_name", "Remove control or text-direction characters."],
    [{ signer_name: "Ana Lopez" }, "agree", CONSENT_MESSAGES.agreeRequired],
    [{ signer_name: "Ana Lopez", signature: "data:image/jpeg;base64,AAAA", agree: "on" }, "signature", CONSENT_MESSAGES.signatureBad],
    [{ signer_name: "Ana Lopez", signature: "data:image/png;base64,AAAAAAAAAAAAAAAA", agree: "on" }, "signature", CONSENT_MESSAGES.signatureBad],
    [{ signer_name: "Ana Lopez", signature: `data:image/png;base64,${"A".repeat(SIGNATURE_MAX_CHARS)}`, agree: "on" }, "signature", CONSENT_MESSAGES.signatureTooLarge],
  ])("refuses %j on %s", (input, field, message) => {
    const parsed = parseWith(ConsentSignInput, input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors[field]).toBe(message);
  });

  it("knows a PNG by its bytes, not its label", () => {
    expect(isPngDataUrl(PNG)).toBe(true);
    expect(isPngDataUrl("data:image/png;base64,R0lGODlhAQABAAAAACw=")).toBe(false);
    expect(isPngDataUrl("javascript:alert(1)")).toBe(false);
  });
});

describe("a signed consent is read-only", () => {
  it.each([
    [{ status: "draft" }, true],
    [{ status: "signed" }, false],
    [{ status: "draft", deleted_at: "2026-01-01" }, false],
  ])("%j editable: %s", (consent, editable) => {
    expect(isConsentEditable(consent)).toBe(editable);
  });
});

describe("the PDF options", () => {
  it.each([
    [{}, { sections: [], isPrint: false }],
    [{ sections: [1, 3], isPrint: true }, { sections: [1, 3], isPrint: true }],
    [{ sections: "1,3", isPrint: "true" }, { sections: [1, 3], isPrint: true }],
  ])("%j → %j", (input, out) => {
    expect(v.parse(ConsentPdfInput, input)).toEqual(out);
  });
  it("refuses unknown sections", () => {
    expect(parseWith(ConsentPdfInput, { sections: [42] }).ok).toBe(false);
  });
  it.each([["on", true], ["1", true], [1, true], ["YES", true], ["false", false], ["0", false], [0, false], ["off", false], ["", false], [null, false]] as const)(
    "isPrint %j is the yes/no %s",
    (isPrint, out) => {
      expect(v.parse(ConsentPdfInput, { isPrint }).isPrint).toBe(out);
    },
  );
  it.each(["maybe", "y", 2, "NaN", [], {}])("isPrint %j is refused at isPrint, never read as false", (isPrint) => {
    const parsed = parseWith(ConsentPdfInput, { isPrint });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(Object.keys(parsed.errors)).toEqual(["isPrint"]);
  });
});

describe("withdrawing and reading only: the status rules (stop 17)", () => {
  it.each([
    [{ status: "draft" }, null],
    [{ status: "signed" }, CONSENT_MESSAGES.withdrawSigned],
    [{ status: "withdrawn" }, CONSENT_MESSAGES.alreadyWithdrawn],
    [{ status: "draft", deleted_at: "2026-01-01T00:00:00Z" }, CONSENT_MESSAGES.withdrawSigned],
  ])("withdrawRefusal(%j) → %j", (consent, expected) => {
    expect(withdrawRefusal(consent)).toBe(expected);
  });
  it.each([
    ["draft", true, "Draft"],
    ["signed", false, "Signed"],
    ["withdrawn", false, "Withdrawn"],
  ])("a %s consent: editable %s, shown as %s", (status, editable, label) => {
    expect(isConsentEditable({ status })).toBe(editable);
    expect(consentStatusLabel(status)).toBe(label);
  });
  it("an edit of a consent that is not a draft says why", () => {
    expect(readOnlyMessage("signed")).toBe(CONSENT_MESSAGES.signedReadOnly);
    expect(readOnlyMessage("withdrawn")).toBe(CONSENT_MESSAGES.withdrawnReadOnly);
  });
});
