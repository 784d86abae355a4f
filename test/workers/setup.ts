import { applyD1Migrations, env } from "cloudflare:test";
import { afterAll, afterEach, beforeEach, vi } from "vitest";
import { clearListCache } from "~/services/list-cache.server";
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
 * A queue delivers its batch up to a second after the send (max_batch_timeout): a message sent at the end of one
 * file must not be consumed against the next file's database. Each send is noted, and a file that sent one waits
 * out the delivery before the next file starts.
 */
const QUEUE_DELIVERY_MS = 2_500;
const queues = globalThis as { lastQueueSend?: number; queuesWatched?: boolean };
if (!queues.queuesWatched) {
  queues.queuesWatched = true;
  for (const queue of [env.EMAIL_QUEUE, env.PDF_QUEUE] as (Queue<unknown> | undefined)[]) {
    if (!queue) continue;
    const send = queue.send.bind(queue);
    const sendBatch = queue.sendBatch.bind(queue);
    Object.assign(queue, {
      send: (body: unknown, options?: QueueSendOptions) => ((queues.lastQueueSend = Date.now()), send(body, options)),
      sendBatch: (messages: Iterable<MessageSendRequest>, options?: QueueSendBatchOptions) => ((queues.lastQueueSend = Date.now()), sendBatch(messages, options)),
    });
  }
}
afterAll(async () => {
  const wait = (queues.lastQueueSend ?? 0) + QUEUE_DELIVERY_MS - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
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
