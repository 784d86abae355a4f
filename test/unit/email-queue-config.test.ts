import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EMAIL_QUEUE_MAX_RETRIES } from "~/services/jobs.server";

describe("the email queue's retries", () => {
  it("the consumer's last attempt is wrangler.toml's max_retries + 1 (the failure is recorded then, decision 005)", () => {
    const toml = readFileSync(path.join(import.meta.dirname, "../../wrangler.toml"), "utf8");
    const consumer = /\[\[queues\.consumers\]\]\s*\nqueue = "baseline-email"\n([\s\S]*?)(?:\n\n|\n\[)/.exec(toml)?.[1] ?? "";
    expect(Number(/max_retries = (\d+)/.exec(consumer)?.[1])).toBe(EMAIL_QUEUE_MAX_RETRIES);
  });
});
