import { existsSync, readdirSync } from "node:fs";
import path from "node:path";

/**
 * The SQLite file behind wrangler's local D1 (after `wrangler d1 migrations apply DB --local`).
 * `persistTo` is wrangler's --persist-to folder (default .wrangler/state).
 */
export function localD1File(persistTo = ".wrangler/state"): string {
  const dir = path.join(persistTo, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite") : [];
  if (files.length !== 1) throw new Error(`Expected one local D1 database in ${dir}, found ${files.length}. Run: npx wrangler d1 migrations apply DB --local${persistTo !== ".wrangler/state" ? ` --persist-to ${persistTo}` : ""}`);
  return path.join(dir, files[0]!);
}

export function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
