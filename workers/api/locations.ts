import { createLocation, deleteLocation, getLocation, listLocations, LOCATIONS, updateLocation, type LocationJson } from "~/models/locations.server";
import { v1Router, v2Router, type RestResource } from "./rest";

/** Locations: listed with manage_locations_access (the sidebar's permission), changed with manage_locations. */
export const locationResource: RestResource<LocationJson> = {
  name: LOCATIONS,
  label: "Location",
  view: "manage_locations_access",
  manage: "manage_locations",
  list: (ctx, query) => listLocations(ctx, query),
  get: getLocation,
  create: createLocation,
  update: updateLocation,
  remove: deleteLocation,
};

export const locationsV2 = v2Router(locationResource);
export const locationsV1 = v1Router(locationResource);
