import { desc, eq, gt } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { auditLog, loginFailures } from "~/db/schema";
import { verifyAuditChain } from "~/services/audit.server";
import { appFetch } from "./app-fetch";
import { api, apiToken, codeIn, createUser, db, lastEmail, request, signInCookie, type TestUser } from "./helpers";

// Password hashing (PBKDF2) makes sign-ins slow on a busy machine.
vi.setConfig({ testTimeout: 30_000 });

/**
 * Decision 019: every attempt at the second step of a sign-in is in the audit trail, and the screen and the API write
 * the same row for the same attempt (probe 9037 L1/L2): the account tried (the challenge's, else the email sent), how,
 * the second factor, `sign_in_throttled` when the throttle refused it.
 */

let ipSeq = 0;
/** Each case guesses from its own address, so one case's throttle never reaches another. */
const newIp = () => `198.51.100.${++ipSeq}`;

async function newestId(): Promise<number> {
  const [row] = await db().select({ id: auditLog.id }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
  return row?.id ?? 0;
}
const rowsAfter = (id: number) => db().select().from(auditLog).where(gt(auditLog.id, id)).orderBy(auditLog.id);

/** A sign-in through the API up to its second step: the challenge's id. */
async function challengeOf(user: TestUser): Promise<string> {
  const res = await appFetch("http://localhost/api/auth/login", {
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/json" },
    body: JSON.stringify({ email: user.email, password: user.password, parent: false }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { challenge_id: string }).challenge_id;
}

async function wrongCodeFor(user: TestUser): Promise<string> {
  const code = codeIn((await lastEmail(user.email))!.text);
  return code === "000000" ? "000001" : "000000";
}

type Via = "api" | "screen";
type Factor = "email_code" | "backup_code";

/** One guess at the second step, as the API's client or the screen's form sends it. */
function guess(via: Via, factor: Factor, ip: string, to: { id: string; email: string; code: string }): Promise<Response> {
  if (via === "api") {
    const body = factor === "email_code" ? { email: to.email, challenge_id: to.id, code: to.code } : { email: to.email, challenge_id: to.id, backup_code: "WRONG-00000" };
    return appFetch(`http://localhost/api/two-factor/${factor === "email_code" ? "verify" : "backup-code"}`, {
      method: "POST",
      headers: { Accept: "application/json", "Content-Type": "application/json", "CF-Connecting-IP": ip },
      body: JSON.stringify(body),
    });
  }
  const fields: Record<string, string> = factor === "email_code" ? { intent: "verify", code: to.code } : { intent: "backup", backup_code: "WRONG-00000" };
  return request("/two-factor-verify", {
    method: "POST",
    body: new URLSearchParams(fields),
    cookie: `__2fa=${to.id}`,
    headers: { "Content-Type": "application/x-www-form-urlencoded", "CF-Connecting-IP": ip },
  });
}

type Kind = "wrong" | "unknown" | "stale" | "throttled";

/** What the guess is made with; `email` in the row: the challenge's account, else the email sent (the screen sends none). */
const scenarios: Record<Kind, { status: Record<Via, number>; action: string; email: (via: Via, user: TestUser) => string | null }> = {
  wrong: { status: { api: 422, screen: 422 }, action: "sign_in_failed", email: (_, u) => u.email },
  unknown: { status: { api: 422, screen: 303 }, action: "sign_in_failed", email: (via, u) => (via === "api" ? u.email : null) },
  stale: { status: { api: 422, screen: 303 }, action: "sign_in_failed", email: (_, u) => u.email },
  throttled: { status: { api: 429, screen: 429 }, action: "sign_in_throttled", email: (_, u) => u.email },
};

const cases = (["wrong", "unknown", "stale", "throttled"] as const).flatMap((kind) =>
  (["api", "screen"] as const).flatMap((via) => (["email_code", "backup_code"] as const).map((factor) => [kind, via, factor] as const)),
);

describe("second-factor attempts in the audit trail (probe 9037 L1/L2)", () => {
  it.each(cases)("%s guess, %s, %s: one row, the same on the screen and through the API", async (kind, via, factor) => {
    const user = await createUser({ permissions: ["view_clients"], twoFactor: true });
    const ip = newIp();
    let id = await challengeOf(user);
    if (kind === "unknown") id = "A".repeat(32);
    if (kind === "stale") await challengeOf(user); // a newer sign-in ends the first challenge
    if (kind === "throttled") {
      const at = new Date().toISOString();
      await db()
        .insert(loginFailures)
        .values(Array.from({ length: 25 }, () => ({ key: `ip:${ip}`, at })));
    }
    const failuresBefore = (await db().select().from(loginFailures).where(eq(loginFailures.key, `ip:${ip}`))).length;
    const before = await newestId();

    const res = await guess(via, factor, ip, { id, email: user.email, code: await wrongCodeFor(user) });
    const expected = scenarios[kind];
    expect(res.status).toBe(expected.status[via]);

    const rows = await rowsAfter(before);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: expected.action, actorType: "anonymous", actorId: null, entity: "session", entityId: null, ip });
    expect(JSON.parse(rows[0]!.detail!)).toEqual({ email: expected.email(via, user), via, second_factor: factor });
    // A guess that reached no challenge is counted against the address, in the batch of its row.
    const failuresAfter = (await db().select().from(loginFailures).where(eq(loginFailures.key, `ip:${ip}`))).length;
    expect(failuresAfter - failuresBefore).toBe(kind === "unknown" || kind === "stale" ? 1 : 0);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });
});

describe("session ends in the audit trail (probe 9037 L3)", () => {
  it("a token's refresh and logout, and the sign-out screen, each write one row on the account", async () => {
    const user = await createUser({ permissions: ["view_clients"] });
    const token = await apiToken(user);
    let before = await newestId();
    const refreshed = await api("/auth/refresh", { token });
    expect(refreshed.status).toBe(200);
    const successor = ((await refreshed.json()) as { access_token: string }).access_token;
    const account = { actorType: "user", actorId: user.id, entity: "employee", entityId: String(user.id) };
    expect(await rowsAfter(before)).toMatchObject([{ action: "token_refresh", ...account, detail: JSON.stringify({ via: "api" }) }]);

    // A refused refresh (the token already spent) records nothing.
    before = await newestId();
    expect((await api("/auth/refresh", { token })).status).toBe(401);
    expect(await rowsAfter(before)).toHaveLength(0);

    before = await newestId();
    expect((await api("/auth/logout", { method: "POST", token: successor })).status).toBe(200);
    expect(await rowsAfter(before)).toMatchObject([{ action: "sign_out", ...account, detail: JSON.stringify({ via: "api" }) }]);

    const cookie = await signInCookie(user);
    before = await newestId();
    expect((await request("/logout", { method: "POST", cookie })).status).toBe(303);
    expect(await rowsAfter(before)).toMatchObject([{ action: "sign_out", ...account, detail: JSON.stringify({ via: "screen" }) }]);
    // The ended session's cookie signs out nothing more.
    before = await newestId();
    expect((await request("/logout", { method: "POST", cookie })).status).toBe(303);
    expect(await rowsAfter(before)).toHaveLength(0);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });
});
