import { and, eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { outboxEmails, parents, twoFactorChallenges, users } from "~/db/schema";
import { AUTH_MESSAGES } from "~/domain/auth-rules";
import { pruneOldChallenges } from "~/models/auth.server";
import { sha256Hex } from "~/services/crypto.server";
import { codeIn, cookiesFrom, createParent, createUser, db, lastEmail, request } from "./helpers";
import { appFetch } from "./app-fetch";

vi.setConfig({ testTimeout: 30_000 });

/**
 * Password-reset verification tells nothing about whether an email has an account (decisions 003 and 016,
 * probe 8951 #1): the challenge id an unknown email is handed answers wrong codes exactly as a real one does,
 * on the API and on the screen, and never accepts a code.
 */

let ipSeq = 0;
/** Each test guesses from its own address, so the per-address throttle of one test never reaches another. */
const newIp = () => `198.51.100.${++ipSeq}`;
let seq = 0;
/** An email with no account, masked on the screen as `like` is (u***@test.example for a test user's). */
const unknownEmail = (like = "u") => `${like[0]}-nobody-${Date.now().toString(36)}${++seq}@test.example`;

function apiFrom(ip: string, path: string, body: unknown): Promise<Response> {
  return appFetch(`http://localhost/api${path}`, { method: "POST", headers: { Accept: "application/json", "Content-Type": "application/json", "CF-Connecting-IP": ip }, body: JSON.stringify(body) });
}

function formFrom(ip: string, path: string, fields: Record<string, string>, cookie?: string): Promise<Response> {
  return request(path, { method: "POST", body: new URLSearchParams(fields), cookie, headers: { "Content-Type": "application/x-www-form-urlencoded", "CF-Connecting-IP": ip } });
}

const answer = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> });

/** `parent`: the parent account of the email (the sign-in's tick); without it, the staff account. */
async function requestReset(email: string, parent = false): Promise<string> {
  const res = await apiFrom(newIp(), "/password-reset/request", { email, parent });
  expect(res.status).toBe(200);
  return ((await res.json()) as { challenge_id: string }).challenge_id;
}

/** A code that is not the one emailed to `email` (any code for an email that got none). */
async function wrongCode(email: string, step: number): Promise<string> {
  const sent = await lastEmail(email);
  const code = sent ? Number(codeIn(sent.text)) : 0;
  return String((code + step) % 1_000_000).padStart(6, "0");
}

async function verify(email: string, challengeId: string, step: number, ip: string) {
  return answer(await apiFrom(ip, "/password-reset/verify", { email, challenge_id: challengeId, code: await wrongCode(email, step) }));
}

const emailsTo = async (to: string) => (await db().select({ id: outboxEmails.id }).from(outboxEmails).where(eq(outboxEmails.to, to))).length;
const challengeRow = async (id: string) => (await db().select().from(twoFactorChallenges).where(eq(twoFactorChallenges.id, id)))[0];

const failed = (attempts: number) => ({ status: 422, body: { message: AUTH_MESSAGES.verificationFailed, code_expired: false, attempts_remaining: attempts, challenge_ended: false } });
const ended = { status: 422, body: { message: AUTH_MESSAGES.attemptsExhausted, code_expired: false, attempts_remaining: 0, challenge_ended: true } };
const noChallenge = { status: 422, body: { message: AUTH_MESSAGES.noChallenge, attempts_remaining: 0 } };

/** What a caller sees of one scenario, run for one email (asked for as a parent or not) from one address. */
type Scenario = (email: string, ip: string, parent: boolean) => Promise<unknown[]>;

const SCENARIOS: [string, Scenario, unknown[]][] = [
  [
    "request → wrong code ×6",
    async (email, ip, parent) => {
      const id = await requestReset(email, parent);
      const seen = [];
      for (let i = 1; i <= 6; i++) seen.push(await verify(email, id, i, ip));
      return seen;
    },
    [failed(4), failed(3), failed(2), failed(1), ended, noChallenge],
  ],
  [
    "a newer request replaces the pending one",
    async (email, ip, parent) => {
      const first = await requestReset(email, parent);
      const second = await requestReset(email, parent);
      return [await verify(email, first, 1, ip), await verify(email, second, 2, ip)];
    },
    [noChallenge, failed(4)],
  ],
  [
    "the id works only with the email it was asked for",
    async (email, ip, parent) => {
      const id = await requestReset(email, parent);
      return [await verify(`other-${email}`, id, 1, ip), await verify(email, id, 2, ip)];
    },
    [noChallenge, failed(4)],
  ],
  [
    "an expired code",
    async (email, ip, parent) => {
      const id = await requestReset(email, parent);
      await db().update(twoFactorChallenges).set({ expiresAt: new Date(Date.now() - 1000).toISOString() }).where(eq(twoFactorChallenges.id, id));
      return [await verify(email, id, 1, ip), await verify(email, id, 2, ip)];
    },
    [
      { status: 422, body: { message: AUTH_MESSAGES.codeExpired, code_expired: true, attempts_remaining: 5 } },
      { status: 422, body: { message: AUTH_MESSAGES.codeExpired, code_expired: true, attempts_remaining: 5 } },
    ],
  ],
  [
    "past 5 requests an hour: the 5th is still pending and the 6th stores nothing",
    async (email, ip, parent) => {
      const ids = [];
      for (let i = 0; i < 6; i++) ids.push(await requestReset(email, parent));
      return [await verify(email, ids[0]!, 1, ip), await verify(email, ids[4]!, 2, ip), await verify(email, ids[5]!, 3, ip), await verify(email, ids[4]!, 4, ip)];
    },
    [noChallenge, failed(4), noChallenge, failed(3)],
  ],
];

