import { Hono } from "hono";
import { createObjective, deleteObjective, getObjective, listObjectives, OBJECTIVES, reorderPlanObjectives, updateObjective, updateObjectiveStatus, type ObjectiveJson } from "~/models/objectives.server";
import { createPlan, deletePlan, getPlan, listPlans, PLANS, updatePlan, updatePlanStatus, type PlanJson } from "~/models/plans.server";
import { readBody, requireApiPermission, type AppEnv } from "./env";
import { answer, modelContext, unsupported, v2Router, type RestResource } from "./rest";

/**
 * Goals (plans) and objectives of a BIP (clinical §3, §4, §5): viewed with view_bips, changed with
 * manage_bips. v2 pattern; plans filter by bip_id, category and their client (patient_id or client_id, as the
 * BIP list), objectives by plan_id.
 */
export const planResource: RestResource<PlanJson> = {
  name: PLANS,
  idFilters: ["patient_id", "client_id", "bip_id", "location_id"],
  filters: ["category", "status"],
  label: "Plan",
  view: "view_bips",
  manage: "manage_bips",
  list: (ctx, query, filters) => listPlans(ctx, query, filters),
  get: getPlan,
  create: createPlan,
  update: updatePlan,
  updateStatus: updatePlanStatus,
  remove: deletePlan,
  audit: { entity: "plan", patientOf: (r) => r.patient_id, showAudited: true },
};

export const objectiveResource: RestResource<ObjectiveJson> = {
  name: OBJECTIVES,
  idFilters: ["plan_id"],
  label: "Objective",
  view: "view_bips",
  manage: "manage_bips",
  list: (ctx, query, filters) => listObjectives(ctx, query, filters),
  get: getObjective,
  create: createObjective,
  update: updateObjective,
  updateStatus: updateObjectiveStatus,
  remove: (ctx, id) => deleteObjective(ctx, id),
  // Objective rows name their plan; the model attaches their clients (withClients).
  audit: { entity: "objective", showAudited: true },
};

export const plansV2 = v2Router(planResource);

/** POST /reorder {plan_id, ids}: the plan's STOs in the given order (the LTO stays last); answers the plan's objectives. */
export const objectivesV2 = new Hono<AppEnv>()
  .post("/reorder", requireApiPermission("manage_bips", "view_bips"), async (c) => {
    const body = await readBody(c);
    return answer(c, await reorderPlanObjectives(modelContext(c), body));
  })
  .all("/reorder", unsupported)
  .route("/", v2Router(objectiveResource));
