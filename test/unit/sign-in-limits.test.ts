import { describe, expect, it } from "vitest";
import { challengeOver, codeEmailWaitSeconds, codeExpiresAt, refreshWaitSeconds } from "~/domain/auth-rules";

const now = new Date("2026-11-22T12:00:00Z");
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();

describe("refresh limit: 5 per token family in 5 minutes", () => {
  it.each([
    ["no earlier refresh", [], 0],
    ["four in the window", [ago(10), ago(20), ago(30), ago(40)], 0],
    ["five in the window: wait until the oldest is 5 minutes old", [ago(10), ago(20), ago(30), ago(40), ago(100)], 200],
    ["six in the window: the fifth newest decides", [ago(10), ago(20), ago(30), ago(40), ago(100), ago(290)], 200],
    ["five, one of them outside the window", [ago(10), ago(20), ago(30), ago(40), ago(300)], 0],
    ["five at this very moment", [ago(0), ago(0), ago(0), ago(0), ago(0)], 300],
  ] as const)("%s → wait %i s", (_l, refreshes, wait) => {
    expect(refreshWaitSeconds(refreshes, now)).toBe(wait);
  });
});

describe("a sign-in challenge's lifetime: 15 minutes however often the code is resent", () => {
  it.each([
    ["a new challenge: the code's own 5 minutes", ago(0), 5, 5 * 60],
    ["10 minutes in: still 5 minutes", ago(600), 5, 5 * 60],
    ["12 minutes in: capped at the 3 minutes left", ago(720), 5, 3 * 60],
    ["15 minutes in: nothing left", ago(900), 5, 0],
  ] as const)("%s", (_l, createdAt, minutes, seconds) => {
    expect((codeExpiresAt(createdAt, now, minutes).getTime() - now.getTime()) / 1000).toBe(seconds);
  });

  it.each([
    [ago(899), false],
    [ago(900), true],
    [ago(3600), true],
  ] as const)("created at %s is over: %s", (createdAt, over) => {
    expect(challengeOver(createdAt, now)).toBe(over);
  });
});

describe("code emails per account: 10 an hour", () => {
  it.each([
    ["none sent", [], 0],
    ["9 sent", [{ createdAt: ago(100), sends: 4 }, { createdAt: ago(50), sends: 4 }, { createdAt: ago(10), sends: 1 }], 0],
    ["10 sent: wait until the oldest challenge leaves the hour", [{ createdAt: ago(1000), sends: 4 }, { createdAt: ago(50), sends: 4 }, { createdAt: ago(10), sends: 2 }], 2600],
    ["12 sent: the two oldest must leave", [{ createdAt: ago(3000), sends: 1 }, { createdAt: ago(2000), sends: 3 }, { createdAt: ago(10), sends: 4 }, { createdAt: ago(5), sends: 4 }], 1600],
    ["older than an hour does not count", [{ createdAt: ago(3600), sends: 4 }, { createdAt: ago(50), sends: 4 }, { createdAt: ago(10), sends: 2 }], 0],
  ] as const)("%s → wait %i s", (_l, sent, wait) => {
    expect(codeEmailWaitSeconds(sent, now)).toBe(wait);
  });
});
