import { createRateRecord, deleteRateRecord, getRateRecord, listRateRecords, RATE_RECORDS, updateRateRecord, type RateRecordJson } from "~/models/rate-records.server";
import { v2Router, type RestResource } from "./rest";

/**
 * Rate/pay records (platform §3), location-scoped. The spec names no permission or calls for them;
 * they are billing rates, so they sit with the insurers under manage_insurances. Mounted at /v2/rate-records
 * (./index.ts); no first-generation route, as the spec names no rate-record call.
 */
export const rateRecordResource: RestResource<RateRecordJson> = {
  name: RATE_RECORDS,
  idFilters: ["location_id"],
  label: "Rate record",
  view: "manage_insurances",
  manage: "manage_insurances",
  list: (ctx, query, filters) => listRateRecords(ctx, query, { location_id: filters.location_id }),
  get: getRateRecord,
  create: createRateRecord,
  update: updateRateRecord,
  remove: deleteRateRecord,
};

export const rateRecordsV2 = v2Router(rateRecordResource);
