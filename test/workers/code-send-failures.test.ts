import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { twoFactorChallenges } from "~/db/schema";
import { AUTH_MESSAGES, CODE_EMAILS_PER_HOUR } from "~/domain/auth-rules";
import { resendLoginCode, signIn, verifyLoginCode } from "~/models/auth.server";
import type { Email, EmailSender } from "~/services/email.server";
import { codeIn, createUser, db, type TestUser } from "./helpers";

/**
 * Sign-in code emails that fail to send do not count toward the hourly limit (decision 016, stop 41): after an email
 * outage the user can sign in as soon as the provider is back, while sent codes still stop at CODE_EMAILS_PER_HOUR,
 * even for requests racing each other. A failed send's code never works.
 */

// Password hashing (PBKDF2) makes each sign-in slow on a busy machine.
vi.setConfig({ testTimeout: 60_000 });

/** An email provider that is up or down, and the emails it delivered. */
function provider() {
  const state = { down: false, delivered: [] as Email[] };
  const sender: EmailSender = {
    name: "resend",
    async send(email) {
      if (state.down) throw new Error("DNS lookup failed");
      state.delivered.push(email);
    },
  };
  return { state, sender };
}

// A failed send is logged (console.error); here failing is the point.
beforeEach(() => {
  vi.spyOn(console, "error").mockImplementation(() => {});
});

let ipSeq = 0;
function appFor(sender: EmailSender) {
  const e = env as unknown as Env;
  // Each app signs in from its own address, so the per-address password throttle never decides these tests.
  return { db: db(), env: e, email: sender, ip: `198.51.100.${++ipSeq}`, isDev: true, now: () => new Date() };
}

const challengesOf = (user: TestUser) =>
  db()
    .select()
    .from(twoFactorChallenges)
    .where(and(eq(twoFactorChallenges.principalType, "user"), eq(twoFactorChallenges.principalId, user.id), eq(twoFactorChallenges.context, "login")));

type Step = "sign-in ok" | "sign-in fails" | "resend ok" | "resend fails";

/** Each case: the steps, then what the next sign-in with the provider up answers. */
const cases: { name: string; steps: [Step, number][]; next: "two_factor" | "throttled" }[] = [
  { name: "the provider down for 12 sign-ins, then back: the next sign-in sends a code", steps: [["sign-in fails", 12]], next: "two_factor" },
  { name: "9 codes sent and 5 failed sign-ins: the 10th code is still sent", steps: [["sign-in ok", 9], ["sign-in fails", 5]], next: "two_factor" },
  { name: "failed resends give their send back", steps: [["sign-in ok", 8], ["resend fails", 3]], next: "two_factor" },
  { name: "10 codes sent by sign-ins: the 11th is refused", steps: [["sign-in ok", 10]], next: "throttled" },
  { name: "10 codes sent, failures between them: the 11th is refused", steps: [["sign-in ok", 4], ["sign-in fails", 6], ["sign-in ok", 3], ["resend ok", 3]], next: "throttled" },
];

