import { inArray } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { settings } from "~/db/schema";
import { DEFAULT_ABSOLUTE_HOURS, DEFAULT_CODE_EXPIRY_MINUTES, DEFAULT_IDLE_MINUTES } from "~/domain/auth-rules";

export interface AuthSettings {
  codeExpiryMinutes: number;
  idleMinutes: number;
  absoluteHours: number;
}

const KEYS = {
  codeExpiryMinutes: "two_factor_code_expiry_minutes",
  idleMinutes: "session_idle_minutes",
  absoluteHours: "session_absolute_hours",
} as const;

const DEFAULTS: AuthSettings = {
  codeExpiryMinutes: DEFAULT_CODE_EXPIRY_MINUTES,
  idleMinutes: DEFAULT_IDLE_MINUTES,
  absoluteHours: DEFAULT_ABSOLUTE_HOURS,
};

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** Settings change rarely: each isolate keeps them for 30 seconds (a write here clears it at once). */
const CACHE_MS = 30_000;
let cached: { at: number; value: AuthSettings } | null = null;

export async function getAuthSettings(db: Db): Promise<AuthSettings> {
  if (cached && Date.now() - cached.at < CACHE_MS) return cached.value;
  const value = await readAuthSettings(db);
  cached = { at: Date.now(), value };
  return value;
}

async function readAuthSettings(db: Db): Promise<AuthSettings> {
  const rows = await db.select().from(settings).where(inArray(settings.key, Object.values(KEYS)));
  const map = new Map(rows.map((r) => [r.key, r.value]));
  return {
    codeExpiryMinutes: positive(map.get(KEYS.codeExpiryMinutes), DEFAULTS.codeExpiryMinutes),
    idleMinutes: positive(map.get(KEYS.idleMinutes), DEFAULTS.idleMinutes),
    absoluteHours: positive(map.get(KEYS.absoluteHours), DEFAULTS.absoluteHours),
  };
}

export async function setSetting(db: Db, key: keyof AuthSettings, value: number): Promise<void> {
  cached = null;
  await db
    .insert(settings)
    .values({ key: KEYS[key], value: String(value) })
    .onConflictDoUpdate({ target: settings.key, set: { value: String(value) } });
}
