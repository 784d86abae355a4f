import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../workers/app";
import { lastEmail } from "./helpers";

describe("email queue consumer", () => {
  it("sends a queued email and acknowledges it", async () => {
    const batch = createMessageBatch("baseline-email", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { kind: "email", email: { to: "queued@test.example", subject: "Notice", text: "Hello" } } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["m1"]);
    expect(result.retryMessages).toEqual([]);
    expect((await lastEmail("queued@test.example"))?.subject).toBe("Notice");
  });

  it("acknowledges a message of unknown shape instead of retrying it forever", async () => {
    const batch = createMessageBatch("baseline-email", [{ id: "m2", timestamp: new Date(), attempts: 1, body: { kind: "mystery" } }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["m2"]);
  });
});
