import { createParent, deleteParent, getParent, listParents, PARENTS, updateParent, updateParentStatus, type ParentJson } from "~/models/parents.server";
import { v1Router, v2Router, type RestResource } from "./rest";

/** Parents and guardians: view_parents / manage_parents. */
export const parentResource: RestResource<ParentJson> = {
  name: PARENTS,
  label: "Parent",
  view: "view_parents",
  manage: "manage_parents",
  list: (ctx, query) => listParents(ctx, query),
  get: getParent,
  // The API's create and edit also set the parent's password (password, password_confirmation; decision 044, stop 35).
  create: (ctx, input, _headers, app) => createParent(ctx, input, app),
  update: updateParent,
  updateStatus: updateParentStatus,
  remove: deleteParent,
  // Parents and guardians are part of their clients' records: list pages record the parents they answer.
  audit: { entity: "parent", patientOf: (r) => r.id, showAudited: true, subjects: "parents" },
};

export const parentsV2 = v2Router(parentResource);
export const parentsV1 = v1Router(parentResource);
