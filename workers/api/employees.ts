import { Hono, type Context } from "hono";
import { ListQuery } from "~/domain/paging";
import { canReadEmployees, EMPLOYEE_READERS } from "~/domain/permissions";
import { parseWith } from "~/domain/validation";
import {
  changeEmployeePassword,
  createEmployee,
  deleteEmployee,
  employeeConfig,
  employeeLocationConfig,
  EMPLOYEES,
  employeesByLocation,
  getEmployee,
  getEmployeeProfile,
  listEmployees,
  resetEmployeeTwoFactor,
  updateEmployee,
  updateEmployeeStatus,
  type EmployeeJson,
} from "~/models/employees.server";
import { cachedList } from "~/services/list-cache.server";
import { jsonError, readBody, requireApiPermission, requireApiStaff, type AppEnv, type GuardMiddleware } from "./env";
import { answer, emptyChange, isEmptyChange, listCacheKey, modelContext, otherRecordId, pathId, refuseUnknownFilters, requestVersion, v2Router, type RestResource, refuseOtherMethods } from "./rest";

/**
 * Employees ("doctors", platform §7): the v1 doctors calls, the v2 employees resource, and the user
 * administration calls. Reading needs view_employees or manage_employees; changing needs manage_employees.
 */

/** view_employees or manage_employees (declared as view_employees for the route-coverage test). */
const viewEmployees: GuardMiddleware = Object.assign(
  async (c: Context<AppEnv>, next: () => Promise<void>) => {
    let allowed = false;
    const refused = await requireApiStaff(c, async () => {
      allowed = canReadEmployees(c.var.actor);
    });
    if (refused) return refused;
    if (!allowed) return jsonError(c, 403, "You don't have permission to access this resource.");
    await next();
  },
  { guard: "view_employees" as const },
);
const manageEmployees = requireApiPermission("manage_employees");

const notFoundEmployee = (c: Context<AppEnv>) => jsonError(c, 404, "Employee not found.");
const pepper = (c: Context<AppEnv>) => c.var.app.env.PASSWORD_PEPPER ?? "";

/** The generic v2 pattern for update, patch, update-status and delete (and 405 for anything else). */
export const employeeResource: RestResource<EmployeeJson> = {
  name: EMPLOYEES,
  idFilters: ["location_id"],
  filters: ["status"],
  label: "Employee",
  view: "view_employees",
  manage: "manage_employees",
  readers: EMPLOYEE_READERS,
  list: (ctx, query, filters) => listEmployees(ctx, query, filters),
  get: getEmployee,
  update: updateEmployee,
  updateStatus: updateEmployeeStatus,
  remove: deleteEmployee,
};

/**
 * The list, with `cache=true` served from the same version-keyed list cache as every other v2 resource
 * (app/services/list-cache.server.ts): any employee write bumps the version, so a cached page never
 * outlives a change. Keyed by the actor, since the answer is limited to their locations.
 */
async function listHandler(c: Context<AppEnv>) {
  const raw = c.req.query();
  const refused = refuseUnknownFilters(c, employeeResource);
  if (refused) return refused;
  const parsed = parseWith(ListQuery, raw);
  if (!parsed.ok) return jsonError(c, 422, Object.values(parsed.errors)[0]!, { errors: parsed.errors });
  const ctx = modelContext(c);
  const key = listCacheKey(ctx, raw);
  const result = await cachedList(ctx.db, EMPLOYEES, key, parsed.data.cache, () => listEmployees(ctx, parsed.data, raw));
  // A malformed filter (location_id=abc, status=Inactive) answers 422 at its field, never the whole list.
  return result.ok ? c.json(result.data) : answer(c, result);
}

async function createHandler(c: Context<AppEnv>) {
  const body = await readBody(c);
  return answer(c, await createEmployee(modelContext(c), body, pepper(c)), 201);
}

/**
 * /api/v2/employees. List and show are answered here first (view_employees or manage_employees; the
 * generic builder takes one permission), create here because it needs the password pepper.
 */
