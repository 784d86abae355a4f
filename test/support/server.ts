import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Starts the app for the browser tests and the benchmark: a fresh local D1 in a temporary
 * persist dir (migrated and seeded with the demo data), then `wrangler dev` on a free port.
 * `stop()` ends wrangler's whole process group and removes the temporary folder.
 */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** Port 8787 belongs to a developer's own `npm start`; never take it. */
const RESERVED_PORTS = new Set([8787]);
const READY_TIMEOUT_MS = 90_000;

/** wrangler.toml defaults to production; the local app opts in to development (the demo data, /dev/outbox). */
export const DEVELOPMENT_VARS = ["--var", "APP_ENV:development", "--var", "DEMO_MODE:true"];

export const QUIET_ENV: NodeJS.ProcessEnv = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" };

export interface AppServer {
  /** e.g. http://127.0.0.1:43121 */
  url: string;
  port: number;
  persistDir: string;
  /** Everything wrangler printed so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Prefix of the temporary folder name. */
  label?: string;
  /** A Worker entry other than wrangler.toml's `main` (the benchmark's query-counting wrapper). */
  entry?: string;
  /** Progress lines (defaults to stderr, so TAP output on stdout stays clean). */
  log?: (line: string) => void;
  /** Also load the benchmark data set (scripts/bench-data.ts: 20,000 clients, 2,000 employees, 40 locations). */
  scale?: boolean;
  /**
   * Bundle as `wrangler deploy` does (NODE_ENV=production: React's production build). `wrangler dev`
   * otherwise bundles React's development build, whose extra checks the tests want and users never run.
   */
  production?: boolean;
  /**
   * A ready persist dir (e.g. a copy of a bench database's `.wrangler/state`) to run on instead of a fresh
   * one: only pending migrations are applied, nothing is seeded, and the folder is kept on stop. Never point
   * it at a database someone else uses.
   */
  state?: string;
  /**
   * wrangler dev's `--test-scheduled`: `GET /__scheduled?cron=…` runs the Worker's cron handler once (local
   * development only, served by wrangler, not by the Worker), for the browser tests of what the cron does.
   */
  testScheduled?: boolean;
  /**
   * A migrated and seeded persist dir (from `seededState`) to copy into this app's own temporary folder instead of
   * migrating and seeding again: several apps start from the same data without paying for the seed each time.
   */
  copyOf?: string;
}

function run(cmd: string, args: string[], what: string): void {
  const r = spawnSync(cmd, args, { cwd: ROOT, env: QUIET_ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
}

/** `npm test` builds first; a bare `npm run test:e2e` or `npm run bench` builds when the output is missing. */
export function ensureBuild(log: (line: string) => void): void {
  if (existsSync(path.join(ROOT, "build/index.js")) && existsSync(path.join(ROOT, "app/generated/assets.json"))) return;
  log("the build is missing: running npm run build");
  run("npm", ["run", "build"], "npm run build");
}

export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.unref();
      srv.on("error", reject);
      srv.listen(0, "127.0.0.1", () => {
        const addr = srv.address();
        srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
      });
    });
    if (!RESERVED_PORTS.has(port)) return port;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal); // the negative pid is wrangler's own process group (spawned detached)
  } catch {
    /* already gone */
  }
}

function migrate(dir: string, log: (line: string) => void): void {
  log(`migrating the local D1 in ${dir}`);
  run("npx", ["wrangler", "d1", "migrations", "apply", "DB", "--local", "--persist-to", dir], "wrangler d1 migrations apply");
}

function seed(dir: string, log: (line: string) => void): void {
  log("seeding demo data");
  run(process.execPath, ["--import", "tsx", "scripts/seed.ts", "--persist-to", dir], "seed");
}

/**
 * A fresh local D1 in a temporary folder, migrated and seeded with the demo data, for `startApp({ copyOf })`.
 * The caller removes the folder.
 */
