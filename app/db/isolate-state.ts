/**
 * State an isolate keeps between requests, shared by every copy of the module that keeps it. The Worker bundles the
 * screens (the Remix build, build/index.js) and the API each with their own copy of app/ modules, so a module-level
 * `let` or `Map` exists twice in one isolate: what the screens write there, the API never sees (a setting saved on
 * /settings, a request's way to the D1 primary). State kept here lives once per isolate, under its name.
 */
export function isolateState<T extends object>(name: string, init: () => T): T {
  const shared = globalThis as unknown as Record<symbol, T | undefined>;
  const key = Symbol.for(`baseline:${name}`);
  return (shared[key] ??= init());
}
