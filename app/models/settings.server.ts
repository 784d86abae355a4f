import { inArray, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { settings } from "~/db/schema";
import { DEFAULT_ABSOLUTE_HOURS, DEFAULT_CODE_EXPIRY_MINUTES, DEFAULT_IDLE_MINUTES } from "~/domain/auth-rules";
import { changeDetail } from "~/domain/audit-changes";
import { isSuperadmin } from "~/domain/permissions";
import { demoModeOn, PORTAL_SHOW_NARRATIVE, PORTAL_SHOW_NARRATIVE_DEFAULT, SETTINGS_MESSAGES, SettingsInput } from "~/domain/settings";
import { parseWith } from "~/domain/validation";
import { withAudit } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import { isolateState } from "~/db/isolate-state";
import type { ModelContext } from "./context";
import { dispatchPdfJobs, remakeFamilyCopies, type JobRunner } from "./pdf-jobs.server";
import { who } from "./patients.server";
import { denied, invalid, ok, type ModelResult } from "./results";

export interface AuthSettings {
  codeExpiryMinutes: number;
  idleMinutes: number;
  absoluteHours: number;
  /** The demo banner as a SUPERADMIN set it; null: never set, the deployment's DEMO_MODE decides. */
  demoMode: boolean | null;
  /** The parent portal shows session note summaries (docs/decisions/040); off unless turned on. */
  portalShowNarrative: boolean;
}

const KEYS = {
  codeExpiryMinutes: "two_factor_code_expiry_minutes",
  idleMinutes: "session_idle_minutes",
  absoluteHours: "session_absolute_hours",
  demoMode: "demo_mode",
  portalShowNarrative: PORTAL_SHOW_NARRATIVE,
} as const;

const DEFAULTS: AuthSettings = {
  codeExpiryMinutes: DEFAULT_CODE_EXPIRY_MINUTES,
  idleMinutes: DEFAULT_IDLE_MINUTES,
  absoluteHours: DEFAULT_ABSOLUTE_HOURS,
  demoMode: null,
  portalShowNarrative: PORTAL_SHOW_NARRATIVE_DEFAULT,
};

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

function flag(value: string | undefined): boolean | null {
  return value === "true" ? true : value === "false" ? false : null;
}

/** Settings change rarely: each isolate keeps them for 30 seconds (a write here clears it at once). */
const CACHE_MS = 30_000;
/** One cache per isolate for the screens and the API (isolateState): a save through either clears it for both. */
const cache = isolateState<{ value: { at: number; value: AuthSettings } | null }>("authSettings", () => ({ value: null }));

export async function getAuthSettings(db: Db): Promise<AuthSettings> {
  const cached = cache.value;
  if (cached && Date.now() - cached.at < CACHE_MS) return cached.value;
  const value = await readAuthSettings(db);
  cache.value = { at: Date.now(), value };
  return value;
}

/** Drops this isolate's copy, so the next read is fresh (a settings save; tests that count a request's statements). */
export function forgetAuthSettings(): void {
  cache.value = null;
}

/**
 * The auth settings as one JSON object (key → stored value), a column for a statement that reads something else:
 * the session read carries it, so the idle and absolute limits cost no statement of their own (decision 001).
 * Parse it with authSettingsFromColumn.
 */
export const authSettingsColumn = sql<string | null>`(select json_group_object(${settings.key}, ${settings.value}) from ${settings} where ${inArray(settings.key, Object.values(KEYS))})`;

/** The settings read through authSettingsColumn; they refresh this isolate's cache, as a read of their own would. */
export function authSettingsFromColumn(json: string | null): AuthSettings {
  let stored: Record<string, unknown> = {};
  try {
    stored = JSON.parse(json ?? "{}") as Record<string, unknown>;
  } catch {
    // Not JSON: every setting takes its default, as an absent row does.
  }
  const value = authSettingsFrom(new Map(Object.entries(stored).map(([k, v]) => [k, String(v)])));
  cache.value = { at: Date.now(), value };
  return value;
}

async function readAuthSettings(db: Db): Promise<AuthSettings> {
  const rows = await db.select().from(settings).where(inArray(settings.key, Object.values(KEYS)));
  return authSettingsFrom(new Map(rows.map((r) => [r.key, r.value])));
}

function authSettingsFrom(map: Map<string, string>): AuthSettings {
  return {
    codeExpiryMinutes: positive(map.get(KEYS.codeExpiryMinutes), DEFAULTS.codeExpiryMinutes),
    idleMinutes: positive(map.get(KEYS.idleMinutes), DEFAULTS.idleMinutes),
    absoluteHours: positive(map.get(KEYS.absoluteHours), DEFAULTS.absoluteHours),
    demoMode: flag(map.get(KEYS.demoMode)),
    portalShowNarrative: flag(map.get(KEYS.portalShowNarrative)) ?? DEFAULTS.portalShowNarrative,
  };
}

/** The settings screen's values (platform §9): what is in effect now, the demo flag resolved against the deployment's. */
export interface SettingsForm {
  code_expiry_minutes: number;
  idle_minutes: number;
  absolute_hours: number;
  demo_mode: boolean;
  portal_show_narrative: boolean;
  /** The deployment's DEMO_MODE, shown beside the switch. */
  deployment_demo_mode: boolean;
}

export async function getSettingsForm(ctx: ModelContext, deploymentDemoMode: string | undefined): Promise<ModelResult<SettingsForm>> {
  if (!isSuperadmin(ctx.actor)) return denied(SETTINGS_MESSAGES.superadminOnly);
  const s = await readAuthSettings(ctx.db);
  return ok({
    code_expiry_minutes: s.codeExpiryMinutes,
    idle_minutes: s.idleMinutes,
    absolute_hours: s.absoluteHours,
    demo_mode: demoModeOn(s.demoMode, deploymentDemoMode),
    portal_show_narrative: s.portalShowNarrative,
    deployment_demo_mode: deploymentDemoMode === "true",
  });
}

/**
 * A SUPERADMIN changes the settings. Only the values that differ from those in effect are written, in one
 * batch with one audit row (entity "setting", the changed keys as the record id); bad input writes nothing.
 * The new values take effect at once in this isolate and within 30 seconds everywhere.
 */
export async function updateSettings(ctx: ModelContext, runner: JobRunner, deploymentDemoMode: string | undefined, raw: Record<string, unknown>): Promise<ModelResult<SettingsForm>> {
  if (!isSuperadmin(ctx.actor)) return denied(SETTINGS_MESSAGES.superadminOnly);
  const parsed = parseWith(SettingsInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const now = await readAuthSettings(ctx.db);
  const next = parsed.data;
  // Each setting as in effect now (the demo flag resolved against the deployment's) and as the save sets it, by key.
  const inEffect: Record<string, number | boolean> = {
    [KEYS.codeExpiryMinutes]: now.codeExpiryMinutes,
    [KEYS.idleMinutes]: now.idleMinutes,
    [KEYS.absoluteHours]: now.absoluteHours,
    [KEYS.demoMode]: demoModeOn(now.demoMode, deploymentDemoMode),
    [KEYS.portalShowNarrative]: now.portalShowNarrative,
  };
  const sent: Record<string, number | boolean> = {
    [KEYS.codeExpiryMinutes]: next.code_expiry_minutes,
    [KEYS.idleMinutes]: next.idle_minutes,
    [KEYS.absoluteHours]: next.absolute_hours,
    [KEYS.demoMode]: next.demo_mode,
    [KEYS.portalShowNarrative]: next.portal_show_narrative,
  };
  const changes = Object.keys(sent).filter((k) => sent[k] !== inEffect[k]);
  const form = { ...next, deployment_demo_mode: deploymentDemoMode === "true" };
  if (!changes.length) return ok(form, SETTINGS_MESSAGES.unchanged);
  const narrativeChanged = next.portal_show_narrative !== now.portalShowNarrative;
  const at = ctx.now().toISOString();
  // What the save changes, every setting with its old and new value: switches and numbers, no one's data (decision 019, stop 44).
  const detail = changeDetail(inEffect, Object.fromEntries(changes.map((k) => [k, sent[k]])), changes);
  const results = await withAudit(ctx.db, who(ctx), { action: "update", entity: "setting", entityId: changes.join(","), detail }, () => [
    ...changes.map((key) =>
      ctx.db
        .insert(settings)
        .values({ key, value: String(sent[key]) })
        .onConflictDoUpdate({ target: settings.key, set: { value: sql`excluded.value` } }),
    ),
    bumpListVersion(ctx.db, "settings"),
    // The shared plan PDFs' family copies follow the narrative setting (decision 041, stop 42): made again under it.
    ...(narrativeChanged ? [remakeFamilyCopies(ctx.db, next.portal_show_narrative, at)] : []),
  ]);
  forgetAuthSettings();
  const remade = narrativeChanged ? (results.at(-1) as { id: string }[]).map((r) => r.id) : [];
  if (remade.length) await dispatchPdfJobs(runner, remade);
  return ok(form, remade.length ? `${SETTINGS_MESSAGES.saved} ${SETTINGS_MESSAGES.familyCopiesRemade(remade.length)}` : SETTINGS_MESSAGES.saved);
}
