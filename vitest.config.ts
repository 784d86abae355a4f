import { availableParallelism } from "node:os";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));

export default defineConfig({
  resolve: { alias: { "~": path.join(import.meta.dirname, "app") } },
  test: {
    // Every core runs a test file (vitest's default leaves one free: on a 2-core CI box, one file at a time).
    // Most of a Workers test file is its runtime's start-up, so two at once nearly halve the run.
    maxWorkers: availableParallelism(),
    projects: [
      {
        resolve: { alias: { "~": path.join(import.meta.dirname, "app") } },
        test: { name: "unit", include: ["test/unit/**/*.test.ts"], environment: "node" },
      },
      {
        resolve: { alias: { "~": path.join(import.meta.dirname, "app") } },
        plugins: [
          cloudflareTest({
            main: "./workers/app.ts",
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: { bindings: { TEST_MIGRATIONS: migrations, APP_ENV: "development", DEMO_MODE: "true" } },
          }),
        ],
        ssr: {},
        test: {
          name: "workers",
          include: ["test/workers/**/*.test.ts"],
          // A CI machine can be several times slower than a laptop: a table-driven test of ~100 requests took
          // 4 s here and passed 5 s there (stop 36). The limit is for hangs, not a speed budget (that is `npm run bench`).
          testTimeout: 30_000,
          // One runtime per vitest worker for all its files: the app's module graph (the server build and app/) loads
          // once per worker instead of once per file, which was most of the run (~7 s a file). Each file still starts
          // from an empty, freshly migrated database (setup.ts).
          isolate: false,
          hookTimeout: 60_000,
          setupFiles: ["./test/workers/setup.ts"],
          // Dependencies pre-bundled once, so each test file's runtime loads a few modules instead of hundreds
          // (drizzle-orm alone is over a hundred files): most of a Workers test file's start-up.
          deps: {
            optimizer: {
              ssr: {
                enabled: true,
                include: ["@remix-run/cloudflare", "@remix-run/react", "@remix-run/server-runtime", "react", "react-dom/server", "drizzle-orm", "drizzle-orm/d1", "drizzle-orm/batch", "drizzle-orm/sqlite-core", "hono", "valibot", "jose", "fflate", "pdf-lib"],
              },
            },
          },
        },
      },
    ],
  },
});
