import { describe, expect, it } from "vitest";
import { addMinutes, afterFailedAttempt, attemptsLeftText, AUTH_MESSAGES, expiryText, isExpired, maskEmail, minutesLeft, sessionState, THROTTLE, throttleWaitSeconds } from "~/domain/auth-rules";
import { passwordProblem, PASSWORD_MESSAGES } from "~/domain/passwords";

const now = new Date("2026-11-22T12:00:00Z");
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();

describe("code expiry", () => {
  it.each([
    ["a code expiring in a minute is valid", addMinutes(now, 1).toISOString(), false],
    ["a code expiring now is expired", now.toISOString(), true],
    ["a code that expired a second ago is expired", ago(1), true],
    ["a missing expiry counts as expired", null, true],
  ] as const)("%s", (_l, expiresAt, expected) => {
    expect(isExpired(expiresAt, now)).toBe(expected);
  });

  it("the default five-minute expiry", () => {
    expect(isExpired(addMinutes(now, 5).toISOString(), addMinutes(now, 4.99))).toBe(false);
    expect(isExpired(addMinutes(now, 5).toISOString(), addMinutes(now, 5))).toBe(true);
  });
});

describe("failed attempts", () => {
  it.each([
    [5, 4, false],
    [2, 1, false],
    [1, 0, true],
    [0, 0, true],
  ])("from %i remaining leaves %i (void: %s)", (before, left, voided) => {
    expect(afterFailedAttempt(before)).toEqual({ attemptsRemaining: left, void: voided });
  });
});

describe("password rules", () => {
  it.each([
    ["", PASSWORD_MESSAGES.required],
    ["short", PASSWORD_MESSAGES.tooShort],
    ["1234567", PASSWORD_MESSAGES.tooShort],
    ["12345678", null],
    ["x".repeat(64), null],
    ["x".repeat(128), null],
    ["x".repeat(129), PASSWORD_MESSAGES.tooLong],
  ])("%j → %s", (password, problem) => {
    expect(passwordProblem(password)).toBe(problem);
  });
});

describe("session limits", () => {
  const limits = { idleMinutes: 30, absoluteHours: 12 };
  it.each([
    ["recently active", { createdAt: ago(3600), lastSeenAt: ago(60), locked: false }, "active"],
    ["idle 30 minutes locks", { createdAt: ago(3600), lastSeenAt: ago(30 * 60), locked: false }, "locked"],
    ["a locked session stays locked", { createdAt: ago(3600), lastSeenAt: ago(1), locked: true }, "locked"],
    ["12 hours old ends", { createdAt: ago(12 * 3600), lastSeenAt: ago(1), locked: false }, "expired"],
    ["the absolute limit wins over the lock", { createdAt: ago(13 * 3600), lastSeenAt: ago(3600), locked: true }, "expired"],
  ] as const)("%s", (_l, s, expected) => {
    expect(sessionState(s, now, limits)).toBe(expected);
  });
});

describe("sign-in throttling", () => {
  const rule = THROTTLE.account;
  const failures = (n: number, spacing = 1) => Array.from({ length: n }, (_, i) => ago((n - i) * spacing));
  it.each([
    ["no failures", 0, 0],
    ["four failures are free", 4, 0],
  ])("%s → no wait", (_l, n, wait) => {
    expect(throttleWaitSeconds(failures(n), rule, now)).toBe(wait);
  });

  it("the wait grows with each failure past the allowance, up to the cap", () => {
    const waits = [5, 6, 7, 8, 12].map((n) => throttleWaitSeconds(failures(n, 0.001), rule, now));
    expect(waits[0]).toBe(30);
    expect(waits[1]).toBe(60);
    expect(waits[2]).toBe(120);
    expect(waits[3]).toBe(240);
    expect(waits[4]).toBe(rule.maxSeconds);
  });

  it("failures older than an hour do not count", () => {
    expect(throttleWaitSeconds(Array.from({ length: 50 }, () => ago(3601)), rule, now)).toBe(0);
  });

  it("at 100 failures in an hour the account stays locked until the oldest ages out", () => {
    const list = Array.from({ length: 100 }, (_, i) => ago(3000 - i * 20));
    expect(throttleWaitSeconds(list, rule, now)).toBe(600);
  });
});

describe("what the code screens show", () => {
  it.each([
    ["nadia@demo.test", "n***@demo.test"],
    ["a@b.co", "a***@b.co"],
    ["first.last+tag@sub.example.org", "f***@sub.example.org"],
    ["no-at-sign", "***"],
    ["@demo.test", "***"],
  ])("masks %s as %s", (email, masked) => {
    expect(maskEmail(email)).toBe(masked);
  });

  it.each([
    [addMinutes(now, 5).toISOString(), 5],
    [addMinutes(now, 4.01).toISOString(), 5],
    [addMinutes(now, 0.5).toISOString(), 1],
    [now.toISOString(), 0],
    [ago(90), 0],
    [null, 0],
  ] as const)("a code expiring at %s has %i minutes left", (expiresAt, left) => {
    expect(minutesLeft(expiresAt, now)).toBe(left);
  });

  it.each([
    [5, "5 attempts remaining."],
    [1, "1 attempt remaining."],
    [0, "0 attempts remaining."],
  ])("%i attempts read %s", (n, text) => {
    expect(attemptsLeftText(n)).toBe(text);
  });

  it.each([
    [5, "It expires in 5 minutes."],
    [1, "It expires in 1 minute."],
    [0, "It has expired; ask for a new one."],
  ])("%i minutes read %s", (n, text) => {
    expect(expiryText(n)).toBe(text);
  });
});

describe("a throttled request says when to try again, in whole minutes rounded up", () => {
  it.each([
    [1, "1 minute"],
    [60, "1 minute"],
    [61, "2 minutes"],
    [3600, "60 minutes"],
  ])("a wait of %i s reads %s", (seconds, wait) => {
    expect(AUTH_MESSAGES.resetRequestsThrottled(seconds)).toBe(`Too many password reset requests from your network. Please try again in ${wait}.`);
    expect(AUTH_MESSAGES.passwordThrottled(seconds)).toBe(`Too many wrong passwords. Please try again in ${wait}.`);
  });
});
