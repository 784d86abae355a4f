import { and, asc, eq, inArray, isNotNull, isNull, lt, ne, or, sql } from "drizzle-orm";
import { d1Database, primaryOf, type Db } from "~/db/client.server";
import { locations, patients, pdfJobs, plans, sharedDocuments } from "~/db/schema";
import { typeOfAssessmentLabel } from "~/domain/bip-document";
import { buildChartModel, type ChartModel } from "~/domain/chart";
import { can } from "~/domain/permissions";
import { fillPlaceholders } from "~/domain/placeholders";
import {
  GoalPdfRequest,
  PDF_KIND_LABELS,
  PlanPdfRequest,
  goalPdfDocument,
  pdfFilename,
  planPdfDocument,
  type PdfGoal,
  type PdfKind,
  type PdfSectionKey,
} from "~/domain/plan-pdf";
import { parseWith } from "~/domain/validation";
import { pdfWindow } from "~/domain/weekly-reports";
import { todayIn } from "~/domain/note-rules";
import { zonedDate } from "~/domain/time";
import { auditedRead, auditTail, withAudit, withConditionalAudit } from "~/services/audit.server";
import { idempotencyKeyReused, idempotencyToken, isTokenRace, keyScopeFree, oneTimeToken, rowCells, tokenMatch } from "~/services/idempotency.server";
import { renderPlanPdf } from "~/services/plan-pdf.server";
import { getUserActor } from "./actors.server";
import { bipInScopeQuery, bipScope, findPlanInScope, planInScopeQuery, planScope } from "./bip-scope.server";
import { readBip, shownDocument } from "./bips.server";
import { chartInputsFrom, chartInputsQuery, profileChartsQuery } from "./charts.server";
import type { ModelContext } from "./context";
import { bipDoctorForParent, portalNarrativeOn } from "./parent-view.server";
import { patientScope, who } from "./patients.server";
import { denied, invalid, notFound, ok, type ModelResult } from "./results";

/**
 * PDF jobs (decision 041): a plan PDF (the 26 sections), or a goal's weekly-report or chart-comment PDF,
 * is requested on a screen or the API, made by the queue consumer (workers/jobs) with pdf-lib, stored in
 * R2 under pdf_jobs.file_key, and downloaded from there. The request checks permission and scope, writes
 * the job row with its audit row, and sends `{kind:"pdf", jobId}` to PDF_QUEUE; without a queue binding
 * the job runs after the response through waitUntil. The consumer claims the job with one conditional
 * UPDATE (queued or failed → running; a running job whose worker vanished over 5 minutes ago may be
 * claimed again), so a second delivery of a job that is running or done does nothing: one render, one
 * file. A render reads the data as the requester (their permission and locations as they are now), as
 * an audited read.
 */

type JobRow = typeof pdfJobs.$inferSelect;

/**
 * How long a running job may go without finishing before its worker is taken to have died (decision 041, stop 41):
 * past it another delivery may claim the job, and every screen and API answer shows it failed (`stalled`) with Retry.
 */
export const STALE_RUNNING_MS = 5 * 60 * 1000;

/** The `started_at` before which a running job is stale at `now` (ISO text, as the column is stored). */
export function staleBefore(now: Date): string {
  return new Date(now.getTime() - STALE_RUNNING_MS).toISOString();
}

/** When a running job started: its claim's stamp (a row written as running without one: its last update). */
const runningSince = (row: Pick<JobRow, "startedAt" | "updatedAt">) => row.startedAt ?? row.updatedAt;

/** A running job whose worker is taken to have died: started over STALE_RUNNING_MS ago. */
function staleRunning(stale: string) {
  return and(eq(pdfJobs.status, "running"), lt(sql`coalesce(${pdfJobs.startedAt}, ${pdfJobs.updatedAt})`, stale));
}

/**
 * A job as everyone is shown it at `now`: a stale running job is failed, with `stalled` (decision 041, stop 41). The
 * one rule for the screens, the API, Retry and a share's refusal; the row itself says running until a claim or a
 * Retry changes it.
 */
export function jobAsSeen<T extends Pick<JobRow, "status" | "startedAt" | "updatedAt" | "error">>(row: T, now: Date): T {
  if (row.status !== "running" || runningSince(row) >= staleBefore(now)) return row;
  return { ...row, status: "failed", error: PDF_JOB_MESSAGES.stalled };
}

/**
 * How long a PDF job's file is kept in R2 after it was made (decision 041): older files are deleted by
 * the scheduled expiry (workers/app.ts), unless the job is shared with the client's parents.
 */
export const PDF_FILE_KEEP_DAYS = 30;
const DAY_MS = 86_400_000;

export const PDF_JOB_MESSAGES = {
  notFound: "PDF job not found.",
  notFailed: "Only a failed PDF can be retried.",
  notDone: "The PDF is not ready yet.",
  shared: "Shared with the client's parents.",
  alreadyShared: "This PDF is already shared with the client's parents.",
  unshared: "This PDF is no longer shared with the client's parents.",
  notShared: "This PDF is not shared with the client's parents.",
  requested: "Your PDF is being prepared.",
  retried: "Your PDF is being prepared again.",
  noAccess: "The person who asked for this PDF no longer has access to this plan.",
  gone: "The plan or goal of this PDF was deleted or is no longer available.",
  renderFailed: "The PDF could not be made. Please try again.",
  /** A job running past STALE_RUNNING_MS: its worker stopped (a crash, a deploy) before the file was made. */
  stalled: "Making the PDF stopped before it was finished. Please try again.",
  noStorage: "File storage is not configured, so the PDF could not be saved.",
  notQueued: "The PDF could not be queued. Please try again.",
  expired: `This PDF was deleted after ${PDF_FILE_KEEP_DAYS} days. Make it again to get a new one.`,
  notExpired: "Only an expired PDF can be made again.",
  /** Retry renders as the requester again: when they lost access it cannot succeed, "Make it again" can. */
  retryNoAccess: "This PDF cannot be retried: the person who asked for it no longer has access to this plan. Make it again to get your own.",
  /** Retry renders the same plan or goal again: once it is deleted (jobPlanLive false) it cannot succeed. */
  retryPlanDeleted: "This PDF cannot be retried: its plan or goal was deleted.",
  notRemakeable: "Only an expired PDF, or one whose requester lost access, can be made again.",
  /** "Make it again" requests the same plan or goal: once it is deleted there is nothing to make. */
  remakePlanDeleted: "This PDF cannot be made again: its plan or goal was deleted.",
  /** A done job whose BIP or goal was deleted since (decision 010: out of scope with its BIP). */
  planDeleted: "The plan or goal of this PDF was deleted, so the PDF can no longer be downloaded or shared.",
  /** Only a plan PDF has a family copy (decision 041, stop 38): the goal PDFs are units and staff comments. */
  notPlan: "Only a behavior plan PDF can be shared with parents: this one carries units and staff comments.",
  /** Sharing a failed job: nothing was made. */
  failedShare: "This PDF could not be made, so it cannot be shared. Retry it (or make it again), then share it.",
  noParent: "This client has no parent or guardian in the portal.",
  /** Said with a share while the family copy is not made yet. */
  familyPreparing: "The family copy is being prepared: the parents will see it on the portal once it is ready.",
  familyFailed: "The family copy could not be made, so the parents do not see it. Stop sharing, then share again.",
  /** A resend of a request (the same form, or the same Idempotency-Key and body) answers the job it made. */
  alreadyRequested: "This PDF was already requested.",
  /** A form token that made another user's job, or another plan's. */
  formUsed: "This form was already used. Open the PDF form again to make another PDF.",
  keyReused: idempotencyKeyReused("PDF"),
} as const;

