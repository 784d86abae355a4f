import { libsqlDatabase } from "../app/db/libsql.server";
import { seedDemo } from "./demo-data";
import { argValue, localD1File } from "./local-d1";

/**
 * Seeds the demo data into local D1 through the libSQL driver, once (decision 002): when the demo is already
 * there nothing changes. `--force` puts the demo's own rows back to their seeded values (never other rows).
 * Usage: npm run seed [-- --persist-to DIR | --url file:x.db] [--force]
 */
const url = argValue("--url") ?? `file:${localD1File(argValue("--persist-to"))}`;
const { db, client } = libsqlDatabase(url);
const started = Date.now();
const { seeded } = await seedDemo(db, new Date(), { force: process.argv.includes("--force") });
client.close();
console.log(
  seeded
    ? `Seeded demo data into ${url} in ${Date.now() - started} ms. Sign in with any demo account, password baseline-demo-2026.`
    : `The demo data is already in ${url}: nothing changed (npm run seed -- --force puts the demo's own rows back). Password baseline-demo-2026.`,
);
