import * as v from "valibot";
import { flag } from "./fields";

/**
 * The product settings a SUPERADMIN may change (two-factor code expiry, idle and absolute session limits,
 * demo mode) and their bounds. Pure. The spec gives only the defaults (platform §9: codes 5 minutes); the
 * bounds are ours (docs/decisions/020).
 */

export const SETTING_BOUNDS = {
  code_expiry_minutes: { min: 1, max: 60, label: "Two-factor code expiry", unit: "minutes" },
  idle_minutes: { min: 5, max: 120, label: "Idle limit", unit: "minutes" },
  absolute_hours: { min: 1, max: 24, label: "Absolute session limit", unit: "hours" },
} as const;
export type BoundedSetting = keyof typeof SETTING_BOUNDS;

export const SETTINGS_MESSAGES = {
  idleNotShorter: "The idle limit must be shorter than the absolute session limit.",
  superadminOnly: "Only a SUPERADMIN can change the settings.",
  unchanged: "Nothing changed.",
  saved: "Settings saved.",
  /** The shared plan PDFs made again for the parents under a changed narrative setting (decision 041, stop 42). */
  familyCopiesRemade: (n: number) => `${n === 1 ? "1 plan PDF shared with parents is" : `${n} plan PDFs shared with parents are`} being made again under the new setting; parents see ${n === 1 ? "it" : "them"} once ready.`,
} as const;

export function boundMessage(key: BoundedSetting): string {
  const b = SETTING_BOUNDS[key];
  return `${b.label} must be a whole number of ${b.unit} from ${b.min} to ${b.max}.`;
}

/** A whole number within the setting's bounds; a form's text or a JSON number. */
function bounded(key: BoundedSetting) {
  const { min, max } = SETTING_BOUNDS[key];
  const message = boundMessage(key);
  return v.pipe(
    v.union([v.string(message), v.number(message)], message),
    v.transform((x) => (typeof x === "string" ? (/^\s*\d{1,4}\s*$/.test(x) ? Number(x) : NaN) : x)),
    v.number(message),
    v.integer(message),
    v.minValue(min, message),
    v.maxValue(max, message),
  );
}

export const SettingsInput = v.pipe(
  v.object({
    code_expiry_minutes: bounded("code_expiry_minutes"),
    idle_minutes: bounded("idle_minutes"),
    absolute_hours: bounded("absolute_hours"),
    /** A checkbox: absent means off. */
    demo_mode: flag,
    /** The parent portal shows session note summaries (decision 040); a checkbox, absent means off. */
    portal_show_narrative: flag,
  }),
  v.forward(
    v.check((x) => x.idle_minutes < x.absolute_hours * 60, SETTINGS_MESSAGES.idleNotShorter),
    ["idle_minutes"],
  ),
);
export type SettingsInput = v.InferOutput<typeof SettingsInput>;

/** The demo banner: the stored setting when a SUPERADMIN set one, else the deployment's DEMO_MODE. */
export function demoModeOn(stored: boolean | null, deploymentDemoMode: string | undefined): boolean {
  return stored ?? deploymentDemoMode === "true";
}

/**
 * The parent portal shows a session note's summary (its clinical narrative) only when this setting's value
 * is "true"; absent or anything else means off, the default (docs/decisions/040).
 */
export const PORTAL_SHOW_NARRATIVE = "portal_show_narrative";
export const PORTAL_SHOW_NARRATIVE_DEFAULT = false;
