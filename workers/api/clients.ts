import { Hono } from "hono";
import type { AppEnv } from "./env";
import { parentsV1, parentsV2 } from "./parents";
import { paServicesV2, patientsV1, patientsV2 } from "./patients";

/** Clients, PA services and parents (clinical §3, platform §2 patient and parent routes), mounted under /api. */
export const clientsApi = new Hono<AppEnv>()
  .route("/v2/patients", patientsV2)
  .route("/patient", patientsV1)
  .route("/v2/pa-services", paServicesV2)
  .route("/v2/parents", parentsV2)
  .route("/parent", parentsV1);
