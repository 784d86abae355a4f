import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { signIn } from "~/models/auth.server";
import { emailSenderFor, EmailSendError, resendSender, type EmailSender } from "~/services/email.server";
import { createUser, db } from "./helpers";

describe("email providers", () => {
  it("Resend: posts the message with the API key", async () => {
    const fetcher = vi.fn(async (_url: RequestInfo | URL, _init?: RequestInit) => new Response(JSON.stringify({ id: "abc" }), { status: 200 }));
    await resendSender("re_test_key", "Baseline <no-reply@baseline.example>", fetcher as unknown as typeof fetch).send({ to: "a@b.example", subject: "S", text: "T" });
    expect(fetcher).toHaveBeenCalledOnce();
    const [url, init] = fetcher.mock.calls[0]!;
    expect(String(url)).toBe("https://api.resend.com/emails");
    expect(new Headers(init!.headers).get("Authorization")).toBe("Bearer re_test_key");
    expect(JSON.parse(String(init!.body))).toEqual({ from: "Baseline <no-reply@baseline.example>", to: ["a@b.example"], subject: "S", text: "T" });
  });

  it("Resend: a refused send throws", async () => {
    const fetcher = async () => new Response("nope", { status: 422 });
    await expect(resendSender("k", "f", fetcher as unknown as typeof fetch).send({ to: "a@b.example", subject: "S", text: "T" })).rejects.toBeInstanceOf(EmailSendError);
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
