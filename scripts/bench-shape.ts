/**
 * The shape of the benchmark data set (scripts/bench-data.ts), shared with the bench (test/bench/run.ts)
 * so that a scenario picks records the generator really made, valid on the date it sends.
 */
export const BENCH_BASE = 1_000; // generated ids start above the demo data's
export const BENCH_LOCATIONS = 40;
export const BENCH_EMPLOYEES = 2_000;
export const BENCH_CLIENTS = 20_000;
/** Day offsets count back from this date: day(0) is 2026-11-01, day(-60) sixty days after it. */
const ANCHOR_MS = Date.UTC(2026, 10, 1);

/** The ISO timestamp `offset` days before 2026-11-01 (negative: after it). */
export const benchDay = (offset: number) => new Date(ANCHOR_MS - offset * 86_400_000).toISOString();

/** Employee e (0-based) works at location e mod 40; one in three (e mod 3 = 0) is a BCBA, the others RBTs. */
export const benchIsRbt = (employee: number) => employee % 3 !== 0;

/**
 * Client i's two PA services (k = 0: 97153 direct therapy, k = 1: 97155 supervision): from before the
 * first bench note to an end spread over 90 days, from 60 days after 2026-11-01 down to 29 days before it.
 */
export function benchPaService(client: number, k: 0 | 1, noteDays: number) {
  return {
    id: BENCH_BASE + client * 2 + k,
    cpt: k === 0 ? "97153" : "97155",
    nUnits: k === 0 ? 960 : 480,
    startDate: benchDay(Math.max(120, noteDays + 10)).slice(0, 10),
    endDate: benchDay(-60 + (client % 90)).slice(0, 10),
  };
}

/**
 * The k-th (0-based) RBT note a bench create can write on `sessionDate`: a client i whose 97153 PA service
 * covers that date, seen by the RBT i mod 2,000 (the same location: both are at index mod 40). Creates
 * within the first few hundred never share a client or a provider. Null when the data set has too few (a
 * date far past every PA service's end).
 */
export function benchCreateTarget(k: number, sessionDate: string, noteDays: number, clients = BENCH_CLIENTS): { patientId: number; providerId: number; paServiceId: number } | null {
  let seen = 0;
  for (let i = 1; i < clients; i++) {
    const provider = i % BENCH_EMPLOYEES;
    if (!benchIsRbt(provider)) continue;
    const pa = benchPaService(i, 0, noteDays);
    if (pa.startDate > sessionDate || pa.endDate < sessionDate) continue;
    if (seen++ === k) return { patientId: BENCH_BASE + i, providerId: BENCH_BASE + provider, paServiceId: pa.id };
  }
  return null;
}
