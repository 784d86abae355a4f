import { d1Database } from "~/db/client.server";
import { emailSenderFor } from "~/services/email.server";
import type { EmailJob } from "~/services/jobs.server";

/**
 * Queue consumer. Each message is acknowledged once handled; a failed send is retried by the queue
 * (max_retries in wrangler.toml). A message of unknown shape is acknowledged and logged, so it cannot
 * block the queue.
 */
export async function handleQueue(batch: MessageBatch<unknown>, env: Env, _ctx: ExecutionContext): Promise<void> {
  const sender = emailSenderFor(env, d1Database(env.DB));
  for (const message of batch.messages) {
    const job = message.body as Partial<EmailJob> | null;
    if (job?.kind !== "email" || !job.email?.to) {
      console.warn(`queue ${batch.queue}: unknown message ${message.id} acknowledged`);
      message.ack();
      continue;
    }
    try {
      await sender.send(job.email);
      message.ack();
    } catch (e) {
      console.warn(`queue ${batch.queue}: send failed for ${message.id}, will retry`, e);
      message.retry({ delaySeconds: 30 });
    }
  }
}
