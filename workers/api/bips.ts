import { Hono } from "hono";
import { BIPS, createBip, deleteBip, getBip, listBips, updateBip, type BipJson, type BipListJson } from "~/models/bips.server";
import type { AppEnv } from "./env";
import { v1Router, v2Router, type RestResource } from "./rest";

/**
 * Behavior intervention plans (clinical §3; platform §2 bip routes): viewed with view_bips, changed with
 * manage_bips. The list answers summary rows (filter patient_id/client_id, location_id,
 * type_of_assessment, needs_attention); show answers the whole plan with defaults applied and the
 * placeholders left in. Create and update validate with the editor's schema; delete is soft.
 */
export const bipResource: RestResource<BipJson | BipListJson> = {
  name: BIPS,
  idFilters: ["patient_id", "client_id", "location_id"],
  filters: ["type_of_assessment", "needs_attention"],
  label: "BIP",
  view: "view_bips",
  manage: "manage_bips",
  list: (ctx, query, filters) => listBips(ctx, query, filters),
  get: getBip,
  create: createBip,
  update: updateBip,
  remove: deleteBip,
  audit: { entity: "bip", patientOf: (r) => r.patient_id, showAudited: true },
};

export const bipsV2 = new Hono<AppEnv>().route("/", v2Router(bipResource));
export const bipsV1 = v1Router(bipResource);
