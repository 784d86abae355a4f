import { describe, expect, it, vi } from "vitest";

/**
 * The Worker holds two copies of app/ modules (the Remix build's and the API's). State kept with isolateState is one
 * per isolate whichever copy keeps it: two fresh loads of a module stand for the two copies here.
 */
async function freshCopy<T>(path: string): Promise<T> {
  vi.resetModules();
  return (await import(path)) as T;
}

describe("isolateState", () => {
  it("gives every copy of a module the same state under one name, and separate state under another", async () => {
    type M = typeof import("../../app/db/isolate-state");
    const a = await freshCopy<M>("../../app/db/isolate-state");
    const b = await freshCopy<M>("../../app/db/isolate-state");
    expect(a).not.toBe(b);
    const first = a.isolateState("test-shared", () => ({ n: 1 }));
    const second = b.isolateState("test-shared", () => ({ n: 2 }));
    expect(second).toBe(first);
    expect(second.n).toBe(1);
    expect(b.isolateState("test-other", () => ({ n: 3 })).n).toBe(3);
  });

  it("lets the screens' copy of the D1 client find the primary the Worker's copy registered", async () => {
    type C = typeof import("../../app/db/client.server");
    const worker = await freshCopy<C>("../../app/db/client.server");
    const screens = await freshCopy<C>("../../app/db/client.server");
    expect(screens).not.toBe(worker);
    const session = { prepare: () => null, batch: async () => [], getBookmark: () => null };
    const binding = { withSession: () => session, prepare: () => null, batch: async () => [] } as unknown as D1Database;
    const { db } = worker.d1SessionDatabase(binding, "first-primary");
    const primary = screens.primaryOf(db);
    expect(primary).not.toBe(db);
    expect(worker.primaryOf(db)).toBe(primary);
  });
});
