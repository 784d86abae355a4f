import { env } from "cloudflare:test";
import { and, count, eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { auditLog, outboxEmails, twoFactorChallenges } from "~/db/schema";
import { AUTH_MESSAGES, RESET_REQUESTS_PER_ADDRESS } from "~/domain/auth-rules";
import { addressResetRequests, requestPasswordReset } from "~/models/auth.server";
import { outboxSender } from "~/services/email.server";
import { verifyAuditChain } from "~/services/audit.server";
import { appFetch } from "./app-fetch";
import { cookiesFrom, createParent, createUser, db, request } from "./helpers";

vi.setConfig({ testTimeout: 60_000 });

/**
 * Password-reset requests are limited per client address too (decision 016, stop 45): an address may ask for
 * RESET_REQUESTS_PER_ADDRESS resets an hour, whatever the emails. Past that every request from it is answered the
 * same, for an account's email and an unknown one (429 on the API, a form error on the screen), stores and sends
 * nothing, and the address's refusal is written once in the window (`password_reset_request_throttled`), not once a
 * request: a flood of made-up emails from one address stops filling the audit trail and the challenge table.
 */

let ipSeq = 0;
/** Each test floods from its own address, so one test's limit never reaches another. */
const newIp = () => `198.18.7.${++ipSeq}`;
let seq = 0;
const unknownEmail = () => `flood-${Date.now().toString(36)}-${++seq}@test.example`;

const apiFrom = (ip: string, path: string, body: unknown) =>
  appFetch(`http://localhost/api${path}`, { method: "POST", headers: { Accept: "application/json", "Content-Type": "application/json", "CF-Connecting-IP": ip }, body: JSON.stringify(body) });
const formFrom = (ip: string, path: string, fields: Record<string, string>, cookie?: string) =>
  request(path, { method: "POST", body: new URLSearchParams(fields), cookie, headers: { "Content-Type": "application/x-www-form-urlencoded", "CF-Connecting-IP": ip } });

/** The address's allowance used up, each request for a different made-up email. */
async function useUp(ip: string, n = RESET_REQUESTS_PER_ADDRESS) {
  for (let i = 0; i < n; i++) expect((await apiFrom(ip, "/password-reset/request", { email: unknownEmail() })).status).toBe(200);
}

async function rowsOf(ip: string, action?: string) {
  const rows = await db()
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.ip, ip), action ? eq(auditLog.action, action) : undefined))
    .orderBy(auditLog.id);
  return rows.map((r) => ({ action: r.action, actorType: r.actorType, entity: r.entity, entityId: r.entityId, detail: JSON.parse(r.detail ?? "null") as unknown }));
}
const emailsTo = async (to: string) => (await db().select({ n: count() }).from(outboxEmails).where(eq(outboxEmails.to, to)))[0]!.n;
const resetChallenges = async () => (await db().select({ n: count() }).from(twoFactorChallenges).where(eq(twoFactorChallenges.context, "password_reset")))[0]!.n;

const throttledBody = (body: Record<string, unknown>) => {
  expect(body.retry_after).toBeGreaterThan(0);
  expect(body.message).toBe(AUTH_MESSAGES.resetRequestsThrottled(body.retry_after as number));
  expect(body.retry_after).toBeLessThanOrEqual(3600);
  expect(body).not.toHaveProperty("challenge_id");
  return { message: body.message, keys: Object.keys(body).sort() };
};