export const employeesV2 = new Hono<AppEnv>()
  .get("/", viewEmployees, listHandler)
  .post("/", manageEmployees, createHandler)
  .get("/:id", viewEmployees, async (c) => {
    const id = pathId(c.req.param("id"));
    const row = id === null ? null : await getEmployee(modelContext(c), id);
    return row ? c.json({ data: row }) : notFoundEmployee(c);
  })
  .route("/", v2Router(employeeResource));

/** /api/doctors: the first-generation calls (platform §7 Employees). */
export const doctorsApi = new Hono<AppEnv>()
  .get("/", viewEmployees, listHandler)
  .get("/config", viewEmployees, async (c) => c.json({ data: await employeeConfig(modelContext(c)) }))
  .get("/configlocation/:id", viewEmployees, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, "Location not found.");
    return answer(c, await employeeLocationConfig(modelContext(c), id));
  })
  .get("/show/:id", viewEmployees, async (c) => {
    const id = pathId(c.req.param("id"));
    const row = id === null ? null : await getEmployee(modelContext(c), id);
    return row ? c.json({ data: row }) : notFoundEmployee(c);
  })
  .get("/profile/:id", viewEmployees, async (c) => {
    const id = pathId(c.req.param("id"));
    const row = id === null ? null : await getEmployeeProfile(modelContext(c), id);
    return row ? c.json({ data: row }) : notFoundEmployee(c);
  })
  .get("/employeesbylocation/:id", viewEmployees, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, "Location not found.");
    return answer(c, await employeesByLocation(modelContext(c), id));
  })
  .post("/update/:id", manageEmployees, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return notFoundEmployee(c);
    const body = await readBody(c);
    return otherRecordId(c, id, body) ?? answer(c, await updateEmployee(modelContext(c), id, body, { partial: false, version: requestVersion(c, body), app: c.var.app }));
  })
  .put("/update/status/:id", manageEmployees, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return notFoundEmployee(c);
    const body = await readBody(c);
    return otherRecordId(c, id, body) ?? answer(c, await updateEmployeeStatus(modelContext(c), id, body));
  })
  .delete("/destroy/:id", manageEmployees, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return notFoundEmployee(c);
    const result = await deleteEmployee(modelContext(c), id);
    return result.ok ? c.json({ message: result.message }) : answer(c, result);
  });

/** /api/v2/users: user administration (platform §7). */
export const usersV2 = new Hono<AppEnv>()
  .post("/createUser", manageEmployees, createHandler)
  .post("/editUser/:id", manageEmployees, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return notFoundEmployee(c);
    const body = await readBody(c);
    const refused = otherRecordId(c, id, body);
    if (refused) return refused;
    // editUser changes only the fields it is given; one that names none writes nothing (the PATCH rule).
    if (isEmptyChange(body)) return emptyChange(c);
    return answer(c, await updateEmployee(modelContext(c), id, body, { partial: true, version: requestVersion(c, body), app: c.var.app }));
  })
  .patch("/:id/change-password", manageEmployees, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return notFoundEmployee(c);
    const body = await readBody(c);
    const result = await changeEmployeePassword(modelContext(c), c.var.app, id, body);
    return result.ok ? c.json({ message: result.message }) : answer(c, result);
  })
  .post("/:id/reset-two-factor", manageEmployees, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return notFoundEmployee(c);
    const result = await resetEmployeeTwoFactor(modelContext(c), id);
    // The state after the call (off either way) beside the message, which says whether anything changed.
    return result.ok ? c.json({ message: result.message, ...result.data }) : answer(c, result);
  });

refuseOtherMethods(doctorsApi, ["/", "/config", "/configlocation/:id", "/show/:id", "/profile/:id", "/employeesbylocation/:id", "/update/:id", "/update/status/:id", "/destroy/:id"]);
refuseOtherMethods(usersV2, ["/createUser", "/editUser/:id", "/:id/change-password", "/:id/reset-two-factor"]);

/** Everything above, for one mount at /api. */
export const employeesApi = new Hono<AppEnv>().route("/doctors", doctorsApi).route("/v2/employees", employeesV2).route("/v2/users", usersV2);
