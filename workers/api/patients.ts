import { Hono } from "hono";
import { createPaService, deletePaService, getPaService, listPaServices, listPaServicesOfPatient, PA_SERVICES, updatePaService, type PaServiceJson } from "~/models/pa-services.server";
import { auditRead } from "~/services/audit.server";
import { idempotencyKey, idempotencyToken } from "~/services/idempotency.server";
import { createPatient, deletePatient, getPatient, getPatientByIdentifier, listPatients, PATIENTS, updatePatient, updatePatientStatus, who, type PatientJson } from "~/models/patients.server";
import { jsonError, requireApiPermission, type AppEnv } from "./env";
import { modelContext, pathId, v1Router, v2Router, type RestResource, refuseOtherMethods } from "./rest";
import { CLIENT_NOT_FOUND } from "~/domain/patients";

/** Clients: viewed with view_clients, changed with manage_clients. Every show is audited by the model. */
export const patientResource: RestResource<PatientJson> = {
  name: PATIENTS,
  idFilters: ["location_id", "insurer_id", "staff_id", "parent_id"],
  filters: ["status"],
  label: "Client",
  view: "view_clients",
  manage: "manage_clients",
  list: (ctx, query, filters) => listPatients(ctx, query, filters),
  get: getPatient,
  // Idempotency-Key (decision 024), scoped to the actor: a resend answers the first client (200), the same key with
  // another body 422; the add form's one-time token does the same on the screen.
  create: async (ctx, body, headers) => createPatient(ctx, body, { formToken: await idempotencyToken(ctx.actor, ["patient"], idempotencyKey(headers), body) }),
  update: updatePatient,
  updateStatus: updatePatientStatus,
  remove: deletePatient,
  audit: { entity: "patient", patientOf: (r) => r.id, showAudited: true },
};

/** PA services: same permissions as clients, scoped through the client. */
export const paServiceResource: RestResource<PaServiceJson> = {
  name: PA_SERVICES,
  idFilters: ["patient_id", "location_id"],
  label: "PA service",
  view: "view_clients",
  manage: "manage_clients",
  list: (ctx, query, filters) => listPaServices(ctx, query, filters),
  get: getPaService,
  // Idempotency-Key (decision 024): scoped to the actor and the client; a resend answers the first service (200).
  create: async (ctx, body, headers) => createPaService(ctx, body, { formToken: await idempotencyToken(ctx.actor, ["pa_service", String(body.patient_id ?? "")], idempotencyKey(headers), body) }),
  update: updatePaService,
  remove: deletePaService,
  audit: { entity: "pa_service", patientOf: (r) => r.patient_id },
};

const viewClients = requireApiPermission("view_clients");

export const patientsV2 = new Hono<AppEnv>()
  .get("/:id/pa-services", viewClients, async (c) => {
    const id = pathId(c.req.param("id"));
    const ctx = modelContext(c);
    const rows = id === null ? null : await listPaServicesOfPatient(ctx, id);
    if (!rows) return jsonError(c, 404, CLIENT_NOT_FOUND);
    // The client's authorizations are part of the client record: the read is audited.
    await auditRead(ctx.db, who(ctx), { entity: "pa_service", entityId: null, patientId: id }, c.var.auditTail);
    return c.json({ data: rows });
  })
  .get("/by-identifier/:identifier", viewClients, async (c) => {
    const row = await getPatientByIdentifier(modelContext(c), c.req.param("identifier"));
    return row ? c.json({ data: row }) : jsonError(c, 404, CLIENT_NOT_FOUND);
  })
  .route("/", v2Router(patientResource));
refuseOtherMethods(patientsV2, ["/:id/pa-services", "/by-identifier/:identifier"]);
export const patientsV1 = v1Router(patientResource);
export const paServicesV2 = v2Router(paServiceResource);
