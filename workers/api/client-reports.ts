import { Hono, type Context } from "hono";
import { BY_LOCATION_PARAMS, REPORT_QUERY_PARAMS, reportQueryInput } from "~/domain/client-reports";
import { unknownFilters } from "~/domain/list-filters";
import { canSeeLocation } from "~/domain/permissions";
import { pathId } from "~/domain/validation";
import {
  billingList,
  clientReport,
  clientReportConfig,
  deleteClientReport,
  getClientReport,
  saveClientReport,
  setBillingStatus,
  updateClientReport,
  type BillingRow,
  type ClientReport,
} from "~/models/client-reports.server";
import { jsonError, readBody, requireApiPermission, type AppEnv } from "./env";
import { answer, answerChange, modelContext, otherRecordId, refuseOtherMethods, refuseUnknownParams } from "./rest";
import { CLIENT_NOT_FOUND } from "~/domain/patients";

/**
 * Client reports — billing by client (clinical §7 client reports; issue 11; decision 030), under
 * /api/client_report. Every call needs manage_claims; a client, note or billing record of another location
 * answers 404. Bodies are JSON; the referenced ids (note, client, insurer) are checked against the note the
 * actor may see.
 *
 * - GET config: the table's choices (modifiers, the modifiers of each note type, note types, statuses, POS, page size).
 * - GET show/{id}, POST update/{id}, POST store, DELETE destroy/{id}: one billing record (a note's).
 * - GET byprofile/{patient}?page&date_start&date_end&noteType: the client report response (clinical §3).
 * - GET byemployee/{employee}/{patient}?…: the same, only that employee's notes.
 * - GET bylocation/{id}?date_from&date_to&provider_id&status&page: the clients with notes of a location.
 * - GET profile/{patient}: the client's header and PA services (the report without rows).
 * - PUT update/status/{note}: the row's status, pending or ok.
 *
 * The period's bounds may be named date_start/date_end, date_from/date_to or from/to in every one of these calls
 * (periodInput, app/domain/client-reports.ts); one bound under two names with different values is a 422. Any other
 * query parameter answers 422 naming it (REPORT_QUERY_PARAMS, BY_LOCATION_PARAMS; decision 017, stop 45), after the
 * client's or location's 404.
 */
const manage = requireApiPermission("manage_claims");
const NOT_FOUND = "Billing record not found.";

/** The spec's response: noteRbts and noteBcbas (a BCBA row's billing fields named mdbcba, md2bcba, billedbcba, paybcba). */
function reportJson(r: ClientReport) {
  const bcba = (row: BillingRow) => ({ ...row, mdbcba: row.md, md2bcba: row.md2, billedbcba: row.billed, paybcba: row.pay });
  return {
    patient: r.patient,
    rates: r.rates,
    noteRbts: r.page.data.filter((x) => x.type === "rbt"),
    noteBcbas: r.page.data.filter((x) => x.type !== "rbt").map(bcba),
    data: r.page.data,
    total: r.page.total,
    page: r.page.page,
    per_page: r.page.per_page,
    last_page: r.page.last_page,
    arrayPages: r.arrayPages,
    showing: r.showing,
    week: r.week,
    week_total_hours: r.week_total_hours,
    week_total_units: r.week_total_units,
    pos_covered: r.pos_covered,
    doctors: r.doctors,
    pa_services: r.pa_services,
  };
}

/** The report calls' parameters they do not take, refused by clientReport after its scope read (decision 017, stop 45). */
function unknownReportParams(c: Context<AppEnv>) {
  return unknownFilters(c.req.query(), REPORT_QUERY_PARAMS);
}

async function byProfile(c: Context<AppEnv>) {
  const id = pathId(c.req.param("patient"));
  if (id === null) return jsonError(c, 404, CLIENT_NOT_FOUND);
  const result = await clientReport(modelContext(c), id, reportQueryInput(c.req.query()), { scrub: true, tail: c.var.auditTail, unknown: unknownReportParams(c) });
  return result.ok ? c.json(reportJson(result.data)) : answer(c, result);
}

