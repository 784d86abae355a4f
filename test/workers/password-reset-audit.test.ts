import { createExecutionContext, env } from "cloudflare:test";
import { desc, eq, gt } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { auditLog, loginFailures, twoFactorChallenges } from "~/db/schema";
import { forgetAuthSettings, getAuthSettings } from "~/models/settings.server";
import { verifyAuditChain } from "~/services/audit.server";
import countingWorker from "../bench/d1-count-worker";
import { D1_COUNT_HEADER } from "../bench/d1-count-header";
import { appFetch } from "./app-fetch";
import { codeIn, cookiesFrom, createParent, createUser, db, lastEmail, request } from "./helpers";

vi.setConfig({ testTimeout: 30_000 });

/**
 * Decision 019 (stop 44): a password-reset request and every refused reset code are in the audit trail. A request
 * writes `password_reset_requested` whatever the email (an account's, none, past the hour's 5), in the batch of its
 * writes; a refused code writes `password_reset_failed` (a decoy's too) or `password_reset_throttled`, the same row on
 * the screen and through the API.
 */

let ipSeq = 0;
/** Each case asks and guesses from its own address, so one case's throttle never reaches another. */
const newIp = () => `192.0.2.${++ipSeq}`;

async function newestId(): Promise<number> {
  const [row] = await db().select({ id: auditLog.id }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
  return row?.id ?? 0;
}
async function rowsAfter(id: number) {
  const rows = await db().select().from(auditLog).where(gt(auditLog.id, id)).orderBy(auditLog.id);
  return rows.map((r) => ({ action: r.action, actorType: r.actorType, actorId: r.actorId, entity: r.entity, entityId: r.entityId, ip: r.ip, detail: JSON.parse(r.detail ?? "null") as unknown }));
}

const json = (ip: string, body: unknown) => ({ method: "POST", headers: { Accept: "application/json", "Content-Type": "application/json", "CF-Connecting-IP": ip }, body: JSON.stringify(body) });
const formInit = (ip: string, fields: Record<string, string>, cookie?: string) => ({
  method: "POST",
  body: new URLSearchParams(fields),
  cookie,
  headers: { "Content-Type": "application/x-www-form-urlencoded", "CF-Connecting-IP": ip },
});

type Via = "api" | "screen";

/** A reset asked for as the API's client or the screen's form asks: the challenge's id, and the screen's cookies. */
async function ask(via: Via, ip: string, email: string, parent: boolean): Promise<{ id: string; jar: string }> {
  if (via === "api") {
    const res = await appFetch("http://localhost/api/password-reset/request", json(ip, { email, parent }));
    expect(res.status).toBe(200);
    return { id: ((await res.json()) as { challenge_id: string }).challenge_id, jar: "" };
  }
  const res = await request("/forgot-password", formInit(ip, parent ? { email, parent: "on" } : { email }));
  expect(res.status).toBe(303);
  const jar = cookiesFrom(res);
  return { id: /__reset_challenge=([^;]+)/.exec(jar)![1]!, jar };
}

/** One code sent to verify, with the challenge's id (API body; the screen's cookie). */
function guess(via: Via, ip: string, to: { id: string; email: string; code: string; jar: string }): Promise<Response> {
  if (via === "api") return appFetch("http://localhost/api/password-reset/verify", json(ip, { email: to.email, challenge_id: to.id, code: to.code }));
  const jar = to.jar.replace(/__reset_challenge=[^;]+/, `__reset_challenge=${to.id}`);
  return request("/reset-password-verify", formInit(ip, { intent: "verify", code: to.code }, jar));
}

type Kind = "wrong" | "parent" | "decoy" | "unknown_id" | "expired" | "throttled";

/** Each kind of refused code: its answer, its row's action and whether the row names the account. */
const scenarios: Record<Kind, { status: number; action: string; onAccount: boolean; addressFailure: number }> = {
  wrong: { status: 422, action: "password_reset_failed", onAccount: true, addressFailure: 0 },
  parent: { status: 422, action: "password_reset_failed", onAccount: true, addressFailure: 0 },
  // An unknown email's decoy refuses the code as a real challenge does; its row names no account.
  decoy: { status: 422, action: "password_reset_failed", onAccount: false, addressFailure: 0 },
  // An id that names nothing: counted against the address, in the batch of the row.
  unknown_id: { status: 422, action: "password_reset_failed", onAccount: false, addressFailure: 1 },
  expired: { status: 422, action: "password_reset_failed", onAccount: true, addressFailure: 0 },
  throttled: { status: 429, action: "password_reset_throttled", onAccount: true, addressFailure: 0 },
};

const cases = (Object.keys(scenarios) as Kind[]).flatMap((kind) => (["api", "screen"] as const).map((via) => [kind, via] as const));

describe("a refused reset code is in the audit trail (decision 019, stop 44)", () => {
  it.each(cases)("%s code, %s: one row, the same on the screen and through the API", async (kind, via) => {
    const parent = kind === "parent";
    const account = parent ? await createParent() : await createUser();
    const email = kind === "decoy" ? `nobody-${account.id}-${via}@test.example` : account.email;
    const ip = newIp();
    const asked = await ask(via, ip, email, parent);
    const sent = kind === "decoy" ? "123456" : codeIn((await lastEmail(account.email))!.text);
    const code = sent === "000000" ? "000001" : "000000";
    const id = kind === "unknown_id" ? "A".repeat(32) : asked.id;
    if (kind === "expired") await db().update(twoFactorChallenges).set({ expiresAt: new Date(Date.now() - 60_000).toISOString() }).where(eq(twoFactorChallenges.id, asked.id));
    if (kind === "throttled") {
      const at = new Date().toISOString();
      await db()
        .insert(loginFailures)
        .values(Array.from({ length: 25 }, () => ({ key: `ip:${ip}`, at })));
    }
    const failures = async () => (await db().select().from(loginFailures).where(eq(loginFailures.key, `ip:${ip}`))).length;
    const failuresBefore = await failures();
    const before = await newestId();

    const res = await guess(via, ip, { id, email, code, jar: asked.jar });
    const expected = scenarios[kind];
    expect(res.status).toBe(expected.status);

    const on = expected.onAccount ? { entity: parent ? "parent" : "employee", entityId: String(account.id) } : { entity: "session", entityId: null };
    expect(await rowsAfter(before)).toEqual([
      { action: expected.action, actorType: "anonymous", actorId: null, ...on, ip, detail: { email, via, ...(parent ? { parent: true } : {}) } },
    ]);
    expect((await failures()) - failuresBefore).toBe(expected.addressFailure);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("a decoy's wrong code answers as a real challenge's, and both write a row of the same action", async () => {
    const user = await createUser();
    const real = await ask("api", newIp(), user.email, false);
    const decoy = await ask("api", newIp(), `nobody-${user.id}@test.example`, false);
    const code = codeIn((await lastEmail(user.email))!.text) === "000000" ? "000001" : "000000";
    const before = await newestId();
    const a = await guess("api", newIp(), { id: real.id, email: user.email, code, jar: "" });
    const b = await guess("api", newIp(), { id: decoy.id, email: `nobody-${user.id}@test.example`, code, jar: "" });
    expect(b.status).toBe(a.status);
    expect(await b.json()).toEqual(await a.json());
    expect((await rowsAfter(before)).map((r) => r.action)).toEqual(["password_reset_failed", "password_reset_failed"]);
  });
});

describe("a reset request is in the audit trail whatever the email (decision 019, stop 44)", () => {
  it.each([
    ["/forgot-password", "screen"],
    ["/api/password-reset/request", "api"],
    ["/api/two-factor/send-code", "api"],
  ] as const)("%s writes one password_reset_requested row for an account, for an unknown email, and past the hour's 5", async (path, via) => {
    const user = await createUser();
    const limited = await createUser();
    const send = (email: string, ip = newIp()) =>
      path === "/forgot-password" ? request(path, formInit(ip, { email })) : appFetch(`http://localhost${path}`, json(ip, { email, context: "password_reset" }));
    for (let i = 0; i < 5; i++) await send(limited.email);
    const ok = path === "/forgot-password" ? 303 : 200;
    const unknown = `nobody-${user.id}-${via}-${path.length}@test.example`;
    for (const [email, on, more] of [
      [user.email, { entity: "employee", entityId: String(user.id) }, {}],
      [unknown, { entity: "session", entityId: null }, {}],
      [limited.email, { entity: "employee", entityId: String(limited.id) }, { limited: true }],
    ] as const) {
      const ip = newIp();
      const before = await newestId();
      expect((await send(email, ip)).status).toBe(ok);
      expect(await rowsAfter(before)).toEqual([{ action: "password_reset_requested", actorType: "anonymous", actorId: null, ...on, ip, detail: { email, via, ...more } }]);
    }
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("the screen's 'Send a new code' writes the row too", async () => {
    const user = await createUser();
    const ip = newIp();
    const { jar } = await ask("screen", ip, user.email, false);
    const before = await newestId();
    const res = await request("/reset-password-verify", formInit(ip, { intent: "resend" }, jar));
    expect(res.status).toBe(303);
    expect(await rowsAfter(before)).toEqual([
      { action: "password_reset_requested", actorType: "anonymous", actorId: null, entity: "employee", entityId: String(user.id), ip, detail: { email: user.email, via: "screen" } },
    ]);
  });

  it("the API's request costs the same D1 round trips and statements for an account, an unknown email and past the hour's 5", async () => {
    const user = await createUser();
    const limited = await createUser();
    const d1 = async (email: string, ip = newIp(), status = 200) => {
      // The auth settings are cached per isolate for 30 s: a fresh copy for each call, so none expires halfway through.
      forgetAuthSettings();
      await getAuthSettings(db());
      const res = await countingWorker.fetch(
        new Request("http://localhost/api/password-reset/request", json(ip, { email })) as Request<unknown, IncomingRequestCfProperties>,
        env,
        createExecutionContext(),
      );
      expect(res.status).toBe(status);
      const [statements, roundTrips] = res.headers.get(D1_COUNT_HEADER)!.split(";").map(Number);
      return { statements, roundTrips };
    };
    for (let i = 0; i < 5; i++) await d1(limited.email);
    const known = await d1(user.email);
    const unknown = await d1(`nobody-${user.id}@test.example`);
    const past = await d1(limited.email);
    // An address past its 20 requests of the hour is refused (429) with the same work (decision 016, stop 45).
    const flooded = newIp();
    for (let i = 0; i < 20; i++) await d1(`nobody-${user.id}-flood-${i}@test.example`, flooded);
    const floodedAccount = await d1(user.email, flooded, 429);
    const floodedUnknown = await d1(`nobody-${user.id}-flood-next@test.example`, flooded, 429);
    // The read batch (account, the hour's count and the chain's tail) and the write batch (its audit row in it).
    expect(unknown).toEqual({ statements: 5, roundTrips: 2 });
    expect(past).toEqual(unknown);
    expect(floodedAccount).toEqual(unknown);
    expect(floodedUnknown).toEqual(unknown);
    // The account's code goes out after the answer; in these tests the email sender is the development outbox, a D1
    // insert of its own (production sends through Resend, not D1). Without it, the account's work is the same.
    expect(known).toEqual({ statements: unknown.statements + 1, roundTrips: unknown.roundTrips + 1 });
  });
});
