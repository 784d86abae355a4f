/**
 * The parent portal's consent form (docs/decisions/040): with JavaScript, a drawing pad beside the typed
 * name (the same pad as the note form's). Without it the form signs with the typed name alone.
 */
import { signaturePads } from "./signature-pad";

for (const form of document.querySelectorAll<HTMLFormElement>("form[data-consent-sign]")) signaturePads(form);