async function byEmployee(c: Context<AppEnv>) {
  const employee = pathId(c.req.param("employee"));
  const patient = pathId(c.req.param("patient"));
  if (employee === null) return jsonError(c, 404, "Employee not found.");
  if (patient === null) return jsonError(c, 404, CLIENT_NOT_FOUND);
  const result = await clientReport(modelContext(c), patient, reportQueryInput(c.req.query()), { providerId: employee, scrub: true, tail: c.var.auditTail, unknown: unknownReportParams(c) });
  return result.ok ? c.json(reportJson(result.data)) : answer(c, result);
}

/** A save's 409 answers the note's billing row as stored: a read of the client's data (the model attaches the client). */
const clientReportAudit = { audit: { entity: "client_report" } };

export const clientReportsApi = new Hono<AppEnv>()
  .get("/config", manage, (c) => c.json({ data: clientReportConfig() }))
  .get("/show/:id", manage, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, NOT_FOUND);
    return answer(c, await getClientReport(modelContext(c), id));
  })
  .post("/store", manage, async (c) => {
    const b = await readBody(c);
    return answerChange(c, clientReportAudit, null, await saveClientReport(modelContext(c), b), 201);
  })
  .post("/update/:id", manage, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, NOT_FOUND);
    const b = await readBody(c);
    return otherRecordId(c, id, b) ?? answerChange(c, clientReportAudit, id, await updateClientReport(modelContext(c), id, b));
  })
  .put("/update/status/:id", manage, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, "Note not found.");
    const b = await readBody(c);
    return answerChange(c, { audit: { entity: "note" } }, id, await setBillingStatus(modelContext(c), id, b));
  })
  .delete("/destroy/:id", manage, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, NOT_FOUND);
    const result = await deleteClientReport(modelContext(c), id);
    return result.ok ? c.json({ message: result.message }) : answer(c, result);
  })
  // Clinical §7 writes these two with a slash before the query (`byprofile/{patient}/?page…`): both spellings answer.
  .get("/byprofile/:patient", manage, byProfile)
  .get("/byprofile/:patient/", manage, byProfile)
  .get("/byemployee/:employee/:patient", manage, byEmployee)
  .get("/byemployee/:employee/:patient/", manage, byEmployee)
  .get("/bylocation/:id", manage, async (c) => {
    const id = pathId(c.req.param("id"));
    // The location is this call's address, not a filter: one the actor cannot see is 404 whatever the query (the
    // billing list's own location_id filter lists nothing for it, decision 030, 2026-11-28).
    if (id === null || !canSeeLocation(c.var.actor, id)) return jsonError(c, 404, "Location not found.");
    const refused = refuseUnknownParams(c, BY_LOCATION_PARAMS);
    if (refused) return refused;
    const result = await billingList(modelContext(c), { ...c.req.query(), location_id: String(id) });
    return result.ok ? c.json({ ...result.data.page, period: result.data.period }) : answer(c, result);
  })
  .get("/profile/:patient", manage, async (c) => {
    const id = pathId(c.req.param("patient"));
    if (id === null) return jsonError(c, 404, CLIENT_NOT_FOUND);
    const result = await clientReport(modelContext(c), id, reportQueryInput(c.req.query()), { tail: c.var.auditTail, unknown: unknownReportParams(c) });
    if (!result.ok) return answer(c, result);
    const r = result.data;
    return c.json({ data: { patient: r.patient, rates: r.rates, pa_services: r.pa_services, doctors: r.doctors, pos_covered: r.pos_covered, week: r.week, week_total_hours: r.week_total_hours, week_total_units: r.week_total_units, total: r.page.total } });
  });

// Any other method on these paths: 405 (decision 017).
refuseOtherMethods(clientReportsApi, ["/config", "/show/:id", "/store", "/update/:id", "/update/status/:id", "/destroy/:id", "/byprofile/:patient", "/byprofile/:patient/", "/byemployee/:employee/:patient", "/byemployee/:employee/:patient/", "/bylocation/:id", "/profile/:patient"]);
