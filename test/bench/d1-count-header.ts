/** Response header in which test/bench/d1-count-worker.ts reports "statements;round-trips;wait-ms" of D1 per request. */
export const D1_COUNT_HEADER = "X-Bench-D1";
