import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { builtInSummary } from "~/domain/note-summary";
import {
  AI_SUMMARY_TIMEOUT,
  AI_SUMMARY_UNAVAILABLE,
  builtInProvider,
  DEFAULT_WORKERS_AI_MODEL,
  generateNoteSummary,
  summarizeNoteForm,
  summaryProviderFor,
  summaryTimeoutMs,
  type WorkersAiBinding,
} from "~/services/ai-summary.server";

const note = {
  type: "rbt",
  cpt_code: "97153",
  diagnosis_code: "F84.0",
  pos: "12",
  time_in: "09:00",
  time_out: "10:00",
  patient_name: "Jane Doe",
  session_date: "2026-03-14",
  content: {
    participants: "Mother",
    maladaptives: [{ plan_id: 1, name: "Aggression", frequency: 3 }],
    replacements: [{ plan_id: 2, name: "Manding", total_trials: 10, correct_responses: 7 }],
    interventions: ["DRA"],
    client_appeared: "Calm",
    as_evidenced_by: "Jane followed directions",
    client_response_to_treatment_this_session: "responded well",
    rbt_modeled_and_demonstrated_to_caregiver: "praise",
  },
};

/** A local OpenAI-compatible server: each test sets how it answers; requests are recorded. */
let server: Server;
let baseUrl: string;
let answer: (req: IncomingMessage, body: string, res: ServerResponse) => void;
const received: { url: string; auth: string | undefined; body: Record<string, unknown> }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      received.push({ url: req.url ?? "", auth: req.headers.authorization, body: body ? JSON.parse(body) : {} });
      answer(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  received.length = 0;
  vi.restoreAllMocks();
});

const ok = (content: string) => (_req: IncomingMessage, _body: string, res: ServerResponse) => {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content } }] }));
};

describe("choosing the provider by configuration", () => {
  const binding: WorkersAiBinding = { run: async () => ({ response: "x" }) };
  it.each([
    ["nothing configured", {}, "built-in"],
    ["an AI binding", { AI: binding }, "workers-ai"],
    ["AI_BASE_URL", { AI_BASE_URL: "http://127.0.0.1:1/v1" }, "openai-compatible"],
    ["AI_BASE_URL wins over the binding", { AI_BASE_URL: "http://127.0.0.1:1/v1", AI: binding }, "openai-compatible"],
    ["a blank AI_BASE_URL", { AI_BASE_URL: "  " }, "built-in"],
  ])("%s → %s", (_label, env, name) => {
    expect(summaryProviderFor(env).name).toBe(name);
  });

  it.each([
    [undefined, 20000],
    ["5000", 5000],
    ["abc", 20000],
    ["0", 20000],
    ["999999", 20000],
  ])("AI_TIMEOUT_MS %s → %d ms", (raw, ms) => {
    expect(summaryTimeoutMs({ AI_TIMEOUT_MS: raw })).toBe(ms);
  });
});

describe("the built-in provider", () => {
  it("answers the built-in narrative without any network", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const result = await generateNoteSummary({}, note);
    expect(result).toEqual({ ok: true, summary: builtInSummary(note), provider: "built-in" });
    expect(result.ok && result.summary).toMatch(/^Met with client at home/);
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("runs the pre-check first: 422 with the missing fields, no provider called", async () => {
    const summarize = vi.fn(builtInProvider.summarize);
    const result = await generateNoteSummary({}, { ...note, diagnosis_code: "", content: { ...note.content, client_appeared: "" } }, { provider: { name: "built-in", summarize } });
    expect(result).toEqual({
      ok: false,
      status: 422,
      title: "Missing Required Fields",
      message: "Missing Required Fields",
      missing: ["Diagnosis Code", "Mood"],
      errors: { diagnosis_code: "Diagnosis Code is required.", "content.client_appeared": "Mood is required." },
    });
    expect(summarize).not.toHaveBeenCalled();
  });

  it("the path's type decides the rules", async () => {
    const result = await generateNoteSummary({}, note, { type: "bcba" });
    expect(result).toMatchObject({ ok: false, status: 422, missing: ["THIS CPT HAS NOT BEEN IMPLEMENTED YET"] });
  });

  it("summarizeNoteForm reads a note form's fields", async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ type: "rbt", cpt_code: "97153", diagnosis_code: "F84.0", pos: "03", time_in2: "13:00", time_out2: "14:00", intent: "generate-summary" })) form.set(k, v);
    form.set("content.maladaptives[0].name", "Aggression");
    form.set("content.maladaptives[0].frequency", "2");
    form.set("content.replacements[0].name", "Manding");
    form.set("content.replacements[0].total_trials", "5");
    form.set("content.replacements[0].correct_responses", "5");
    form.append("content.interventions[]", "Prompting");
    for (const k of ["client_appeared", "as_evidenced_by", "client_response_to_treatment_this_session", "rbt_modeled_and_demonstrated_to_caregiver"]) form.set(`content.${k}`, "fine");
    const result = await summarizeNoteForm({}, form);
    expect(result.ok && result.summary).toMatch(/^Met with client at school/);
    form.delete("content.interventions[]");
    expect(await summarizeNoteForm({}, form)).toMatchObject({ ok: false, status: 422, missing: ["Interventions"] });
  });
});

