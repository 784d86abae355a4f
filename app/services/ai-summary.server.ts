/**
 * AI summary of a session note (clinical §2, §5, §7, §8; issue 10; docs/decisions/026): one interface, three
 * providers, chosen by configuration —
 * - `AI_BASE_URL` set → an OpenAI-compatible endpoint (`POST {AI_BASE_URL}/chat/completions`, `AI_API_KEY`, `AI_MODEL`);
 * - else an `AI` binding → Workers AI (`env.AI.run(model, { messages })`, model `AI_MODEL` or the default);
 * - else the built-in summariser (`builtInSummary`), which needs no network.
 * Remote providers get `summaryPrompt(body)` only: de-identified facts, never names, ids, dates, times, insurance or
 * CPT codes. A provider that does not answer within `AI_TIMEOUT_MS` (default 20 s) is cut off. The log gets the
 * provider's name, the outcome and the duration, never the note or the summary.
 */
import { AI_SUMMARY_ERROR, MISSING_FIELDS_TITLE, narrative, summaryNoteType, summaryPrecheck, summaryPrecheckErrors, summaryPrompt, type Redactions, type SummaryPrompt } from "~/domain/note-summary";
import { noteFormToBody } from "~/domain/note-form";
import { summaryBoundsErrors } from "~/domain/note-rules";
import type { NoteType } from "~/domain/notes";

export type SummaryProviderName = "openai-compatible" | "workers-ai" | "built-in";

export interface SummaryProvider {
  readonly name: SummaryProviderName;
  /** The narrative for the prompt; rejects on failure, and when the signal aborts. */
  summarize(prompt: SummaryPrompt, signal: AbortSignal): Promise<string>;
}

/** The Workers AI binding as far as this module uses it. */
export interface WorkersAiBinding {
  run(model: string, input: { messages: { role: string; content: string }[]; max_tokens?: number }, options?: unknown): Promise<unknown>;
}

export type AiEnv = {
  AI?: WorkersAiBinding;
  AI_BASE_URL?: string;
  AI_API_KEY?: string;
  AI_MODEL?: string;
  AI_TIMEOUT_MS?: string;
};

export const DEFAULT_WORKERS_AI_MODEL = "@cf/meta/llama-3.1-8b-instruct";
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
export const DEFAULT_AI_TIMEOUT_MS = 20_000;
/** A summary longer than this is cut at a sentence end (a one-paragraph narrative is far shorter). */
const MAX_SUMMARY_CHARS = 4000;

export const AI_SUMMARY_TIMEOUT = "The AI summary took too long. Please try again.";
export const AI_SUMMARY_UNAVAILABLE = "The AI summary service is unavailable. Please try again.";

/** A provider's failure: what the user is told (never the provider's own words, which may echo the input). */
export class SummaryProviderError extends Error {
  constructor(
    message: string,
    readonly upstreamStatus: number | null = null,
  ) {
    super(message);
  }
}

const messagesOf = (prompt: SummaryPrompt) => [
  { role: "system", content: prompt.system },
  { role: "user", content: prompt.user },
];

