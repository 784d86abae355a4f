import { Hono, type Context, type MiddlewareHandler } from "hono";
import { API_MAX_PER_PAGE, EDITOR_PER_PAGE, IMPORT_MAX_BYTES, IMPORT_MESSAGES } from "~/domain/weekly-reports";
import { flag, MESSAGES } from "~/domain/fields";
import * as v from "valibot";
import { CHART_COMMENTS, createChartComment, deleteChartComment, getChartComment, listChartComments, updateChartComment, type ChartCommentJson } from "~/models/chart-comments.server";
import {
  checkWeeklyReportsFile,
  createWeeklyReport,
  deleteWeeklyReport,
  getWeeklyReport,
  importWeeklyReportsFile,
  listWeeklyReports,
  updateWeeklyReport,
  WEEKLY_REPORTS,
  type Upload,
  type WeeklyReportJson,
} from "~/models/weekly-reports.server";
import { generateWeeklyReportsFromNotes } from "~/models/notes-weekly.server";
import { invalid, type ModelResult } from "~/models/results";
import { jsonError, readBody, requireApiPermission, type AppEnv } from "./env";
import { answer, modelContext, unsupported, v2Router, type RestResource } from "./rest";

/**
 * Weekly reports and chart comments (clinical §7): /v2/weekly-reports and /v2/chart-comments, viewed
 * with view_bips and changed with manage_bips. Lists need plan_id or bip_id; per_page defaults to 500
 * (the editors) and may go to 2500. A weekly report's update answers { status: 'success', message,
 * data }. The .xlsx check and import take a multipart upload (field `file`, plus `plan_id`).
 * POST /from-notes generates a client's weekly reports from their RBT notes (manage_bips).
 */
export const weeklyReportResource: RestResource<WeeklyReportJson> = {
  name: WEEKLY_REPORTS,
  idFilters: ["plan_id", "bip_id"],
  filters: ["date_start", "date_end"],
  label: "Weekly report",
  view: "view_bips",
  manage: "manage_bips",
  maxPerPage: API_MAX_PER_PAGE,
  defaultPerPage: EDITOR_PER_PAGE,
  list: (ctx, query, filters) => listWeeklyReports(ctx, query, filters),
  get: getWeeklyReport,
  create: createWeeklyReport,
  update: updateWeeklyReport,
  remove: deleteWeeklyReport,
  // Rows name their plan; the model attaches the client (withClients).
  audit: { entity: "weekly_report" },
};

export const chartCommentResource: RestResource<ChartCommentJson> = {
  name: CHART_COMMENTS,
  idFilters: ["plan_id", "bip_id"],
  filters: ["date_start", "date_end"],
  label: "Chart comment",
  view: "view_bips",
  manage: "manage_bips",
  maxPerPage: API_MAX_PER_PAGE,
  defaultPerPage: EDITOR_PER_PAGE,
  list: (ctx, query, filters) => listChartComments(ctx, query, filters),
  get: getChartComment,
  create: createChartComment,
  update: updateChartComment,
  remove: deleteChartComment,
  audit: { entity: "chart_comment" },
};

/** Each call answers plan data, so it needs view_bips as well (decision 007, 2026-11-27). */
const manage = requireApiPermission("manage_bips", "view_bips");

/**
 * A weekly report's update answers { status: 'success', message, data } (clinical §7): the generic PUT
 * and PATCH of v2Router run (guard, version, model), and their 200 answer is reshaped here.
 */
const successStatus: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (c.res.status !== 200) return;
  const body = (await c.res.json()) as Record<string, unknown>;
  c.res = c.json({ status: "success", ...body }, 200);
};

/** Multipart slack on top of the file itself (boundaries, headers, plan_id). */
const MULTIPART_SLACK = 64 * 1024;

type UploadRead = { ok: true; fields: Record<string, string>; upload: Upload | null } | { ok: false; status: 413 | 422; message: string };

async function readUpload(c: Context<AppEnv>): Promise<UploadRead> {
  const length = Number(c.req.header("Content-Length") ?? "0");
  if (length > IMPORT_MAX_BYTES + MULTIPART_SLACK) return { ok: false, status: 413, message: IMPORT_MESSAGES.tooLarge };
  if (!(c.req.header("Content-Type") ?? "").includes("multipart/form-data")) return { ok: false, status: 422, message: IMPORT_MESSAGES.noFile };
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    return { ok: false, status: 422, message: IMPORT_MESSAGES.noFile };
  }
  const fields: Record<string, string> = { ...c.req.query() };
  let upload: Upload | null = null;
  for (const [k, value] of form.entries()) {
    if (typeof value === "string") fields[k] = value;
    else if (k === "file") {
      if (value.size > IMPORT_MAX_BYTES) return { ok: false, status: 413, message: IMPORT_MESSAGES.tooLarge };
      upload = { name: value.name, bytes: new Uint8Array(await value.arrayBuffer()) };
    }
  }
  return { ok: true, fields, upload };
}

type ImportAnswer<T> = ModelResult<T> | { ok: false; status: 413; message: string };

function importAnswer<T>(c: Context<AppEnv>, result: ImportAnswer<T>) {
  if (!result.ok && result.status === 413) return c.json({ message: result.message }, 413);
  return answer(c, result as ModelResult<T>);
}

async function fileCall<T>(c: Context<AppEnv>, run: (read: Extract<UploadRead, { ok: true }>) => Promise<ImportAnswer<T>>) {
  const read = await readUpload(c);
  if (!read.ok) return read.status === 413 ? c.json({ message: read.message }, 413) : jsonError(c, 422, read.message, { errors: { file: read.message } });
  return importAnswer(c, await run(read));
}

export const weeklyReportsV2 = new Hono<AppEnv>()
  .post("/check-excel", manage, (c) => fileCall(c, (r) => checkWeeklyReportsFile(modelContext(c), r.fields, r.upload)))
  .post("/import-data", manage, (c) =>
    fileCall(c, async (r) => {
      const force = v.safeParse(flag, r.fields.force_update);
      return force.success ? importWeeklyReportsFile(modelContext(c), r.fields, r.upload, force.output) : invalid({ force_update: MESSAGES.flag });
    }),
  )
  // Weekly reports from the client's RBT notes (docs/decisions/029): body patient_id, date_from, date_to, plan_id?.
  .post("/from-notes", manage, async (c) => {
    const body = await readBody(c);
    return answer(c, await generateWeeklyReportsFromNotes(modelContext(c), body));
  })
  // Before v2Router's `/:id`, which would read these paths as ids ("Weekly report not found.").
  .all("/check-excel", unsupported)
  .all("/import-data", unsupported)
  .all("/from-notes", unsupported)
  .on(["PUT", "PATCH"], "/:id", successStatus)
  .route("/", v2Router(weeklyReportResource));

export const chartCommentsV2 = v2Router(chartCommentResource);
