import { d1Database } from "~/db/client.server";
import { consumePdfJob } from "~/models/pdf-jobs.server";
import { emailSenderFor } from "~/services/email.server";
import { EMAIL_QUEUE_MAX_RETRIES, recordEmailFailure, type EmailJob } from "~/services/jobs.server";

/**
 * Queue consumer, dispatched by `message.body.kind`: "email" (baseline-email) sends a queued email,
 * "pdf" (baseline-pdf) makes a PDF job's file (decision 041). Each message is acknowledged once
 * handled; a failed send or render is retried by the queue (max_retries in wrangler.toml), and so is a PDF job
 * still running elsewhere (with a delay up to the point it would be stale), except a PDF job that cannot succeed on a
 * retry (consumePdfJob answers "failed": its requester lost access, its plan is gone, no file storage), which is
 * acknowledged. An email whose last retry fails (attempts = EMAIL_QUEUE_MAX_RETRIES + 1) is recorded
 * (recordEmailFailure: its kind and the recipient's account, decision 005) and acknowledged, so it is not dropped
 * unseen. A message of unknown shape is acknowledged and logged, so it cannot block
 * the queue.
 */
export async function handleQueue(batch: MessageBatch<unknown>, env: Env, _ctx: ExecutionContext): Promise<void> {
  let sender: ReturnType<typeof emailSenderFor> | undefined;
  for (const message of batch.messages) {
    const body = message.body as { kind?: unknown } | null;
    if (body?.kind === "pdf") {
      const jobId = (body as { jobId?: unknown }).jobId;
      if (typeof jobId !== "string" || !jobId) {
        console.warn(`queue ${batch.queue}: unknown message ${message.id} acknowledged`);
        message.ack();
        continue;
      }
      try {
        // A job already done is skipped: a duplicate delivery does nothing.
        const outcome = await consumePdfJob(env, jobId);
        if (typeof outcome === "object") {
          // Running elsewhere: come back once it would be stale, so a worker that died mid-render is taken over (decision 041).
          message.retry({ delaySeconds: outcome.retryInSeconds });
          continue;
        }
        // "failed": the job is marked failed with a message a retry cannot change; nothing about the client is logged.
        if (outcome === "failed") console.warn(`queue ${batch.queue}: PDF job ${jobId} failed for good, not retried`);
        message.ack();
      } catch {
        // The job is marked failed with its message; nothing about the client is logged.
        console.warn(`queue ${batch.queue}: PDF job ${jobId} failed, will retry`);
        message.retry({ delaySeconds: 10 });
      }
      continue;
    }
    const job = body as Partial<EmailJob> | null;
    if (job?.kind !== "email" || !job.email?.to) {
      console.warn(`queue ${batch.queue}: unknown message ${message.id} acknowledged`);
      message.ack();
      continue;
    }
    try {
      sender ??= emailSenderFor(env, d1Database(env.DB));
      // The same key on every delivery of this message: the provider sends the email once however often it is retried.
      await sender.send(job.email, { idempotencyKey: job.key ?? message.id });
      message.ack();
    } catch (e) {
      if (message.attempts > EMAIL_QUEUE_MAX_RETRIES) {
        try {
          await recordEmailFailure(env, job.about, { via: "queue" });
          console.warn(`queue ${batch.queue}: send failed for ${message.id} after ${message.attempts} attempts; recorded`, e);
          message.ack();
        } catch (r) {
          console.error(`queue ${batch.queue}: send failed for ${message.id} and the failure could not be recorded`, r);
          message.retry({ delaySeconds: 30 });
        }
        continue;
      }
      console.warn(`queue ${batch.queue}: send failed for ${message.id}, will retry`, e);
      message.retry({ delaySeconds: 30 });
    }
  }
}
