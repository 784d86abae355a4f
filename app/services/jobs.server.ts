import { d1Database } from "~/db/client.server";
import type { PrincipalType } from "~/models/actors.server";
import { withAudit, type AuditWho } from "./audit.server";
import type { AppContext } from "./context.server";
import type { Email } from "./email.server";

/**
 * What an email is and whose account it goes to: enough for the record of a failed send (decision 005), which an
 * administrator reads in the logs report. Never the email's text. `account` is null only for a message queued before
 * this field existed.
 */
export interface EmailAbout {
  kind: "password_changed" | "email_changed" | "ticket_answered" | "ticket_assigned" | "password_reset_code";
  account: { type: PrincipalType; id: number } | null;
}

/** Background jobs on Cloudflare Queues. Without a queue binding the job runs inline. */
export interface EmailJob {
  kind: "email";
  email: Email;
  about?: EmailAbout;
  /** The provider's idempotency key: drawn once when queued, the same on every retry of the message. */
  key?: string;
}

/**
 * How often the queue retries a failed email: `max_retries` of the baseline-email consumer in wrangler.toml (a unit
 * test keeps the two equal). The consumer records the failure on the last delivery, attempts = this + 1.
 */
export const EMAIL_QUEUE_MAX_RETRIES = 5;

/** Where a send failed for good: the queue's last retry, the inline send (no queue), or a password reset's code. */
export type EmailFailedVia = "queue" | "inline" | "reset";

/**
 * Who a failure on the email queue is recorded as: the system, at the address "email queue" (the logs report says
 * "System (email queue)"). A send that fails during a request is recorded as that request's actor and IP instead.
 */
export const EMAIL_QUEUE_WHO: AuditWho = { actor: { kind: "system", id: null }, ip: "email queue" };

/**
 * Records an email that could not be sent (decision 005): one audit row, action `email_failed`, on the recipient's
 * account (entity employee or parent, its id), the email's kind and the path in `detail` — never its text or address.
 * `who` is whoever caused the send: the request's actor and IP for a send during a request (an anonymous password
 * reset stays anonymous, with its IP), EMAIL_QUEUE_WHO for the queue's last retry (decision 005, stop 42).
 * Administrators of every location see it in the logs report. Throws when the row cannot be written.
 */
export async function recordEmailFailure(env: Pick<Env, "DB">, about: EmailAbout | undefined, failure: { via: "queue" } | { via: "inline" | "reset"; who: AuditWho }): Promise<void> {
  const account = about?.account ?? null;
  await withAudit(
    d1Database(env.DB),
    failure.via === "queue" ? EMAIL_QUEUE_WHO : failure.who,
    { action: "email_failed", entity: account?.type === "parent" ? "parent" : account ? "employee" : "email", entityId: account?.id ?? null, detail: { email: about?.kind ?? "unknown", via: failure.via } },
    () => [] as [],
  );
}

/**
 * Queues an email sent after a change that is already done (a security notice, a ticket's answer): it never throws, so
 * the change answers its success. Without a queue binding (or when the queue refuses the message) the email is sent
 * inline; a send that fails there is recorded (recordEmailFailure) instead of turning the finished change into an
 * error. A queued email that fails is retried by the consumer and recorded after its last retry. `who` is the
 * request's actor and IP, for the record of an inline send that fails.
 */
export async function enqueueEmail(app: Pick<AppContext, "env" | "email">, email: Email, about: EmailAbout, who: AuditWho): Promise<void> {
  const key = crypto.randomUUID();
  if (app.env.EMAIL_QUEUE) {
    try {
      await app.env.EMAIL_QUEUE.send({ kind: "email", email, about, key });
      return;
    } catch (e) {
      console.warn(`email queue refused a ${about.kind} email; sending it now`, e);
    }
  }
  try {
    await app.email.send(email, { idempotencyKey: key });
  } catch (e) {
    console.warn(`${about.kind} email failed; recording the failure`, e);
    await recordEmailFailure(app.env, about, { via: "inline", who }).catch((r: unknown) => console.error("could not record a failed email", r));
  }
}

/** Security notices a user should get whenever their sign-in settings change. */
export function securityNotice(to: string, name: string, what: string): Email {
  return {
    to,
    subject: `Baseline security notice: ${what}`,
    text: `Hello ${name},\n\n${what} on your Baseline account at ${new Date().toUTCString()}.\n\nIf this was not you, contact your administrator at once.\n\nBaseline`,
  };
}

/**
 * The notice to the old address when an account's sign-in email changes (by the person on /profile, or by staff): whoever
 * holds the new address can reset the password, so the owner of the old one must hear of it. It never names the new one.
 */
export function emailChangedNotice(oldEmail: string, name: string): Email {
  return securityNotice(oldEmail, name, "Your sign-in email was changed");
}