describe("POST /api/password-reset/verify answers the same for known and unknown emails", () => {
  const accounts = [
    ["a staff user", () => createUser()],
    ["a parent", () => createParent()],
  ] as const;

  it.each(SCENARIOS.flatMap(([name, run, expected]) => accounts.map(([who, make]) => [name, who, run, expected, make] as const)))(
    "%s (%s): the same answers as for an unknown email",
    async (_name, who, run, expected, make) => {
      const account = await make();
      const parent = who === "a parent";
      const known = await run(account.email, newIp(), parent);
      const unknown = await run(unknownEmail(), newIp(), parent);
      expect(known).toEqual(expected);
      expect(unknown).toEqual(known);
    },
  );

  it("a wrong code on an unknown email's challenge does not count against the address, as on a real one", async () => {
    const ip = newIp();
    // 30 wrong codes from one address on six challenges: a stranger's guesses (no challenge) would be throttled after 20.
    for (let n = 0; n < 6; n++) {
      const email = unknownEmail();
      const id = await requestReset(email);
      for (let i = 1; i <= 5; i++) expect((await verify(email, id, i, ip)).status).toBe(422);
    }
    const email = unknownEmail();
    expect(await verify(email, await requestReset(email), 1, ip)).toEqual(failed(4));
  });
});

describe("the reset screens answer the same for known and unknown emails", () => {
  const main = (html: string) => /<main[\s\S]*<\/main>/.exec(html)![0];

  it.each([
    ["a staff user", () => createUser()],
    ["a parent", () => createParent()],
  ] as const)("/reset-password-verify after a wrong code, five times (%s)", async (who, make) => {
    const account = await make();
    const pages = async (email: string) => {
      const ip = newIp();
      const jar = cookiesFrom(await formFrom(ip, "/forgot-password", who === "a parent" ? { email, parent: "on" } : { email }));
      const seen = [];
      for (let i = 1; i <= 5; i++) {
        const res = await formFrom(ip, "/reset-password-verify", { intent: "verify", code: await wrongCode(email, i) }, jar);
        seen.push({ status: res.status, main: main(await res.text()) });
      }
      return seen;
    };
    const known = await pages(account.email);
    const unknown = await pages(unknownEmail(account.email));
    expect(known.map((p) => p.status)).toEqual([422, 422, 422, 422, 422]);
    expect(known[0]!.main).toContain('<p class="muted" data-testid="attempts">4 attempts remaining.</p>');
    expect(known[3]!.main).toContain("1 attempt remaining.");
    expect(known[4]!.main).toContain(AUTH_MESSAGES.resetAttemptsExhausted);
    expect(unknown).toEqual(known);
  });
});

