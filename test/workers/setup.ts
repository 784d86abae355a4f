import { applyD1Migrations, env } from "cloudflare:test";
import { afterAll, afterEach, beforeEach, vi } from "vitest";
import { clearListCache } from "~/services/list-cache.server";
import worker from "../../workers/app";
import { settleBackgroundWork } from "./app-fetch";

/**
 * Every test file starts from an empty, freshly migrated D1. The workers project runs files without isolation
 * (one runtime per vitest worker, so the app's modules load once, not once per file): the database of the file before
 * is dropped here, every table, view and trigger, then the migrations run again.
 */
async function freshDatabase(db: D1Database): Promise<void> {
  const { results } = await db
    .prepare("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND type IN ('table', 'view', 'trigger')")
    .all<{ type: string; name: string }>();
  if (!results.length) return;
  const order = { trigger: 0, view: 1, table: 2 } as Record<string, number>;
  const drops = [...results].sort((a, b) => order[a.type]! - order[b.type]!).map((o) => db.prepare(`DROP ${o.type.toUpperCase()} IF EXISTS "${o.name}"`));
  await db.batch([db.prepare("PRAGMA defer_foreign_keys = ON"), ...drops]);
}

/** The stored files of the file before go too (a PDF's key is its job's id, which starts again at 1). */
async function emptyBucket(bucket: R2Bucket | undefined): Promise<void> {
  if (!bucket) return;
  for (let listed = await bucket.list(); listed.objects.length; listed = await bucket.list()) await bucket.delete(listed.objects.map((o) => o.key));
}

/**
 * A queue delivers its batch up to a second after the send (max_batch_timeout), and a retried message comes back
 * seconds later: a message sent by one file must not be consumed against the next file's database (job ids start
 * again at 1 there, so it could act on another file's job). Each file gets a number; every message sent is tagged with
 * the number of the file that sent it, and the consumer (the worker's `queue`, wrapped here once) acknowledges a
 * message of an earlier file without running it. A file that sent a message waits out its delivery, and any consumer
 * still running, before the next file starts. Messages a test builds itself (createMessageBatch) carry no number
 * and run as they are.
 */
const QUEUE_DELIVERY_MS = 2_500;
const QUEUE_SETTLE_MAX_MS = 30_000;
const FILE_TAG = "__testFile";
const queues = globalThis as { lastQueueSend?: number; queuesWatched?: boolean; testFile?: number; consumersRunning?: number };
queues.testFile = (queues.testFile ?? 0) + 1;
if (!queues.queuesWatched) {
  queues.queuesWatched = true;
  queues.consumersRunning = 0;
  const tagged = (body: unknown) => (body && typeof body === "object" && !Array.isArray(body) ? { [FILE_TAG]: queues.testFile, ...body } : body);
  for (const queue of [env.EMAIL_QUEUE, env.PDF_QUEUE] as (Queue<unknown> | undefined)[]) {
    if (!queue) continue;
    const send = queue.send.bind(queue);
    const sendBatch = queue.sendBatch.bind(queue);
    Object.assign(queue, {
      send: (body: unknown, options?: QueueSendOptions) => ((queues.lastQueueSend = Date.now()), send(tagged(body), options)),
      sendBatch: (messages: Iterable<MessageSendRequest>, options?: QueueSendBatchOptions) => (
        (queues.lastQueueSend = Date.now()), sendBatch([...messages].map((m) => ({ ...m, body: tagged(m.body) })), options)
      ),
    });
  }
  const consume = worker.queue.bind(worker);
  worker.queue = async (batch: MessageBatch<unknown>, bindings: Env, ctx: ExecutionContext) => {
    const fileOf = (m: Message<unknown>) => (m.body && typeof m.body === "object" ? (m.body as Record<string, unknown>)[FILE_TAG] : undefined);
    const stale = batch.messages.filter((m) => fileOf(m) !== undefined && fileOf(m) !== queues.testFile);
    for (const m of stale) m.ack();
    const kept = batch.messages.filter((m) => !stale.includes(m));
    if (!kept.length) return;
    queues.consumersRunning! += 1;
    try {
      await consume(stale.length ? ({ queue: batch.queue, metadata: batch.metadata, messages: kept, ackAll: () => kept.forEach((m) => m.ack()), retryAll: (o?: QueueRetryOptions) => kept.forEach((m) => m.retry(o)) } as MessageBatch<unknown>) : batch, bindings, ctx);
    } finally {
      queues.consumersRunning! -= 1;
    }
  };
}
afterAll(async () => {
  const until = Date.now() + QUEUE_SETTLE_MAX_MS;
  const wait = (queues.lastQueueSend ?? 0) + QUEUE_DELIVERY_MS - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  while (queues.consumersRunning && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
});

await freshDatabase(env.DB);
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS!);
await emptyBucket(env.FILES);
clearListCache();

// An unexpected console.error fails the test: errors must be handled, not logged and ignored.
let errors: unknown[][] = [];
beforeEach(() => {
  errors = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    errors.push(args);
  });
});
afterEach(async () => {
  await settleBackgroundWork();
  vi.restoreAllMocks();
  if (errors.length) throw new Error(`console.error was called: ${errors.map((e) => e.map(String).join(" ")).join("\n")}`);
});
