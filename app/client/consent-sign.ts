/**
 * The signature pad alone, for the forms that sign and hold nothing else (the note form bundles its own): the
 * parent portal's consent form (docs/decisions/040) and a note's countersignature by its supervisor (decision
 * 023). With JavaScript, a drawing pad beside the typed name; without it the form signs with the typed name.
 */
import { signaturePads } from "./signature-pad";

for (const form of document.querySelectorAll<HTMLFormElement>("form[data-consent-sign], form[data-countersign]")) signaturePads(form);