describe("the OpenAI-compatible provider (a local fake server)", () => {
  it("posts the de-identified prompt to {AI_BASE_URL}/chat/completions and answers its text", async () => {
    answer = ok("  Met with client at home for a productive session.\n\nThe client was calm.  ");
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const result = await generateNoteSummary({ AI_BASE_URL: `${baseUrl}/`, AI_API_KEY: "sk-test", AI_MODEL: "local-model" }, note);
    expect(result).toEqual({ ok: true, summary: "Met with client at home for a productive session. The client was calm.", provider: "openai-compatible" });
    expect(received).toHaveLength(1);
    expect(received[0]!.url).toBe("/v1/chat/completions");
    expect(received[0]!.auth).toBe("Bearer sk-test");
    expect(received[0]!.body.model).toBe("local-model");
    const messages = received[0]!.body.messages as { role: string; content: string }[];
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
    const sent = JSON.stringify(received[0]!.body);
    for (const secret of ["Jane", "Doe", "2026", "97153", "F84", "09:00"]) expect(sent).not.toContain(secret);
    expect(sent).toContain("Aggression (3)");
    // The log names the provider and the outcome, never the note or the summary.
    const logged = log.mock.calls.map((c) => c.join(" ")).join("\n");
    expect(logged).toMatch(/provider=openai-compatible outcome=ok ms=\d+/);
    expect(logged).not.toMatch(/Met with client|Aggression|Jane/);
  });

  it("the names the server looked up (disclose) never reach the provider; no client found → 404 and nothing sent (probe 8964 §2)", async () => {
    answer = ok("Met with client at home.");
    vi.spyOn(console, "log").mockImplementation(() => {});
    const env = { AI_BASE_URL: baseUrl };
    // A note form's body: the client's id, never their name.
    const body = { ...note, patient_name: undefined, patient_id: 13, content: { ...note.content, as_evidenced_by: "Elijah Taylor smiled; Elijah laughed with Maria Garcia" } };
    const asked: string[] = [];
    const result = await generateNoteSummary(env, body, {
      disclose: async (n, provider) => (asked.push(`${provider}:${String(n.patient_id)}`), { ok: true, known: { client: ["Elijah Taylor", "Elijah", "Taylor"], other: ["Maria Garcia"] } }),
    });
    expect(result.ok).toBe(true);
    expect(asked).toEqual(["openai-compatible:13"]);
    const sent = JSON.stringify(received[0]!.body);
    expect(sent).not.toMatch(/Elijah|Taylor|Maria|Garcia/);
    expect(sent).toContain("As evidenced by: the client smiled, the client laughed");
    received.length = 0;
    expect(await generateNoteSummary(env, body, { disclose: async () => ({ ok: false, status: 404, message: "Client not found." }) })).toEqual({ ok: false, status: 404, message: "Client not found." });
    expect(received).toHaveLength(0);
  });

  it("a refusal to name the client (422) sends nothing; the details the server knows are cut from what is sent (decision 026, stop 41)", async () => {
    answer = ok("Met with client at home.");
    vi.spyOn(console, "log").mockImplementation(() => {});
    const env = { AI_BASE_URL: baseUrl };
    const refusal = { ok: false as const, status: 422 as const, message: "Choose the client first.", errors: { patient_id: "Choose the client first." } };
    expect(await generateNoteSummary(env, note, { disclose: async () => refusal })).toEqual(refusal);
    expect(received).toHaveLength(0);
    const body = { ...note, patient_id: 14, content: { ...note.content, as_evidenced_by: "Moved to 114 Palm Avenue in DENVER; her Medicaid visit went well" } };
    const known = { client: ["Chloe Moore", "Chloe", "Moore"], other: [], identifiers: ["Denver", "Medicaid"], addresses: ["114 Palm Ave"] };
    expect((await generateNoteSummary(env, body, { disclose: async () => ({ ok: true, known }) })).ok).toBe(true);
    const sent = JSON.stringify(received[0]!.body);
    expect(sent).not.toMatch(/Palm|114|Denver|Medicaid/i);
    expect(sent).toContain("As evidenced by: Moved, her visit went well");
  });

  it("an error answer (500 with a message) → 502 with our message, never the provider's words", async () => {
    answer = (_req, _body, res) => {
      res.writeHead(500, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: { message: "upstream exploded while reading Aggression (3)" } }));
    };
    vi.spyOn(console, "log").mockImplementation(() => {});
    const result = await generateNoteSummary({ AI_BASE_URL: baseUrl }, note);
    expect(result).toEqual({ ok: false, status: 502, message: AI_SUMMARY_UNAVAILABLE });
    expect(received[0]!.auth).toBeUndefined();
  });

  it("an answer without text → 502 with the default message", async () => {
    answer = ok("   ");
    vi.spyOn(console, "log").mockImplementation(() => {});
    expect(await generateNoteSummary({ AI_BASE_URL: baseUrl }, note)).toEqual({ ok: false, status: 502, message: "Error generating AI summary. Please try again." });
  });

  it("a server that hangs is cut off at the time limit → 504", async () => {
    answer = () => {}; // never answers
    vi.spyOn(console, "log").mockImplementation(() => {});
    const started = Date.now();
    const result = await generateNoteSummary({ AI_BASE_URL: baseUrl, AI_TIMEOUT_MS: "300" }, note);
    const took = Date.now() - started;
    expect(result).toEqual({ ok: false, status: 504, message: AI_SUMMARY_TIMEOUT });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(3000);
  });

  it("an endpoint that refuses connections → 502", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await generateNoteSummary({ AI_BASE_URL: `http://127.0.0.1:${port}/v1` }, note)).toEqual({ ok: false, status: 502, message: AI_SUMMARY_UNAVAILABLE });
  });
});