/**
 * A failure that no retry of the same job can mend, with a message a user may read: the requester lost access
 * (noAccess), the plan or goal is gone (gone), or the deployment has no file storage (noStorage). The consumer marks
 * the job failed and the queue message ends there (acknowledged, not retried). Anything else — a render or D1
 * error — is transient: the job is marked failed with PDF_JOB_MESSAGES.renderFailed and the queue retries it.
 */
export class PdfJobError extends Error {}

interface JobParams {
  sections?: PdfSectionKey[];
  months: number;
  planId?: number;
}

function paramsOf(row: JobRow): JobParams {
  try {
    const p = JSON.parse(row.params) as Partial<JobParams>;
    return { months: Number(p.months) || 6, sections: Array.isArray(p.sections) ? p.sections : undefined, planId: typeof p.planId === "number" ? p.planId : undefined };
  } catch {
    return { months: 6 };
  }
}

/**
 * The job's client, BIP and (for a goal's PDF) goal are still there, not deleted: the one rule for "its plan was
 * deleted" — downloads and shares refuse such a job, the parent portal hides its share, and the consumer tells a
 * deleted plan from a requester who lost access. Written with table names (pdf_jobs unaliased in every query that
 * uses it), since drizzle leaves the columns of a one-table select unqualified.
 */
export const jobPlanLive = sql<number>`(exists (select 1 from patients jp where jp.id = pdf_jobs.patient_id and jp.deleted_at is null)
  and exists (select 1 from bips jb where jb.id = pdf_jobs.bip_id and jb.deleted_at is null)
  and (pdf_jobs.kind = 'plan' or exists (select 1 from plans jg where jg.id = json_extract(pdf_jobs.params, '$.planId') and jg.deleted_at is null)))`;

/**
 * A job as the screens and the API show it: no client data (ids, kind, status, sizes, times). `download_url` is the
 * API's own download, which a Bearer client can follow; the status screen links its session route instead.
 */
export function pdfJobJson(row: JobRow, shared = false, planLive = true, familyCopy: string | null = null) {
  const p = paramsOf(row);
  return {
    id: row.id,
    job_id: row.id,
    kind: row.kind as PdfKind,
    kind_label: PDF_KIND_LABELS[row.kind as PdfKind] ?? row.kind,
    status: row.status as "queued" | "running" | "done" | "failed" | "expired",
    patient_id: row.patientId,
    bip_id: row.bipId,
    plan_id: p.planId ?? null,
    sections: p.sections ?? null,
    months: p.months,
    error: row.error,
    attempts: row.attempts,
    file_size: row.fileSize,
    file_name: pdfFilename(row.kind as PdfKind, row.kind === "plan" ? (row.bipId ?? 0) : (p.planId ?? 0)),
    download_url: row.status === "done" && planLive ? `/api/v2/pdf-jobs/${row.id}/download` : null,
    shared,
    /**
     * While shared: the status of the family copy the parents are served (queued | running | done | failed); they see
     * the document only once it is done (decision 041, stop 38). Null when not shared.
     */
    family_copy_status: shared ? ((familyCopy ?? "queued") as "queued" | "running" | "done" | "failed") : null,
    /** Its BIP or goal was deleted since: no download, no share (decision 010). */
    plan_deleted: !planLive,
    /** An expired job, or a failed one whose requester lost access (Retry cannot succeed, a new job can), of a live plan. */
    remakeable: planLive && (row.status === "expired" || (row.status === "failed" && row.error === PDF_JOB_MESSAGES.noAccess)),
    created_at: row.createdAt,
    finished_at: row.finishedAt,
    /** When the file will be deleted (a done job not shared with parents), or null. */
    file_expires_at: row.status === "done" && !shared && row.finishedAt ? new Date(Date.parse(row.finishedAt) + PDF_FILE_KEEP_DAYS * DAY_MS).toISOString() : null,
    expired_at: row.expiredAt,
  };
}
export type PdfJobJson = ReturnType<typeof pdfJobJson>;

/** What a request needs of the Worker: the bindings, and waitUntil for running a job without a queue. */
export interface JobRunner {
  env: Pick<Env, "DB" | "PDF_QUEUE" | "FILES">;
  waitUntil: (p: Promise<unknown>) => void;
}

/**
 * Sends the job to the queue; without a queue binding (self-hosting, a Worker without queues) it runs
 * after the response. A send that fails marks the job failed, so the user sees an error and Retry
 * rather than 'Please wait…' for ever.
 */
export async function dispatchPdfJob(runner: JobRunner, jobId: string): Promise<void> {
  if (!runner.env.PDF_QUEUE) {
    runner.waitUntil(consumePdfJob(runner.env, jobId).catch(() => undefined));
    return;
  }
  try {
    await runner.env.PDF_QUEUE.send({ kind: "pdf", jobId });
  } catch {
    await markNotQueued(runner, [jobId]);
  }
}

/** Jobs the queue refused: failed with a message and Retry, rather than 'Please wait…' for ever. */
async function markNotQueued(runner: JobRunner, jobIds: string[]): Promise<void> {
  const at = new Date().toISOString();
  await d1Database(runner.env.DB)
    .update(pdfJobs)
    .set({ status: "failed", error: PDF_JOB_MESSAGES.notQueued, finishedAt: at, updatedAt: at })
    .where(and(inArray(pdfJobs.id, jobIds), eq(pdfJobs.status, "queued")));
}

