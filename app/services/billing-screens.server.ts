import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { FLASH_PARAM, withoutFlash } from "~/domain/flash";
import { redirect } from "@remix-run/cloudflare";
import { billingList, clientInScope, clientReport, saveClientReport, setBillingStatus, type BillingRow, type ClientReport } from "~/models/client-reports.server";
import type { ModelResult } from "~/models/results";
import { filterNames, LIST_PERIOD, periodInput, REPORT_PERIOD, reportQueryInput } from "~/domain/client-reports";
import { pathId } from "~/domain/validation";
import { formResult, formValues, modelContextFor } from "./forms.server";
import { forbidden, notFound, requirePermission, requireId } from "./guard.server";
import { CLIENT_NOT_FOUND } from "~/domain/patients";

/**
 * The billing screens' loaders and actions (/billing/list, /billing/by-client/:patient_id and its twin
 * /client-report/by-client/:patient_id, /client-report/employee-by-client): guard first (manage_claims),
 * then the model. Shared by the route modules, which stay one line each.
 */

/** The address without empty values (clinical §5: empty filters are left out) and without the flash (and its tag). */
export function cleanAddress(url: URL): string {
  const kept = new URLSearchParams();
  for (const [k, v] of withoutFlash(url.searchParams)) if (v.trim() !== "") kept.append(k, v);
  const q = kept.toString();
  return q ? `${url.pathname}?${q}` : url.pathname;
}

function redirectIfEmptyFilters(request: Request) {
  const url = new URL(request.url);
  const hasEmpty = [...url.searchParams].some(([, v]) => v.trim() === "");
  if (hasEmpty) {
    const flash = url.searchParams.get(FLASH_PARAM);
    const clean = cleanAddress(url);
    throw redirect(flash ? `${clean}${clean.includes("?") ? "&" : "?"}${FLASH_PARAM}=${encodeURIComponent(flash)}` : clean);
  }
}

function throwFor(result: { ok: false; status: number; message: string }): never {
  if (result.status === 403) throw forbidden(result.message);
  throw notFound(result.message);
}

/**
 * Filters a billing screen refused (422), by the model's field names: the screen shows each beside its field with
 * the typed values kept (from the URL) and shows no row, never the unfiltered table as if it were the result.
 */
export type FilterErrors = Record<string, string> | null;

/** The values of a query without the fields named (those refused), each under every name it goes by (`filterNames`). */
function without(params: Record<string, string>, keys: readonly string[]): Record<string, string> {
  const dropped = new Set(keys.flatMap(filterNames));
  return Object.fromEntries(Object.entries(params).filter(([k]) => !dropped.has(k)));
}

/** The billing list; `refused`: errors the caller found in its own part of the address (then no client is listed). */
export async function billingListLoader({ request, context }: LoaderFunctionArgs, refused: FilterErrors = null) {
  const { actor } = await requirePermission(request, context, "manage_claims");
  redirectIfEmptyFilters(request);
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const ctx = modelContextFor(context, actor);
  let result = await billingList(ctx, refused ? without(params, Object.keys(refused)) : params, { withList: !refused });
  let filterErrors = refused;
  if (!result.ok && result.status === 422) {
    // The filters' choices for the values that parse (a location's providers), and no client.
    filterErrors = { ...refused, ...result.errors };
    result = await billingList(ctx, without(params, Object.keys(filterErrors)), { withList: false });
  }
  if (!result.ok) throwFor(result);
  // The period as typed, under whichever name the address gave it (from/to, date_from/date_to, date_start/date_end):
  // what the From and To fields show when the filters were refused.
  const period = periodInput(params, LIST_PERIOD).input;
  const typedPeriod = { from: String(period[LIST_PERIOD.start] ?? ""), to: String(period[LIST_PERIOD.end] ?? "") };
  return { list: result.data, filterErrors, typedPeriod };
}

/** What a report screen shows of one row (the API answers the whole BillingRow). */
export type ReportScreenRow = Pick<
  BillingRow,
  "id" | "type" | "session_date" | "status" | "note_version" | "pos" | "total_hours" | "cpt_code" | "md" | "md2" | "total_units" | "unit_price_cents" | "multiplier" | "charges_cents" | "xp" | "xp_cents" | "provider_name" | "billed" | "pay" | "created_at" | "reasons"
> & { client_report: { version: number } | null };

/** What a report screen shows of a report: the header, the PA services, the filters, the page of rows and the week's totals. */
export type ReportScreenData = Pick<ClientReport, "patient" | "rates" | "pa_services" | "week" | "week_total_hours" | "week_total_units" | "filters" | "provider"> & {
  page: Omit<ClientReport["page"], "data"> & { data: ReportScreenRow[] };
};

/**
 * The report as its screen's loader data: only what the screen shows. The report screens do not hydrate,
 * but Remix serialises every document's loader data before rendering (decision 042), so the rows' unused
 * fields (ids, minutes, dollars as text, the saved record's details) cost CPU on every request.
 */
