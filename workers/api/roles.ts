import { createRole, deleteRole, getRole, listRolesPage, ROLES, updateRole, type RoleJson } from "~/models/roles.server";
import { v1Router, v2Router, type RestResource } from "./rest";

/** Roles (platform §6): viewed and changed with manage_roles. */
export const roleResource: RestResource<RoleJson> = {
  name: ROLES,
  label: "Role",
  view: "manage_roles",
  manage: "manage_roles",
  list: (ctx, query) => listRolesPage(ctx, query),
  get: getRole,
  create: createRole,
  update: updateRole,
  remove: deleteRole,
};

export const rolesV2 = v2Router(roleResource);
export const rolesV1 = v1Router(roleResource);
