import { libsqlDatabase } from "../app/db/libsql.server";
import { seedDemo } from "./demo-data";
import { argValue, localD1File } from "./local-d1";

/** Seeds the demo data into local D1 through the libSQL driver. Usage: npm run seed [-- --persist-to DIR | --url file:x.db] */
const url = argValue("--url") ?? `file:${localD1File(argValue("--persist-to"))}`;
const { db, client } = libsqlDatabase(url);
const started = Date.now();
await seedDemo(db);
client.close();
console.log(`Seeded demo data into ${url} in ${Date.now() - started} ms. Sign in with any demo account, password baseline-demo-2026.`);
