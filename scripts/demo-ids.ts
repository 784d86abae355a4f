/**
 * The demo's own rows (decision 002): the seed writes fixed ids, and every seed step touches only these, so a
 * clinic's own users, clients, insurers and notes are never changed by `npm run seed` / `npm start`.
 */

/** The demo accounts (scripts/demo-data.ts USERS, all `@demo.test`). */
export const DEMO_USER_IDS: readonly number[] = Array.from({ length: 15 }, (_, i) => i + 1);
/** The eighteen demo clients. */
export const DEMO_PATIENT_IDS: readonly number[] = Array.from({ length: 18 }, (_, i) => i + 1);
/** The three demo insurers. */
export const DEMO_INSURER_IDS: readonly number[] = [1, 2, 3];
/** The settings key written when a seed run has finished: later runs leave the database as it is. */
export const DEMO_SEEDED_KEY = "demo_seeded";