/** How many messages one queue send carries at most (Cloudflare Queues' sendBatch limit). */
const QUEUE_BATCH_MAX = 100;

/**
 * dispatchPdfJob for many jobs at once (the family copies a settings change makes again): the queue's sendBatch in
 * chunks; a chunk the queue refuses marks its jobs failed, as one refused send does.
 */
export async function dispatchPdfJobs(runner: JobRunner, jobIds: string[]): Promise<void> {
  const queue = runner.env.PDF_QUEUE;
  if (!queue) {
    runner.waitUntil(
      (async () => {
        for (const id of jobIds) await consumePdfJob(runner.env, id).catch(() => undefined);
      })(),
    );
    return;
  }
  for (let i = 0; i < jobIds.length; i += QUEUE_BATCH_MAX) {
    const chunk = jobIds.slice(i, i + QUEUE_BATCH_MAX);
    try {
      await queue.sendBatch(chunk.map((jobId) => ({ body: { kind: "pdf", jobId } })));
    } catch {
      await markNotQueued(runner, chunk);
    }
  }
}

/**
 * The statement, for the settings save's batch, that makes every live share's family copy again when
 * portal_show_narrative changes to `shown` (decision 041, stop 42): a copy not done under that value — done with the
 * other value (or before stop 42, when nothing was recorded), queued, running or failed — goes back to queued (its
 * attempts kept, so a worker still rendering it cannot mark it done), and the caller dispatches the ids it returns.
 * Until a copy is done again the portal does not list it. Revoked shares and expired copies are left alone.
 */
export function remakeFamilyCopies(db: Db, shown: boolean, at: string) {
  return db
    .update(pdfJobs)
    .set({ status: "queued", error: null, startedAt: null, finishedAt: null, narrative: null, updatedAt: at })
    .where(
      and(
        eq(pdfJobs.audience, "family"),
        ne(pdfJobs.status, "expired"),
        sql`${pdfJobs.id} in (select sd.family_job_id from shared_documents sd where sd.revoked_at is null and sd.family_job_id is not null)`,
        sql`not (${pdfJobs.status} = 'done' and ${pdfJobs.narrative} is ${shown ? 1 : 0})`,
      ),
    )
    .returning({ id: pdfJobs.id });
}

/** What a PDF request is for: the BIP of a plan PDF (`/bips/:id/pdf`) or the goal of a goal's PDF (`/plans/:id/pdf`). */
interface JobTarget {
  path: "bip" | "plan";
  id: number;
}

/** How a request may carry its one-time token: a screen's `form_token`, or the API's Idempotency-Key (decision 041). */
export interface PdfRequestToken {
  formToken?: string | null;
  idempotencyKey?: string | null;
}

/** The token stored with the job: the form's, or the Idempotency-Key's scoped to the actor and target with the body's hash. */
function requestToken(ctx: ModelContext, target: JobTarget, raw: Record<string, unknown>, opts: PdfRequestToken): Promise<string | null> {
  if (opts.idempotencyKey) return idempotencyToken(ctx.actor, ["pdf", target.path, target.id], oneTimeToken(opts.idempotencyKey), raw);
  return Promise.resolve(oneTimeToken(opts.formToken));
}

/** The job a token (or, for an Idempotency-Key, any token of its scope) already made: read beside the scope check. */
function tokenRead(db: Db, token: string) {
  return db
    .select({ id: pdfJobs.id, formToken: pdfJobs.formToken, requestedBy: pdfJobs.requestedBy, kind: pdfJobs.kind, bipId: pdfJobs.bipId, planId: sql<number | null>`json_extract(${pdfJobs.params}, '$.planId')` })
    .from(pdfJobs)
    .where(tokenMatch(pdfJobs.formToken, token));
}
type SentJob = Awaited<ReturnType<typeof tokenRead>>[number];

/**
 * A resend: the job the token made, as it is now (queued, done, failed or expired: the user then downloads, retries or
 * makes it again), if the actor may still see it (404 otherwise). The same Idempotency-Key with another body answers
 * 422 keyReused; a form token that made someone else's job or another plan's, 422 formUsed. Nothing is written.
 */
async function replayJob(ctx: ModelContext, token: string, sent: SentJob | undefined, target: JobTarget): Promise<ModelResult<PdfJobJson>> {
  if (sent && sent.formToken !== token) return invalid({ form: PDF_JOB_MESSAGES.keyReused });
  const forTarget = sent && (target.path === "bip" ? sent.kind === "plan" && sent.bipId === target.id : sent.kind !== "plan" && sent.planId === target.id);
  if (!sent || !forTarget || sent.requestedBy !== ctx.actor.id) return invalid({ form: PDF_JOB_MESSAGES.formUsed });
  const found = await findJob({ ...ctx, db: primaryOf(ctx.db) }, sent.id);
  return found ? ok(jsonOf(found), PDF_JOB_MESSAGES.alreadyRequested) : notFound("PDF job");
}

/**
 * The job row and its audit row in one batch, then the queue. With a token the insert is conditional: for an
 * Idempotency-Key only while its scope holds no job (of two racing requests with other bodies one lands), and the
 * UNIQUE index on form_token refuses a racing resend of the same token; the loser answers the winner's job (replayJob).
 */
async function insertJob(ctx: ModelContext, runner: JobRunner, values: { kind: PdfKind; patientId: number; bipId: number; params: JobParams; formToken: string | null }, target: JobTarget, tail: string | null | undefined) {
  const id = crypto.randomUUID();
  const at = ctx.now().toISOString();
  const { formToken } = values;
  try {
    const [rows] = await withConditionalAudit(
      ctx.db,
      who(ctx),
      { action: "create", entity: "pdf_job", entityId: id, patientId: values.patientId, detail: { kind: values.kind } },
      (audit) => [
        ctx.db
          .insert(pdfJobs)
          .select(
            sql`select ${rowCells(pdfJobs, { id, kind: values.kind, patientId: values.patientId, bipId: values.bipId, params: JSON.stringify(values.params), status: "queued", fileKey: null, fileSize: null, error: null, attempts: 0, requestedBy: ctx.actor.id, startedAt: null, finishedAt: null, expiredAt: null, audience: "staff", formToken, createdAt: at, updatedAt: at, narrative: null })}
              where 1${keyScopeFree(pdfJobs, pdfJobs.formToken, formToken)}`,
          )
          .returning(),
        audit(sql`changes() = 1`),
      ],
      tail,
    );
    if (rows[0]) {
      await dispatchPdfJob(runner, id);
      return ok(pdfJobJson(rows[0]), PDF_JOB_MESSAGES.requested);
    }
  } catch (e) {
    if (!formToken || !isTokenRace(e, "pdf_jobs.form_token")) throw e;
  }
  // Only a token keeps the insert from landing: a racing request with it (or its key) made the job first.
  const [sent] = await tokenRead(primaryOf(ctx.db), formToken!);
  return replayJob(ctx, formToken!, sent, target);
}

