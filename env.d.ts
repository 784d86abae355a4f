/// <reference types="@remix-run/cloudflare" />
import type { D1Migration } from "@cloudflare/vitest-pool-workers";
import type { WorkersAiBinding } from "./app/services/ai-summary.server";
import type { EmailJob } from "./app/services/jobs.server";

declare global {
  interface Env {
    DB: D1Database;
    ASSETS?: Fetcher;
    /** Non-urgent email (security notices). Sign-in codes are sent at once, not queued. */
    EMAIL_QUEUE?: Queue<EmailJob>;
    /** PDF jobs (plan export, weekly report, chart comments): the message is the pdf_jobs id. */
    PDF_QUEUE?: Queue<{ kind: "pdf"; jobId: string }>;
    /** Generated files (PDFs), keyed by pdf_jobs.file_key. */
    FILES?: R2Bucket;
    /** "development" enables the outbox page and the dev API; anything else is production. */
    APP_ENV: string;
    APP_VERSION: string;
    DEMO_MODE: string;
    /** "true" (development only) answers the API from the built-in fake backend; never on by default. */
    MOCK_MODE?: string;
    PRODUCTION_URL: string;
    /** The app's own address, for links in emails (decision 005); production falls back to PRODUCTION_URL. */
    APP_URL?: string;
    RESEND_API_KEY?: string;
    EMAIL_FROM?: string;
    /** Resend's API address (default https://api.resend.com), e.g. an integrator's test server. */
    RESEND_BASE_URL?: string;
    /** Milliseconds before a Resend call that does not answer is given up (default 10000). */
    RESEND_TIMEOUT_MS?: string;
    /** Secret for API bearer tokens. Required outside development. */
    JWT_SECRET?: string;
    /** Optional secret mixed into every password hash. */
    PASSWORD_PEPPER?: string;
    /** AI summary (docs/decisions/026): an OpenAI-compatible endpoint when AI_BASE_URL is set, else the Workers AI
     * binding when one is configured ([ai] binding = "AI"), else the built-in summariser. */
    AI?: WorkersAiBinding;
    AI_BASE_URL?: string;
    AI_API_KEY?: string;
    AI_MODEL?: string;
    /** Milliseconds before a provider that does not answer is cut off (default 20000). */
    AI_TIMEOUT_MS?: string;
    TEST_MIGRATIONS?: D1Migration[];
  }
  namespace Cloudflare {
    interface Env extends globalThis.Env {}
  }
}
declare module "@remix-run/server-runtime" {
  interface Future {
    v3_singleFetch: true;
  }
}
export {};
