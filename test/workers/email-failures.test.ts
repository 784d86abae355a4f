import { createExecutionContext, createMessageBatch, env, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { and, desc, eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { auditLog, ticketResponses } from "~/db/schema";
import { requestPasswordReset } from "~/models/auth.server";
import { appAddress, EmailSendError, type EmailSender } from "~/services/email.server";
import { EMAIL_QUEUE_MAX_RETRIES, securityNotice } from "~/services/jobs.server";
import worker from "../../workers/app";
import { apiToken, BASE, createLocation, createUser, db, lastEmail, request, signInCookie, type TestUser } from "./helpers";

/**
 * An email that cannot be sent after a change is done (decision 005, stop 41): the change answers its success, and the
 * failure is recorded for administrators (an `email_failed` audit row naming the email's kind and the recipient's
 * account, never its text), whether the email went through the queue (after its last retry) or inline (no queue).
 * A failure during a request is recorded as that request's actor and address; the queue's as the system (stop 42).
 */

let admin: TestUser;
let requester: TestUser;
let adminToken: string;
let adminCookie: string;
let requesterToken: string;

beforeAll(async () => {
  const A = (await createLocation()).id;
  admin = await createUser({ role: "ADMIN", locations: [A] });
  requester = await createUser({ permissions: [], locations: [A], name: "Rita" });
  adminToken = await apiToken(admin);
  adminCookie = await signInCookie(admin);
  requesterToken = await apiToken(requester);
});

afterEach(() => vi.restoreAllMocks());

/** The logs report's row (a table row, or a CSV line) of `action` that holds `text`, as an administrator sees it. */
async function logsLine(cookie: string, action: string, text: string, as: "html" | "csv"): Promise<string> {
  const path = as === "html" ? `/reports/logs?action=${action}&per_page=100` : `/reports/logs/export.csv?action=${action}`;
  const res = await request(path, { cookie });
  expect(res.status).toBe(200);
  const body = await res.text();
  const lines = as === "html" ? (body.match(/<tr[\s\S]*?<\/tr>/g) ?? []) : body.split("\n");
  const found = lines.filter((l) => l.includes(text));
  expect(found, `${as}: ${text}`).toHaveLength(1);
  return found[0]!;
}

/** Resend answering 503 to every call (an outage); the calls it received. */
function resendDown() {
  const calls: { url: string; headers: Headers }[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    calls.push({ url: String(input), headers: new Headers(init?.headers) });
    return new Response("unavailable", { status: 503 });
  });
  vi.spyOn(console, "warn").mockImplementation(() => {});
  return calls;
}

async function failures(entity: string, id: number) {
  return db()
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, "email_failed"), eq(auditLog.entity, entity), eq(auditLog.entityId, String(id))))
    .orderBy(desc(auditLog.id));
}

/** A request through the Worker with other bindings: no queue (the inline mode), Resend configured, an app address. */
async function fetchWith(bindings: Partial<Env>, url: string, init: RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, init), { ...env, ...bindings } as Env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}
const json = (token: string, body: unknown, host?: string) => ({
  method: "POST",
  headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json", ...(host ? { Host: host } : {}) },
  body: JSON.stringify(body),
});

async function newTicket(): Promise<number> {
  const res = await fetchWith({}, `${BASE}/api/v2/tickets`, json(requesterToken, { subject: "Printer", body: "It jams.", category: "technical", priority: "high" }));
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { id: number } }).data.id;
}

