import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { and, count, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, bips, chartComments, patients, pdfJobs, plans, settings, sharedDocuments, userLocations, userRoles, users, weeklyReports } from "~/db/schema";
import { PORTAL_SHOW_NARRATIVE } from "~/domain/settings";
import { PDF_MESSAGES, PDF_SECTION_KEYS, PDF_SECTIONS } from "~/domain/plan-pdf";
import { addDays, isoDate, weekEndingOn } from "~/domain/weeks";
import { formatChartDate } from "~/domain/chart";
import { todayIn } from "~/domain/note-rules";
import { weeklyDataRange } from "~/domain/weekly-reports";
import { getUserActor } from "~/models/actors.server";
import { updateSettings } from "~/models/settings.server";
import { consumePdfJob, expirePdfFiles, PDF_JOB_MESSAGES, pdfJobFileKey, requestGoalPdf, requestPlanPdf } from "~/models/pdf-jobs.server";
import worker from "../../workers/app";
import { pdfPages, pdfText } from "../support/pdf-text";
import { api, apiToken, BASE, createBip, createChartComment, createLocation, createObjective, createParent, createPatient, createPlan, createUser, db, request, signInCookie, type TestUser, expectUnsupportedMethods } from "./helpers";
import { appFetch } from "./app-fetch";

/**
 * Plan, weekly-report and chart-comment PDFs through the queue (decision 041): request → the consumer
 * (the pool's real queue and R2 bindings) → done → download; a duplicate delivery makes one file; a
 * failed render can be retried; permission, location scope and bad input; the screens without JavaScript.
 */

type Job = { id: string; job_id: string; status: string; error: string | null; attempts: number; file_size: number | null; download_url: string | null; shared: boolean };

let location: { id: number };
let other: { id: number };
let viewer: TestUser;
let manager: TestUser;
let token: string;
let managerToken: string;
let bip: { id: number; patientId: number; locationId: number };
let goal: { id: number };
let otherBip: { id: number };

async function jobRow(id: string) {
  const [row] = await db().select().from(pdfJobs).where(eq(pdfJobs.id, id));
  return row!;
}

async function jobCount(): Promise<number> {
  const [row] = await db().select({ n: count() }).from(pdfJobs);
  return row!.n;
}

/** Waits for the queue (or waitUntil) to finish a job: its status once it is neither queued nor running. */
async function settled(id: string, timeoutMs = 20_000): Promise<typeof pdfJobs.$inferSelect> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const row = await jobRow(id);
    if (row.status === "done" || row.status === "failed") return row;
    if (Date.now() > until) throw new Error(`job ${id} still ${row.status}`);
    // The pool's queue delivers after its batch timeout; run the consumer too (a duplicate delivery is harmless).
    await consumePdfJob(env, id).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function deliver(jobId: string, ids = ["m1"], bindings: Env = env) {
  const batch = createMessageBatch("baseline-pdf", ids.map((id) => ({ id, timestamp: new Date(), attempts: 1, body: { kind: "pdf", jobId } })));
  const ctx = createExecutionContext();
  await worker.queue(batch, bindings, ctx);
  return getQueueResult(batch, ctx);
}

beforeAll(async () => {
  location = await createLocation();
  other = await createLocation();
  viewer = await createUser({ permissions: ["view_bips"], locations: [location.id] });
  manager = await createUser({ permissions: ["view_bips", "manage_bips"], locations: [location.id] });
  token = await apiToken(viewer);
  managerToken = await apiToken(manager);
  // A parent in the portal: sharing needs one (decision 041, stop 38).
  const patient = await createPatient({ locationId: location.id, firstName: "Ana", lastName: "Lopez", parentId: (await createParent()).id });
  bip = await createBip(patient, { document: JSON.stringify({ background_information: "Lives with both parents.", policy: "Clinic policy." }) });
  goal = await createPlan(bip, { name: "Aggression", baselineDate: addDays(weekEndingOn(isoDate(new Date())), -7 * 20), baselineLevel: 12 });
  await createObjective(goal, { name: "Half", target: 6, endDate: addDays(weekEndingOn(isoDate(new Date())), 70), type: "STO", position: 1 });
  const saturday = weekEndingOn(isoDate(new Date()));
  const rows = Array.from({ length: 40 }, (_, i) => ({ planId: goal.id, weekEnd: addDays(saturday, -7 * i), weekStart: addDays(saturday, -7 * i - 6), value: (i * 3) % 17 }));
  // D1 binds at most 100 parameters per statement.
  for (let i = 0; i < rows.length; i += 15) await db().insert(weeklyReports).values(rows.slice(i, i + 15));
  await createChartComment(goal, addDays(saturday, -14), "New routine at school");
  await createChartComment(goal, addDays(saturday, -7 * 60), "Long ago comment");
  const otherPatient = await createPatient({ locationId: other.id });
  otherBip = await createBip(otherPatient);
});

