import { Hono, type Context } from "hono";
import { PRICE_LOOKUP_MESSAGES } from "~/domain/billing";
import { InsurerFilter, PriceLookupQuery } from "~/domain/insurance";
import { LIST_QUERY_KEYS, ListQuery } from "~/domain/paging";
import { parseWith } from "~/domain/validation";
import {
  createInsurance,
  createInsuranceService,
  deleteInsurance,
  deleteInsuranceService,
  findUnitPrice,
  getInsurance,
  INSURANCES,
  listInsurances,
  listInsuranceServices,
  listServicesByInsurance,
  updateInsurance,
  updateInsuranceService,
  type InsuranceJson,
} from "~/models/insurances.server";
import { invalid, ok } from "~/models/results";
import { jsonError, readBody, requireApiPermission, type AppEnv } from "./env";
import { answer, emptyChange, isEmptyChange, modelContext, otherRecordId, pathId, refuseUnknownFilters, refuseUnknownParams, requestVersion, v1Router, v2Router, type RestResource, refuseOtherMethods } from "./rest";

/** Insurers and their CPT services (clinical §7 Insurance). Insurers are not per-location: manage_insurances for all. */
export const insuranceResource: RestResource<InsuranceJson> = {
  name: INSURANCES,
  label: "Insurance",
  view: "manage_insurances",
  manage: "manage_insurances",
  filters: ["insurer_name"],
  list: async (ctx, query, filters) => {
    const f = parseWith(InsurerFilter, { insurer_name: filters.insurer_name ?? "" });
    return f.ok ? ok(await listInsurances(ctx, query, f.data)) : invalid(f.errors);
  },
  get: getInsurance,
  create: createInsurance,
  update: updateInsurance,
  remove: deleteInsurance,
};

export const insurancesV2 = v2Router(insuranceResource);

const guard = requireApiPermission("manage_insurances");

function listQuery(c: Context<AppEnv>) {
  return parseWith(ListQuery, c.req.query());
}

/**
 * The spec's insurance calls. Their paths have more segments than the v1 routes (/show/:id, /store,
 * /update/:id, /destroy/:id), so neither shadows the other; they are registered first all the same. The two lists
 * take the v2 list's parameters (and the insurers `insurer_name`, as /v2/insurances); any other answers 422 naming it
 * (decision 017, stop 45).
 */
const insuranceCalls = new Hono<AppEnv>()
  .get("/", guard, async (c) => {
    const refused = refuseUnknownFilters(c, insuranceResource);
    if (refused) return refused;
    const q = listQuery(c);
    if (!q.ok) return jsonError(c, 422, Object.values(q.errors)[0]!, { errors: q.errors });
    const f = parseWith(InsurerFilter, { insurer_name: c.req.query("insurer_name") ?? "" });
    if (!f.ok) return jsonError(c, 422, Object.values(f.errors)[0]!, { errors: f.errors });
    return c.json(await listInsurances(modelContext(c), q.data, f.data));
  })
  // ?location_id= prices for that location, ?modifiers=HM,GT for those modifiers, as billing prices a note (decision 030).
  .get("/showInsuranceCpt/:insurer/:cpt/:provider", guard, async (c) => {
    const q = parseWith(PriceLookupQuery, { location_id: c.req.query("location_id"), modifiers: c.req.query("modifiers") });
    if (!q.ok) return jsonError(c, 422, Object.values(q.errors)[0]!, { errors: q.errors });
    const insurer = pathId(c.req.param("insurer"));
    const found = insurer === null ? { service: null, by_location: [] } : await findUnitPrice(modelContext(c), insurer, c.req.param("cpt"), c.req.param("provider"), q.data);
    if (!found) return jsonError(c, 404, PRICE_LOOKUP_MESSAGES.locationNotFound);
    const { service, by_location } = found;
    if (service) return c.json({ ...service, data: service, by_location });
    if (!by_location.length) return jsonError(c, 404, PRICE_LOOKUP_MESSAGES.none);
    const message = PRICE_LOOKUP_MESSAGES.perLocation(by_location.map((p) => ({ location: p.location, unitPrice: p.service.unit_price, code: p.service.code })));
    return jsonError(c, 422, message, { errors: { location_id: message }, by_location });
  })
  .get("/service", guard, async (c) => {
    const refused = refuseUnknownParams(c, LIST_QUERY_KEYS);
    if (refused) return refused;
    const q = listQuery(c);
    if (!q.ok) return jsonError(c, 422, Object.values(q.errors)[0]!, { errors: q.errors });
    return c.json(await listInsuranceServices(modelContext(c), q.data));
  })
  .get("/servicebyInsurance/:id", guard, async (c) => {
    const id = pathId(c.req.param("id"));
    const services = id === null ? null : await listServicesByInsurance(modelContext(c), id);
    return services ? c.json({ data: services }) : jsonError(c, 404, "Insurance not found.");
  })
  .post("/store/service", guard, async (c) => {
    const body = await readBody(c);
    return answer(c, await createInsuranceService(modelContext(c), null, body), 201);
  })
  .put("/update/service/:id", guard, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, "Service not found.");
    const body = await readBody(c);
    return otherRecordId(c, id, body) ?? answer(c, await updateInsuranceService(modelContext(c), id, body, { partial: false, version: requestVersion(c, body) }));
  })
  .patch("/update/service/:id", guard, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, "Service not found.");
    const body = await readBody(c);
    const refused = otherRecordId(c, id, body);
    if (refused) return refused;
    if (isEmptyChange(body)) return emptyChange(c);
    return answer(c, await updateInsuranceService(modelContext(c), id, body, { partial: true, version: requestVersion(c, body) }));
  })
  .delete("/destroy/service/:id", guard, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, "Service not found.");
    const result = await deleteInsuranceService(modelContext(c), id);
    return result.ok ? c.json({ message: result.message }) : answer(c, result);
  });

refuseOtherMethods(insuranceCalls, ["/", "/showInsuranceCpt/:insurer/:cpt/:provider", "/service", "/servicebyInsurance/:id", "/store/service", "/update/service/:id", "/destroy/service/:id"]);

/** /api/insurance: the spec's calls, then show/:id, store, update/:id, destroy/:id. */
export const insurancesV1 = new Hono<AppEnv>().route("/", insuranceCalls).route("/", v1Router(insuranceResource));
