import { Hono, type Context } from "hono";
import { getPdfJob, openPdfDownload, remakePdfJob, requestGoalPdf, requestPlanPdf, retryPdfJob, sharePdfJob, unsharePdfJob, type JobRunner } from "~/models/pdf-jobs.server";
import { idempotencyKey } from "~/services/idempotency.server";
import { jsonError, readBody, requireApiPermission, type AppEnv } from "./env";
import { answer, modelContext, pathId, refuseOtherMethods } from "./rest";

/**
 * PDF jobs (decision 041), mounted at /api/v2:
 * - POST /v2/bips/:id/pdf {sections, months} — the plan (BIP) PDF of the chosen sections → 202 {job_id, status};
 * - POST /v2/plans/:id/pdf {kind: weekly_report | chart_comments, months} — a goal's PDF → 202;
 * - GET /v2/pdf-jobs/:id — the job's status; GET /v2/pdf-jobs/:id/download — the PDF (from R2);
 * - POST /v2/pdf-jobs/:id/retry — a failed job queued again; POST /v2/pdf-jobs/:id/share — a plan PDF shared with the
 *   parents through its family copy (409 for a goal's PDF, an unfinished, expired or failed one, a client with no
 *   parent; DELETE: no longer shared);
 * - POST /v2/pdf-jobs/:id/remake — an expired job (its file deleted after 30 days) made again as a NEW job
 *   with the same params → 202 with the new job (409 unless expired). A download of an expired job is 409.
 * view_bips for all (share: manage_bips or manage_clients, checked by the model); another location's record is 404,
 * bad input 422 with errors by field. The two requests take the `Idempotency-Key` header, scoped to the user and the
 * BIP or goal: a resend with the same body answers the first job (202), with another body 422 (nothing written).
 */
function runner(c: Context<AppEnv>): JobRunner {
  return { env: c.env, waitUntil: (p) => c.executionCtx.waitUntil(p) };
}

function accepted<T extends { job_id: string; status: string }>(c: Context<AppEnv>, data: T, message?: string) {
  return c.json({ job_id: data.job_id, status: data.status, data, ...(message ? { message } : {}) }, 202);
}

export const pdfJobsApi = new Hono<AppEnv>()
  .post("/bips/:id/pdf", requireApiPermission("view_bips"), async (c) => {
    const body = await readBody(c);
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, "BIP not found.");
    const result = await requestPlanPdf(modelContext(c), runner(c), id, body, { idempotencyKey: idempotencyKey(c.req.raw.headers) });
    return result.ok ? accepted(c, result.data, result.message) : answer(c, result);
  })
  .post("/plans/:id/pdf", requireApiPermission("view_bips"), async (c) => {
    const body = await readBody(c);
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, "Plan not found.");
    const result = await requestGoalPdf(modelContext(c), runner(c), id, body, { idempotencyKey: idempotencyKey(c.req.raw.headers) });
    return result.ok ? accepted(c, result.data, result.message) : answer(c, result);
  })
  .get("/pdf-jobs/:id", requireApiPermission("view_bips"), async (c) => {
    const job = await getPdfJob(modelContext(c), c.req.param("id"));
    return job ? c.json({ data: job }) : jsonError(c, 404, "PDF job not found.");
  })
  .get("/pdf-jobs/:id/download", requireApiPermission("view_bips"), async (c) => {
    const result = await openPdfDownload(modelContext(c), c.env.FILES, c.req.param("id"));
    if (!result.ok) return answer(c, result);
    return new Response(result.data.body, {
      headers: {
        "Content-Type": "application/pdf",
        "Content-Disposition": `attachment; filename="${result.data.filename}"`,
        "Content-Length": String(result.data.size),
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  })
  .post("/pdf-jobs/:id/retry", requireApiPermission("view_bips"), async (c) => {
    const result = await retryPdfJob(modelContext(c), runner(c), c.req.param("id"));
    return result.ok ? accepted(c, result.data, result.message) : answer(c, result);
  })
  .post("/pdf-jobs/:id/remake", requireApiPermission("view_bips"), async (c) => {
    const result = await remakePdfJob(modelContext(c), runner(c), c.req.param("id"));
    return result.ok ? accepted(c, result.data, result.message) : answer(c, result);
  })
  .post("/pdf-jobs/:id/share", requireApiPermission("view_bips"), async (c) => {
    return answer(c, await sharePdfJob(modelContext(c), runner(c), c.req.param("id")));
  })
  .delete("/pdf-jobs/:id/share", requireApiPermission("view_bips"), async (c) => {
    return answer(c, await unsharePdfJob(modelContext(c), c.req.param("id")));
  });

refuseOtherMethods(pdfJobsApi, ["/bips/:id/pdf", "/plans/:id/pdf", "/pdf-jobs/:id", "/pdf-jobs/:id/download", "/pdf-jobs/:id/retry", "/pdf-jobs/:id/remake", "/pdf-jobs/:id/share"]);
