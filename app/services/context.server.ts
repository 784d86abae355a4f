import { d1SessionDatabase, type Db } from "~/db/client.server";
import { requestBookmark, sessionStart, type BookmarkState } from "./bookmark.server";
import { emailSenderFor, type EmailSender } from "./email.server";
import { createNonce } from "./nonce.server";

/** Per-request services, built once in the Worker and handed to Remix and Hono alike. */
export interface AppContext {
  env: Env;
  /** The request's D1 session: reads may use a replica that has caught up with the bookmark (decision 022). */
  db: Db;
  bookmark: BookmarkState;
  email: EmailSender;
  isDev: boolean;
  ip: string;
  requestId: string;
  /** This response's Content-Security-Policy nonce, for Remix's scripts and any inline script (workers/security-headers.ts). */
  cspNonce: string;
  secure: boolean;
  now: () => Date;
  waitUntil: (p: Promise<unknown>) => void;
}

export function isDevelopment(env: Pick<Env, "APP_ENV">): boolean {
  return env.APP_ENV === "development";
}

/**
 * What is wrong with the configuration, or null. Production (anything but "development") needs its secrets: the JWT
 * secret, and the Resend key — without it sign-in and reset codes would go to the development outbox (a table and
 * the log) instead of the user's inbox (decision 016).
 */
export function configurationProblem(env: Pick<Env, "APP_ENV" | "JWT_SECRET" | "RESEND_API_KEY">): string | null {
  if (isDevelopment(env)) return null;
  const missing = (["JWT_SECRET", "RESEND_API_KEY"] as const).filter((k) => !env[k]);
  return missing.length ? `Missing required secrets: ${missing.join(", ")}` : null;
}

/** Fails fast when a production secret is missing. */
export function assertProductionSecrets(env: Env): void {
  const problem = configurationProblem(env);
  if (problem) throw new Error(problem);
}

export async function createAppContext(request: Request, env: Env, ctx: Pick<ExecutionContext, "waitUntil">): Promise<AppContext> {
  assertProductionSecrets(env);
  const received = await requestBookmark(request, env);
  const { db, bookmark: latest } = d1SessionDatabase(env.DB, sessionStart(request, received));
  const url = new URL(request.url);
  return {
    env,
    db,
    bookmark: { received, latest },
    email: emailSenderFor(env, db),
    isDev: isDevelopment(env),
    ip: request.headers.get("CF-Connecting-IP") ?? request.headers.get("X-Forwarded-For")?.split(",")[0]?.trim() ?? "127.0.0.1",
    requestId: request.headers.get("CF-Ray") ?? crypto.randomUUID(),
    cspNonce: createNonce(),
    secure: url.protocol === "https:" && url.hostname !== "localhost" && url.hostname !== "127.0.0.1",
    now: () => new Date(),
    waitUntil: (p) => ctx.waitUntil(p),
  };
}

declare module "@remix-run/cloudflare" {
  interface AppLoadContext {
    app: AppContext;
  }
}
declare module "@remix-run/server-runtime" {
  interface AppLoadContext {
    app: AppContext;
  }
}
