import { desc, eq } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { outboxEmails } from "~/db/schema";

export interface Email {
  to: string;
  subject: string;
  text: string;
}

/** One interface, a real provider (Resend) and a local default (the outbox table). */
export interface EmailSender {
  readonly name: "resend" | "outbox";
  send(email: Email): Promise<void>;
}

export class EmailSendError extends Error {}

export function resendSender(apiKey: string, from: string, fetcher: typeof fetch = fetch): EmailSender {
  return {
    name: "resend",
    async send(email) {
      const res = await fetcher("https://api.resend.com/emails", {
        method: "POST",
        headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
        body: JSON.stringify({ from, to: [email.to], subject: email.subject, text: email.text }),
      });
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

export function emailSenderFor(env: Pick<Env, "RESEND_API_KEY" | "EMAIL_FROM">, db: Db): EmailSender {
  return env.RESEND_API_KEY ? resendSender(env.RESEND_API_KEY, env.EMAIL_FROM ?? "Baseline <no-reply@baseline.example>") : outboxSender(db);
}

/** The development outbox, newest first. */
export async function listOutbox(db: Db, to?: string, limit = 50) {
  const q = db
    .select({ id: outboxEmails.id, to: outboxEmails.to, subject: outboxEmails.subject, text: outboxEmails.text, created_at: outboxEmails.createdAt })
    .from(outboxEmails);
  return (to ? q.where(eq(outboxEmails.to, to.toLowerCase())) : q).orderBy(desc(outboxEmails.id)).limit(limit);
}