describe("the Workers AI provider (a fake binding)", () => {
  it("runs the model with the messages and answers its response", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const calls: { model: string; input: { messages: { role: string; content: string }[] } }[] = [];
    const AI: WorkersAiBinding = {
      async run(model, input) {
        calls.push({ model, input });
        return { response: "Met with client at home. The client engaged well." };
      },
    };
    expect(await generateNoteSummary({ AI }, note)).toEqual({ ok: true, summary: "Met with client at home. The client engaged well.", provider: "workers-ai" });
    expect(calls[0]!.model).toBe(DEFAULT_WORKERS_AI_MODEL);
    expect(calls[0]!.input.messages[0]!.role).toBe("system");
    expect(JSON.stringify(calls[0]!.input)).not.toMatch(/Jane|2026|97153/);
    await generateNoteSummary({ AI, AI_MODEL: "@cf/other/model" }, note);
    expect(calls[1]!.model).toBe("@cf/other/model");
  });

  it("a failing binding → 502; a hanging one → 504", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const failing: WorkersAiBinding = { run: async () => Promise.reject(new Error("3040: capacity")) };
    expect(await generateNoteSummary({ AI: failing }, note)).toEqual({ ok: false, status: 502, message: AI_SUMMARY_UNAVAILABLE });
    const hanging: WorkersAiBinding = { run: () => new Promise(() => {}) };
    expect(await generateNoteSummary({ AI: hanging, AI_TIMEOUT_MS: "100" }, note)).toEqual({ ok: false, status: 504, message: AI_SUMMARY_TIMEOUT });
  });
});
