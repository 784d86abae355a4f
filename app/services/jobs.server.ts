import type { AppContext } from "./context.server";
import type { Email } from "./email.server";

/** Background jobs on Cloudflare Queues. Without a queue binding the job runs inline. */
export interface EmailJob {
  kind: "email";
  email: Email;
}

export async function enqueueEmail(app: Pick<AppContext, "env" | "email">, email: Email): Promise<void> {
  if (app.env.EMAIL_QUEUE) await app.env.EMAIL_QUEUE.send({ kind: "email", email });
  else await app.email.send(email);
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