describe("the plan PDF through the API and the queue", () => {
  it("request → 202 queued → the consumer makes it → status done → download is the PDF", async () => {
    const res = await api(`/v2/bips/${bip.id}/pdf`, { method: "POST", token, body: { sections: [...PDF_SECTION_KEYS], months: 12 } });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { job_id: string; status: string; data: Job };
    expect(body.status).toBe("queued");
    expect(body.job_id).toMatch(/^[0-9a-f-]{36}$/);
    const row = await settled(body.job_id);
    expect(row.status, row.error ?? "").toBe("done");
    expect(row.attempts).toBe(1);
    const status = (await (await api(`/v2/pdf-jobs/${body.job_id}`, { token })).json()) as { data: Job };
    expect(status.data.status).toBe("done");
    // The API's own download, which the same Bearer token can follow (the screens' needs a session: decision 041).
    expect(status.data.download_url).toBe(`/api/v2/pdf-jobs/${body.job_id}/download`);
    const file = await appFetch(`${BASE}${status.data.download_url}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(file.status).toBe(200);
    expect(file.headers.get("Content-Type")).toBe("application/pdf");
    expect(file.headers.get("Content-Disposition")).toBe(`attachment; filename="behavior-plan-${bip.id}.pdf"`);
    expect(file.headers.get("Content-Disposition")).not.toMatch(/Ana|Lopez/);
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
    expect(bytes.byteLength).toBe(row.fileSize);
    const text = await pdfText(bytes);
    for (const s of PDF_SECTIONS) expect(text, s.label).toContain(s.label);
    expect(text).toContain("Ana Lopez");
    expect(text).toContain("Lives with both parents.");
    expect(text).toContain("New routine at school");
    // The window is 12 months: the comment of a year ago is outside it.
    expect(text).not.toContain("Long ago comment");
  });

  it("a duplicate delivery of a done job does nothing: one render, one file", async () => {
    const res = await api(`/v2/bips/${bip.id}/pdf`, { method: "POST", token, body: { sections: ["policy"] } });
    const { job_id } = (await res.json()) as { job_id: string };
    const first = await settled(job_id);
    expect(first.status).toBe("done");
    const before = await env.FILES!.head(first.fileKey!);
    const result = await deliver(job_id, ["d1", "d2"]);
    expect(result.explicitAcks.sort()).toEqual(["d1", "d2"]);
    expect(result.retryMessages).toEqual([]);
    const after = await jobRow(job_id);
    expect(after.attempts).toBe(1);
    expect(after.finishedAt).toBe(first.finishedAt);
    expect((await env.FILES!.head(first.fileKey!))!.uploaded.getTime()).toBe(before!.uploaded.getTime());
    const listed = await env.FILES!.list({ prefix: `pdf-jobs/${job_id}` });
    expect(listed.objects).toHaveLength(1);
  });

  it("a PDF message without a job id, or of an unknown job, is acknowledged and does nothing", async () => {
    const batch = createMessageBatch("baseline-pdf", [
      { id: "u1", timestamp: new Date(), attempts: 1, body: { kind: "pdf" } },
      { id: "u2", timestamp: new Date(), attempts: 1, body: { kind: "pdf", jobId: crypto.randomUUID() } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["u1", "u2"]);
    expect(result.retryMessages).toEqual([]);
  });

  it("two deliveries at once render once (the conditional claim)", async () => {
    const [row] = await db().insert(pdfJobs).values({ id: crypto.randomUUID(), kind: "plan", patientId: bip.patientId, bipId: bip.id, params: JSON.stringify({ sections: ["policy"], months: 6 }), requestedBy: viewer.id }).returning();
    const outcomes = await Promise.all([consumePdfJob(env, row!.id), consumePdfJob(env, row!.id), consumePdfJob(env, row!.id)]);
    expect(outcomes.filter((o) => o === "done")).toHaveLength(1);
    // The others found it running (to be delivered again later, decision 041 stop 41) or, if it finished first, done.
    expect(outcomes.filter((o) => o === "skipped" || (typeof o === "object" && o.running))).toHaveLength(2);
    expect((await jobRow(row!.id)).attempts).toBe(1);
  });

  it("each attempt stores its own file: a render overtaken by a newer attempt never replaces the newer file, and the old files are deleted", async () => {
    const [row] = await db().insert(pdfJobs).values({ id: crypto.randomUUID(), kind: "plan", patientId: bip.patientId, bipId: bip.id, params: JSON.stringify({ sections: ["policy"], months: 6 }), requestedBy: viewer.id }).returning();
    const id = row!.id;
    const files = async () => (await env.FILES!.list({ prefix: `pdf-jobs/${id}` })).objects.map((o) => o.key);
    expect(await consumePdfJob(env, id)).toBe("done");
    expect((await jobRow(id)).fileKey).toBe(pdfJobFileKey(id, 1));
    // Made again (a retry, or the settings' remake): the new attempt's file is named, the first one deleted.
    await db().update(pdfJobs).set({ status: "queued" }).where(eq(pdfJobs.id, id));
    expect(await consumePdfJob(env, id)).toBe("done");
    expect((await jobRow(id)).fileKey).toBe(pdfJobFileKey(id, 2));
    expect(await files()).toEqual([pdfJobFileKey(id, 2)]);
    const newer = await (await env.FILES!.get(pdfJobFileKey(id, 2)))!.arrayBuffer();
    // A third render is overtaken while it stores its file: the job was made again and a newer attempt (4) claimed it.
    await db().update(pdfJobs).set({ status: "queued" }).where(eq(pdfJobs.id, id));
    const overtaking: Pick<Env, "DB" | "FILES"> = {
      DB: env.DB,
      FILES: new Proxy(env.FILES!, {
        get(target, prop) {
          if (prop !== "put") return Reflect.get(target, prop).bind(target);
          return async (...args: Parameters<R2Bucket["put"]>) => {
            const stored = await target.put(...args);
            await db().update(pdfJobs).set({ attempts: 4 }).where(eq(pdfJobs.id, id));
            return stored;
          };
        },
      }),
    };
    expect(await consumePdfJob(overtaking, id)).toBe("done");
    const after = await jobRow(id);
    // Its final update was refused (the attempt moved on): the job still names attempt 2's file, unchanged, and the
    // overtaken render's file is gone.
    expect(after).toMatchObject({ status: "running", attempts: 4, fileKey: pdfJobFileKey(id, 2) });
    expect(await files()).toEqual([pdfJobFileKey(id, 2)]);
    expect(new Uint8Array(await (await env.FILES!.get(pdfJobFileKey(id, 2)))!.arrayBuffer())).toEqual(new Uint8Array(newer));
  });

  // Decision 041, stop 44: the retry reset the attempt number, so the retried render wrote attempt 1's key again, in
  // place, while that object could still be served.
  it("a retry of a failed job whose file exists renders a new attempt under a new key; the old file goes once it wins, and the download serves the new one", async () => {
    const [row] = await db().insert(pdfJobs).values({ id: crypto.randomUUID(), kind: "plan", patientId: bip.patientId, bipId: bip.id, params: JSON.stringify({ sections: ["policy"], months: 6 }), requestedBy: viewer.id }).returning();
    const id = row!.id;
    const files = async () => (await env.FILES!.list({ prefix: `pdf-jobs/${id}` })).objects.map((o) => o.key);
    expect(await consumePdfJob(env, id)).toBe("done");
    // Attempt 1's file, marked so it can be told from the retry's, then a failure that leaves it behind.
    const oldBytes = new TextEncoder().encode("%PDF-1.4 attempt one");
    await env.FILES!.put(pdfJobFileKey(id, 1), oldBytes);
    await db().update(pdfJobs).set({ status: "failed", error: PDF_JOB_MESSAGES.renderFailed }).where(eq(pdfJobs.id, id));

    const retry = await api(`/v2/pdf-jobs/${id}/retry`, { method: "POST", token });
    expect(retry.status).toBe(202);
    // Queued again with its attempt number kept; until the new attempt wins, the old file is still there, untouched.
    expect(((await retry.json()) as { data: Job }).data).toMatchObject({ status: "queued", attempts: 1 });
    expect(await files()).toContain(pdfJobFileKey(id, 1));
    expect(new Uint8Array(await (await env.FILES!.get(pdfJobFileKey(id, 1)))!.arrayBuffer())).toEqual(oldBytes);

    const done = await settled(id);
    expect(done).toMatchObject({ status: "done", error: null, attempts: 2, fileKey: pdfJobFileKey(id, 2) });
    expect(await files()).toEqual([pdfJobFileKey(id, 2)]);
    const download = await api(`/v2/pdf-jobs/${id}/download`, { token });
    expect(download.status).toBe(200);
    const served = new Uint8Array(await download.arrayBuffer());
    expect(served).toEqual(new Uint8Array(await (await env.FILES!.get(pdfJobFileKey(id, 2)))!.arrayBuffer()));
    expect(served).not.toEqual(oldBytes);
    expect(served.byteLength).toBe(done.fileSize);
  });

  it("a failed render marks the job failed with a clear message, the queue does not retry what cannot change, and the user's retry succeeds", async () => {
    const [row] = await db().insert(pdfJobs).values({ id: crypto.randomUUID(), kind: "plan", patientId: bip.patientId, bipId: bip.id, params: JSON.stringify({ sections: ["policy"], months: 6 }), requestedBy: viewer.id }).returning();
    await db().update(bips).set({ deletedAt: new Date().toISOString() }).where(eq(bips.id, bip.id));
    const result = await deliver(row!.id, ["f1"]);
    expect(result.explicitAcks).toEqual(["f1"]);
    expect(result.retryMessages).toEqual([]);
    const failed = await jobRow(row!.id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toBe(PDF_JOB_MESSAGES.gone);
    expect(failed.fileKey).toBeNull();
    // The status says so; the download is not there yet.
    const status = (await (await api(`/v2/pdf-jobs/${row!.id}`, { token })).json()) as { data: Job };
    expect(status.data).toMatchObject({ status: "failed", error: PDF_JOB_MESSAGES.gone, download_url: null });
    expect((await api(`/v2/pdf-jobs/${row!.id}/download`, { token })).status).toBe(409);
    // The BIP is restored (a database repair): the user's Retry makes the PDF.
    await db().update(bips).set({ deletedAt: null }).where(eq(bips.id, bip.id));
    const retry = await api(`/v2/pdf-jobs/${row!.id}/retry`, { method: "POST", token });
    expect(retry.status).toBe(202);
    expect(((await retry.json()) as { status: string }).status).toBe("queued");
    const done = await settled(row!.id);
    expect(done.status).toBe("done");
    expect(done.error).toBeNull();
    // Only a failed job can be retried.
    expect((await api(`/v2/pdf-jobs/${row!.id}/retry`, { method: "POST", token })).status).toBe(409);
  });

  it("without a queue binding the job runs after the response (waitUntil)", async () => {
    const waits: Promise<unknown>[] = [];
    const result = await requestPlanPdf(
      { db: db(), actor: (await getUserActor(db(), viewer.id))!, ip: "127.0.0.1", now: () => new Date() },
      { env: { DB: env.DB, FILES: env.FILES }, waitUntil: (p) => waits.push(p) },
      bip.id,
      { sections: ["background"], months: "3" },
    );
    expect(result.ok).toBe(true);
    expect(waits).toHaveLength(1);
    await Promise.all(waits);
    expect((await jobRow(result.ok ? result.data.id : "")).status).toBe("done");
  });

  it("a goal's weekly-report and chart-comment PDFs honour the month count", async () => {
    const weekly = await api(`/v2/plans/${goal.id}/pdf`, { method: "POST", token, body: { kind: "weekly_report", months: 1 } });
    expect(weekly.status).toBe(202);
    const w = await settled(((await weekly.json()) as { job_id: string }).job_id);
    expect(w.status, w.error ?? "").toBe("done");
    const wText = await pdfText(new Uint8Array(await (await api(`/v2/pdf-jobs/${w.id}/download`, { token })).arrayBuffer()));
    expect(wText).toContain("Weekly Reports");
    // One month up to the end of the current week holds four to six Saturdays.
    expect(wText).toMatch(/Weekly reports \((4|5|6)\)/);
    const comments = await api(`/v2/plans/${goal.id}/pdf`, { method: "POST", token, body: { kind: "chart_comments", months: 2.7 } });
    const c = await settled(((await comments.json()) as { job_id: string }).job_id);
    const cText = await pdfText(new Uint8Array(await (await api(`/v2/pdf-jobs/${c.id}/download`, { token })).arrayBuffer()));
    expect(cText).toContain("Chart Comments");
    expect(cText).toContain("New routine at school");
    expect(cText).not.toContain("Long ago comment");
    expect(cText).toContain("(2 months)");
  });

  it("answers 403 without view_bips, 404 for another location, 422 for bad input — and makes no job", async () => {
    const before = await jobCount();
    const nobody = await apiToken(await createUser({ permissions: ["view_clients"], locations: [location.id] }));
    expect((await api(`/v2/bips/${bip.id}/pdf`, { method: "POST", token: nobody, body: { sections: ["policy"] } })).status).toBe(403);
    const elsewhere = await api(`/v2/bips/${otherBip.id}/pdf`, { method: "POST", token, body: { sections: ["policy"] } });
    expect(elsewhere.status).toBe(404);
    expect((await api(`/v2/bips/999999/pdf`, { method: "POST", token, body: { sections: ["policy"] } })).status).toBe(404);
    for (const [body, field, message] of [
      [{ sections: [] }, "sections", PDF_MESSAGES.noSection],
      [{}, "sections", PDF_MESSAGES.noSection],
      [{ sections: ["policy", "passwords"] }, "sections", PDF_MESSAGES.unknownSection],
      [{ sections: ["policy"], months: "many" }, "months", PDF_MESSAGES.months],
      [{ sections: ["policy"], months: 500 }, "months", PDF_MESSAGES.monthsTooMany],
    ] as const) {
      const res = await api(`/v2/bips/${bip.id}/pdf`, { method: "POST", token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      const json = (await res.json()) as { message: string; errors: Record<string, string> };
      expect(json.errors[field]).toBe(message);
      expect(json.message).toBe(message);
    }
    expect((await api(`/v2/plans/${goal.id}/pdf`, { method: "POST", token, body: { kind: "plan" } })).status).toBe(422);
    expect((await api(`/v2/bips/${bip.id}/pdf`, { method: "POST", token, body: [] as unknown })).status).toBe(400);
    expect(await jobCount()).toBe(before);
  });

  it("any other method on the PDF paths answers 405 JSON 'Unsupported HTTP method' (not the screens' cross-site 403 or 404 page)", async () => {
    const cases: [method: string, path: string][] = [
      ["GET", `/v2/bips/${bip.id}/pdf`],
      ["PUT", `/v2/plans/${goal.id}/pdf`],
      ["PUT", "/v2/pdf-jobs/x"],
      ["DELETE", "/v2/pdf-jobs/x"],
      ["POST", "/v2/pdf-jobs/x/download"],
      ["GET", "/v2/pdf-jobs/x/retry"],
      ["GET", "/v2/pdf-jobs/x/remake"],
      ["GET", "/v2/pdf-jobs/x/share"],
      ["PUT", "/v2/pdf-jobs/x/share"],
    ];
    await expectUnsupportedMethods(token, cases);
  });

  it("another location's job is 404 everywhere; an unknown or malformed id too", async () => {
    const outsider = await apiToken(await createUser({ permissions: ["view_bips", "manage_bips"], locations: [other.id] }));
    const [row] = await db().select().from(pdfJobs).where(eq(pdfJobs.status, "done")).limit(1);
    for (const path of [`/v2/pdf-jobs/${row!.id}`, `/v2/pdf-jobs/${row!.id}/download`]) expect((await api(path, { token: outsider })).status, path).toBe(404);
    for (const path of [`/v2/pdf-jobs/${row!.id}/retry`, `/v2/pdf-jobs/${row!.id}/share`]) expect((await api(path, { method: "POST", token: outsider })).status, path).toBe(404);
    expect((await api(`/v2/pdf-jobs/${crypto.randomUUID()}`, { token })).status).toBe(404);
    expect((await api(`/v2/pdf-jobs/not-an-id`, { token })).status).toBe(404);
  });

  it("sharing a done job with the parents: manage_bips or manage_clients, once", async () => {
    const [row] = await db().select().from(pdfJobs).where(eq(pdfJobs.status, "done")).limit(1);
    expect((await api(`/v2/pdf-jobs/${row!.id}/share`, { method: "POST", token })).status).toBe(403);
    const first = await api(`/v2/pdf-jobs/${row!.id}/share`, { method: "POST", token: managerToken });
    expect(first.status).toBe(200);
    expect(((await first.json()) as { data: Job }).data.shared).toBe(true);
    expect((await api(`/v2/pdf-jobs/${row!.id}/share`, { method: "POST", token: managerToken })).status).toBe(200);
    const shares = await db().select().from(sharedDocuments).where(eq(sharedDocuments.pdfJobId, row!.id));
    expect(shares).toHaveLength(1);
    expect(shares[0]).toMatchObject({ patientId: bip.patientId, sharedBy: manager.id });
    expect(shares[0]!.title).not.toMatch(/Ana|Lopez/);
  });

  it("a shared document's title names the day the file was made at the client's location (New York), not the UTC day", async () => {
    const id = crypto.randomUUID();
    // Made at 20:55 in New York on 11/27, already 11/28 in UTC.
    await db().insert(pdfJobs).values({ id, kind: "plan", patientId: bip.patientId, bipId: bip.id, status: "done", fileKey: `pdf/${id}.pdf`, requestedBy: manager.id, finishedAt: "2026-11-28T01:55:00.000Z" });
    expect((await api(`/v2/pdf-jobs/${id}/share`, { method: "POST", token: managerToken })).status).toBe(200);
    const [share] = await db().select().from(sharedDocuments).where(eq(sharedDocuments.pdfJobId, id));
    expect(share!.title).toMatch(/\(PDF, 2026-11-27\)$/);
  });

  it("every API answer that carries a done job links the API's download, not the screens'", async () => {
    const [row] = await db().select().from(pdfJobs).where(eq(pdfJobs.status, "done")).limit(1);
    const link = `/api/v2/pdf-jobs/${row!.id}/download`;
    const answers: [string, number, Job][] = [];
    for (const [path, method, who] of [
      [`/v2/pdf-jobs/${row!.id}`, "GET", token],
      [`/v2/pdf-jobs/${row!.id}/share`, "POST", managerToken],
      [`/v2/pdf-jobs/${row!.id}/retry`, "POST", token],
      [`/v2/pdf-jobs/${row!.id}/remake`, "POST", token],
    ] as const) {
      const res = await api(path, { method, token: who });
      const body = (await res.json()) as { data?: Job; current?: Job };
      answers.push([`${method} ${path}`, res.status, (body.data ?? body.current)!]);
    }
    expect(answers.map(([call, status, job]) => [call, status, job.download_url])).toEqual([
      [`GET /v2/pdf-jobs/${row!.id}`, 200, link],
      [`POST /v2/pdf-jobs/${row!.id}/share`, 200, link],
      [`POST /v2/pdf-jobs/${row!.id}/retry`, 409, link],
      [`POST /v2/pdf-jobs/${row!.id}/remake`, 409, link],
    ]);
  });

  it("a plan of 26 sections with 3 years of weekly charts is ready within 10 s and under 1 MB", { timeout: 60_000 }, async () => {
    const patient = await createPatient({ locationId: location.id });
    const big = await createBip(patient, { document: JSON.stringify({ background_information: "Background. ".repeat(300), policy: "Policy. ".repeat(200) }) });
    const saturday = weekEndingOn(isoDate(new Date()));
    for (let g = 0; g < 10; g++) {
      const plan = await createPlan(big, { name: `Goal ${g + 1}`, category: g < 6 ? "maladaptive" : "replacement", baselineDate: addDays(saturday, -7 * 150), baselineLevel: 20 });
      for (let o = 1; o <= 4; o++) await createObjective(plan, { name: `Objective ${o}`, position: o, target: 20 - o * 4, endDate: addDays(saturday, -7 * (150 - o * 35)), type: o === 4 ? "LTO" : "STO" });
      const rows = Array.from({ length: 156 }, (_, i) => ({ planId: plan.id, weekEnd: addDays(saturday, -7 * i), weekStart: addDays(saturday, -7 * i - 6), value: (i * 7 + g) % 25, totalUnits: 60 }));
      for (let i = 0; i < rows.length; i += 15) await db().insert(weeklyReports).values(rows.slice(i, i + 15));
      await db().insert(chartComments).values(Array.from({ length: 10 }, (_, i) => ({ planId: plan.id, commentDate: addDays(saturday, -7 * (i * 12 + 3)), comment: `Note ${i + 1}` })));
    }
    const started = Date.now();
    const res = await api(`/v2/bips/${big.id}/pdf`, { method: "POST", token, body: { sections: [...PDF_SECTION_KEYS], months: 36 } });
    const { job_id } = (await res.json()) as { job_id: string };
    const row = await settled(job_id, 30_000);
    const ms = Date.now() - started;
    console.log(`bench: plan PDF, 26 sections, 10 goals × 156 weeks: ready in ${ms} ms, ${row.fileSize} bytes`);
    expect(row.status, row.error ?? "").toBe("done");
    expect(ms).toBeLessThan(10_000);
    expect(row.fileSize!).toBeLessThan(1_000_000);
  });
});

describe("the screens (no JavaScript needed)", () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = await signInCookie(viewer);
  });

  const post = (path: string, pairs: [string, string][], c = cookie) =>
    request(path, { method: "POST", cookie: c, body: new URLSearchParams(pairs), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
  const checkedBoxes = (html: string) => (html.match(/<input[^>]*name="sections"[^>]*>/g) ?? []).filter((tag) => / checked=""/.test(tag)).length;

  const toggleButton = (html: string) => /<button[^>]*data-toggle-all="sections"[^>]*>([^<]*)<\/button>/.exec(html);

  it("the chooser: 26 sections all checked, Close, Deselect All and Save PDF; the toggle flips them all", async () => {
    const res = await request(`/bip/pdf/${bip.id}`, { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Select sections");
    expect((html.match(/name="sections"/g) ?? []).length).toBe(26);
    expect(checkedBoxes(html)).toBe(26);
    for (const label of ["Close", "Deselect All", "Save PDF"]) expect(html).toContain(label);
    const off = await post(`/bip/pdf/${bip.id}`, [...PDF_SECTION_KEYS.map((k) => ["sections", k] as [string, string]), ["intent", "select-none"]]);
    const offHtml = await off.text();
    expect(checkedBoxes(offHtml)).toBe(0);
    expect(toggleButton(offHtml)?.[1]).toBe("Select All");
    const on = await post(`/bip/pdf/${bip.id}`, [["sections", "policy"], ["intent", "select-all"]]);
    expect(checkedBoxes(await on.text())).toBe(26);
    // The old toggle's intent (a page drawn before stop 35) makes no PDF and keeps the boxes.
    const before = await jobCount();
    const stale = await post(`/bip/pdf/${bip.id}`, [["sections", "policy"], ["intent", "toggle"]]);
    expect(stale.status).toBe(400);
    const staleHtml = await stale.text();
    expect(staleHtml).toContain("Unknown action.");
    expect(checkedBoxes(staleHtml)).toBe(1);
    expect(await jobCount()).toBe(before);
  });

  // Probe 8983 L3: without JavaScript the label stays as drawn when a box is unticked; the server flipped by the posted
  // boxes, so "Deselect All" then ticked them all. The button now carries the action it shows. [case, boxes posted, intent, boxes after, label after]
  it.each<[string, number, string, number, string]>([
    ["Deselect All (drawn with all ticked) after unticking one", 25, "select-none", 0, "Select All"],
    ["Deselect All with every box ticked", 26, "select-none", 0, "Select All"],
    ["Select All (drawn with none ticked) after ticking every box", 26, "select-all", 26, "Deselect All"],
    ["Select All after ticking one", 1, "select-all", 26, "Deselect All"],
  ])("without JavaScript, %s does what its label said", async (_case, posted, intent, after, label) => {
    const before = await jobCount();
    const res = await post(`/bip/pdf/${bip.id}`, [...PDF_SECTION_KEYS.slice(0, posted).map((k) => ["sections", k] as [string, string]), ["months", "4"], ["intent", intent]]);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(checkedBoxes(html)).toBe(after);
    const button = toggleButton(html)!;
    expect(button[1]).toBe(label);
    // The button carries the action it shows; with JavaScript, enhance.js keeps both with the boxes.
    expect(button[0]).toContain(`value="${label === "Select All" ? "select-all" : "select-none"}"`);
    expect(button[0]).toContain('data-value-all="select-all"');
    expect(button[0]).toContain('data-value-none="select-none"');
    expect(html).toMatch(/<input[^>]*name="months"[^>]*value="4"/);
    expect(await jobCount()).toBe(before);
  });

  it("Enter in the month count saves the PDF: the form's first submit button is a hidden Save PDF, before Deselect All (probe 8923 M2)", async () => {
    const html = await (await request(`/bip/pdf/${bip.id}`, { cookie })).text();
    const form = html.slice(html.indexOf(`<form method="post" action="/bip/pdf/${bip.id}"`));
    const first = /<button[^>]*type="submit"[^>]*>/.exec(form)?.[0] ?? "";
    expect(first).toContain('name="intent"');
    expect(first).toContain('value="save"');
    expect(first).toContain('aria-hidden="true"');
    expect(form.indexOf('value="save"')).toBeLessThan(form.indexOf('value="select-none"'));
  });

  it("Save PDF with no section shows the message beside the sections (an alert, no dialog), focuses the first box and makes no job (probe 8923 L3)", async () => {
    const before = await jobCount();
    const res = await post(`/bip/pdf/${bip.id}`, [["intent", "save"], ["months", "6"]]);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).not.toContain("alertdialog");
    const fieldset = /<fieldset[^>]*>[\s\S]*?<\/fieldset>/.exec(html)?.[0] ?? "";
    expect(fieldset).toMatch(/^<fieldset aria-describedby="sections-error">/);
    expect(fieldset).toContain('<p id="sections-error" class="field-error" role="alert">You must select at least one section.</p>');
    const boxes = fieldset.match(/<input[^>]*name="sections"[^>]*>/g) ?? [];
    expect(boxes.map((b) => b.includes("autofocus"))).toEqual(boxes.map((_, i) => i === 0));
    expect(await jobCount()).toBe(before);
  });

  it("Save PDF → the status page ('Please wait…', refreshing itself) → the download link → the file", async () => {
    const res = await post(`/bip/pdf/${bip.id}`, [["sections", "background"], ["sections", "policy"], ["months", "6"], ["intent", "save"]]);
    expect(res.status).toBe(303);
    const to = res.headers.get("Location")!;
    expect(to).toMatch(/^\/pdf-jobs\/[0-9a-f-]{36}$/);
    const id = to.split("/").pop()!;
    const waitingRes = await request(to, { cookie });
    const waiting = await waitingRes.text();
    if (waiting.includes('data-status="queued"') || waiting.includes('data-status="running"')) {
      expect(waiting).toContain("Please wait…");
      expect(waitingRes.headers.get("Refresh")).toBe("2");
    }
    await settled(id);
    const doneRes = await request(to, { cookie });
    expect(doneRes.headers.get("Refresh")).toBeNull();
    const done = await doneRes.text();
    expect(done).toContain("Download PDF");
    // The screens link their own download (a session route), not the API's.
    expect(done).toContain(`href="/pdf-jobs/${id}/download"`);
    expect(done).not.toContain(`/api/v2/pdf-jobs/${id}/download`);
    expect(done).not.toContain("Share with parents"); // view_bips alone may not share
    const file = await request(`/pdf-jobs/${id}/download`, { cookie });
    expect(file.status).toBe(200);
    expect(file.headers.get("Content-Type")).toBe("application/pdf");
    expect(new TextDecoder().decode(new Uint8Array(await file.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
  });

  it("a queued job's page says 'Please wait…' and reloads itself every 2 s without JavaScript", async () => {
    const [row] = await db().insert(pdfJobs).values({ id: crypto.randomUUID(), kind: "plan", patientId: bip.patientId, bipId: bip.id, params: JSON.stringify({ sections: ["policy"], months: 6 }), requestedBy: viewer.id }).returning();
    const res = await request(`/pdf-jobs/${row!.id}`, { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("Refresh")).toBe("2");
    const html = await res.text();
    expect(html).toContain("Please wait…");
    expect(html).not.toContain("Download PDF");
    expect((await request(`/pdf-jobs/${row!.id}/download`, { cookie })).headers.get("Location")).toBe(`/pdf-jobs/${row!.id}`);
  });

  it("a failed job shows the error and a Retry button that queues it again; a manager shares a done one", async () => {
    const [row] = await db().insert(pdfJobs).values({ id: crypto.randomUUID(), kind: "plan", patientId: bip.patientId, bipId: bip.id, params: JSON.stringify({ sections: ["policy"], months: 6 }), requestedBy: viewer.id, status: "failed", error: PDF_JOB_MESSAGES.renderFailed }).returning();
    const failedRes = await request(`/pdf-jobs/${row!.id}`, { cookie });
    expect(failedRes.headers.get("Refresh")).toBeNull();
    const html = await failedRes.text();
    expect(html).toContain(">Error<");
    expect(html).toContain(PDF_JOB_MESSAGES.renderFailed);
    expect(html).toContain(">Retry<");
    const retry = await post(`/pdf-jobs/${row!.id}`, [["intent", "retry"]]);
    expect(retry.status).toBe(303);
    expect((await settled(row!.id)).status).toBe("done");
    const managerCookie = await signInCookie(manager);
    expect(await (await request(`/pdf-jobs/${row!.id}`, { cookie: managerCookie })).text()).toContain("Share with parents");
    const share = await post(`/pdf-jobs/${row!.id}`, [["intent", "share"]], managerCookie);
    expect(share.status).toBe(303);
    expect(await (await request(`/pdf-jobs/${row!.id}`, { cookie: managerCookie })).text()).toContain("Shared with the client&#x27;s parents.");
  });

  it("the goal PDF screen queues a chart-comment PDF with its month count", async () => {
    const page = await request(`/bip/goal/${goal.id}/pdf`, { cookie });
    expect(page.status).toBe(200);
    const res = await post(`/bip/goal/${goal.id}/pdf`, [["kind", "chart_comments"], ["months", "3"]]);
    expect(res.status).toBe(303);
    const id = res.headers.get("Location")!.split("/").pop()!;
    const row = await settled(id);
    expect(JSON.parse(row.params)).toEqual({ planId: goal.id, months: 3 });
    expect(row.kind).toBe("chart_comments");
    const bad = await post(`/bip/goal/${goal.id}/pdf`, [["kind", "chart_comments"], ["months", "lots"]]);
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain(PDF_MESSAGES.months);
  });

  it("another location's plan, goal and job answer 404 on the screens", async () => {
    expect((await request(`/bip/pdf/${otherBip.id}`, { cookie })).status).toBe(404);
    expect((await post(`/bip/pdf/${otherBip.id}`, [["sections", "policy"], ["intent", "save"]])).status).toBe(404);
    const outsider = await signInCookie(await createUser({ permissions: ["view_bips"], locations: [other.id] }));
    const [row] = await db().select().from(pdfJobs).where(eq(pdfJobs.status, "done")).limit(1);
    expect((await request(`/pdf-jobs/${row!.id}`, { cookie: outsider })).status).toBe(404);
    expect((await request(`/pdf-jobs/${row!.id}/download`, { cookie: outsider })).status).toBe(404);
    expect((await request(`/bip/goal/${goal.id}/pdf`, { cookie: outsider })).status).toBe(404);
  });
});

describe("PDF files expire after 30 days unless shared (decision 041, stop 17)", () => {
  const DAY = 86_400_000;
  /** A done plan job whose file was made `daysAgo` days ago, with its file in R2. */
  async function oldJob(daysAgo: number, status = "done") {
    const id = crypto.randomUUID();
    const key = `pdf-jobs/${id}.pdf`;
    await env.FILES!.put(key, "%PDF-1.7\n%%EOF\n");
    const at = new Date(Date.now() - daysAgo * DAY).toISOString();
    await db().insert(pdfJobs).values({ id, kind: "plan", patientId: bip.patientId, bipId: bip.id, params: JSON.stringify({ sections: ["policy", "background"], months: 9 }), status, fileKey: key, fileSize: 15, requestedBy: viewer.id, finishedAt: at, createdAt: at, updatedAt: at });
    return { id, key };
  }
  /** A share of the job with its family copy (decision 041, stop 38), also old and with its file; the copy is returned. */
  const share = async (jobId: string, revoked = false) => {
    const family = await oldJob(45);
    await db().update(pdfJobs).set({ audience: "family" }).where(eq(pdfJobs.id, family.id));
    await db().insert(sharedDocuments).values({ patientId: bip.patientId, title: "Plan", pdfJobId: jobId, familyJobId: family.id, sharedBy: manager.id, revokedAt: revoked ? new Date().toISOString() : null });
    return family;
  };
  const runCron = async () => {
    await worker.scheduled({ scheduledTime: Date.now(), cron: "17 * * * *", noRetry: () => undefined } as ScheduledController, env);
  };

  it("the hourly cron deletes old unshared files and marks their jobs expired, keeps shared and recent ones, audited as the system", async () => {
    const stale = await oldJob(31);
    const shared = await oldJob(45);
    const sharedCopy = await share(shared.id);
    const revoked = await oldJob(40);
    const revokedCopy = await share(revoked.id, true);
    // A share made before stop 38 (no family copy) is served to no one, so it keeps nothing.
    const oldStyle = await oldJob(50);
    await db().insert(sharedDocuments).values({ patientId: bip.patientId, title: "Plan", pdfJobId: oldStyle.id, sharedBy: manager.id });
    const recent = await oldJob(29);
    const failed = await oldJob(60, "failed");
    await runCron();
    for (const gone of [stale, revoked, revokedCopy, oldStyle]) {
      const row = await jobRow(gone.id);
      expect(row).toMatchObject({ status: "expired", fileKey: null });
      expect(row.expiredAt).toBeTruthy();
      expect(await env.FILES!.head(gone.key)).toBeNull();
    }
    for (const kept of [shared, sharedCopy, recent]) {
      expect(await jobRow(kept.id)).toMatchObject({ status: "done", fileKey: kept.key });
      expect(await env.FILES!.head(kept.key)).not.toBeNull();
    }
    expect((await jobRow(failed.id)).status).toBe("failed");
    const [audit] = await db().select().from(auditLog).where(and(eq(auditLog.action, "expire"), eq(auditLog.entity, "pdf_job"))).orderBy(desc(auditLog.id)).limit(1);
    expect(audit).toMatchObject({ actorType: "system", actorId: null });
    const detail = JSON.parse(audit!.detail!) as { patients: number[]; jobs: string[] };
    expect(detail.patients).toEqual([bip.patientId]);
    expect(detail.jobs.sort()).toEqual([stale.id, revoked.id, revokedCopy.id, oldStyle.id].sort());
    // A second run finds nothing to do and writes no audit row.
    const before = (await db().select({ id: auditLog.id }).from(auditLog)).length;
    await runCron();
    expect((await db().select({ id: auditLog.id }).from(auditLog)).length).toBe(before);
  });

  it("an expired job: the API says so (409 on download and share), and 'Make it again' is a new job with the same params", async () => {
    const { id } = await oldJob(35);
    await runCron();
    const status = (await (await api(`/v2/pdf-jobs/${id}`, { token })).json()) as { data: Job & { expired_at: string | null } };
    expect(status.data).toMatchObject({ status: "expired", download_url: null });
    expect(status.data.expired_at).toBeTruthy();
    const download = await api(`/v2/pdf-jobs/${id}/download`, { token });
    expect(download.status).toBe(409);
    expect(((await download.json()) as { message: string }).message).toBe(PDF_JOB_MESSAGES.expired);
    expect((await api(`/v2/pdf-jobs/${id}/share`, { method: "POST", token: managerToken })).status).toBe(409);
    expect((await api(`/v2/pdf-jobs/${id}/retry`, { method: "POST", token })).status).toBe(409);
    const remade = await api(`/v2/pdf-jobs/${id}/remake`, { method: "POST", token });
    expect(remade.status, await remade.clone().text()).toBe(202);
    const body = (await remade.json()) as { job_id: string; data: Job & { sections: string[]; months: number } };
    expect(body.job_id).not.toBe(id);
    expect(body.data.months).toBe(9);
    expect([...body.data.sections].sort()).toEqual(["background", "policy"]);
    expect((await settled(body.job_id)).status).toBe("done");
    expect((await jobRow(id)).status).toBe("expired");
    // Only an expired job is made again; another location's is 404; without view_bips 403.
    const done = await api(`/v2/pdf-jobs/${body.job_id}/remake`, { method: "POST", token });
    expect(done.status).toBe(409);
    const outsider = await apiToken(await createUser({ permissions: ["view_bips"], locations: [other.id] }));
    expect((await api(`/v2/pdf-jobs/${id}/remake`, { method: "POST", token: outsider })).status).toBe(404);
    const noPerm = await apiToken(await createUser({ permissions: ["view_notes"], locations: [location.id] }));
    expect((await api(`/v2/pdf-jobs/${id}/remake`, { method: "POST", token: noPerm })).status).toBe(403);
  });

  it("the status page says the PDF expired and offers 'Make it again' without JavaScript; the download link sends back to it", async () => {
    const cookie = await signInCookie(viewer);
    const { id } = await oldJob(33);
    await runCron();
    const page = await request(`/pdf-jobs/${id}`, { cookie });
    expect(page.status).toBe(200);
    expect(page.headers.get("Refresh")).toBeNull();
    const html = await page.text();
    expect(html).toContain("This PDF has expired.");
    expect(html).toContain(">Make it again<");
    const dl = await request(`/pdf-jobs/${id}/download`, { cookie });
    expect(dl.status).toBe(303);
    expect(dl.headers.get("Location")).toBe(`/pdf-jobs/${id}`);
    const before = await jobCount();
    const again = await request(`/pdf-jobs/${id}`, { method: "POST", cookie, body: new URLSearchParams({ intent: "remake" }), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(again.status).toBe(303);
    const to = again.headers.get("Location")!;
    expect(to).toMatch(/^\/pdf-jobs\/[0-9a-f-]{36}\?flash=/);
    expect(to).not.toContain(id);
    expect(await jobCount()).toBe(before + 1);
    const newId = /^\/pdf-jobs\/([0-9a-f-]{36})/.exec(to)![1]!;
    expect((await settled(newId)).status).toBe("done");
    // A done job's page says how long its file is kept.
    expect(await (await request(`/pdf-jobs/${newId}`, { cookie })).text()).toContain("Kept until");
  });

  it("works in bounded steps, and a delete left pending (R2 failed) is finished by the next run", async () => {
    const jobs = [await oldJob(50), await oldJob(51), await oldJob(52), await oldJob(53), await oldJob(54)];
    const first = await expirePdfFiles(env, new Date(), { batch: 2, maxSteps: 1 });
    expect(first).toEqual({ expired: 2, deleted: 2 });
    // The two oldest went first.
    expect((await jobRow(jobs[4]!.id)).status).toBe("expired");
    expect((await jobRow(jobs[3]!.id)).status).toBe("expired");
    expect((await jobRow(jobs[0]!.id)).status).toBe("done");
    const rest = await expirePdfFiles(env, new Date(), { batch: 2, maxSteps: 10 });
    expect(rest).toEqual({ expired: 3, deleted: 3 });
    for (const j of jobs) expect(await env.FILES!.head(j.key)).toBeNull();
    // A job marked expired whose file is still there (the delete failed last time) is cleaned up.
    const pending = await oldJob(70, "expired");
    expect(await expirePdfFiles(env)).toEqual({ expired: 0, deleted: 1 });
    expect(await jobRow(pending.id)).toMatchObject({ status: "expired", fileKey: null });
    expect(await env.FILES!.head(pending.key)).toBeNull();
  });
});

describe("a requester who lost access, a plan deleted since (probe 8904 #3, #4)", () => {
  /** A client of its own (so the shared fixtures stay as they are), with a BIP and a goal. */
  async function ownPlan() {
    const patient = await createPatient({ locationId: location.id, firstName: "Noa" });
    const ownBip = await createBip(patient, { document: JSON.stringify({ policy: "Clinic policy." }) });
    const ownGoal = await createPlan(ownBip, { name: "Elopement" });
    return { patient, bip: ownBip, goal: ownGoal };
  }
  const jobFor = async (w: Awaited<ReturnType<typeof ownPlan>>, kind: "plan" | "weekly_report", requestedBy: number) =>
    (await db().insert(pdfJobs).values({ id: crypto.randomUUID(), kind, patientId: w.patient.id, bipId: w.bip.id, params: JSON.stringify(kind === "plan" ? { sections: ["policy"], months: 6 } : { planId: w.goal.id, months: 6 }), requestedBy }).returning())[0]!;

  /** File storage that is down: every put fails (a transient error, not the consumer's to explain). */
  const storageDown = { put: () => Promise.reject(new Error("R2 unavailable")) } as unknown as R2Bucket;

  // [case, what the queue does with the message, kind, what happened before the render, the job's error]
  it.each<[string, "acked" | "retried", "plan" | "weekly_report", "moved" | "no view_bips" | "bip deleted" | "goal deleted" | "no storage" | "storage down", string]>([
    ["a plan PDF whose requester's locations no longer cover the client", "acked", "plan", "moved", PDF_JOB_MESSAGES.noAccess],
    ["a goal PDF whose requester's locations no longer cover the client", "acked", "weekly_report", "moved", PDF_JOB_MESSAGES.noAccess],
    ["a plan PDF whose requester lost view_bips", "acked", "plan", "no view_bips", PDF_JOB_MESSAGES.noAccess],
    ["a plan PDF whose BIP was deleted", "acked", "plan", "bip deleted", PDF_JOB_MESSAGES.gone],
    ["a goal PDF whose goal was deleted", "acked", "weekly_report", "goal deleted", PDF_JOB_MESSAGES.gone],
    ["a plan PDF on a deployment without file storage", "acked", "plan", "no storage", PDF_JOB_MESSAGES.noStorage],
    ["a plan PDF whose file could not be stored (R2 error)", "retried", "plan", "storage down", PDF_JOB_MESSAGES.renderFailed],
    ["a goal PDF whose file could not be stored (R2 error)", "retried", "weekly_report", "storage down", PDF_JOB_MESSAGES.renderFailed],
  ])("%s fails with the right message and is %s by the queue", async (_label, queue, kind, happened, error) => {
    const w = await ownPlan();
    const requester = await createUser({ permissions: ["view_bips"], locations: [location.id] });
    const row = await jobFor(w, kind, requester.id);
    if (happened === "moved") await db().update(userLocations).set({ locationId: other.id }).where(eq(userLocations.userId, requester.id));
    if (happened === "no view_bips") await db().delete(userRoles).where(eq(userRoles.userId, requester.id));
    if (happened === "bip deleted") await db().update(bips).set({ deletedAt: new Date().toISOString() }).where(eq(bips.id, w.bip.id));
    if (happened === "goal deleted") await db().update(plans).set({ deletedAt: new Date().toISOString() }).where(eq(plans.id, w.goal.id));
    const bindings = happened === "no storage" ? { ...env, FILES: undefined } : happened === "storage down" ? { ...env, FILES: storageDown } : env;
    const result = await deliver(row.id, ["a1"], bindings);
    expect(await jobRow(row.id)).toMatchObject({ status: "failed", error, attempts: 1, fileKey: null });
    if (queue === "acked") {
      // A retry could not change the outcome: the message ends here, no second read as the requester.
      expect(result.explicitAcks).toEqual(["a1"]);
      expect(result.retryMessages).toEqual([]);
      return;
    }
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages.map((m: { msgId: string }) => m.msgId)).toEqual(["a1"]);
    // The queue's next delivery, with storage back, makes the PDF.
    const again = await deliver(row.id, ["a2"]);
    expect(again.explicitAcks).toEqual(["a2"]);
    expect(await jobRow(row.id)).toMatchObject({ status: "done", error: null, attempts: 2 });
  });

  it("after a lost access, Retry is refused (it would fail again) and 'Make it again' makes a new job as the viewer", async () => {
    const w = await ownPlan();
    const requester = await createUser({ permissions: ["view_bips"], locations: [location.id] });
    const row = await jobFor(w, "plan", requester.id);
    await db().update(userLocations).set({ locationId: other.id }).where(eq(userLocations.userId, requester.id));
    await deliver(row.id, ["b1"]);
    expect((await jobRow(row.id)).error).toBe(PDF_JOB_MESSAGES.noAccess);

    const cookie = await signInCookie(manager);
    const page = await (await request(`/pdf-jobs/${row.id}`, { cookie })).text();
    expect(page).toContain(PDF_JOB_MESSAGES.noAccess);
    expect(page).toContain(">Make it again<");
    expect(page).not.toContain(">Retry<");
    const retry = await api(`/v2/pdf-jobs/${row.id}/retry`, { method: "POST", token: managerToken });
    expect(retry.status).toBe(409);
    expect(((await retry.json()) as { message: string }).message).toBe(PDF_JOB_MESSAGES.retryNoAccess);
    expect(await jobRow(row.id)).toMatchObject({ status: "failed", error: PDF_JOB_MESSAGES.noAccess });

    const before = await jobCount();
    const remade = await request(`/pdf-jobs/${row.id}`, { method: "POST", cookie, body: new URLSearchParams([["intent", "remake"]]), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(remade.status).toBe(303);
    const newId = /\/pdf-jobs\/([0-9a-f-]{36})/.exec(remade.headers.get("Location")!)![1]!;
    expect(newId).not.toBe(row.id);
    expect(await jobCount()).toBe(before + 1);
    const made = await settled(newId);
    expect(made).toMatchObject({ status: "done", requestedBy: manager.id, params: row.params });
    // The old job stays on record as it was; an ordinary failure still offers Retry, not a new job.
    expect((await jobRow(row.id)).status).toBe("failed");
    const plain = (await db().insert(pdfJobs).values({ id: crypto.randomUUID(), kind: "plan", patientId: w.patient.id, bipId: w.bip.id, params: row.params, requestedBy: manager.id, status: "failed", error: PDF_JOB_MESSAGES.renderFailed }).returning())[0]!;
    expect((await api(`/v2/pdf-jobs/${plain.id}/remake`, { method: "POST", token: managerToken })).status).toBe(409);
    expect(await (await request(`/pdf-jobs/${plain.id}`, { cookie })).text()).toContain(">Retry<");
  });

  // [case, kind, what is deleted, deleted before the render (its error says so) or after a render error]
  it.each<[string, "plan" | "weekly_report", "bip" | "goal", "before" | "after"]>([
    ["a plan PDF whose BIP was deleted", "plan", "bip", "before"],
    ["a goal PDF whose goal was deleted", "weekly_report", "goal", "before"],
    ["a plan PDF that failed to render, its BIP deleted since", "plan", "bip", "after"],
  ])("%s: no Retry on the status page, and a retry is refused (409) and changes nothing (probe 8914 §4)", async (_label, kind, deleted, when) => {
    const w = await ownPlan();
    const row = await jobFor(w, kind, manager.id);
    const remove = () =>
      deleted === "bip" ? db().update(bips).set({ deletedAt: new Date().toISOString() }).where(eq(bips.id, w.bip.id)) : db().update(plans).set({ deletedAt: new Date().toISOString() }).where(eq(plans.id, w.goal.id));
    if (when === "before") {
      await remove();
      await deliver(row.id, ["d1"]);
    } else {
      await db().update(pdfJobs).set({ status: "failed", error: PDF_JOB_MESSAGES.renderFailed, attempts: 1 }).where(eq(pdfJobs.id, row.id));
      await remove();
    }
    const failed = await jobRow(row.id);
    expect(failed).toMatchObject({ status: "failed", error: when === "before" ? PDF_JOB_MESSAGES.gone : PDF_JOB_MESSAGES.renderFailed, attempts: 1 });

    const cookie = await signInCookie(manager);
    const page = await (await request(`/pdf-jobs/${row.id}`, { cookie })).text();
    expect(page).toContain(PDF_JOB_MESSAGES.retryPlanDeleted);
    expect(page).not.toContain(">Retry<");
    expect(page).not.toContain(">Make it again<");
    expect(page).toContain(">Close<");
    const retry = await api(`/v2/pdf-jobs/${row.id}/retry`, { method: "POST", token: managerToken });
    expect(retry.status).toBe(409);
    expect(((await retry.json()) as { message: string }).message).toBe(PDF_JOB_MESSAGES.retryPlanDeleted);
    const screenRetry = await request(`/pdf-jobs/${row.id}`, { method: "POST", cookie, body: new URLSearchParams([["intent", "retry"]]), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(screenRetry.status).toBe(409);
    expect(await screenRetry.text()).toContain(PDF_JOB_MESSAGES.retryPlanDeleted);
    expect(await jobRow(row.id)).toMatchObject({ status: "failed", error: failed.error, attempts: 1, updatedAt: failed.updatedAt });
  });

  // [case, what expired, what is deleted]
  it.each<[string, "plan" | "weekly_report", "bip" | "goal"]>([
    ["an expired plan PDF whose BIP was deleted", "plan", "bip"],
    ["an expired goal PDF whose goal was deleted", "weekly_report", "goal"],
  ])("%s: the status page offers no 'Make it again', and making it again is refused (409) with no new job", async (_label, kind, deleted) => {
    const w = await ownPlan();
    const row = await jobFor(w, kind, manager.id);
    await db().update(pdfJobs).set({ status: "expired", expiredAt: new Date().toISOString() }).where(eq(pdfJobs.id, row.id));
    await (deleted === "bip" ? db().update(bips).set({ deletedAt: new Date().toISOString() }).where(eq(bips.id, w.bip.id)) : db().update(plans).set({ deletedAt: new Date().toISOString() }).where(eq(plans.id, w.goal.id)));
    const cookie = await signInCookie(manager);
    const page = await (await request(`/pdf-jobs/${row.id}`, { cookie })).text();
    expect(page).toContain("This PDF has expired.");
    expect(page).toContain(PDF_JOB_MESSAGES.remakePlanDeleted);
    expect(page).not.toContain(">Make it again<");
    expect(page).not.toContain("Make it again to get a new one");
    const before = await jobCount();
    const remade = await api(`/v2/pdf-jobs/${row.id}/remake`, { method: "POST", token: managerToken });
    expect(remade.status).toBe(409);
    expect(((await remade.json()) as { message: string }).message).toBe(PDF_JOB_MESSAGES.remakePlanDeleted);
    const screen = await request(`/pdf-jobs/${row.id}`, { method: "POST", cookie, body: new URLSearchParams([["intent", "remake"]]), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(screen.status).toBe(409);
    expect(await screen.text()).toContain(PDF_JOB_MESSAGES.remakePlanDeleted);
    expect(await jobCount()).toBe(before);
    const download = await api(`/v2/pdf-jobs/${row.id}/download`, { token: managerToken });
    expect(download.status).toBe(409);
    expect(((await download.json()) as { message: string }).message).toBe(PDF_JOB_MESSAGES.planDeleted);
  });

  it("a plan undeleted by a database repair (no screen restores one) can be retried again, and the retry makes the PDF", async () => {
    const w = await ownPlan();
    const row = await jobFor(w, "plan", manager.id);
    await db().update(bips).set({ deletedAt: new Date().toISOString() }).where(eq(bips.id, w.bip.id));
    await deliver(row.id, ["e1"]);
    expect((await api(`/v2/pdf-jobs/${row.id}/retry`, { method: "POST", token: managerToken })).status).toBe(409);
    await db().update(bips).set({ deletedAt: null }).where(eq(bips.id, w.bip.id));
    expect(await (await request(`/pdf-jobs/${row.id}`, { cookie: await signInCookie(manager) })).text()).toContain(">Retry<");
    expect((await api(`/v2/pdf-jobs/${row.id}/retry`, { method: "POST", token: managerToken })).status).toBe(202);
    expect((await settled(row.id)).status).toBe("done");
  });

  // [case, kind, what is deleted]
  it.each<[string, "plan" | "weekly_report", "bip" | "goal"]>([
    ["a plan PDF whose BIP was deleted", "plan", "bip"],
    ["a goal PDF whose goal was deleted", "weekly_report", "goal"],
    ["a goal PDF whose BIP was deleted", "weekly_report", "bip"],
  ])("%s: share and download refused (409), the status page offers neither, an earlier share of the plan leaves the portal with its BIP", async (_label, kind, deleted) => {
    const w = await ownPlan();
    const parent = await createParent();
    await db().update(patients).set({ parentId: parent.id }).where(eq(patients.id, w.patient.id));
    // Only a plan PDF is shared (decision 041, stop 38): the earlier share is of the plan's PDF.
    const shared = await jobFor(w, "plan", manager.id);
    const unshared = await jobFor(w, kind, manager.id);
    for (const id of [shared.id, unshared.id]) expect((await settled(id)).status).toBe("done");
    expect((await api(`/v2/pdf-jobs/${shared.id}/share`, { method: "POST", token: managerToken })).status).toBe(200);
    const parentCookie = await signInCookie(parent, true);
    const [doc] = await db().select().from(sharedDocuments).where(eq(sharedDocuments.pdfJobId, shared.id));
    expect((await settled(doc!.familyJobId!)).status).toBe("done");
    expect(await (await request(`/portal/child/${w.patient.id}`, { cookie: parentCookie })).text()).toContain(`/portal/documents/${doc!.id}`);

    if (deleted === "bip") expect((await api(`/v2/bips/${w.bip.id}`, { method: "DELETE", token: managerToken })).status).toBe(200);
    else await db().update(plans).set({ deletedAt: new Date().toISOString() }).where(eq(plans.id, w.goal.id));

    const share = await api(`/v2/pdf-jobs/${unshared.id}/share`, { method: "POST", token: managerToken });
    expect(share.status).toBe(409);
    // A goal's PDF is never shared, deleted or not.
    expect(((await share.json()) as { message: string }).message).toBe(kind === "plan" ? PDF_JOB_MESSAGES.planDeleted : PDF_JOB_MESSAGES.notPlan);
    expect(await db().select().from(sharedDocuments).where(eq(sharedDocuments.pdfJobId, unshared.id))).toHaveLength(0);
    const download = await api(`/v2/pdf-jobs/${unshared.id}/download`, { token: managerToken });
    expect(download.status).toBe(409);
    expect(((await download.json()) as { message: string }).message).toBe(PDF_JOB_MESSAGES.planDeleted);
    const status = (await (await api(`/v2/pdf-jobs/${unshared.id}`, { token: managerToken })).json()) as { data: Job & { plan_deleted: boolean } };
    expect(status.data).toMatchObject({ status: "done", download_url: null, plan_deleted: true });

    const cookie = await signInCookie(manager);
    const screenDownload = await request(`/pdf-jobs/${unshared.id}/download`, { cookie });
    expect(screenDownload.status).toBe(303);
    expect(screenDownload.headers.get("Location")).toBe(`/pdf-jobs/${unshared.id}`);
    const page = await (await request(`/pdf-jobs/${unshared.id}`, { cookie })).text();
    expect(page).toContain(PDF_JOB_MESSAGES.planDeleted);
    expect(page).not.toContain("Download PDF");
    expect(page).not.toContain("Share with parents");
    expect(page).not.toContain(kind === "plan" ? `/bip/profile/${w.bip.id}` : `/bip/goal/${w.goal.id}`);
    const screenShare = await request(`/pdf-jobs/${unshared.id}`, { method: "POST", cookie, body: new URLSearchParams([["intent", "share"]]), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(screenShare.status).toBe(409);
    expect(await db().select().from(sharedDocuments).where(eq(sharedDocuments.pdfJobId, unshared.id))).toHaveLength(0);

    // The family's earlier share of the plan: no longer listed once the BIP is deleted, and its address answers 404.
    const listed = (await (await request(`/portal/child/${w.patient.id}`, { cookie: parentCookie })).text()).includes(`/portal/documents/${doc!.id}`);
    expect(listed).toBe(deleted === "goal");
    expect((await request(`/portal/documents/${doc!.id}`, { cookie: parentCookie })).status).toBe(deleted === "goal" ? 200 : 404);
  });
});

describe("stop sharing a PDF with the parents (decision 041, stop 29)", () => {
  it("the screen and the API revoke the share: the parent's portal no longer lists or serves it, audited, and sharing again works", async () => {
    const patient = await createPatient({ locationId: location.id, firstName: "Ivo" });
    const parent = await createParent();
    await db().update(patients).set({ parentId: parent.id }).where(eq(patients.id, patient.id));
    const ownBip = await createBip(patient, { document: JSON.stringify({ policy: "Clinic policy." }) });
    const job = (await db().insert(pdfJobs).values({ id: crypto.randomUUID(), kind: "plan", patientId: patient.id, bipId: ownBip.id, params: JSON.stringify({ sections: ["policy"], months: 6 }), requestedBy: manager.id }).returning())[0]!;
    expect((await settled(job.id)).status).toBe("done");
    expect((await api(`/v2/pdf-jobs/${job.id}/share`, { method: "POST", token: managerToken })).status).toBe(200);
    const parentCookie = await signInCookie(parent, true);
    const [doc] = await db().select().from(sharedDocuments).where(eq(sharedDocuments.pdfJobId, job.id));
    expect((await settled(doc!.familyJobId!)).status).toBe("done");
    expect((await request(`/portal/documents/${doc!.id}`, { cookie: parentCookie })).status).toBe(200);

    // view_bips alone may not stop it (403), another location's user gets 404; nothing changes.
    expect((await api(`/v2/pdf-jobs/${job.id}/share`, { method: "DELETE", token })).status).toBe(403);
    const outsider = await apiToken(await createUser({ permissions: ["view_bips", "manage_bips"], locations: [other.id] }));
    expect((await api(`/v2/pdf-jobs/${job.id}/share`, { method: "DELETE", token: outsider })).status).toBe(404);
    expect((await db().select().from(sharedDocuments).where(eq(sharedDocuments.pdfJobId, job.id)))[0]!.revokedAt).toBeNull();

    // The screen, without JavaScript: the manager sees "Stop sharing" beside the share.
    const cookie = await signInCookie(manager);
    expect(await (await request(`/pdf-jobs/${job.id}`, { cookie })).text()).toContain(">Stop sharing<");
    expect(await (await request(`/pdf-jobs/${job.id}`, { cookie: await signInCookie(viewer) })).text()).not.toContain(">Stop sharing<");
    const stop = await request(`/pdf-jobs/${job.id}`, { method: "POST", cookie, body: new URLSearchParams([["intent", "unshare"]]), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(stop.status).toBe(303);
    const after = await (await request(stop.headers.get("Location")!, { cookie })).text();
    expect(after).toContain("This PDF is no longer shared with the client&#x27;s parents.");
    expect(after).toContain("Share with parents");
    expect((await db().select().from(sharedDocuments).where(eq(sharedDocuments.pdfJobId, job.id)))[0]!.revokedAt).not.toBeNull();
    const [row] = await db().select().from(auditLog).where(and(eq(auditLog.action, "delete"), eq(auditLog.entity, "shared_document"), eq(auditLog.entityId, job.id)));
    expect(row).toMatchObject({ actorId: manager.id, patientId: patient.id });

    // The family no longer sees it; the API says it is not shared, and a second stop changes nothing.
    expect(await (await request(`/portal/child/${patient.id}`, { cookie: parentCookie })).text()).not.toContain(`/portal/documents/${doc!.id}`);
    expect((await request(`/portal/documents/${doc!.id}`, { cookie: parentCookie })).status).toBe(404);
    const again = await api(`/v2/pdf-jobs/${job.id}/share`, { method: "DELETE", token: managerToken });
    expect(again.status).toBe(200);
    expect((await again.json()) as { message: string; data: Job }).toMatchObject({ message: PDF_JOB_MESSAGES.notShared, data: { shared: false } });
    expect(await db().select().from(auditLog).where(and(eq(auditLog.action, "delete"), eq(auditLog.entity, "shared_document"), eq(auditLog.entityId, job.id)))).toHaveLength(1);

    // Shared again: a new share row, the revoked one kept on record.
    expect((await api(`/v2/pdf-jobs/${job.id}/share`, { method: "POST", token: managerToken })).status).toBe(200);
    expect(await db().select().from(sharedDocuments).where(eq(sharedDocuments.pdfJobId, job.id))).toHaveLength(2);
  });
});

describe("the month count is a plain decimal, screen and API (probe 8904 #5, decision 009)", () => {
  const form = (path: string, pairs: [string, string][], cookie: string) =>
    request(path, { method: "POST", cookie, body: new URLSearchParams(pairs), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
  // [where, months as typed]
  it.each<["api plan" | "api goal" | "screen plan" | "screen goal", string]>([
    ["api goal", "0x10"],
    ["api plan", "1e2"],
    ["api goal", "1e1"],
    ["screen goal", "0x10"],
    ["screen goal", "1e1"],
    ["screen plan", "1e2"],
    ["screen plan", "0b11"],
  ])("%s with months %j → 422 'The month count must be a number.', no job", async (where, months) => {
    const before = await jobCount();
    const res =
      where === "api plan"
        ? await api(`/v2/bips/${bip.id}/pdf`, { method: "POST", token, body: { sections: ["policy"], months } })
        : where === "api goal"
          ? await api(`/v2/plans/${goal.id}/pdf`, { method: "POST", token, body: { kind: "weekly_report", months } })
          : where === "screen plan"
            ? await form(`/bip/pdf/${bip.id}`, [["intent", "save"], ["sections", "policy"], ["months", months]], await signInCookie(viewer))
            : await form(`/bip/goal/${goal.id}/pdf`, [["kind", "weekly_report"], ["months", months]], await signInCookie(viewer));
    expect(res.status).toBe(422);
    expect(await res.text()).toContain(PDF_MESSAGES.months);
    expect(await jobCount()).toBe(before);
  });

  it("plain decimal text is still read: ' 12 ' → 12, '2.9' → 2", async () => {
    for (const [months, stored] of [[" 12 ", 12], ["2.9", 2]] as const) {
      const res = await api(`/v2/plans/${goal.id}/pdf`, { method: "POST", token, body: { kind: "weekly_report", months } });
      expect(res.status).toBe(202);
      const { data } = (await res.json()) as { data: { months: number } };
      expect(data.months).toBe(stored);
    }
  });
});

describe("the PDFs run to the end of the client's current week; objectives are labelled as on screen (probe 8952 #3, #4)", () => {
  /** A goal with last week's report and the current week's (the week ending this Saturday at the client's location), an STO and the LTO. */
  async function goalWithCurrentWeek() {
    const patient = await createPatient({ locationId: location.id, firstName: "Leo", lastName: "Park" });
    const plan = await createBip(patient);
    const saturday = weeklyDataRange(todayIn(new Date(), "America/New_York")).latest;
    const spitting = await createPlan(plan, { name: "Spitting", baselineDate: addDays(saturday, -70), baselineLevel: 9 });
    await createObjective(spitting, { name: "Fewer", target: 4, type: "STO", position: 1 });
    await createObjective(spitting, { name: "None at all", target: 0, type: "LTO", position: 2 });
    await db().insert(weeklyReports).values([
      { planId: spitting.id, weekEnd: addDays(saturday, -7), weekStart: addDays(saturday, -13), value: 3 },
      { planId: spitting.id, weekEnd: saturday, weekStart: addDays(saturday, -6), value: 37.5 },
    ]);
    return { plan, spitting, saturday, week: formatChartDate(saturday) };
  }

  async function made(path: string, body: Record<string, unknown>): Promise<string[]> {
    const res = await api(path, { method: "POST", token, body });
    expect(res.status).toBe(202);
    const job = await settled(((await res.json()) as { job_id: string }).job_id);
    expect(job.status, job.error ?? "").toBe("done");
    return (await pdfPages(new Uint8Array(await (await api(`/v2/pdf-jobs/${job.id}/download`, { token })).arrayBuffer()))).flat();
  }

  it("the plan PDF: the Monitoring table's last week and value are the current week's, and the objectives read STO1 and LTO", async () => {
    const { plan, saturday, week } = await goalWithCurrentWeek();
    const text = await made(`/v2/bips/${plan.id}/pdf`, { sections: ["maladaptiveGoals", "monitoringEvaluating"], months: 3 });
    // The chart draws both weeks.
    expect(text).toContain(`2 weeks (${formatChartDate(addDays(saturday, -7))} – ${week})`);
    // Monitoring: Goal, Category (wrapped), Weeks reported, Last week, Last value.
    const row = text.indexOf("Spitting", text.indexOf("Trend per week"));
    expect(text.slice(row, row + 6)).toEqual(["Spitting", "Maladaptive", "behaviors", "2", week, "37.5"]);
    // The objectives table (one rule with the screen and the chart: decision 008).
    // After its label and the five column headers.
    const table = text.indexOf("Objectives");
    expect(text.slice(table + 6, table + 16)).toEqual(["STO1", "Fewer", "4", "—", "not started", "LTO", "None at all", "0", "—", "not started"]);
  });

  it("the goal's weekly-report PDF lists the current week", async () => {
    const { spitting, week } = await goalWithCurrentWeek();
    const text = await made(`/v2/plans/${spitting.id}/pdf`, { kind: "weekly_report", months: 1 });
    expect(text).toContain("Weekly reports (2)");
    const row = text.indexOf(week, text.indexOf("Week ending"));
    expect(text.slice(row, row + 2)).toEqual([week, "37.5"]);
  });
});

describe("the PDFs' 'Generated' date is the client's location's today, not UTC's (stop 33)", () => {
  it.each([
    // 02:30 UTC on 10 March is still 9 March in New York; 20:00 UTC on 9 March is already 10 March in Tokyo.
    ["America/New_York", "2026-03-10T02:30:00Z", "2026-03-09"],
    ["Asia/Tokyo", "2026-03-09T20:00:00Z", "2026-03-10"],
  ])("%s at %s: every kind says Generated %s", async (timeZone, instant, localDay) => {
    const here = await createLocation({ timeZone });
    const requester = await createUser({ permissions: ["view_bips"], locations: [here.id] });
    const ctx = { db: db(), actor: (await getUserActor(db(), requester.id))!, ip: "127.0.0.1", now: () => new Date() };
    // A queue that keeps the job for this test to run at the chosen instant.
    const runner = { env: { DB: env.DB, FILES: env.FILES, PDF_QUEUE: { send: async () => undefined } as unknown as Queue }, waitUntil: () => undefined };
    const plan = await createBip(await createPatient({ locationId: here.id, firstName: "Zoe", lastName: "Time" }));
    const goal = await createPlan(plan, { name: "Pacing" });
    const jobs = [
      await requestPlanPdf(ctx, runner, plan.id, { sections: ["background"], months: "3" }),
      await requestGoalPdf(ctx, runner, goal.id, { kind: "weekly_report", months: "1" }),
      await requestGoalPdf(ctx, runner, goal.id, { kind: "chart_comments", months: "1" }),
    ];
    for (const job of jobs) {
      if (!job.ok) throw new Error("the job was refused");
      expect(await consumePdfJob(env, job.data.id, new Date(instant))).toBe("done");
      const text = (await pdfPages(new Uint8Array(await (await api(`/v2/pdf-jobs/${job.data.id}/download`, { token: await apiToken(requester) })).arrayBuffer()))).flat();
      const at = text.indexOf("Generated");
      expect([job.data.kind, text[at + 1]]).toEqual([job.data.kind, formatChartDate(localDay)]);
    }
  });
});

describe("what a parent receives through a shared PDF (decision 041, stop 38)", () => {
  const form = (path: string, pairs: [string, string][], cookie: string) =>
    request(path, { method: "POST", cookie, body: new URLSearchParams(pairs), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
  const saturday = weekEndingOn(isoDate(new Date()));

  /** A client with a parent, a BIP whose doctor is Elena Moreno, a report writer and an analyst's signature, a charted goal with a comment. */
  async function family(withParent = true) {
    const parent = await createParent();
    const patient = await createPatient({ locationId: location.id, firstName: "Lia", parentId: withParent ? parent.id : null });
    const doctor = await createUser({ name: "Elena", locations: [location.id] });
    await db().update(users).set({ surname: "Moreno" }).where(eq(users.id, doctor.id));
    const document = { policy: "Clinic policy.", report_writer: "Dana Whitfield", consent_to_treatment: { analyst_1: { signature: "Dana Whitfield", signature_date: "2026-11-02" }, parent_guardian: { signature: "Pat Parent", signature_date: "2026-11-03" } } };
    const ownBip = await createBip(patient, { doctorId: doctor.id, document: JSON.stringify(document) });
    const ownGoal = await createPlan(ownBip, { name: "Tantrums", baselineDate: addDays(saturday, -7 * 12), baselineLevel: 9 });
    await db().insert(weeklyReports).values(Array.from({ length: 8 }, (_, i) => ({ planId: ownGoal.id, weekEnd: addDays(saturday, -7 * i), weekStart: addDays(saturday, -7 * i - 6), value: 4 + (i % 3), totalUnits: 20 })));
    await createChartComment(ownGoal, addDays(saturday, -21), "Medication change");
    return { parent, patient, bip: ownBip, goal: ownGoal };
  }
  const planJob = async (w: Awaited<ReturnType<typeof family>>, status = "queued") =>
    (await db().insert(pdfJobs).values({ id: crypto.randomUUID(), kind: "plan", status, patientId: w.patient.id, bipId: w.bip.id, params: JSON.stringify({ sections: ["maladaptiveGoals", "consentToTreatment"], months: 6 }), requestedBy: manager.id }).returning())[0]!;
  const setNarrative = async (on: boolean) => {
    await db().delete(settings).where(eq(settings.key, PORTAL_SHOW_NARRATIVE));
    if (on) await db().insert(settings).values({ key: PORTAL_SHOW_NARRATIVE, value: "true" });
  };
  const familyJobs = async (staffJobId: string) => db().select().from(sharedDocuments).where(eq(sharedDocuments.pdfJobId, staffJobId));

  // [portal_show_narrative, whether the parent's copy prints the chart comment]
  it.each<[boolean, boolean]>([
    [false, false],
    [true, true],
  ])("portal_show_narrative %s: the parent downloads the family copy — comments only when shown, no staff surname — never the staff file", async (narrative, comment) => {
    const w = await family();
    const job = await planJob(w);
    expect((await settled(job.id)).status).toBe("done");
    await setNarrative(narrative);
    try {
      const res = await api(`/v2/pdf-jobs/${job.id}/share`, { method: "POST", token: managerToken });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { message: string; data: Job & { family_copy_status: string | null } };
      expect(body.data.shared).toBe(true);
      // The answer says when the family copy is not ready yet.
      if (body.data.family_copy_status !== "done") expect(body.message).toBe(`${PDF_JOB_MESSAGES.shared} ${PDF_JOB_MESSAGES.familyPreparing}`);
      const [doc] = await familyJobs(job.id);
      const copy = await settled(doc!.familyJobId!);
      expect(copy).toMatchObject({ status: "done", kind: "plan", audience: "family", patientId: w.patient.id });
      expect(copy.fileKey).not.toBe((await jobRow(job.id)).fileKey);
    } catch (e) {
      await setNarrative(false);
      throw e;
    }
    const [doc] = await familyJobs(job.id);
    const parentCookie = await signInCookie(w.parent, true);
    let text: string;
    try {
      expect(await (await request(`/portal/child/${w.patient.id}`, { cookie: parentCookie })).text()).toContain(`/portal/documents/${doc!.id}`);
      const file = await request(`/portal/documents/${doc!.id}`, { cookie: parentCookie });
      expect(file.status).toBe(200);
      text = await pdfText(new Uint8Array(await file.arrayBuffer()));
    } finally {
      await setNarrative(false);
    }
    expect(text).toContain("Tantrums");
    expect(text.includes("Medication change")).toBe(comment);
    expect(text).toContain("Elena");
    expect(text).not.toContain("Moreno");
    expect(text).not.toContain("Whitfield");
    expect(text).toContain("Pat Parent");
    // The staff file keeps what staff asked for.
    const staff = await api(`/v2/pdf-jobs/${job.id}/download`, { token: managerToken });
    const staffText = await pdfText(new Uint8Array(await staff.arrayBuffer()));
    for (const s of ["Medication change", "Elena Moreno", "Dana Whitfield"]) expect(staffText).toContain(s);
  });

  describe("the narrative setting changes after a plan PDF was shared (stop 42)", () => {
    let superadmin: string;
    /** The settings screen's save, as a SUPERADMIN posts it (the other values as the settings tests leave them). */
    const saveSettings = async (narrative: boolean) => {
      superadmin ??= await signInCookie(await createUser({ role: "SUPERADMIN" }));
      const pairs: [string, string][] = [["intent", "save"], ["code_expiry_minutes", "5"], ["idle_minutes", "30"], ["absolute_hours", "12"], ["demo_mode", "true"]];
      const res = await form("/settings", narrative ? [...pairs, ["portal_show_narrative", "on"]] : pairs, superadmin);
      expect(res.status).toBe(303);
      return decodeURIComponent(res.headers.get("Location") ?? "");
    };
    async function sharedCopy() {
      const w = await family();
      const job = await planJob(w);
      expect((await settled(job.id)).status).toBe("done");
      expect((await api(`/v2/pdf-jobs/${job.id}/share`, { method: "POST", token: managerToken })).status).toBe(200);
      const [doc] = await familyJobs(job.id);
      return { w, doc: doc!, copyId: doc!.familyJobId!, parentCookie: await signInCookie(w.parent, true) };
    }
    const served = async (s: Awaited<ReturnType<typeof sharedCopy>>) => {
      const listed = (await (await request(`/portal/child/${s.w.patient.id}`, { cookie: s.parentCookie })).text()).includes(`/portal/documents/${s.doc.id}`);
      const file = await request(`/portal/documents/${s.doc.id}`, { cookie: s.parentCookie });
      expect(listed).toBe(file.status === 200);
      return file.status === 200 ? await pdfText(new Uint8Array(await file.arrayBuffer())) : null;
    };

    it("turning it off hides a copy made with the chart comments at once, and makes it again without them; turning it on makes it again with them", async () => {
      await saveSettings(true);
      try {
        const s = await sharedCopy();
        expect(await settled(s.copyId)).toMatchObject({ status: "done", narrative: 1 });
        expect(await served(s)).toContain("Medication change");

        const audits = (await db().select({ n: count() }).from(auditLog).where(eq(auditLog.entity, "setting")))[0]!.n;
        const flash = await saveSettings(false);
        expect(flash).toContain("being made again under the new setting");
        expect((await db().select({ n: count() }).from(auditLog).where(eq(auditLog.entity, "setting")))[0]!.n).toBe(audits + 1);
        // Until the copy is made again, the parents are served nothing that holds the comments.
        const between = await served(s);
        if (between !== null) expect(between).not.toContain("Medication change");
        expect(await settled(s.copyId)).toMatchObject({ status: "done", narrative: 0 });
        const without = await served(s);
        expect(without).toContain("Tantrums");
        expect(without).not.toContain("Medication change");

        await saveSettings(true);
        expect(await settled(s.copyId)).toMatchObject({ status: "done", narrative: 1 });
        expect(await served(s)).toContain("Medication change");
      } finally {
        await saveSettings(false);
      }
    });

    // [what the copy recorded at render time, the setting now, whether the parents are served it]
    it.each<[number | null, boolean, boolean]>([
      [1, false, false],
      [1, true, true],
      [0, false, true],
      [0, true, true],
      // A copy made before stop 42 recorded nothing: taken as one with the comments.
      [null, false, false],
      [null, true, true],
    ])("a copy made with narrative %s is served while the setting is %s: %s", async (recorded, shown, expected) => {
      const s = await sharedCopy();
      expect((await settled(s.copyId)).status).toBe("done");
      await db().update(pdfJobs).set({ narrative: recorded }).where(eq(pdfJobs.id, s.copyId));
      await setNarrative(shown);
      try {
        expect((await served(s)) !== null).toBe(expected);
      } finally {
        await setNarrative(false);
      }
    });

    it("a queue that refuses the copies made again marks them failed (Retry on the status page), the setting saved", async () => {
      const s = await sharedCopy();
      expect(await settled(s.copyId)).toMatchObject({ status: "done", narrative: 0 });
      const su = await createUser({ role: "SUPERADMIN" });
      const ctx = { db: db(), actor: (await getUserActor(db(), su.id))!, ip: "127.0.0.1", now: () => new Date() };
      const refusing = { env: { DB: env.DB, FILES: env.FILES, PDF_QUEUE: { sendBatch: async () => Promise.reject(new Error("queue down")) } as unknown as Queue }, waitUntil: () => undefined };
      const result = await updateSettings(ctx, refusing, undefined, { code_expiry_minutes: "5", idle_minutes: "30", absolute_hours: "12", demo_mode: "true", portal_show_narrative: "on" });
      try {
        expect(result.ok).toBe(true);
        expect(await jobRow(s.copyId)).toMatchObject({ status: "failed", error: PDF_JOB_MESSAGES.notQueued });
        expect(await served(s)).toBeNull();
      } finally {
        await saveSettings(false);
      }
    });

    it("a revoked share's copy is not made again; a settings save that leaves the narrative alone makes nothing", async () => {
      const s = await sharedCopy();
      expect(await settled(s.copyId)).toMatchObject({ status: "done", narrative: 0 });
      const before = await jobRow(s.copyId);
      expect(await saveSettings(false)).not.toContain("made again");
      expect(await jobRow(s.copyId)).toEqual(before);
      await db().update(sharedDocuments).set({ revokedAt: new Date().toISOString() }).where(eq(sharedDocuments.id, s.doc.id));
      await saveSettings(true);
      try {
        expect(await jobRow(s.copyId)).toEqual(before);
      } finally {
        await saveSettings(false);
      }
    });
  });

  it("the family copy is served only once it is done; another family's parent gets 404; a share made before (no family copy) is neither listed nor served", async () => {
    const w = await family();
    const job = await planJob(w);
    expect((await settled(job.id)).status).toBe("done");
    expect((await api(`/v2/pdf-jobs/${job.id}/share`, { method: "POST", token: managerToken })).status).toBe(200);
    const [doc] = await familyJobs(job.id);
    expect((await settled(doc!.familyJobId!)).status).toBe("done");
    const parentCookie = await signInCookie(w.parent, true);
    expect((await request(`/portal/documents/${doc!.id}`, { cookie: parentCookie })).status).toBe(200);
    // Not done (made again, say): not listed, not served.
    await db().update(pdfJobs).set({ status: "running" }).where(eq(pdfJobs.id, doc!.familyJobId!));
    expect(await (await request(`/portal/child/${w.patient.id}`, { cookie: parentCookie })).text()).not.toContain(`/portal/documents/${doc!.id}`);
    expect((await request(`/portal/documents/${doc!.id}`, { cookie: parentCookie })).status).toBe(404);
    const status = (await (await api(`/v2/pdf-jobs/${job.id}`, { token: managerToken })).json()) as { data: { family_copy_status: string } };
    expect(status.data.family_copy_status).toBe("running");
    expect(await (await request(`/pdf-jobs/${job.id}`, { cookie: await signInCookie(manager) })).text()).toContain(PDF_JOB_MESSAGES.familyPreparing);
    await db().update(pdfJobs).set({ status: "done" }).where(eq(pdfJobs.id, doc!.familyJobId!));

    // Another family's parent.
    const stranger = await family();
    expect((await request(`/portal/documents/${doc!.id}`, { cookie: await signInCookie(stranger.parent, true) })).status).toBe(404);

    // A share row from before stop 38: the staff job's own file, no family copy.
    const old = await planJob(w);
    expect((await settled(old.id)).status).toBe("done");
    const [legacy] = await db().insert(sharedDocuments).values({ patientId: w.patient.id, title: "Behavior plan (PDF, 2026-11-01)", pdfJobId: old.id, sharedBy: manager.id }).returning();
    expect(await (await request(`/portal/child/${w.patient.id}`, { cookie: parentCookie })).text()).not.toContain(`/portal/documents/${legacy!.id}`);
    expect((await request(`/portal/documents/${legacy!.id}`, { cookie: parentCookie })).status).toBe(404);
    // Staff are not told it is shared, and sharing it makes the family copy.
    const shown = (await (await api(`/v2/pdf-jobs/${old.id}`, { token: managerToken })).json()) as { data: Job };
    expect(shown.data.shared).toBe(false);
    expect((await api(`/v2/pdf-jobs/${old.id}/share`, { method: "POST", token: managerToken })).status).toBe(200);
    const fresh = (await familyJobs(old.id)).find((d) => d.familyJobId);
    expect((await settled(fresh!.familyJobId!)).status).toBe("done");
    expect((await request(`/portal/documents/${fresh!.id}`, { cookie: parentCookie })).status).toBe(200);
  });

  // [kind] — a goal's PDF carries units and hours, or nothing but the staff's comments.
  it.each<["weekly_report" | "chart_comments"]>([["weekly_report"], ["chart_comments"]])("a %s PDF cannot be shared: 409, nothing written, screen and API", async (kind) => {
    const w = await family();
    const job = (await db().insert(pdfJobs).values({ id: crypto.randomUUID(), kind, patientId: w.patient.id, bipId: w.bip.id, params: JSON.stringify({ planId: w.goal.id, months: 6 }), requestedBy: manager.id }).returning())[0]!;
    expect((await settled(job.id)).status).toBe("done");
    const jobs = await jobCount();
    const res = await api(`/v2/pdf-jobs/${job.id}/share`, { method: "POST", token: managerToken });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { message: string }).message).toBe(PDF_JOB_MESSAGES.notPlan);
    const cookie = await signInCookie(manager);
    const page = await (await request(`/pdf-jobs/${job.id}`, { cookie })).text();
    expect(page).not.toContain(">Share with parents<");
    expect(page).toContain(PDF_JOB_MESSAGES.notPlan);
    const screen = await form(`/pdf-jobs/${job.id}`, [["intent", "share"]], cookie);
    expect(screen.status).toBe(409);
    expect(await screen.text()).toContain(PDF_JOB_MESSAGES.notPlan);
    expect(await familyJobs(job.id)).toHaveLength(0);
    expect(await jobCount()).toBe(jobs);
  });

  // [the job's status, the answer] — probe 9009 #2: an expired or failed job says what happened.
  it.each<[string, string]>([
    ["expired", PDF_JOB_MESSAGES.expired],
    ["failed", PDF_JOB_MESSAGES.failedShare],
    ["queued", PDF_JOB_MESSAGES.notDone],
    ["running", PDF_JOB_MESSAGES.notDone],
  ])("sharing a %s plan PDF answers 409 with its own message and writes nothing", async (status, message) => {
    const w = await family();
    const job = await planJob(w, status);
    const jobs = await jobCount();
    const res = await api(`/v2/pdf-jobs/${job.id}/share`, { method: "POST", token: managerToken });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { message: string }).message).toBe(message);
    const screen = await form(`/pdf-jobs/${job.id}`, [["intent", "share"]], await signInCookie(manager));
    expect(screen.status).toBe(409);
    expect(await familyJobs(job.id)).toHaveLength(0);
    expect(await jobCount()).toBe(jobs);
  });

  it("a client with no parent in the portal: sharing answers 409 and writes nothing, screen and API", async () => {
    const w = await family(false);
    const job = await planJob(w);
    expect((await settled(job.id)).status).toBe("done");
    const jobs = await jobCount();
    const res = await api(`/v2/pdf-jobs/${job.id}/share`, { method: "POST", token: managerToken });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { message: string }).message).toBe(PDF_JOB_MESSAGES.noParent);
    const screen = await form(`/pdf-jobs/${job.id}`, [["intent", "share"]], await signInCookie(manager));
    expect(screen.status).toBe(409);
    expect(await screen.text()).toContain(PDF_JOB_MESSAGES.noParent);
    expect(await familyJobs(job.id)).toHaveLength(0);
    expect(await jobCount()).toBe(jobs);
    expect(await db().select().from(auditLog).where(and(eq(auditLog.entity, "shared_document"), eq(auditLog.entityId, job.id)))).toHaveLength(0);
  });
});

describe("a job whose worker died mid-render is not lost (decision 041, stop 41)", () => {
  const MINUTE = 60_000;
  /** A job left running by a worker that started it `agoMs` ago (the worker may have died). */
  async function runningJob(agoMs: number, attempts = 1) {
    const startedAt = new Date(Date.now() - agoMs).toISOString();
    const [row] = await db()
      .insert(pdfJobs)
      .values({ id: crypto.randomUUID(), kind: "plan", patientId: bip.patientId, bipId: bip.id, params: JSON.stringify({ sections: ["policy"], months: 6 }), requestedBy: viewer.id, status: "running", attempts, startedAt })
      .returning();
    return row!;
  }
  const status = async (id: string) => ((await (await api(`/v2/pdf-jobs/${id}`, { token })).json()) as { data: Job & { family_copy_status: string | null } }).data;

  it.each([
    ["started a minute ago", 1 * MINUTE, 240],
    ["started 4½ minutes ago", 4.5 * MINUTE, 30],
    ["started just now", 0, 300],
  ])("a delivery of a job still running (%s) goes back to the queue until it would be stale, not acknowledged", async (_label, ago, untilStale) => {
    const row = await runningJob(ago);
    const result = await deliver(row.id, ["r1"]);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toEqual([{ msgId: "r1" }]);
    // The delay the consumer retries with (the pool's result does not record it): until the job would be stale.
    const outcome = await consumePdfJob(env, row.id);
    if (typeof outcome !== "object") throw new Error(`expected running, got ${outcome}`);
    const delay = outcome.retryInSeconds;
    expect(delay).toBeGreaterThanOrEqual(untilStale);
    expect(delay).toBeLessThanOrEqual(untilStale + 10);
    // Nothing changed: the worker that has it may still finish it.
    expect(await jobRow(row.id)).toMatchObject({ status: "running", attempts: 1, startedAt: row.startedAt });
    expect((await status(row.id)).status).toBe("running");
  });

  it("the delivery that comes back after the stale point claims the job and makes it; a later one does nothing", async () => {
    const row = await runningJob(6 * MINUTE);
    const first = await deliver(row.id, ["s1"]);
    expect(first.explicitAcks).toEqual(["s1"]);
    expect(first.retryMessages).toEqual([]);
    const done = await jobRow(row.id);
    expect(done).toMatchObject({ status: "done", attempts: 2 });
    const again = await deliver(row.id, ["s2", "s3"]);
    expect(again.explicitAcks.sort()).toEqual(["s2", "s3"]);
    expect(again.retryMessages).toEqual([]);
    expect(await jobRow(row.id)).toMatchObject({ status: "done", attempts: 2, finishedAt: done.finishedAt });
  });

  it("past the stale point the API and the status page show the job failed with Retry; Retry makes it once", async () => {
    const row = await runningJob(6 * MINUTE);
    expect(await status(row.id)).toMatchObject({ status: "failed", error: PDF_JOB_MESSAGES.stalled, download_url: null });
    const cookie = await signInCookie(viewer);
    const page = await request(`/pdf-jobs/${row.id}`, { cookie });
    expect(page.headers.get("Refresh")).toBeNull();
    const html = await page.text();
    expect(html).toContain(PDF_JOB_MESSAGES.stalled);
    expect(html).toContain(">Retry<");
    expect(html).not.toContain("Please wait…");
    // Retry queues it again, keeping its attempt number (a slow old worker cannot finish over the new claim).
    const retry = await api(`/v2/pdf-jobs/${row.id}/retry`, { method: "POST", token });
    expect(retry.status).toBe(202);
    expect(((await retry.json()) as { data: Job }).data).toMatchObject({ status: "queued", attempts: 1 });
    const done = await settled(row.id);
    expect(done).toMatchObject({ status: "done", attempts: 2 });
    // The delivery of the crashed run, coming back later, finds it done.
    expect((await deliver(row.id, ["late"])).explicitAcks).toEqual(["late"]);
    expect(await jobRow(row.id)).toMatchObject({ status: "done", attempts: 2, finishedAt: done.finishedAt });
    // A second Retry of a done job is refused.
    expect((await api(`/v2/pdf-jobs/${row.id}/retry`, { method: "POST", token })).status).toBe(409);
  });

  it("a job running for less than the stale limit cannot be retried (409) and still says 'Please wait…'", async () => {
    const row = await runningJob(1 * MINUTE);
    const retry = await api(`/v2/pdf-jobs/${row.id}/retry`, { method: "POST", token });
    expect(retry.status).toBe(409);
    expect(((await retry.json()) as { message: string }).message).toBe(PDF_JOB_MESSAGES.notFailed);
    expect(await jobRow(row.id)).toMatchObject({ status: "running", attempts: 1 });
    const page = await request(`/pdf-jobs/${row.id}`, { cookie: await signInCookie(viewer) });
    expect(page.headers.get("Refresh")).toBe("2");
    expect(await page.text()).toContain("Please wait…");
  });

  it("a shared job's family copy stuck running past the stale limit shows as failed to staff", async () => {
    const [staff] = await db()
      .insert(pdfJobs)
      .values({ id: crypto.randomUUID(), kind: "plan", patientId: bip.patientId, bipId: bip.id, params: JSON.stringify({ sections: ["policy"], months: 6 }), requestedBy: manager.id, status: "done", fileKey: "pdf-jobs/x.pdf", fileSize: 1, finishedAt: new Date().toISOString() })
      .returning();
    const family = await runningJob(6 * MINUTE);
    await db().update(pdfJobs).set({ audience: "family" }).where(eq(pdfJobs.id, family.id));
    await db().insert(sharedDocuments).values({ patientId: bip.patientId, title: "Behavior plan (PDF)", pdfJobId: staff!.id, familyJobId: family.id, sharedBy: manager.id });
    expect((await status(staff!.id)).family_copy_status).toBe("failed");
    await db().update(pdfJobs).set({ startedAt: new Date().toISOString() }).where(eq(pdfJobs.id, family.id));
    expect((await status(staff!.id)).family_copy_status).toBe("running");
  });
});