export function seededState(label: string, log: (line: string) => void = (line) => process.stderr.write(`[app] ${line}\n`)): string {
  ensureBuild(log);
  const dir = mkdtempSync(path.join(tmpdir(), `${label}-`));
  try {
    migrate(dir, log);
    seed(dir, log);
    return dir;
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

export async function startApp(options: StartOptions = {}): Promise<AppServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`[app] ${line}\n`));
  ensureBuild(log);

  const persistDir = options.state ? path.resolve(options.state) : mkdtempSync(path.join(tmpdir(), `${options.label ?? "baseline-app"}-`));
  if (options.copyOf) cpSync(options.copyOf, persistDir, { recursive: true });
  const removeDir = () => {
    if (!options.state) rmSync(persistDir, { recursive: true, force: true });
  };
  let child: ChildProcess | undefined;
  let stopped = false;
  let out = "";
  const emergencyStop = () => {
    if (child) killGroup(child, "SIGKILL");
  };
  // wrangler runs in its own process group, so Ctrl-C in the terminal does not reach it: pass it on.
  const onSignal = (signal: NodeJS.Signals) => {
    emergencyStop();
    removeDir();
    process.exit(signal === "SIGINT" ? 130 : 143);
  };

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off("exit", emergencyStop);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    if (child) {
      const c = child;
      const exited = new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once("exit", () => r())));
      killGroup(c, "SIGTERM");
      const gone = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
      if (!gone) killGroup(c, "SIGKILL");
      // workerd may outlive its parent for a moment; the group kill above reaches it too.
      killGroup(c, "SIGKILL");
    }
    removeDir();
  };

  try {
    if (!options.copyOf) migrate(persistDir, log);
    if (!options.state && !options.copyOf) seed(persistDir, log);
    if (options.scale && !options.state) {
      log("loading the benchmark data set (20,000 clients)");
      run(process.execPath, ["--import", "tsx", "scripts/bench-data.ts", "--persist-to", persistDir], "bench data");
      // What the reports read at scale (an audit trail of 300,000 entries, employees' compliance dates).
      log("adding the reports' bench data (audit trail, compliance dates)");
      run(process.execPath, ["--import", "tsx", "scripts/bench-reports.ts", "--persist-to", persistDir], "reports bench data");
    }

    const port = await freePort();
    const inspectorPort = await freePort();
    const url = `http://127.0.0.1:${port}`;
    log(`starting wrangler dev on ${url}`);
    child = spawn(
      "npx",
      ["wrangler", "dev", ...(options.entry ? [options.entry] : []), "--port", String(port), "--ip", "127.0.0.1", "--persist-to", persistDir, "--inspector-port", String(inspectorPort), "--show-interactive-dev-session=false", "--live-reload=false", ...(options.testScheduled ? ["--test-scheduled"] : []), ...DEVELOPMENT_VARS],
      { cwd: ROOT, env: options.production ? { ...QUIET_ENV, NODE_ENV: "production" } : QUIET_ENV, detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    process.on("exit", emergencyStop);
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    const c = child;
    let exitedEarly = false;
    c.once("exit", () => (exitedEarly = true));

    const started = Date.now();
    for (;;) {
      if (exitedEarly) throw new Error(`wrangler dev exited before answering:\n${out}`);
      if (Date.now() - started > READY_TIMEOUT_MS) throw new Error(`wrangler dev did not answer on ${url} within ${READY_TIMEOUT_MS / 1000} s:\n${out}`);
      try {
        // Raced with a timer as well as aborted: once in a CI run (stop 40) a start never reached its time limit,
        // so a probe that does not settle must not hold the loop.
        const probe = fetch(`${url}/login`, { redirect: "manual", signal: AbortSignal.timeout(5000) }).then(async (res) => (await res.arrayBuffer(), res.status));
        probe.catch(() => undefined);
        if ((await Promise.race([probe, sleep(6000).then(() => 0)])) === 200) break;
      } catch {
        /* not listening yet */
      }
      await sleep(250);
    }
    log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { url, port, persistDir, output: () => out, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
