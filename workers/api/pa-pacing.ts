import { Hono } from "hono";
import { pathId } from "~/domain/validation";
import { paCalculator, patientPacing, paServicePacing } from "~/models/pa-pacing.server";
import { jsonError, requireApiPermission, type AppEnv } from "./env";
import { modelContext, refuseOtherMethods, refuseUnknownParams } from "./rest";
import { CLIENT_NOT_FOUND } from "~/domain/patients";

/**
 * The PA calculator (clinical §7) and pacing (issue 11, decision 031). Permission as PA services (view_clients),
 * scoped through the client's location: another location's PA service or client answers 404. Mounted under /api/v2.
 * `GET /pa-pacing` takes `patient_id` only; any other query parameter answers 422 naming it (decision 017, stop 45).
 */
const viewClients = requireApiPermission("view_clients");
const PA_NOT_FOUND = "PA service not found.";

export const paPacingApi = new Hono<AppEnv>()
  .get("/pa-service-calculator/:id", viewClients, async (c) => {
    const id = pathId(c.req.param("id"));
    const data = id === null ? null : await paCalculator(modelContext(c), id);
    return data ? c.json({ data }) : jsonError(c, 404, PA_NOT_FOUND);
  })
  .get("/pa-services/:id/pacing", viewClients, async (c) => {
    const id = pathId(c.req.param("id"));
    const data = id === null ? null : await paServicePacing(modelContext(c), id);
    return data ? c.json({ data }) : jsonError(c, 404, PA_NOT_FOUND);
  })
  .get("/pa-pacing", viewClients, async (c) => {
    const refused = refuseUnknownParams(c, ["patient_id"]);
    if (refused) return refused;
    const raw = c.req.query("patient_id");
    const id = pathId(raw);
    if (id === null) {
      const message = raw ? "patient_id must be a record id." : "patient_id is required.";
      return jsonError(c, 422, message, { errors: { patient_id: message } });
    }
    const data = await patientPacing(modelContext(c), id);
    return data ? c.json({ data }) : jsonError(c, 404, CLIENT_NOT_FOUND);
  });

refuseOtherMethods(paPacingApi, ["/pa-service-calculator/:id", "/pa-services/:id/pacing", "/pa-pacing"]);