describe("password-reset requests past the address's hourly allowance", () => {
  it("the API answers 429 the same for an account's email and an unknown one, stores and sends nothing, and writes one row", async () => {
    const ip = newIp();
    const user = await createUser();
    const parent = await createParent();
    await useUp(ip);
    const challengesBefore = await resetChallenges();

    const forAccount = await apiFrom(ip, "/password-reset/request", { email: user.email });
    const forUnknown = await apiFrom(ip, "/password-reset/request", { email: unknownEmail() });
    const forParent = await apiFrom(ip, "/two-factor/send-code", { email: parent.email, context: "password_reset", parent: true });
    for (const res of [forAccount, forUnknown, forParent]) {
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
    }
    const bodies = await Promise.all([forAccount, forUnknown, forParent].map(async (r) => throttledBody((await r.json()) as Record<string, unknown>)));
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);

    // Nothing stored, nothing sent.
    expect(await resetChallenges()).toBe(challengesBefore);
    expect(await emailsTo(user.email)).toBe(0);
    expect(await emailsTo(parent.email)).toBe(0);
    // The address's 20 requests, then ONE row for its refusals (the first one's email), however many follow.
    const rows = await rowsOf(ip);
    expect(rows.filter((r) => r.action === "password_reset_requested")).toHaveLength(RESET_REQUESTS_PER_ADDRESS);
    expect(rows.slice(RESET_REQUESTS_PER_ADDRESS)).toEqual([
      { action: "password_reset_request_throttled", actorType: "anonymous", entity: "session", entityId: null, detail: { email: user.email, via: "api", per_address: RESET_REQUESTS_PER_ADDRESS } },
    ]);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("another address is not limited by this one's flood", async () => {
    const flooded = newIp();
    const user = await createUser();
    await useUp(flooded);
    expect((await apiFrom(flooded, "/password-reset/request", { email: user.email })).status).toBe(429);

    const other = newIp();
    const res = await apiFrom(other, "/password-reset/request", { email: user.email });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { challenge_id: string }).challenge_id).toMatch(/^[\w-]{32}$/);
    expect(await emailsTo(user.email)).toBe(1);
    expect(await rowsOf(other)).toEqual([{ action: "password_reset_requested", actorType: "anonymous", entity: "employee", entityId: String(user.id), detail: { email: user.email, via: "api" } }]);
  });

  it("the screen shows the refusal as a form error, keeps the typed email and the tick, and sets no cookie", async () => {
    const ip = newIp();
    const parent = await createParent();
    await useUp(ip);
    const res = await formFrom(ip, "/forgot-password", { email: parent.email, parent: "on" });
    expect(res.status).toBe(429);
    expect(res.headers.getSetCookie().filter((c) => !c.startsWith("__bookmark="))).toEqual([]);
    const html = await res.text();
    expect(html).toMatch(/role="alert">Too many password reset requests from your network\. Please try again in \d+ minutes?\./);
    expect(html).toContain(`value="${parent.email}"`);
    expect(html).toMatch(/<input[^>]*id="f-parent"[^>]*checked/);
    expect(await emailsTo(parent.email)).toBe(0);
    expect(await rowsOf(ip, "password_reset_request_throttled")).toEqual([
      { action: "password_reset_request_throttled", actorType: "anonymous", entity: "session", entityId: null, detail: { email: parent.email, via: "screen", parent: true, per_address: RESET_REQUESTS_PER_ADDRESS } },
    ]);
  });

  it("the screen's 'Send a new code' past the allowance answers the same message and keeps the pending reset's cookie", async () => {
    const ip = newIp();
    const user = await createUser();
    const asked = await formFrom(ip, "/forgot-password", { email: user.email });
    expect(asked.status).toBe(303);
    const jar = cookiesFrom(asked);
    await useUp(ip, RESET_REQUESTS_PER_ADDRESS - 1);
    const resend = await formFrom(ip, "/reset-password-verify", { intent: "resend" }, jar);
    expect(resend.status).toBe(429);
    expect(resend.headers.getSetCookie().filter((c) => !c.startsWith("__bookmark="))).toEqual([]);
    expect(await resend.text()).toMatch(/role="alert">Too many password reset requests from your network\./);
    expect(await emailsTo(user.email)).toBe(1);
  });

  it("requests sent at once never pass the allowance: exactly 20 are asked, the rest refused", async () => {
    const ip = newIp();
    const sent = RESET_REQUESTS_PER_ADDRESS + 10;
    const answers = await Promise.all(Array.from({ length: sent }, () => apiFrom(ip, "/password-reset/request", { email: unknownEmail() })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(RESET_REQUESTS_PER_ADDRESS);
    expect(statuses.filter((s) => s === 429)).toHaveLength(sent - RESET_REQUESTS_PER_ADDRESS);
    expect(await rowsOf(ip, "password_reset_requested")).toHaveLength(RESET_REQUESTS_PER_ADDRESS);
    expect((await rowsOf(ip, "password_reset_request_throttled")).length).toBeLessThanOrEqual(1);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("counts the last hour only: an hour after the flood the address may ask again", async () => {
    const ip = newIp();
    const user = await createUser();
    await useUp(ip);
    const app = (now: Date) => ({ db: db(), env, email: outboxSender(db()), ip, isDev: true, now: () => now, waitUntil: () => {} });
    expect(await requestPasswordReset(app(new Date()), user.email, "user", "api")).toMatchObject({ kind: "throttled" });
    const later = new Date(Date.now() + 61 * 60_000);
    expect(await requestPasswordReset(app(later), user.email, "user", "api")).toMatchObject({ kind: "requested" });
  });

  it("the address's count is read from an index of the reset rows, not by scanning the audit trail", async () => {
    const query = db()
      .select({ n: addressResetRequests("203.0.113.9", new Date().toISOString()) })
      .from(auditLog)
      .limit(1)
      .toSQL();
    const plan = await env.DB.prepare(`explain query plan ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>();
    const steps = plan.results.map((r) => r.detail).join(" | ");
    expect(steps).toContain("audit_reset_requests_idx");
  });
});