/**
 * A plan PDF: the BIP in scope (404), a resend of the same token answers its job, at least one section and a month
 * count (422), then the job. The token's job is read in the scope check's batch: one round trip before the write.
 */
export async function requestPlanPdf(ctx: ModelContext, runner: JobRunner, bipId: number, raw: Record<string, unknown>, opts: PdfRequestToken = {}): Promise<ModelResult<PdfJobJson>> {
  const target: JobTarget = { path: "bip", id: bipId };
  const token = await requestToken(ctx, target, raw, opts);
  const [found, sent] = token ? await ctx.db.batch([bipInScopeQuery(ctx, bipId), tokenRead(ctx.db, token)]) : [await bipInScopeQuery(ctx, bipId), []];
  const scope = bipScope(found[0]);
  if (!scope) return notFound("BIP");
  if (token && sent.length) return replayJob(ctx, token, sent[0], target);
  const parsed = parseWith(PlanPdfRequest, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const params = { sections: parsed.data.sections, months: parsed.data.months };
  return insertJob(ctx, runner, { kind: "plan", patientId: scope.patientId, bipId: scope.bipId, params, formToken: token }, target, scope.tail);
}

/** A goal's weekly-report or chart-comment PDF: the goal in scope (404), a resend answers its job, the kind and month count (422), then the job. */
export async function requestGoalPdf(ctx: ModelContext, runner: JobRunner, planId: number, raw: Record<string, unknown>, opts: PdfRequestToken = {}): Promise<ModelResult<PdfJobJson>> {
  const target: JobTarget = { path: "plan", id: planId };
  const token = await requestToken(ctx, target, raw, opts);
  const [found, sent] = token ? await ctx.db.batch([planInScopeQuery(ctx, planId), tokenRead(ctx.db, token)]) : [await planInScopeQuery(ctx, planId), []];
  const scope = found[0] ? planScope(found[0]) : null;
  if (!scope) return notFound("Plan");
  if (token && sent.length) return replayJob(ctx, token, sent[0], target);
  const parsed = parseWith(GoalPdfRequest, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const params = { planId: scope.planId, months: parsed.data.months };
  return insertJob(ctx, runner, { kind: parsed.data.kind, patientId: scope.patientId, bipId: scope.bipId, params, formToken: token }, target, scope.tail);
}

/**
 * The family copy of a staff job's live share (decision 041, stop 38): its status, or null when the job is not shared.
 * A share made before stop 38 has no family copy, so it does not count: it is never served to the parents.
 */
const familyCopyStatus = (stale: string) => sql<string | null>`(select case when fj.status = 'running' and coalesce(fj.started_at, fj.updated_at) < ${stale} then 'failed' else fj.status end
  from shared_documents sd join pdf_jobs fj on fj.id = sd.family_job_id
  where sd.pdf_job_id = "pdf_jobs"."id" and sd.revoked_at is null order by sd.id desc limit 1)`;

/**
 * A staff job in the actor's scope (its client in their locations), its family copy's status while shared, whether its
 * client has a parent, and the audit tail: one statement. A family copy is not a job of its own for staff: 404. The job
 * and its family copy are as seen now (jobAsSeen): a stale running one is failed.
 */
async function findJob(ctx: ModelContext, id: string) {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const now = ctx.now();
  const [row] = await ctx.db
    .select({
      job: pdfJobs,
      family: familyCopyStatus(staleBefore(now)),
      hasParent: sql<number>`${patients.parentId} is not null`,
      live: jobPlanLive,
      // The client's location's zone: a shared document's title names the day there (decision 040).
      timeZone: sql<string | null>`(select ${locations.timeZone} from ${locations} where ${locations.id} = ${patients.locationId})`,
      tail: auditTail,
    })
    .from(pdfJobs)
    .innerJoin(patients, eq(patients.id, pdfJobs.patientId))
    .where(and(eq(pdfJobs.id, id), eq(pdfJobs.audience, "staff"), patientScope(ctx)));
  return row
    ? { job: jobAsSeen(row.job, now), shared: row.family != null, family: row.family, hasParent: Boolean(row.hasParent), live: Boolean(row.live), timeZone: row.timeZone, tail: row.tail }
    : null;
}
type FoundJob = NonNullable<Awaited<ReturnType<typeof findJob>>>;

/** The job as shown, from findJob's row. */
const jsonOf = (found: FoundJob, shared = found.shared) => pdfJobJson(found.job, shared, found.live, found.family);

/** A job's status (no client data, so no audit row: the status page polls it). Another location's job is 404. */
export async function getPdfJob(ctx: ModelContext, id: string): Promise<PdfJobJson | null> {
  const found = await findJob(ctx, id);
  return found ? jsonOf(found) : null;
}

/**
 * A failed job queued again by the user (only a failed one: 409 otherwise), a stale running one included (jobAsSeen:
 * its worker died). Not when Retry cannot succeed: the requester lost access ("Make it again" can), or the plan or
 * goal is deleted now (jobPlanLive), whatever the job's error was (409). The job keeps its attempt number, so the
 * retried render is the next attempt and writes its own object (pdfJobFileKey, decision 041): a failed job's earlier
 * file is not overwritten in place, and is deleted only once the new attempt marks the job done; a worker of a stale
 * running job that was only slow cannot mark the retried job done over the new claim (consumePdfJob's final update).
 * The queue's tries are per message, not this count: the retry sends a new message, which gets all of them again.
 */
export async function retryPdfJob(ctx: ModelContext, runner: JobRunner, id: string): Promise<ModelResult<PdfJobJson>> {
  const found = await findJob(ctx, id);
  if (!found) return notFound("PDF job");
  if (found.job.status !== "failed") return { ok: false, status: 409, message: PDF_JOB_MESSAGES.notFailed, current: jsonOf(found) };
  if (found.job.error === PDF_JOB_MESSAGES.noAccess) return { ok: false, status: 409, message: PDF_JOB_MESSAGES.retryNoAccess, current: jsonOf(found) };
  if (!found.live) return { ok: false, status: 409, message: PDF_JOB_MESSAGES.retryPlanDeleted, current: jsonOf(found) };
  const at = ctx.now().toISOString();
  const [rows] = await withConditionalAudit(
    ctx.db,
    who(ctx),
    { action: "update", entity: "pdf_job", entityId: id, patientId: found.job.patientId, detail: { retry: true } },
    (audit) => [
      ctx.db
        .update(pdfJobs)
        .set({ status: "queued", error: null, updatedAt: at })
        .where(and(eq(pdfJobs.id, id), or(eq(pdfJobs.status, "failed"), staleRunning(staleBefore(ctx.now())))))
        .returning(),
      audit(sql`changes() = 1`),
    ],
    found.tail,
  );
  const row = rows[0];
  if (!row) return { ok: false, status: 409, message: PDF_JOB_MESSAGES.notFailed, current: jsonOf(found) };
  await dispatchPdfJob(runner, id);
  return ok(pdfJobJson(row, found.shared, found.live), PDF_JOB_MESSAGES.retried);
}

/**
 * "Make it again" for an expired job (its file was deleted after PDF_FILE_KEEP_DAYS) or a failed one whose
 * requester lost access (Retry would render as them again): a NEW job with the same kind and params, requested
 * by the actor now through the same request path (permission, scope of the plan or goal now, audit row, queue).
 * The old job stays as it is, on record. 409 otherwise.
 */
export async function remakePdfJob(ctx: ModelContext, runner: JobRunner, id: string): Promise<ModelResult<PdfJobJson>> {
  const found = await findJob(ctx, id);
  if (!found) return notFound("PDF job");
  const json = jsonOf(found);
  if (!json.remakeable) {
    const message = !found.live ? PDF_JOB_MESSAGES.remakePlanDeleted : found.job.status === "failed" ? PDF_JOB_MESSAGES.notRemakeable : PDF_JOB_MESSAGES.notExpired;
    return { ok: false, status: 409, message, current: json };
  }
  const p = paramsOf(found.job);
  if (found.job.kind === "plan") return requestPlanPdf(ctx, runner, found.job.bipId ?? 0, { sections: p.sections ?? [], months: p.months });
  return requestGoalPdf(ctx, runner, p.planId ?? 0, { kind: found.job.kind, months: p.months });
}

/** Who may share a PDF with the client's parents: manage_bips or manage_clients (decision 041). */
export function canSharePdf(ctx: Pick<ModelContext, "actor">): boolean {
  return can(ctx.actor, "manage_bips") || can(ctx.actor, "manage_clients");
}

/**
 * Why a job cannot be shared with the client's parents (409), or null (decision 041): only a plan PDF (the goal PDFs
 * are units and staff comments), of a live plan, done (an expired or failed one says so), of a client with a parent in
 * the portal. One rule for the check and the answer after a lost race.
 */
export function shareRefusal(job: { kind: string; status: string; live: boolean; hasParent: boolean }): string | null {
  if (job.kind !== "plan") return PDF_JOB_MESSAGES.notPlan;
  if (!job.live) return PDF_JOB_MESSAGES.planDeleted;
  if (job.status === "expired") return PDF_JOB_MESSAGES.expired;
  if (job.status === "failed") return PDF_JOB_MESSAGES.failedShare;
  if (job.status !== "done") return PDF_JOB_MESSAGES.notDone;
  if (!job.hasParent) return PDF_JOB_MESSAGES.noParent;
  return null;
}

/** What a share answers: the message, and while the family copy is not done, that it is being prepared (or failed). */
function sharedMessage(message: string, family: string | null): string {
  if (family === "done") return message;
  return `${message} ${family === "failed" ? PDF_JOB_MESSAGES.familyFailed : PDF_JOB_MESSAGES.familyPreparing}`;
}

/** The family copy's row beside its id, requester and times: the staff job's client, BIP and params (selected from it), queued. */
const familyCopy = {
  kind: "plan",
  patientId: sql`"pdf_jobs"."patient_id"`,
  bipId: sql`"pdf_jobs"."bip_id"`,
  params: sql`"pdf_jobs"."params"`,
  status: "queued",
  fileKey: null,
  fileSize: null,
  error: null,
  attempts: 0,
  startedAt: null,
  finishedAt: null,
  expiredAt: null,
  audience: "family",
  formToken: null,
  narrative: null,
} as const;

/**
 * Shares a plan PDF with the client's parents, once: a shared_documents row and, in the same batch, the FAMILY COPY it
 * serves — a new pdf_jobs row (audience 'family', the same sections and months) made by the queue consumer under the
 * portal's rules (parent-view.server.ts). The parents see the document once that copy is done; the staff job's own
 * file is never served to them (decision 041, stop 38).
 */
export async function sharePdfJob(ctx: ModelContext, runner: JobRunner, id: string): Promise<ModelResult<PdfJobJson>> {
  if (!canSharePdf(ctx)) return denied();
  const found = await findJob(ctx, id);
  if (!found) return notFound("PDF job");
  if (found.shared && found.live) return ok(jsonOf(found), sharedMessage(PDF_JOB_MESSAGES.alreadyShared, found.family));
  const refusal = shareRefusal({ ...found.job, live: found.live, hasParent: found.hasParent });
  if (refusal) return { ok: false, status: 409, message: refusal, current: jsonOf(found) };
  // The day the file was made, at the client's location, as the portal shows the family every date.
  const madeAt = found.job.finishedAt ?? found.job.createdAt;
  const madeOn = found.timeZone ? zonedDate(new Date(madeAt), found.timeZone) : madeAt.slice(0, 10);
  const title = `${PDF_KIND_LABELS[found.job.kind as PdfKind] ?? "Document"} (PDF, ${madeOn})`;
  const familyId = crypto.randomUUID();
  const at = ctx.now().toISOString();
  const [made] = await withConditionalAudit(
    ctx.db,
    who(ctx),
    { action: "create", entity: "shared_document", entityId: id, patientId: found.job.patientId, detail: { family_copy: familyId } },
    (audit) => [
      // The family copy, in pdf_jobs' column order. Only while no live share of the job exists (two clicks make one),
      // the job is a done plan PDF of a live plan (a share cannot land on a file the expiry has just taken, nor on a
      // plan deleted meanwhile), and the client still has a parent.
      ctx.db
        .insert(pdfJobs)
        .select(
          sql`select ${rowCells(pdfJobs, { ...familyCopy, id: familyId, requestedBy: ctx.actor.id, createdAt: at, updatedAt: at })}
            from "pdf_jobs" where "pdf_jobs"."id" = ${id} and "pdf_jobs"."kind" = 'plan' and "pdf_jobs"."audience" = 'staff' and "pdf_jobs"."status" = 'done' and ${jobPlanLive}
            and exists (select 1 from patients pp where pp.id = "pdf_jobs"."patient_id" and pp.parent_id is not null)
            and not exists (select 1 from shared_documents sd where sd.pdf_job_id = ${id} and sd.revoked_at is null and sd.family_job_id is not null)`,
        )
        .returning({ id: pdfJobs.id }),
      // The share, only with its family copy.
      ctx.db
        .insert(sharedDocuments)
        .select(sql`select null, ${found.job.patientId}, ${title}, ${id}, ${familyId}, ${ctx.actor.id}, null, ${at}, ${at} where exists (select 1 from "pdf_jobs" where "pdf_jobs"."id" = ${familyId})`),
      audit(sql`changes() = 1`),
    ],
    found.tail,
  );
  if (made.length) await dispatchPdfJob(runner, familyId);
  const again = await findJob(ctx, id);
  if (!again) return notFound("PDF job");
  if (!again.shared) return { ok: false, status: 409, message: shareRefusal({ ...again.job, live: again.live, hasParent: again.hasParent }) ?? PDF_JOB_MESSAGES.notDone, current: jsonOf(again, false) };
  return ok(jsonOf(again), sharedMessage(made.length ? PDF_JOB_MESSAGES.shared : PDF_JOB_MESSAGES.alreadyShared, again.family));
}

/**
 * Stops sharing a job with the client's parents: its live share is revoked (kept on record with `revoked_at`), so the
 * parent portal no longer lists or serves it, and the file falls under the usual expiry again. Same permission as
 * sharing. A job not shared answers ok (nothing to do), as a second share does.
 */
export async function unsharePdfJob(ctx: ModelContext, id: string): Promise<ModelResult<PdfJobJson>> {
  if (!canSharePdf(ctx)) return denied();
  const found = await findJob(ctx, id);
  if (!found) return notFound("PDF job");
  if (!found.shared) return ok(jsonOf(found, false), PDF_JOB_MESSAGES.notShared);
  const at = ctx.now().toISOString();
  await withConditionalAudit(
    ctx.db,
    who(ctx),
    { action: "delete", entity: "shared_document", entityId: id, patientId: found.job.patientId },
    (audit) => [ctx.db.update(sharedDocuments).set({ revokedAt: at, updatedAt: at }).where(and(eq(sharedDocuments.pdfJobId, id), isNull(sharedDocuments.revokedAt))), audit(sql`changes() > 0`)],
    found.tail,
  );
  return ok(jsonOf(found, false), PDF_JOB_MESSAGES.unshared);
}

/**
 * A done job's file from R2, as an audited read of the client's record: 404 for another location's job,
 * 409 while it is not done. The answer streams from R2.
 */
export async function openPdfDownload(ctx: ModelContext, files: R2Bucket | undefined, id: string): Promise<ModelResult<{ body: ReadableStream; size: number; filename: string }>> {
  const found = await findJob(ctx, id);
  if (!found) return notFound("PDF job");
  const json = jsonOf(found);
  // A deleted plan first: "Make it again", which the expired message offers, cannot be done for it.
  if (!found.live) return { ok: false, status: 409, message: PDF_JOB_MESSAGES.planDeleted, current: json };
  if (found.job.status === "expired") return { ok: false, status: 409, message: PDF_JOB_MESSAGES.expired, current: json };
  if (found.job.status !== "done" || !found.job.fileKey) return { ok: false, status: 409, message: PDF_JOB_MESSAGES.notDone, current: json };
  const object = files ? await files.get(found.job.fileKey) : null;
  if (!object) return notFound("PDF file");
  await auditedRead(ctx.db, who(ctx), { entity: "pdf_job", entityId: id, patientId: found.job.patientId }, () => [] as [], found.tail);
  return ok({ body: object.body, size: object.size, filename: json.file_name });
}

// ------------------------------------------------------------------------------------------ the consumer

/**
 * Why the requester's read found no plan or goal: it was deleted (jobPlanLive false), or it is still there and the
 * requester lost access — their locations no longer cover the client (decision 041's 'no longer has access').
 */
async function unreadable(db: Db, row: JobRow): Promise<PdfJobError> {
  const [r] = await db.select({ live: jobPlanLive }).from(pdfJobs).where(eq(pdfJobs.id, row.id));
  return new PdfJobError(r?.live ? PDF_JOB_MESSAGES.noAccess : PDF_JOB_MESSAGES.gone);
}

/** A rendered file, and for a family copy whether it shows the chart comments (1) or not (0); null for a staff job. */
interface Rendered {
  bytes: Uint8Array;
  narrative: number | null;
}

async function renderJob(db: Db, row: JobRow, now: Date): Promise<Rendered> {
  const actor = await getUserActor(db, row.requestedBy);
  if (!actor || !can(actor, "view_bips")) throw new PdfJobError(PDF_JOB_MESSAGES.noAccess);
  const ctx: ModelContext = { db, actor, ip: "queue", now: () => now };
  const p = paramsOf(row);
  // The weekly data through the client's current week (its Saturday, at the client's location: decision 009, stop 32),
  // and "Generated" on the same today (stop 33): an evening job in New York is not dated tomorrow.
  const windowAt = (timeZone: string) => pdfWindow(todayIn(now, timeZone), p.months);
  if (row.kind === "plan") {
    // The family copy of a shared plan PDF reads under the portal's rules (decision 041, stop 38): chart comments only
    // while portal_show_narrative is on (read now, at render time, in the same batch as the charts, and recorded on
    // the copy: stop 42), the doctor by first name.
    const family = row.audience === "family";
    const read = await readBip(ctx, row.bipId ?? 0, (scope) => [profileChartsQuery(ctx, scope.bipId, windowAt(scope.timeZone), family ? portalNarrativeOn : undefined), bipDoctorForParent(ctx, scope.bipId)] as const);
    if (!read) throw await unreadable(db, row);
    if (read.scope.patientId !== row.patientId) throw new PdfJobError(PDF_JOB_MESSAGES.gone);
    const window = windowAt(read.scope.timeZone);
    const { bip, client } = read.detail;
    const charts = new Map<number, ChartModel>();
    for (const [id, input] of chartInputsFrom(read.more[0], window)) charts.set(id, buildChartModel(input));
    const lists = [bip.maladaptives, bip.replacements, bip.caregiver_trainings, bip.rbt_trainings, bip.teacher_trainings];
    const goals: PdfGoal[] = lists.flat().map((g) => ({
      id: g.id,
      name: g.name,
      category: g.category,
      status: g.status,
      description: g.description == null ? null : fillPlaceholders(g.description, client),
      baseline_level: g.baseline_level,
      baseline_date: g.baseline_date,
      objectives: g.objectives.map((o) => ({ id: o.id, type: o.type, position: o.position, name: o.name, description: o.description, target: o.target, status: o.status, end_date: o.end_date })),
    }));
    const doc = planPdfDocument({
      audience: family ? "family" : "staff",
      bip: { id: bip.id, type_label: typeOfAssessmentLabel(bip.type_of_assessment), patient_name: bip.patient_name, patient_identifier: bip.patient_identifier, doctor_name: family ? (read.more[1][0]?.name ?? null) : bip.doctor_name },
      doc: shownDocument(read.detail),
      goals,
      charts,
      sections: p.sections ?? [],
      months: p.months,
      window,
      generatedOn: todayIn(now, read.scope.timeZone),
    });
    return { bytes: await renderPlanPdf(doc), narrative: family ? (read.more[1][0]?.narrative ?? 0) : null };
  }
  // Only a plan PDF has a family copy (sharePdfJob): a goal's PDF is never rendered for the family.
  if (row.audience !== "staff") throw new PdfJobError(PDF_JOB_MESSAGES.notPlan);
  const scope = await findPlanInScope(ctx, p.planId ?? 0);
  if (!scope) throw await unreadable(db, row);
  if (scope.patientId !== row.patientId) throw new PdfJobError(PDF_JOB_MESSAGES.gone);
  const window = windowAt(scope.timeZone);
  const [inputs, planRows] = await auditedRead(
    db,
    who(ctx),
    { entity: "plan", entityId: scope.planId, patientId: scope.patientId, detail: { pdf: row.kind } },
    () => [chartInputsQuery(ctx, [scope.planId], window), db.select({ description: plans.description, status: plans.status }).from(plans).where(eq(plans.id, scope.planId))],
    scope.tail,
  );
  const input = chartInputsFrom(inputs, window).get(scope.planId);
  if (!input) throw new PdfJobError(PDF_JOB_MESSAGES.gone);
  const description = planRows[0]?.description ?? null;
  const doc = goalPdfDocument({
    kind: row.kind === "chart_comments" ? "chart_comments" : "weekly_report",
    goal: {
      id: scope.planId,
      name: input.plan.name,
      category: input.plan.category,
      status: planRows[0]?.status ?? "active",
      description: description == null ? null : fillPlaceholders(description, { firstName: scope.patientName.split(" ")[0] ?? "", gender: scope.gender }),
      baseline_level: input.plan.baselineLevel,
      baseline_date: input.plan.baselineDate,
      objectives: input.objectives.map((o) => ({ id: o.id, type: o.type, position: o.position, name: o.name ?? null, description: null, target: o.target, status: o.status, end_date: o.endDate })),
      patient_name: scope.patientName,
      patient_identifier: scope.patientIdentifier,
    },
    chart: buildChartModel(input),
    reports: input.reports,
    comments: input.comments,
    months: p.months,
    window,
    generatedOn: todayIn(now, scope.timeZone),
  });
  return { bytes: await renderPlanPdf(doc), narrative: null };
}

/**
 * "running": the job is running elsewhere and not stale yet — the delivery must come back once it would be stale
 * (`retryInSeconds`), not be acknowledged: if that worker died, nothing else would ever make the job.
 */
export type ConsumeOutcome = "done" | "failed" | "skipped" | { running: true; retryInSeconds: number };

/** Seconds past the stale point a delivery of a running job comes back, so that it finds the job stale if it still runs. */
const STALE_MARGIN_SECONDS = 5;

/** The R2 object of one attempt at a job's file (decision 041, stop 43). */
export function pdfJobFileKey(jobId: string, attempt: number): string {
  return `pdf-jobs/${jobId}/${attempt}.pdf`;
}

/**
 * Makes one job's PDF: claim (conditional UPDATE), render, store in R2, mark done. A job done, expired or unknown is
 * skipped: that is how a duplicate delivery does nothing. A job running elsewhere, not yet stale, answers `running`
 * with the seconds until it would be stale: the queue consumer retries the message with that delay, and the delivery
 * then finds the job done (skipped) or stale (claimed), so a worker that died mid-render loses nothing (decision 041,
 * stop 41). On failure the job is marked failed with a message a user can read. A PdfJobError cannot be mended by a
 * retry: "failed" is returned and the message is acknowledged. Any other error is rethrown so the queue
 * retries the message (max_retries); a retry claims the failed job again.
 */
export async function consumePdfJob(env: Pick<Env, "DB" | "FILES">, jobId: string, now = new Date()): Promise<ConsumeOutcome> {
  const db = d1Database(env.DB);
  const at = now.toISOString();
  const [row] = await db
    .update(pdfJobs)
    .set({ status: "running", attempts: sql`${pdfJobs.attempts} + 1`, startedAt: at, error: null, updatedAt: at })
    .where(and(eq(pdfJobs.id, jobId), or(inArray(pdfJobs.status, ["queued", "failed"]), staleRunning(staleBefore(now)))))
    .returning();
  if (!row) {
    // Not claimed: only a job still running elsewhere needs the delivery again (a read on this path only).
    const [other] = await db.select({ status: pdfJobs.status, startedAt: pdfJobs.startedAt, updatedAt: pdfJobs.updatedAt }).from(pdfJobs).where(eq(pdfJobs.id, jobId));
    if (other?.status !== "running") return "skipped";
    const staleAt = Date.parse(runningSince(other)) + STALE_RUNNING_MS;
    return { running: true, retryInSeconds: Math.max(0, Math.ceil((staleAt - now.getTime()) / 1000)) + STALE_MARGIN_SECONDS };
  }
  try {
    if (!env.FILES) throw new PdfJobError(PDF_JOB_MESSAGES.noStorage);
    const { bytes, narrative } = await renderJob(db, row, now);
    // Each attempt writes its own object (decision 041, stop 43): a render overtaken by a newer one (a family copy made
    // again when the narrative setting flipped) can never replace the newer file; only the attempt that marks the job
    // done names its object, and the object it replaced, or the one that lost, is deleted.
    const key = pdfJobFileKey(row.id, row.attempts);
    await env.FILES.put(key, bytes, { httpMetadata: { contentType: "application/pdf" } });
    const done = new Date().toISOString();
    const marked = await db
      .update(pdfJobs)
      .set({ status: "done", fileKey: key, fileSize: bytes.byteLength, finishedAt: done, updatedAt: done, narrative })
      .where(and(eq(pdfJobs.id, row.id), eq(pdfJobs.status, "running"), eq(pdfJobs.attempts, row.attempts)))
      .returning({ id: pdfJobs.id });
    const stale = marked.length ? (row.fileKey && row.fileKey !== key ? row.fileKey : null) : key;
    if (stale) await env.FILES.delete(stale);
    return "done";
  } catch (e) {
    const message = e instanceof PdfJobError ? e.message : PDF_JOB_MESSAGES.renderFailed;
    const failed = new Date().toISOString();
    await db
      .update(pdfJobs)
      .set({ status: "failed", error: message, finishedAt: failed, updatedAt: failed })
      .where(and(eq(pdfJobs.id, row.id), eq(pdfJobs.status, "running"), eq(pdfJobs.attempts, row.attempts)));
    if (e instanceof PdfJobError) return "failed";
    throw e;
  }
}

// ------------------------------------------------------------------------------------------ expiry

/** How many jobs one step of the expiry handles, and how many steps one scheduled run takes at most. */
export const PDF_EXPIRY_BATCH = 50;
export const PDF_EXPIRY_MAX_STEPS = 20;

export interface ExpiryOutcome {
  /** Jobs marked expired in this run. */
  expired: number;
  /** Files deleted from R2 in this run. */
  deleted: number;
}

const SYSTEM = { actor: { kind: "system", id: null }, ip: "cron" } as const;

/**
 * A live (not revoked) share of the job: its file is kept — a family copy the parents are served, and the staff job it
 * was made from (its status page keeps Download and Stop sharing). A share made before stop 38 (no family copy) is
 * served to no one, so it keeps nothing (decision 041).
 */
const liveShare = sql`(exists (select 1 from shared_documents sd where sd.pdf_job_id = "pdf_jobs"."id" and sd.revoked_at is null and sd.family_job_id is not null)
  or exists (select 1 from shared_documents sd where sd.family_job_id = "pdf_jobs"."id" and sd.revoked_at is null))`;

/**
 * The scheduled expiry of PDF files (decision 041), in bounded steps: (1) done jobs whose file was made
 * more than PDF_FILE_KEEP_DAYS ago and that are not shared with parents are marked expired — one
 * conditional UPDATE, so a share that landed first keeps its job, and sharePdfJob inserts only while the
 * job is done — with one audit row (actor "system") naming the jobs; (2) the files of expired jobs are
 * deleted from R2 and their file_key cleared. A delete that fails leaves file_key set, so the next run
 * tries again; nothing is ever left marked done without its file. Both steps walk pdf_jobs_file_age_idx.
 */
export async function expirePdfFiles(env: Pick<Env, "DB" | "FILES">, now = new Date(), limits = { batch: PDF_EXPIRY_BATCH, maxSteps: PDF_EXPIRY_MAX_STEPS }): Promise<ExpiryOutcome> {
  const db = d1Database(env.DB);
  const cutoff = new Date(now.getTime() - PDF_FILE_KEEP_DAYS * DAY_MS).toISOString();
  const at = now.toISOString();
  const outcome: ExpiryOutcome = { expired: 0, deleted: 0 };
  for (let step = 0; step < limits.maxSteps; step++) {
    const due = await db
      .select({ id: pdfJobs.id, patientId: pdfJobs.patientId })
      .from(pdfJobs)
      .where(and(eq(pdfJobs.status, "done"), isNotNull(pdfJobs.fileKey), lt(pdfJobs.finishedAt, cutoff), sql`not ${liveShare}`))
      .orderBy(asc(pdfJobs.finishedAt))
      .limit(limits.batch);
    let marked: { id: string }[] = [];
    if (due.length) {
      const ids = due.map((d) => d.id);
      const patientIds = [...new Set(due.map((d) => d.patientId))].sort((a, b) => a - b);
      [marked] = await withConditionalAudit(
        db,
        SYSTEM,
        { action: "expire", entity: "pdf_job", entityId: null, detail: { patients: patientIds, jobs: ids, older_than_days: PDF_FILE_KEEP_DAYS } },
        (audit) => [
          // Conditional again: a job shared (or otherwise changed) since the select keeps its file.
          db
            .update(pdfJobs)
            .set({ status: "expired", expiredAt: at, updatedAt: at })
            .where(and(inArray(pdfJobs.id, ids), eq(pdfJobs.status, "done"), sql`not ${liveShare}`))
            .returning({ id: pdfJobs.id }),
          audit(sql`changes() > 0`),
        ],
      );
      const kept = ids.filter((id) => !marked.some((m) => m.id === id));
      // The trail names exactly what expired: jobs that escaped between the select and the update are recorded as kept.
      if (kept.length && marked.length) await withAudit(db, SYSTEM, { action: "expire_skipped", entity: "pdf_job", entityId: null, detail: { jobs: kept } }, () => [] as []);
    }
    outcome.expired += marked.length;
    let deleted = 0;
    if (env.FILES) {
      const gone = await db
        .select({ id: pdfJobs.id, fileKey: pdfJobs.fileKey })
        .from(pdfJobs)
        .where(and(eq(pdfJobs.status, "expired"), isNotNull(pdfJobs.fileKey)))
        .orderBy(asc(pdfJobs.finishedAt))
        .limit(limits.batch);
      if (gone.length) {
        await env.FILES.delete(gone.map((g) => g.fileKey!));
        await db
          .update(pdfJobs)
          .set({ fileKey: null })
          .where(and(inArray(pdfJobs.id, gone.map((g) => g.id)), eq(pdfJobs.status, "expired")));
        deleted = gone.length;
      }
    }
    outcome.deleted += deleted;
    if (due.length < limits.batch && deleted < limits.batch) break;
  }
  return outcome;
}