describe("a flood of reset requests for one address stores at most 5 an hour (decision 016, stop 33)", () => {
  /** The reset challenges an email has: its account's and its decoys (code hash: the email's tag). */
  async function rowsOf(email: string): Promise<number> {
    const tag = await sha256Hex(`decoy:${email}`);
    const [user] = await db().select({ id: users.id }).from(users).where(eq(users.email, email));
    const [parent] = await db().select({ id: parents.id }).from(parents).where(eq(parents.email, email));
    const rows = await db().select().from(twoFactorChallenges).where(eq(twoFactorChallenges.context, "password_reset"));
    return rows.filter((r) => r.codeHash === tag || (user && r.principalType === "user" && r.principalId === user.id) || (parent && r.principalType === "parent" && r.principalId === parent.id)).length;
  }

  const asks = {
    api: async (email: string, parent: boolean) => {
      const res = await apiFrom(newIp(), "/password-reset/request", { email, parent });
      const { challenge_id, ...rest } = (await res.json()) as { challenge_id: string };
      return { status: res.status, body: rest, id: /^[\w-]{32}$/.test(challenge_id) };
    },
    "send-code": async (email: string, parent: boolean) => {
      const res = await apiFrom(newIp(), "/two-factor/send-code", { email, context: "password_reset", parent });
      const { challenge_id, ...rest } = (await res.json()) as { challenge_id: string };
      return { status: res.status, body: rest, id: /^[\w-]{32}$/.test(challenge_id) };
    },
    screen: async (email: string, parent: boolean) => {
      const res = await formFrom(newIp(), "/forgot-password", parent ? { email, parent: "on" } : { email });
      const cookies = res.headers.getSetCookie().map((c) => c.split("=")[0]);
      return { status: res.status, body: res.headers.get("Location"), id: cookies.sort() };
    },
  };

  it.each((["api", "send-code", "screen"] as const).flatMap((via) => [["a staff user", via], ["a parent", via], ["an unknown email", via]] as const))(
    "%s, asked 8 times through the %s: every answer alike, 5 rows and at most 5 emails",
    async (who, via) => {
      const email = who === "a staff user" ? (await createUser()).email : who === "a parent" ? (await createParent()).email : unknownEmail();
      const seen = [];
      for (let i = 0; i < 8; i++) seen.push(await asks[via](email, who === "a parent"));
      expect(seen.slice(1)).toEqual(seen.slice(0, -1));
      expect(await rowsOf(email)).toBe(5);
      expect(await emailsTo(email)).toBe(who === "an unknown email" ? 0 : 5);
    },
  );
});

describe("an unknown email's challenge is a decoy", () => {
  it("never resets anything: no account written, no email sent, every code refused, no reset token, pruned like a real one", async () => {
    const email = unknownEmail();
    const ip = newIp();
    const id = await requestReset(email);
    const codes = ["000000", "123456", "999999", "111111", "654321"];
    for (const code of codes) {
      const res = await answer(await apiFrom(ip, "/password-reset/verify", { email, challenge_id: id, code }));
      expect(res.status).toBe(422);
      expect(res.body.reset_token).toBeUndefined();
    }
    const change = await apiFrom(ip, "/password-reset/change", { email, reset_token: "x".repeat(43), password: "a-new-password-1", password_confirmation: "a-new-password-1" });
    expect(change.status).toBe(422);
    expect(((await change.json()) as { message: string }).message).toBe(AUTH_MESSAGES.resetTokenInvalid);
    expect(await db().select().from(users).where(eq(users.email, email))).toEqual([]);
    expect(await db().select().from(parents).where(eq(parents.email, email))).toEqual([]);
    expect(await emailsTo(email)).toBe(0);

    // The hourly clean-up removes it with the real challenges of its age.
    const real = await createUser();
    const realId = await requestReset(real.email);
    const anHourAgo = new Date(Date.now() - 61 * 60_000).toISOString();
    for (const c of [id, realId]) await db().update(twoFactorChallenges).set({ createdAt: anHourAgo, expiresAt: anHourAgo }).where(eq(twoFactorChallenges.id, c));
    expect(await challengeRow(id)).toBeDefined();
    await pruneOldChallenges(db(), new Date());
    expect(await challengeRow(id)).toBeUndefined();
    expect(await challengeRow(realId)).toBeUndefined();
  });

  it("a known account's reset still works after an unknown email's requests, and only its code does", async () => {
    const user = await createUser();
    const ip = newIp();
    for (let i = 0; i < 3; i++) await requestReset(unknownEmail());
    const id = await requestReset(user.email);
    expect(await verify(user.email, id, 1, ip)).toEqual(failed(4));
    const ok = await apiFrom(ip, "/password-reset/verify", { email: user.email, challenge_id: id, code: codeIn((await lastEmail(user.email))!.text) });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { reset_token: string }).reset_token).toBeTruthy();
    expect(await emailsTo(user.email)).toBe(1);
  });
});

describe("sign-in two-factor: a wrong code tells nothing either", () => {
  it("a made-up challenge id answers the same for a two-factor account and an unknown email", async () => {
    const user = await createUser({ twoFactor: true });
    const seen = async (email: string) => {
      const ip = newIp();
      return [
        await answer(await apiFrom(ip, "/two-factor/verify", { email, challenge_id: "z".repeat(32), code: "000000" })),
        await answer(await apiFrom(ip, "/two-factor/backup-code", { email, challenge_id: "z".repeat(32), backup_code: "AAAAA-BBBBB" })),
        await answer(await apiFrom(ip, "/two-factor/resend", { email, challenge_id: "z".repeat(32) })),
      ];
    };
    const known = await seen(user.email);
    expect(known[0]).toEqual(noChallenge);
    expect(await seen(unknownEmail())).toEqual(known);
    const [row] = await db().select().from(twoFactorChallenges).where(and(eq(twoFactorChallenges.principalType, "user"), eq(twoFactorChallenges.principalId, user.id)));
    expect(row).toBeUndefined();
  });
});