/** One paragraph, trimmed, without surrounding quotes; within the length bound. */
function cleanSummary(raw: unknown): string {
  if (typeof raw !== "string") return "";
  let s = raw.replace(/\s+/g, " ").trim().replace(/^["'“]+|["'”]+$/g, "").trim();
  if (s.length > MAX_SUMMARY_CHARS) {
    const cut = s.slice(0, MAX_SUMMARY_CHARS);
    const end = cut.lastIndexOf(". ");
    s = end > 0 ? cut.slice(0, end + 1) : cut;
  }
  return s;
}

export function openAiCompatibleProvider(opts: { baseUrl: string; apiKey?: string; model?: string; fetch?: typeof fetch }): SummaryProvider {
  const doFetch = opts.fetch ?? fetch;
  const url = `${opts.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  return {
    name: "openai-compatible",
    async summarize(prompt, signal) {
      const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json" };
      if (opts.apiKey) headers.Authorization = `Bearer ${opts.apiKey}`;
      const res = await doFetch(url, {
        method: "POST",
        headers,
        signal,
        body: JSON.stringify({ model: opts.model || DEFAULT_OPENAI_MODEL, messages: messagesOf(prompt), temperature: 0.2, max_tokens: 600 }),
      });
      if (!res.ok) {
        await res.body?.cancel();
        throw new SummaryProviderError(AI_SUMMARY_UNAVAILABLE, res.status);
      }
      const data = (await res.json().catch(() => null)) as { choices?: { message?: { content?: unknown } }[] } | null;
      const summary = cleanSummary(data?.choices?.[0]?.message?.content);
      if (!summary) throw new SummaryProviderError(AI_SUMMARY_ERROR, res.status);
      return summary;
    },
  };
}

export function workersAiProvider(binding: WorkersAiBinding, model = DEFAULT_WORKERS_AI_MODEL): SummaryProvider {
  return {
    name: "workers-ai",
    async summarize(prompt, signal) {
      let out: unknown;
      try {
        out = await binding.run(model, { messages: messagesOf(prompt), max_tokens: 600 }, { signal });
      } catch (e) {
        if (signal.aborted) throw e;
        throw new SummaryProviderError(AI_SUMMARY_UNAVAILABLE);
      }
      const summary = cleanSummary(typeof out === "string" ? out : (out as { response?: unknown } | null)?.response);
      if (!summary) throw new SummaryProviderError(AI_SUMMARY_ERROR);
      return summary;
    },
  };
}

/** The local default: the narrative written from the prompt's de-identified facts (no network). */
export const builtInProvider: SummaryProvider = {
  name: "built-in",
  async summarize(prompt) {
    return narrative(prompt.facts);
  },
};

/** The provider the configuration chooses (see the module comment). */
export function summaryProviderFor(env: AiEnv, fetcher?: typeof fetch): SummaryProvider {
  if (env.AI_BASE_URL?.trim()) return openAiCompatibleProvider({ baseUrl: env.AI_BASE_URL.trim(), apiKey: env.AI_API_KEY, model: env.AI_MODEL, fetch: fetcher });
  if (env.AI && typeof env.AI.run === "function") return workersAiProvider(env.AI, env.AI_MODEL || DEFAULT_WORKERS_AI_MODEL);
  return builtInProvider;
}

export function summaryTimeoutMs(env: AiEnv): number {
  const n = Number(env.AI_TIMEOUT_MS);
  return Number.isInteger(n) && n > 0 && n <= 120_000 ? n : DEFAULT_AI_TIMEOUT_MS;
}

export type SummaryResult =
  | { ok: true; summary: string; provider: SummaryProviderName }
  /** The pre-check: the spec's list (`missing`) and the same keyed by field (`errors`, decision 026). */
  | { ok: false; status: 422; title: typeof MISSING_FIELDS_TITLE; message: typeof MISSING_FIELDS_TITLE; missing: string[]; errors: Record<string, string> }
  /** A field beyond a note's bounds (a save's message, keyed like a save's errors). */
  | { ok: false; status: 422; message: string; errors: Record<string, string> }
  | { ok: false; status: 502 | 504; message: string }
  /** `disclose` found no such client (or note) in the actor's scope. */
  | { ok: false; status: 404; message: string };

/**
 * What `disclose` answers (decision 026, stops 33 and 41): the client's names and details the summary must not repeat
 * (the request is then recorded), or the refusal: 404 for a client or note not found in the actor's scope, 422 for a
 * request that names neither (`patient_id`: "Choose the client first."). Nothing is sent after a refusal.
 */
export type SummaryDisclosure =
  | { ok: true; known: Redactions }
  | { ok: false; status: 404; message: string }
  | { ok: false; status: 422; message: string; errors: Record<string, string> };

export interface SummaryOptions {
  /** The note type the caller's path decides (`/note_rbt/…`); else the body's. */
  type?: NoteType;
  provider?: SummaryProvider;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /**
   * Once the body passed its checks, before the provider is asked (decision 026, stops 33 and 41): the client the
   * request is about, in the actor's scope, with the names and details the server knows for them and the
   * disclosure's audit row (`noteSummaryDisclosure` in app/models/notes.server.ts); or its refusal (404, 422), and
   * nothing is sent. Every request path passes it; without it only the body's own names are scrubbed (unit tests).
   */
  disclose?: (note: Record<string, unknown>, provider: SummaryProviderName) => Promise<SummaryDisclosure>;
}

/**
 * The one entry point: a note's bounds first (422 with the field errors, as a save), the pre-check on the server
 * (422 with the missing fields), the client's names and the audit row (`disclose`; 404), then the configured
 * provider within the time limit (504 when cut off, 502 when it fails).
 */
export async function generateNoteSummary(env: AiEnv, body: Record<string, unknown>, opts: SummaryOptions = {}): Promise<SummaryResult> {
  const note = opts.type ? { ...body, type: opts.type } : body;
  const errors = summaryBoundsErrors(summaryNoteType(note), note);
  if (errors) return { ok: false, status: 422, message: Object.values(errors)[0]!, errors };
  const missing = summaryPrecheck(note);
  if (missing.length) return { ok: false, status: 422, title: MISSING_FIELDS_TITLE, message: MISSING_FIELDS_TITLE, missing, errors: summaryPrecheckErrors(note) };

  const provider = opts.provider ?? summaryProviderFor(env, opts.fetch);
  const disclosed = opts.disclose ? await opts.disclose(note, provider.name) : undefined;
  if (disclosed && !disclosed.ok) return disclosed;
  const known = disclosed?.known;
  const timeoutMs = opts.timeoutMs ?? summaryTimeoutMs(env);
  const controller = new AbortController();
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new SummaryProviderError(AI_SUMMARY_TIMEOUT));
    }, timeoutMs);
  });
  const log = (outcome: string) => console.log(`[ai-summary] provider=${provider.name} outcome=${outcome} ms=${Date.now() - started}`);
  try {
    // The race also cuts off a provider that ignores the signal.
    const summary = await Promise.race([provider.summarize(summaryPrompt(note, known), controller.signal), timedOut]);
    log("ok");
    return { ok: true, summary, provider: provider.name };
  } catch (e) {
    if (controller.signal.aborted) {
      log("timeout");
      return { ok: false, status: 504, message: AI_SUMMARY_TIMEOUT };
    }
    const known = e instanceof SummaryProviderError;
    log(known && e.upstreamStatus !== null ? `upstream-${e.upstreamStatus}` : known ? "failed" : "error");
    return { ok: false, status: 502, message: known ? e.message : AI_SUMMARY_UNAVAILABLE };
  } finally {
    clearTimeout(timer);
  }
}

/** For a note form's action (no JavaScript): the form's fields → the note body → `generateNoteSummary`. */
export function summarizeNoteForm(env: AiEnv, form: FormData, opts: SummaryOptions = {}): Promise<SummaryResult> {
  return generateNoteSummary(env, noteFormToBody(form.entries() as Iterable<[string, FormDataEntryValue]>), opts);
}