describe("the email queue's last retry", () => {
  const message = (attempts: number) => ({
    id: `m-${attempts}`,
    timestamp: new Date(),
    attempts,
    body: { kind: "email", email: securityNotice(requester.email, "Rita", "Your password was changed"), about: { kind: "password_changed", account: { type: "user", id: requester.id } }, key: "job-key-1" },
  });

  it("retries a failed send before the last attempt, then records it (kind and account, no text) and acknowledges it", async () => {
    const calls = resendDown();
    const bindings = { ...env, RESEND_API_KEY: "re_test" } as Env;
    for (const attempts of [1, EMAIL_QUEUE_MAX_RETRIES]) {
      const batch = createMessageBatch("baseline-email", [message(attempts)]);
      const ctx = createExecutionContext();
      await worker.queue(batch, bindings, ctx);
      const result = await getQueueResult(batch, ctx);
      expect(result.retryMessages.map((m: { msgId: string }) => m.msgId)).toEqual([`m-${attempts}`]);
      expect(result.explicitAcks).toEqual([]);
    }
    expect(await failures("employee", requester.id)).toEqual([]);

    const last = createMessageBatch("baseline-email", [message(EMAIL_QUEUE_MAX_RETRIES + 1)]);
    const ctx = createExecutionContext();
    await worker.queue(last, bindings, ctx);
    const result = await getQueueResult(last, ctx);
    expect(result.explicitAcks).toEqual([`m-${EMAIL_QUEUE_MAX_RETRIES + 1}`]);
    expect(result.retryMessages).toEqual([]);
    const [row, ...more] = await failures("employee", requester.id);
    expect(more).toEqual([]);
    expect(row).toMatchObject({ actorType: "system", actorId: null, patientId: null, ip: "email queue" });
    expect(JSON.parse(row!.detail!)).toEqual({ email: "password_changed", via: "queue" });
    // The logs report says the email queue failed it (decision 005, stop 42).
    expect(await logsLine(adminCookie, `email_failed`, "email queue", "html")).toContain("System (email queue)");
    expect(row!.detail).not.toContain(requester.email);
    // Every delivery of the message carried the same idempotency key, so Resend sends the email once at most.
    expect(calls.map((c) => c.headers.get("Idempotency-Key"))).toEqual(["job-key-1", "job-key-1", "job-key-1"]);
  });
});

describe("without a queue binding, a failed email does not undo the answer of a finished change", () => {
  it("an administrator's password change answers 200, the password is changed, the notice's failure is recorded", async () => {
    const target = await createUser({ permissions: [], name: "Pat" });
    resendDown();
    const body = json(adminToken, { new_password: "A-new-pass-2026!x", new_password_confirmation: "A-new-pass-2026!x" });
    const res = await fetchWith({ EMAIL_QUEUE: undefined, RESEND_API_KEY: "re_test" }, `${BASE}/api/v2/users/${target.id}/change-password`, {
      ...body,
      headers: { ...body.headers, "CF-Connecting-IP": "203.0.113.7" },
      method: "PATCH",
    });
    expect(res.status).toBe(200);
    vi.restoreAllMocks();
    const login = await fetchWith({}, `${BASE}/api/auth/login`, json("", { email: target.email, password: "A-new-pass-2026!x", parent: false }));
    expect(login.status).toBe(200);
    const [row] = await failures("employee", target.id);
    expect(JSON.parse(row!.detail!)).toEqual({ email: "password_changed", via: "inline" });
    // The failure is the request's: its actor (the administrator) and its address, not the system's (stop 42).
    expect(row).toMatchObject({ actorType: "user", actorId: admin.id, ip: "203.0.113.7" });
  });

  it("a ticket response answers 201 and is stored; the requester's failed email is recorded", async () => {
    const id = await newTicket();
    resendDown();
    const res = await fetchWith({ EMAIL_QUEUE: undefined, RESEND_API_KEY: "re_test" }, `${BASE}/api/v2/tickets/${id}/responses`, json(adminToken, { body: "Fixed it." }));
    expect(res.status).toBe(201);
    expect(((await res.json()) as { message: string }).message).toBe("Response sent.");
    expect(await db().select().from(ticketResponses).where(eq(ticketResponses.ticketId, id))).toHaveLength(1);
    const [row] = await failures("employee", requester.id);
    expect(JSON.parse(row!.detail!)).toEqual({ email: "ticket_answered", via: "inline" });
  });

  it("a queue that refuses the message: the email is sent inline instead", async () => {
    const id = await newTicket();
    const refusing = { send: async () => Promise.reject(new Error("queue unavailable")) } as unknown as Queue<never>;
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const res = await fetchWith({ EMAIL_QUEUE: refusing }, `${BASE}/api/v2/tickets/${id}/responses`, json(adminToken, { body: "On it." }));
    expect(res.status).toBe(201);
    expect((await lastEmail(requester.email))?.text).toContain(`/tickets/view/${id}`);
  });
});