describe("failed code sends do not lock the account out (decision 016, stop 41)", () => {
  it.each(cases)("$name", async ({ steps, next }) => {
    const user = await createUser({ twoFactor: true });
    const { state, sender } = provider();
    let challengeId = "";
    for (const [step, times] of steps) {
      for (let i = 0; i < times; i++) {
        state.down = step.endsWith("fails");
        if (step.startsWith("sign-in")) {
          const result = await signIn(appFor(sender), { email: user.email, password: user.password, parent: false }, "api");
          expect(result.kind).toBe(state.down ? "send_failed" : "two_factor");
          if (result.kind === "two_factor") challengeId = result.challengeId;
        } else {
          const result = await resendLoginCode(appFor(sender), { id: challengeId, email: user.email });
          expect(result.kind).toBe(state.down ? "send_failed" : "sent");
        }
      }
    }
    state.down = false;
    const sentBefore = state.delivered.length;
    const again = await signIn(appFor(sender), { email: user.email, password: user.password, parent: false }, "api");
    expect(again.kind).toBe(next);
    if (again.kind === "throttled") {
      expect(again.message).toBe(AUTH_MESSAGES.codeEmailsLimit);
      expect(state.delivered).toHaveLength(CODE_EMAILS_PER_HOUR);
    } else {
      expect(state.delivered).toHaveLength(sentBefore + 1);
    }
    // What is counted is exactly what was delivered.
    const rows = await challengesOf(user);
    expect(rows.reduce((n, r) => n + r.sends, 0)).toBe(state.delivered.length);
  });

  it("a failed first send leaves a challenge that is consumed, has no code and counts nothing", async () => {
    const user = await createUser({ twoFactor: true });
    const { state, sender } = provider();
    state.down = true;
    expect((await signIn(appFor(sender), { email: user.email, password: user.password, parent: false }, "api")).kind).toBe("send_failed");
    const [row] = await challengesOf(user);
    expect(row).toMatchObject({ sends: 0, codeHash: null });
    expect(row!.consumedAt).not.toBeNull();
    // Its id leads nowhere: no code, no resend.
    expect((await verifyLoginCode(appFor(sender), { id: row!.id, email: user.email }, "000000")).kind).toBe("no_challenge");
    expect((await resendLoginCode(appFor(sender), { id: row!.id, email: user.email })).kind).toBe("no_challenge");
  });

  it("a failed resend's code never works; the code the user last received still does", async () => {
    const user = await createUser({ twoFactor: true });
    const { state, sender } = provider();
    const first = await signIn(appFor(sender), { email: user.email, password: user.password, parent: false }, "api");
    if (first.kind !== "two_factor") throw new Error(first.kind);
    const received = codeIn(state.delivered[0]!.text);
    // The failed resend's code is made, but never leaves; the challenge keeps the code it had.
    state.down = true;
    expect((await resendLoginCode(appFor(sender), { id: first.challengeId, email: user.email })).kind).toBe("send_failed");
    const [row] = await challengesOf(user);
    expect(row!.sends).toBe(1);
    state.down = false;
    expect((await verifyLoginCode(appFor(sender), { id: first.challengeId, email: user.email }, received)).kind).toBe("ok");
  });
});

describe("racing requests cannot get past the hourly limit (decision 016, stop 41)", () => {
  /** Codes of the hour already sent: a challenge row with that many sends, not pending. */
  async function alreadySent(user: TestUser, sends: number) {
    await db().insert(twoFactorChallenges).values({ id: crypto.randomUUID(), principalType: "user", principalId: user.id, context: "login", sends, consumedAt: new Date().toISOString() });
  }

  it("four sign-ins at once with one code left: one code is sent", async () => {
    const user = await createUser({ twoFactor: true });
    await alreadySent(user, CODE_EMAILS_PER_HOUR - 1);
    const { state, sender } = provider();
    const results = await Promise.all(Array.from({ length: 4 }, () => signIn(appFor(sender), { email: user.email, password: user.password, parent: false }, "api")));
    expect(results.filter((r) => r.kind === "two_factor")).toHaveLength(1);
    for (const r of results.filter((r) => r.kind !== "two_factor")) expect(r).toMatchObject({ kind: "throttled", message: AUTH_MESSAGES.codeEmailsLimit });
    expect(state.delivered).toHaveLength(1);
    const rows = await challengesOf(user);
    expect(rows.reduce((n, r) => n + r.sends, 0)).toBe(CODE_EMAILS_PER_HOUR);
    // The one that got through is the pending challenge; nothing the refused ones did voided it.
    expect(rows.filter((r) => r.consumedAt == null)).toHaveLength(1);
  });

  it("five resends at once with one code left: one is sent, the others are told the hour's limit", async () => {
    const user = await createUser({ twoFactor: true });
    const { state, sender } = provider();
    const first = await signIn(appFor(sender), { email: user.email, password: user.password, parent: false }, "api");
    if (first.kind !== "two_factor") throw new Error(first.kind);
    await alreadySent(user, CODE_EMAILS_PER_HOUR - 2);
    const results = await Promise.all(Array.from({ length: 5 }, () => resendLoginCode(appFor(sender), { id: first.challengeId, email: user.email })));
    expect(results.filter((r) => r.kind === "sent")).toHaveLength(1);
    for (const r of results.filter((r) => r.kind !== "sent")) expect(r).toMatchObject({ kind: "limited", message: AUTH_MESSAGES.codeEmailsLimit });
    expect(state.delivered).toHaveLength(2);
    expect((await challengesOf(user)).reduce((n, r) => n + r.sends, 0)).toBe(CODE_EMAILS_PER_HOUR);
  });
});
