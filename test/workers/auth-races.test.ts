import { desc, eq, like } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { auditLog, loginFailures, twoFactorChallenges } from "~/db/schema";
import { AUTH_MESSAGES, THROTTLE, TWO_FACTOR_ATTEMPTS } from "~/domain/auth-rules";
import { codeIn, createParent, createUser, db, lastEmail, type TestUser } from "./helpers";
import { appFetch } from "./app-fetch";

/**
 * Guesses sent together (probe 9008, stop 37): the attempt limits hold however many arrive at once. A code's attempt is
 * taken from its challenge before the code is compared, and a password's place in the throttle is claimed before the
 * password is checked, so a burst is counted as the sequence it is. Requests here run concurrently in one Worker, whose
 * D1 calls interleave as they would across isolates.
 */

// Password hashing (PBKDF2) makes a burst of sign-ins slow on a busy machine.
vi.setConfig({ testTimeout: 60_000 });

let ipSeq = 0;
const newIp = () => `198.51.100.${++ipSeq}`;

function apiFrom(ip: string, path: string, body: unknown): Promise<Response> {
  return appFetch(`http://localhost/api${path}`, { method: "POST", headers: { Accept: "application/json", "Content-Type": "application/json", "CF-Connecting-IP": ip }, body: JSON.stringify(body) });
}

const otherCode = (code: string, step: number) => String((Number(code) + step) % 1_000_000).padStart(6, "0");
const challengeRow = async (id: string) => (await db().select().from(twoFactorChallenges).where(eq(twoFactorChallenges.id, id)))[0]!;

async function burst(n: number, send: (i: number) => Promise<Response>) {
  const answers = await Promise.all(Array.from({ length: n }, (_, i) => send(i)));
  return Promise.all(answers.map(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> })));
}

describe("codes sent together", () => {
  it.each([
    ["a password reset", "/password-reset/verify"],
    ["a two-factor sign-in", "/two-factor/verify"],
    ["a two-factor sign-in by backup code", "/two-factor/backup-code"],
  ] as const)("%s: at most 5 wrong codes are ever compared, and the right one after them is refused", async (_, path) => {
    const user = await createUser({ twoFactor: path !== "/password-reset/verify" });
    const ip = newIp();
    const start =
      path === "/password-reset/verify"
        ? await apiFrom(ip, "/password-reset/request", { email: user.email })
        : await apiFrom(ip, "/auth/login", { email: user.email, password: user.password });
    const { challenge_id: challengeId } = (await start.json()) as { challenge_id: string };
    const code = codeIn((await lastEmail(user.email))!.text);
    const wrong = (i: number) => (path === "/two-factor/backup-code" ? { backup_code: `AAAAA-${String(10000 + i)}` } : { code: otherCode(code, i + 1) });

    const answers = await burst(12, (i) => apiFrom(ip, path, { email: user.email, challenge_id: challengeId, ...wrong(i) }));
    expect(answers.every((a) => a.status === 422)).toBe(true);
    // Each wrong code took its own attempt: the counts the answers give are 4, 3, 2, 1, 0 once each.
    const told = answers.map((a) => a.body.attempts_remaining).filter((x) => typeof x === "number");
    for (const left of [4, 3, 2, 1]) expect(told.filter((x) => x === left), `attempts_remaining ${left}`).toHaveLength(1);
    expect(answers.filter((a) => a.body.message === AUTH_MESSAGES.attemptsExhausted).length).toBeGreaterThanOrEqual(1);
    const row = await challengeRow(challengeId);
    expect(row.attemptsRemaining).toBe(0);
    expect(row.consumedAt).not.toBeNull();

    const right = path === "/two-factor/backup-code" ? { code } : { code };
    const late = await apiFrom(ip, path === "/two-factor/backup-code" ? "/two-factor/verify" : path, { email: user.email, challenge_id: challengeId, ...right });
    expect(late.status).toBe(422);
    expect(JSON.stringify(await late.json())).not.toContain("token");
  });

  it(`the right code among ${TWO_FACTOR_ATTEMPTS - 1} wrong ones sent together still works (it takes one of the 5 attempts)`, async () => {
    const user = await createUser();
    const ip = newIp();
    const { challenge_id: challengeId } = (await (await apiFrom(ip, "/password-reset/request", { email: user.email })).json()) as { challenge_id: string };
    const code = codeIn((await lastEmail(user.email))!.text);
    const answers = await burst(TWO_FACTOR_ATTEMPTS, (i) => apiFrom(ip, "/password-reset/verify", { email: user.email, challenge_id: challengeId, code: i === 2 ? code : otherCode(code, i + 1) }));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.find((a) => a.status === 200)!.body.reset_token).toBeTruthy();
  });
});

describe("passwords sent together", () => {
  const failuresOf = async (key: string) => (await db().select({ id: loginFailures.id }).from(loginFailures).where(eq(loginFailures.key, key))).length;

  it("a burst of wrong passwords checks no more than the free attempts; the right one in the same burst is refused", async () => {
    const user = await createUser();
    const ip = newIp();
    const n = 16;
    const answers = await burst(n, (i) => apiFrom(ip, "/auth/login", { email: user.email, password: i === n - 1 ? user.password : `wrong-${i}` }));
    const checked = answers.filter((a) => a.status === 401);
    const throttled = answers.filter((a) => a.status === 429);
    expect(checked.length, JSON.stringify(answers.map((a) => a.status))).toBeLessThanOrEqual(THROTTLE.account.free);
    expect(checked.length + throttled.length + answers.filter((a) => a.status === 200).length).toBe(n);
    // Only the checked attempts stay as failures (a refused one is not a failure).
    expect(await failuresOf(`account:${user.email}`)).toBe(checked.length);
    // The right password, sent last in the burst, met the lock the wrong ones before it set (or was among the free ones).
    const last = answers[n - 1]!;
    expect([200, 429]).toContain(last.status);
    if (checked.length === THROTTLE.account.free) expect(last.status).toBe(429);
  });

  it("a parent and a staff member sharing an email are throttled apart, and the audit trail says which was tried", async () => {
    const staff = await createUser();
    const parent: TestUser = { ...(await createParent({ email: staff.email })), email: staff.email };
    for (let i = 0; i < THROTTLE.account.free + 1; i++) await apiFrom(newIp(), "/auth/login", { email: parent.email, password: `wrong-${i}`, parent: true });
    expect((await apiFrom(newIp(), "/auth/login", { email: parent.email, password: parent.password, parent: true })).status).toBe(429);
    // The staff account is not locked out by the parent's failures.
    expect((await apiFrom(newIp(), "/auth/login", { email: staff.email, password: staff.password })).status).toBe(200);
    const rows = await db().select({ action: auditLog.action, detail: auditLog.detail }).from(auditLog).where(like(auditLog.detail, `%${staff.email}%`)).orderBy(desc(auditLog.id));
    const parentFailures = rows.filter((r) => r.action === "sign_in_failed" && JSON.parse(r.detail ?? "{}").parent === true);
    expect(parentFailures).toHaveLength(THROTTLE.account.free);
    const parentThrottled = rows.filter((r) => r.action === "sign_in_throttled" && JSON.parse(r.detail ?? "{}").parent === true);
    expect(parentThrottled).toHaveLength(2);
    expect(rows.some((r) => r.action === "sign_in" && !JSON.parse(r.detail ?? "{}").parent)).toBe(true);
  });
});