describe("links in emails use the app's configured address (decision 005)", () => {
  it("a forged Host does not reach the email when APP_URL is set", async () => {
    const id = await newTicket();
    const res = await fetchWith({ EMAIL_QUEUE: undefined, APP_URL: "https://app.baseline.example" }, `http://evil.example/api/v2/tickets/${id}/responses`, json(adminToken, { body: "Moved the sessions." }, "evil.example"));
    expect(res.status).toBe(201);
    const mail = await lastEmail(requester.email);
    expect(mail?.text).toContain(`Read the response: https://app.baseline.example/tickets/view/${id}`);
    expect(mail?.text).not.toContain("evil.example");
  });

  it.each([
    ["APP_URL set", { APP_URL: "https://app.example/x", APP_ENV: "production" }, "https://app.example"],
    ["production without APP_URL: PRODUCTION_URL", { APP_ENV: "production" }, "https://prod.example"],
    ["development without APP_URL: the request's origin", { APP_ENV: "development" }, "http://localhost:8787"],
    ["development with APP_URL", { APP_ENV: "development", APP_URL: "https://app.example" }, "https://app.example"],
    ["an APP_URL that is not an address is ignored", { APP_ENV: "production", APP_URL: "javascript:alert(1)" }, "https://prod.example"],
  ])("%s", (_case, vars, expected) => {
    expect(appAddress({ PRODUCTION_URL: "https://prod.example", ...vars }, "http://localhost:8787/api/v2/tickets/1/responses")).toBe(expected);
  });
});

describe("a password reset code that cannot be sent", () => {
  it("is recorded as the anonymous request it came from, with its address, and the logs report (screen and CSV) says so", async () => {
    const user = await createUser({ permissions: [] });
    resendDown();
    const res = await fetchWith({ EMAIL_QUEUE: undefined, RESEND_API_KEY: "re_test" }, `${BASE}/api/password-reset/request`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json", "CF-Connecting-IP": "198.51.100.23" },
      body: JSON.stringify({ email: user.email }),
    });
    expect(res.status).toBe(200);
    vi.restoreAllMocks();
    const [row, ...more] = await failures("employee", user.id);
    expect(more).toEqual([]);
    expect(row).toMatchObject({ actorType: "anonymous", actorId: null, ip: "198.51.100.23" });
    expect(JSON.parse(row!.detail!)).toEqual({ email: "password_reset_code", via: "reset" });
    const line = await logsLine(adminCookie, "email_failed", "198.51.100.23", "html");
    expect(line).toContain("Anonymous");
    expect(line).toContain(`employee #${user.id}`);
    expect(line).not.toContain("System");
    const csv = await logsLine(adminCookie, "email_failed", "198.51.100.23", "csv");
    expect(csv).toContain("Anonymous");
    expect(csv).not.toContain("System");
  });


  it("answers as always and records the failure for administrators", async () => {
    const user = await createUser({ permissions: [] });
    const failing: EmailSender = { name: "resend", send: async () => Promise.reject(new EmailSendError("down")) };
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const pending: Promise<unknown>[] = [];
    const result = await requestPasswordReset({ db: db(), env, email: failing, ip: "10.0.0.1", isDev: true, now: () => new Date(), waitUntil: (p) => pending.push(p) }, user.email, "user", "api");
    expect(result).toMatchObject({ kind: "requested", challengeId: expect.any(String) });
    await Promise.all(pending);
    const [row] = await failures("employee", user.id);
    expect(JSON.parse(row!.detail!)).toEqual({ email: "password_reset_code", via: "reset" });
  });
});