export function reportScreenData(report: ClientReport): ReportScreenData {
  const { patient, rates, pa_services, week, week_total_hours, week_total_units, filters, provider, page } = report;
  return {
    patient,
    rates,
    pa_services,
    week,
    week_total_hours,
    week_total_units,
    filters,
    provider,
    page: {
      ...page,
      data: page.data.map((r) => ({
        id: r.id,
        type: r.type,
        session_date: r.session_date,
        status: r.status,
        note_version: r.note_version,
        pos: r.pos,
        total_hours: r.total_hours,
        cpt_code: r.cpt_code,
        md: r.md,
        md2: r.md2,
        total_units: r.total_units,
        unit_price_cents: r.unit_price_cents,
        multiplier: r.multiplier,
        charges_cents: r.charges_cents,
        xp: r.xp,
        xp_cents: r.xp_cents,
        provider_name: r.provider_name,
        billed: r.billed,
        pay: r.pay,
        created_at: r.created_at,
        reasons: r.reasons,
        client_report: r.client_report ? { version: r.client_report.version } : null,
      })),
    },
  };
}

/** The report of one client (and, from employee-by-client, of one employee's notes for it). */
export async function reportData(request: Request, context: LoaderFunctionArgs["context"], patientId: number, providerId: number | null) {
  const { actor, auditTail } = await requirePermission(request, context, "manage_claims");
  redirectIfEmptyFilters(request);
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const ctx = modelContextFor(context, actor);
  const query = reportQueryInput(params);
  let result = await clientReport(ctx, patientId, query, { providerId, scrub: true, tail: auditTail });
  let filterErrors: FilterErrors = null;
  if (!result.ok && result.status === 422) {
    // The header and PA services, no row and no week totals; the filters as typed (the refused query read nothing,
    // so the guard's tail of the audit chain is still the tail).
    filterErrors = result.errors;
    result = await clientReport(ctx, patientId, {}, { providerId, withList: false, tail: auditTail });
    const shown = periodInput(query, REPORT_PERIOD).input;
    const typed = (k: string) => String(shown[k] ?? "").trim();
    if (result.ok) result.data.filters = { date_start: typed("date_start"), date_end: typed("date_end"), noteType: typed("noteType").toLowerCase(), sort: typed("sort"), dir: typed("dir") };
  }
  if (!result.ok) throwFor(result);
  return { report: reportScreenData(result.data), filterErrors };
}

export async function reportLoader({ request, context, params }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_claims");
  const patientId = requireId(params.patient_id, "Client");
  return reportData(request, context, patientId, null);
}

/**
 * POST on a report screen: intent save (the row's billing record) or status (pending/ok), then back to the same address.
 * A client the actor may not see answers 404, as the screen's GET (decision 030, stop 35): the model checks it in the
 * read of the note; a refused POST (422: a body that does not parse or names no intent is refused before the note is
 * read) asks again, on that path only — else the answer would be the loader's 404 page under the action's 422.
 */
export async function reportAction({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_claims");
  const url = new URL(request.url);
  const patientId = params.patient_id !== undefined ? requireId(params.patient_id, "Client") : pathId(url.searchParams.get("patient_id") ?? undefined);
  if (patientId === null) throw notFound(CLIENT_NOT_FOUND);
  const values = formValues(await request.formData());
  const ctx = modelContextFor(context, actor);
  const back = cleanAddress(url);
  const answer = async <T>(result: ModelResult<T>) => {
    if (!result.ok && result.status === 422 && !(await clientInScope(ctx, patientId))) throw notFound(CLIENT_NOT_FOUND);
    return formResult(result, values, () => back);
  };
  const one = (k: string) => (typeof values[k] === "string" ? (values[k] as string) : "");
  /** A field the form did not send is left out (the record keeps its value); one sent blank clears it. */
  const sent = (k: string) => (k in values ? one(k) : undefined);
  if (values.intent === "status") {
    const noteId = pathId(one("note_id"));
    if (noteId === null) throw notFound("Note not found.");
    return answer(await setBillingStatus(ctx, noteId, { status: one("status"), note_version: one("note_version") || null }, { patientId }));
  }
  if (values.intent === "save") {
    // The row's Save form always holds both selectors and both checkboxes, and an unticked checkbox is absent
    // from a form post: so here an absent modifier is none and an absent box is false (the API, whose bodies
    // name only what they change, keeps what a body leaves out; decision 030, 2026-11-27).
    const result = await saveClientReport(
      ctx,
      {
        note_id: one("note_id"),
        patient_id: patientId,
        md: one("md") || null,
        md2: one("md2") || null,
        billed: one("billed") || false,
        pay: one("pay") || false,
        // The row's form has no PA number or NPI field: left out, the record keeps them (decision 030).
        pa_number: sent("pa_number"),
        npi: sent("npi"),
        version: one("version") || null,
        note_version: one("note_version") || null,
      },
      { patientId },
    );
    return answer(result);
  }
  return answer({ ok: false, status: 422, message: "Choose Save or a status.", errors: { intent: "Choose Save or a status." } });
}
