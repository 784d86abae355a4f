/** Response header in which test/bench/d1-count-worker.ts reports "statements;round-trips" of D1 per request. */
export const D1_COUNT_HEADER = "X-Bench-D1";
