import { desc, eq } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { outboxEmails } from "~/db/schema";

export interface Email {
  to: string;
  subject: string;
  text: string;
}

/** How one send is made: `idempotencyKey` is the same for every retry of one email, so the provider sends it once. */
export interface SendOptions {
  idempotencyKey?: string;
}

/** One interface, a real provider (Resend) and a local default (the outbox table). */
export interface EmailSender {
  readonly name: "resend" | "outbox";
  send(email: Email, opts?: SendOptions): Promise<void>;
}

export class EmailSendError extends Error {}

export const DEFAULT_RESEND_BASE_URL = "https://api.resend.com";
export const DEFAULT_RESEND_TIMEOUT_MS = 10_000;

export interface ResendOptions {
  fetch?: typeof fetch;
  /** The API's address (an integrator's test server); default https://api.resend.com. */
  baseUrl?: string;
  /** Milliseconds before an unanswered send is given up (and reported failed); default 10000. */
  timeoutMs?: number;
}

/** `RESEND_TIMEOUT_MS`: a whole number of milliseconds, 1..60000, else the default (10 s). */
export function resendTimeoutMs(env: { RESEND_TIMEOUT_MS?: string }): number {
  const n = Number(env.RESEND_TIMEOUT_MS);
  return Number.isInteger(n) && n > 0 && n <= 60_000 ? n : DEFAULT_RESEND_TIMEOUT_MS;
}

/**
 * Resend's email call, bounded: a send that gets no answer within the timeout is aborted and throws (a queued email is
 * then retried, a sign-in code reported as not sent). The `Idempotency-Key` header (when given) makes Resend send an
 * email once however often a retry repeats it — e.g. after an answer that came too late or a 5xx after acceptance.
 */
export function resendSender(apiKey: string, from: string, opts: ResendOptions = {}): EmailSender {
  const fetcher = opts.fetch ?? fetch;
  const url = `${(opts.baseUrl?.trim() || DEFAULT_RESEND_BASE_URL).replace(/\/+$/, "")}/emails`;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_RESEND_TIMEOUT_MS;
  return {
    name: "resend",
    async send(email, sendOpts = {}) {
      const headers: Record<string, string> = { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" };
      if (sendOpts.idempotencyKey) headers["Idempotency-Key"] = sendOpts.idempotencyKey.slice(0, 256);
      let res: Response;
      try {
        res = await fetcher(url, {
          method: "POST",
          headers,
          body: JSON.stringify({ from, to: [email.to], subject: email.subject, text: email.text }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (e) {
        const timedOut = (e as { name?: string })?.name === "TimeoutError";
        throw new EmailSendError(timedOut ? `Resend did not answer within ${timeoutMs} ms` : `Resend could not be reached: ${String((e as Error)?.message ?? e)}`);
      }
      if (!res.ok) throw new EmailSendError(`Resend answered ${res.status}`);
    },
  };
}

export function outboxSender(db: Db): EmailSender {
  return {
    name: "outbox",
    async send(email) {
      await db.insert(outboxEmails).values({ to: email.to.toLowerCase(), subject: email.subject, text: email.text });
      console.log(`[outbox] to=${email.to} subject=${JSON.stringify(email.subject)}\n${email.text}`);
    },
  };
}

export function emailSenderFor(env: Pick<Env, "RESEND_API_KEY" | "EMAIL_FROM" | "RESEND_BASE_URL" | "RESEND_TIMEOUT_MS">, db: Db): EmailSender {
  return env.RESEND_API_KEY
    ? resendSender(env.RESEND_API_KEY, env.EMAIL_FROM ?? "Baseline <no-reply@baseline.example>", { baseUrl: env.RESEND_BASE_URL, timeoutMs: resendTimeoutMs(env) })
    : outboxSender(db);
}

/**
 * The app's own address for links in emails (decision 005): `APP_URL` when set; else, in production, `PRODUCTION_URL`;
 * in development with no `APP_URL`, the request's origin (a local server's port). In production the request's Host
 * never reaches an email: a preview or workers.dev hostname, or a forged Host, is not the office's address.
 */
export function appAddress(env: Pick<Env, "APP_URL" | "APP_ENV" | "PRODUCTION_URL">, requestUrl: string): string {
  const configured = originOf(env.APP_URL);
  if (configured) return configured;
  if (env.APP_ENV === "development") return new URL(requestUrl).origin;
  return originOf(env.PRODUCTION_URL) ?? new URL(requestUrl).origin;
}

function originOf(value: string | undefined): string | null {
  if (!value?.trim()) return null;
  try {
    const url = new URL(value.trim());
    return url.protocol === "https:" || url.protocol === "http:" ? url.origin : null;
  } catch {
    return null;
  }
}

/** The development outbox, newest first. */
export async function listOutbox(db: Db, to?: string, limit = 50) {
  const q = db
    .select({ id: outboxEmails.id, to: outboxEmails.to, subject: outboxEmails.subject, text: outboxEmails.text, created_at: outboxEmails.createdAt })
    .from(outboxEmails);
  return (to ? q.where(eq(outboxEmails.to, to.toLowerCase())) : q).orderBy(desc(outboxEmails.id)).limit(limit);
}
