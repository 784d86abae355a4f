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
