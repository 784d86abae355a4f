import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { signIn } from "~/models/auth.server";
import { DEFAULT_RESEND_TIMEOUT_MS, emailSenderFor, EmailSendError, resendSender, resendTimeoutMs, type EmailSender } from "~/services/email.server";
import { createUser, db } from "./helpers";

describe("email providers", () => {
  it("Resend: posts the message with the API key", async () => {
    const fetcher = vi.fn(async (_url: RequestInfo | URL, _init?: RequestInit) => new Response(JSON.stringify({ id: "abc" }), { status: 200 }));
    await resendSender("re_test_key", "Baseline <no-reply@baseline.example>", { fetch: fetcher as unknown as typeof fetch }).send({ to: "a@b.example", subject: "S", text: "T" });
    expect(fetcher).toHaveBeenCalledOnce();
    const [url, init] = fetcher.mock.calls[0]!;
    expect(String(url)).toBe("https://api.resend.com/emails");
    expect(new Headers(init!.headers).get("Authorization")).toBe("Bearer re_test_key");
    expect(JSON.parse(String(init!.body))).toEqual({ from: "Baseline <no-reply@baseline.example>", to: ["a@b.example"], subject: "S", text: "T" });
  });

  it("Resend: a refused send throws", async () => {
    const fetcher = async () => new Response("nope", { status: 422 });
    await expect(resendSender("k", "f", { fetch: fetcher as unknown as typeof fetch }).send({ to: "a@b.example", subject: "S", text: "T" })).rejects.toBeInstanceOf(EmailSendError);
  });

  it("Resend: the idempotency key given goes in the Idempotency-Key header; none without one", async () => {
    const fetcher = vi.fn(async (_url: RequestInfo | URL, _init?: RequestInit) => new Response("{}", { status: 200 }));
    const sender = resendSender("k", "f", { fetch: fetcher as unknown as typeof fetch });
    await sender.send({ to: "a@b.example", subject: "S", text: "T" }, { idempotencyKey: "job-42" });
    await sender.send({ to: "a@b.example", subject: "S", text: "T" });
    expect(fetcher.mock.calls.map(([, init]) => new Headers(init!.headers).get("Idempotency-Key"))).toEqual(["job-42", null]);
  });

  it("Resend: RESEND_BASE_URL replaces the address (a trailing slash or not)", async () => {
    const fetcher = vi.fn(async (_url: RequestInfo | URL, _init?: RequestInit) => new Response("{}", { status: 200 }));
    for (const baseUrl of ["http://127.0.0.1:9999", "http://127.0.0.1:9999/", " "]) {
      await resendSender("k", "f", { fetch: fetcher as unknown as typeof fetch, baseUrl }).send({ to: "a@b.example", subject: "S", text: "T" });
    }
    expect(fetcher.mock.calls.map(([url]) => String(url))).toEqual(["http://127.0.0.1:9999/emails", "http://127.0.0.1:9999/emails", "https://api.resend.com/emails"]);
  });

  it("Resend: a provider that does not answer is cut off after the timeout and reported as a failed send", async () => {
    // Answers only when the request is aborted, as a stalled connection would.
    const hanging = (_url: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init!.signal!.addEventListener("abort", () => reject(init!.signal!.reason)));
    const started = Date.now();
    const send = resendSender("k", "f", { fetch: hanging as unknown as typeof fetch, timeoutMs: 150 }).send({ to: "a@b.example", subject: "S", text: "T" });
    await expect(send).rejects.toThrow(new EmailSendError("Resend did not answer within 150 ms"));
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it.each([
    [undefined, DEFAULT_RESEND_TIMEOUT_MS],
    ["", DEFAULT_RESEND_TIMEOUT_MS],
    ["2500", 2500],
    ["0", DEFAULT_RESEND_TIMEOUT_MS],
    ["-5", DEFAULT_RESEND_TIMEOUT_MS],
    ["1.5", DEFAULT_RESEND_TIMEOUT_MS],
    ["60000", 60_000],
    ["600000", DEFAULT_RESEND_TIMEOUT_MS],
    ["soon", DEFAULT_RESEND_TIMEOUT_MS],
  ])("RESEND_TIMEOUT_MS %s → %d ms", (raw, ms) => {
    expect(resendTimeoutMs({ RESEND_TIMEOUT_MS: raw })).toBe(ms);
  });

  it("chooses Resend when RESEND_API_KEY is set, else the outbox", () => {
    expect(emailSenderFor({ RESEND_API_KEY: "k" }, db()).name).toBe("resend");
    expect(emailSenderFor({}, db()).name).toBe("outbox");
  });

  it("a sign-in whose code cannot be sent says so and signs nobody in", async () => {
    const user = await createUser({ twoFactor: true });
    const failing: EmailSender = { name: "resend", send: async () => Promise.reject(new EmailSendError("down")) };
    vi.spyOn(console, "error").mockImplementation(() => {});
    const result = await signIn({ db: db(), env, email: failing, ip: "10.0.0.1", isDev: true, now: () => new Date() }, { email: user.email, password: user.password, parent: false });
    expect(result).toEqual({ kind: "send_failed", message: "Failed to send verification code" });
  });
});
