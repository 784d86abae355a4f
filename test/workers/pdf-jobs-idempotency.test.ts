import { env } from "cloudflare:test";
import { and, count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, pdfJobs } from "~/db/schema";
import { addDays, isoDate, weekEndingOn } from "~/domain/weeks";
import { consumePdfJob, PDF_JOB_MESSAGES } from "~/models/pdf-jobs.server";
import { appFetch } from "./app-fetch";
import { apiToken, BASE, createBip, createLocation, createPatient, createPlan, createUser, db, request, signInCookie, type TestUser } from "./helpers";

/**
 * A repeated PDF request makes one job (decision 041, stop 39): the chooser forms carry a one-time `form_token`, the
 * API's requests take the `Idempotency-Key` header (app/services/idempotency.server.ts, as the notes do). A resend
 * answers the job the first request made — one pdf_jobs row, one render, one R2 file of PHI.
 */

let viewer: TestUser;
let colleague: TestUser;
let token: string;
let colleagueToken: string;
let bip: { id: number; patientId: number };
let goal: { id: number };

/** The client's jobs, once the queue has finished each (the pool's queue, and the consumer run here too). */
async function settledJobs(): Promise<(typeof pdfJobs.$inferSelect)[]> {
  for (let i = 0; i < 200; i++) {
    const rows = await db().select().from(pdfJobs).where(eq(pdfJobs.patientId, bip.patientId));
    const pending = rows.filter((r) => r.status === "queued" || r.status === "running");
    if (!pending.length) return rows;
    await Promise.all(pending.map((r) => consumePdfJob(env, r.id).catch(() => undefined)));
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("jobs still pending");
}

/** pdf_jobs rows of the client and R2 files of those jobs, after the queue settled. */
async function counts(): Promise<{ jobs: number; files: number }> {
  const rows = await settledJobs();
  const listed = await env.FILES!.list({ prefix: "pdf-jobs/" });
  // Each attempt's object is pdf-jobs/<job>/<attempt>.pdf (decision 041, stop 43): count the objects of these jobs.
  const ids = new Set(rows.map((r) => r.id));
  return { jobs: rows.length, files: listed.objects.filter((o) => ids.has(o.key.split("/")[1]!)).length };
}

async function auditCreates(): Promise<number> {
  const [row] = await db()
    .select({ n: count() })
    .from(auditLog)
    .where(and(eq(auditLog.entity, "pdf_job"), eq(auditLog.action, "create"), eq(auditLog.patientId, bip.patientId)));
  return row!.n;
}

function apiPost(path: string, body: unknown, bearer = token, key?: string): Promise<Response> {
  const headers = new Headers({ Accept: "application/json", "Content-Type": "application/json", Authorization: `Bearer ${bearer}` });
  if (key) headers.set("Idempotency-Key", key);
  return appFetch(`${BASE}/api${path}`, { method: "POST", headers, body: JSON.stringify(body) });
}

type Accepted = { job_id: string; status: string; message?: string; data: { id: string; sections: string[] | null; months: number; kind: string; plan_id: number | null; bip_id: number; patient_id: number } };

const post = (path: string, pairs: [string, string][], cookie: string) =>
  request(path, { method: "POST", cookie, body: new URLSearchParams(pairs), headers: { "Content-Type": "application/x-www-form-urlencoded" } });

/** The hidden one-time token of the form on a page. */
function formTokenIn(html: string): string {
  const m = /<input[^>]*name="form_token"[^>]*value="([^"]+)"/.exec(html) ?? /<input[^>]*value="([^"]+)"[^>]*name="form_token"/.exec(html);
  if (!m) throw new Error("no form_token on the page");
  return m[1]!;
}

beforeAll(async () => {
  const location = await createLocation();
  viewer = await createUser({ permissions: ["view_bips"], locations: [location.id] });
  colleague = await createUser({ permissions: ["view_bips"], locations: [location.id] });
  token = await apiToken(viewer);
  colleagueToken = await apiToken(colleague);
  // Ids that differ between the client (2), the BIP (3) and the goal (4): a mix-up of them shows.
  const spare = await createPatient({ locationId: location.id });
  const patient = await createPatient({ locationId: location.id });
  const spareBip = await createBip(spare);
  await createBip(spare);
  for (let i = 0; i < 3; i++) await createPlan(spareBip, { name: `Spare ${i}` });
  bip = await createBip(patient, { document: JSON.stringify({ policy: "Clinic policy." }) });
  expect(new Set([patient.id, bip.id]).size).toBe(2);
  goal = await createPlan(bip, { name: "Aggression", baselineDate: addDays(weekEndingOn(isoDate(new Date())), -7 * 10), baselineLevel: 5 });
});

describe("the screens without JavaScript: a resend of the same form makes one job", () => {
  it("Save PDF sent twice with the chooser's token: one job, one file, both answers open it", async () => {
    const cookie = await signInCookie(viewer);
    const formToken = formTokenIn(await (await request(`/bip/pdf/${bip.id}`, { cookie })).text());
    const before = await counts();
    const creates = await auditCreates();
    const fields: [string, string][] = [["form_token", formToken], ["intent", "save"], ["sections", "policy"], ["months", "6"]];
    const first = await post(`/bip/pdf/${bip.id}`, fields, cookie);
    const again = await post(`/bip/pdf/${bip.id}`, fields, cookie);
    expect(first.status).toBe(303);
    expect(again.status).toBe(303);
    expect(first.headers.get("Location")).toMatch(/^\/pdf-jobs\/[0-9a-f-]{36}$/);
    expect(again.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(await counts()).toEqual({ jobs: before.jobs + 1, files: before.files + 1 });
    expect(await auditCreates()).toBe(creates + 1);
    // Once the job is done, a late resend still opens it.
    const late = await post(`/bip/pdf/${bip.id}`, fields, cookie);
    expect(late.headers.get("Location")).toBe(first.headers.get("Location"));
    // A new load of the form is a new token: another PDF.
    const next = formTokenIn(await (await request(`/bip/pdf/${bip.id}`, { cookie })).text());
    expect(next).not.toBe(formToken);
    const other = await post(`/bip/pdf/${bip.id}`, [["form_token", next], ["intent", "save"], ["sections", "policy"], ["months", "6"]], cookie);
    expect(other.headers.get("Location")).not.toBe(first.headers.get("Location"));
    expect((await counts()).jobs).toBe(before.jobs + 2);
  });

  it("the token is kept when the chooser is shown again (a toggle, no section chosen), so the corrected form is still one job", async () => {
    const cookie = await signInCookie(viewer);
    const formToken = formTokenIn(await (await request(`/bip/pdf/${bip.id}`, { cookie })).text());
    const toggled = await post(`/bip/pdf/${bip.id}`, [["form_token", formToken], ["intent", "select-none"], ["months", "6"]], cookie);
    expect(formTokenIn(await toggled.text())).toBe(formToken);
    const before = await counts();
    const refused = await post(`/bip/pdf/${bip.id}`, [["form_token", formToken], ["intent", "save"], ["months", "6"]], cookie);
    expect(refused.status).toBe(422);
    expect(formTokenIn(await refused.text())).toBe(formToken);
    const fixed: [string, string][] = [["form_token", formToken], ["intent", "save"], ["sections", "background"], ["months", "6"]];
    const saved = await post(`/bip/pdf/${bip.id}`, fixed, cookie);
    const resent = await post(`/bip/pdf/${bip.id}`, fixed, cookie);
    expect(saved.status).toBe(303);
    expect(resent.headers.get("Location")).toBe(saved.headers.get("Location"));
    expect((await counts()).jobs).toBe(before.jobs + 1);
  });

  it("the goal's PDF form: two posts with one token make one job; a refused month count keeps the token", async () => {
    const cookie = await signInCookie(viewer);
    const formToken = formTokenIn(await (await request(`/bip/goal/${goal.id}/pdf`, { cookie })).text());
    const before = await counts();
    const bad = await post(`/bip/goal/${goal.id}/pdf`, [["form_token", formToken], ["kind", "weekly_report"], ["months", "lots"]], cookie);
    expect(bad.status).toBe(422);
    expect(formTokenIn(await bad.text())).toBe(formToken);
    const fields: [string, string][] = [["form_token", formToken], ["kind", "weekly_report"], ["months", "3"]];
    const [a, b] = [await post(`/bip/goal/${goal.id}/pdf`, fields, cookie), await post(`/bip/goal/${goal.id}/pdf`, fields, cookie)];
    expect(a.status).toBe(303);
    expect(b.headers.get("Location")).toBe(a.headers.get("Location"));
    expect(await counts()).toEqual({ jobs: before.jobs + 1, files: before.files + 1 });
  });

  it("two posts of one form at once (a double click): one job, both open it", async () => {
    const cookie = await signInCookie(viewer);
    const formToken = formTokenIn(await (await request(`/bip/pdf/${bip.id}`, { cookie })).text());
    const before = await counts();
    const fields: [string, string][] = [["form_token", formToken], ["intent", "save"], ["sections", "policy"], ["months", "2"]];
    const answers = await Promise.all([post(`/bip/pdf/${bip.id}`, fields, cookie), post(`/bip/pdf/${bip.id}`, fields, cookie)]);
    expect(answers.map((r) => r.status)).toEqual([303, 303]);
    expect(answers[1]!.headers.get("Location")).toBe(answers[0]!.headers.get("Location"));
    expect(await counts()).toEqual({ jobs: before.jobs + 1, files: before.files + 1 });
  });

  it("another user's post of a used token makes nothing and opens no job of theirs", async () => {
    const cookie = await signInCookie(viewer);
    const formToken = formTokenIn(await (await request(`/bip/pdf/${bip.id}`, { cookie })).text());
    const fields: [string, string][] = [["form_token", formToken], ["intent", "save"], ["sections", "policy"], ["months", "6"]];
    expect((await post(`/bip/pdf/${bip.id}`, fields, cookie)).status).toBe(303);
    const before = await counts();
    const theirs = await post(`/bip/pdf/${bip.id}`, fields, await signInCookie(colleague));
    expect(theirs.status).toBe(422);
    expect(await theirs.text()).toContain(PDF_JOB_MESSAGES.formUsed);
    expect(await counts()).toEqual(before);
  });
  it("a resend after the job failed opens the failed job (its page offers Retry), and makes nothing", async () => {
    const cookie = await signInCookie(viewer);
    const formToken = formTokenIn(await (await request(`/bip/pdf/${bip.id}`, { cookie })).text());
    const id = crypto.randomUUID();
    // The job this form made, failed since (no queue message is left to claim it).
    await db().insert(pdfJobs).values({ id, kind: "plan", patientId: bip.patientId, bipId: bip.id, params: JSON.stringify({ sections: ["policy"], months: 6 }), status: "failed", error: PDF_JOB_MESSAGES.renderFailed, requestedBy: viewer.id, formToken });
    const before = await counts();
    const resent = await post(`/bip/pdf/${bip.id}`, [["form_token", formToken], ["intent", "save"], ["sections", "policy"], ["months", "6"]], cookie);
    expect(resent.status).toBe(303);
    expect(resent.headers.get("Location")).toBe(`/pdf-jobs/${id}`);
    expect(await (await request(`/pdf-jobs/${id}`, { cookie })).text()).toContain(">Retry<");
    expect(await counts()).toEqual(before);
  });
});

describe("the API's Idempotency-Key", () => {
  it("the same key and body twice: one job, the same answer (202, the job's JSON)", async () => {
    const before = await counts();
    const key = crypto.randomUUID();
    const first = await apiPost(`/v2/bips/${bip.id}/pdf`, { sections: ["policy"], months: 4 }, token, key);
    expect(first.status).toBe(202);
    const a = (await first.json()) as Accepted;
    const second = await apiPost(`/v2/bips/${bip.id}/pdf`, { months: 4, sections: ["policy"] }, token, key);
    expect(second.status).toBe(202);
    const b = (await second.json()) as Accepted;
    expect(b.job_id).toBe(a.job_id);
    expect(b.data).toMatchObject({ id: a.job_id, sections: ["policy"], months: 4, kind: "plan", bip_id: bip.id, patient_id: bip.patientId });
    expect(b.message).toBe(PDF_JOB_MESSAGES.alreadyRequested);
    expect(await counts()).toEqual({ jobs: before.jobs + 1, files: before.files + 1 });
    // After the render, the resend answers the job as it is now: done, with its download.
    const third = (await (await apiPost(`/v2/bips/${bip.id}/pdf`, { sections: ["policy"], months: 4 }, token, key)).json()) as Accepted & { data: { download_url: string | null } };
    expect(third).toMatchObject({ job_id: a.job_id, status: "done" });
    expect(third.data.download_url).toBe(`/api/v2/pdf-jobs/${a.job_id}/download`);
    expect((await counts()).jobs).toBe(before.jobs + 1);
  });

  it.each([
    ["a plan PDF", () => `/v2/bips/${bip.id}/pdf`, { sections: ["policy"] }, { sections: ["background"] }],
    ["a goal's PDF", () => `/v2/plans/${goal.id}/pdf`, { kind: "weekly_report", months: 2 }, { kind: "chart_comments", months: 2 }],
  ])("%s: the same key with another body → 422, nothing written; the first body still answers its job", async (_what, path, body, otherBody) => {
    const key = crypto.randomUUID();
    const first = (await (await apiPost(path(), body, token, key)).json()) as Accepted;
    const before = await counts();
    const creates = await auditCreates();
    const reused = await apiPost(path(), otherBody, token, key);
    expect(reused.status).toBe(422);
    expect(((await reused.json()) as { message: string }).message).toBe("This Idempotency-Key was already used for a different PDF.");
    expect(await counts()).toEqual(before);
    expect(await auditCreates()).toBe(creates);
    const again = (await (await apiPost(path(), body, token, key)).json()) as Accepted;
    expect(again.job_id).toBe(first.job_id);
  });

  it("another user's request with the same key is their own job; so is the key on another plan", async () => {
    const key = crypto.randomUUID();
    const before = await counts();
    const mine = (await (await apiPost(`/v2/bips/${bip.id}/pdf`, { sections: ["policy"] }, token, key)).json()) as Accepted;
    const theirsRes = await apiPost(`/v2/bips/${bip.id}/pdf`, { sections: ["policy"] }, colleagueToken, key);
    expect(theirsRes.status).toBe(202);
    const theirs = (await theirsRes.json()) as Accepted;
    expect(theirs.job_id).not.toBe(mine.job_id);
    const goalJob = (await (await apiPost(`/v2/plans/${goal.id}/pdf`, { kind: "weekly_report" }, token, key)).json()) as Accepted;
    expect(goalJob.job_id).not.toBe(mine.job_id);
    expect(goalJob.data).toMatchObject({ plan_id: goal.id, bip_id: bip.id, patient_id: bip.patientId });
    expect(await counts()).toEqual({ jobs: before.jobs + 3, files: before.files + 3 });
    const rows = await db().select({ id: pdfJobs.id, requestedBy: pdfJobs.requestedBy }).from(pdfJobs).where(eq(pdfJobs.id, theirs.job_id));
    expect(rows[0]!.requestedBy).toBe(colleague.id);
  });

  it("two requests at once with one key: one job, both answered with it", async () => {
    const key = crypto.randomUUID();
    const before = await counts();
    const answers = await Promise.all([0, 1, 2].map(() => apiPost(`/v2/bips/${bip.id}/pdf`, { sections: ["policy"], months: 5 }, token, key)));
    expect(answers.map((r) => r.status)).toEqual([202, 202, 202]);
    const ids = new Set(await Promise.all(answers.map(async (r) => ((await r.json()) as Accepted).job_id)));
    expect(ids.size).toBe(1);
    expect(await counts()).toEqual({ jobs: before.jobs + 1, files: before.files + 1 });
  });

  it("two requests at once with one key and other bodies: one job lands, the other is 422", async () => {
    const key = crypto.randomUUID();
    const before = await counts();
    const answers = await Promise.all([["policy"], ["background"]].map((sections) => apiPost(`/v2/bips/${bip.id}/pdf`, { sections }, token, key)));
    expect(answers.map((r) => r.status).sort()).toEqual([202, 422]);
    expect(await counts()).toEqual({ jobs: before.jobs + 1, files: before.files + 1 });
  });

  it("a job that expired since: the resend answers it as it is ('Make it again' is the user's next step)", async () => {
    const key = crypto.randomUUID();
    const first = (await (await apiPost(`/v2/bips/${bip.id}/pdf`, { sections: ["policy"] }, token, key)).json()) as Accepted;
    await counts();
    await db().update(pdfJobs).set({ status: "expired", expiredAt: new Date().toISOString() }).where(eq(pdfJobs.id, first.job_id));
    const before = await counts();
    const again = await apiPost(`/v2/bips/${bip.id}/pdf`, { sections: ["policy"] }, token, key);
    expect(again.status).toBe(202);
    expect((await again.json()) as Accepted).toMatchObject({ job_id: first.job_id, status: "expired" });
    expect(await counts()).toEqual(before);
  });

  it("without a key every request is a job of its own, as before", async () => {
    const before = await counts();
    await apiPost(`/v2/bips/${bip.id}/pdf`, { sections: ["policy"] });
    await apiPost(`/v2/bips/${bip.id}/pdf`, { sections: ["policy"] });
    expect((await counts()).jobs).toBe(before.jobs + 2);
  });
});
