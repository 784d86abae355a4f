import { Hono, type Context } from "hono";
import { LIST_QUERY_KEYS, listQuerySchema, type ListQuery, type Paged } from "~/domain/paging";
import { isAllAccess, locationScope, type Permission } from "~/domain/permissions";
import { unknownFilters } from "~/domain/list-filters";
import { otherRecordIdMessage, parseVersion, parseWith, pathId, VERSION_MESSAGE } from "~/domain/validation";
import { HTTPException } from "hono/http-exception";
import type { ModelContext } from "~/models/context";
import { NOTHING_TO_CHANGE, type ModelResult } from "~/models/results";
import { auditRead, clientIds, clientsOf, clientsReadEntry } from "~/services/audit.server";
import type { AppContext } from "~/services/context.server";
import { cachedList } from "~/services/list-cache.server";
import { jsonError, readBody, requireApiPermission, type AppEnv } from "./env";

/**
 * The two generic REST patterns (platform §7 shared calls, clinical §7 generic services), written once.
 * A resource supplies its permissions and model functions; these builders give it the v2 routes
 * (list, show, create, update, patch, update-status, delete; 405 'Unsupported HTTP method' otherwise)
 * and the v1 routes (show, store, update, destroy).
 */
export interface RestResource<Row> {
  /** The list-version key and the word in messages ("patients", "Client"). */
  name: string;
  label: string;
  view: Permission;
  manage: Permission;
  /** Permissions that read the records as `view` does (employees: manage_employees reads too). */
  readers?: readonly Permission[];
  /**
   * A different permission for some changes than `manage` (notes: a user with view_notes writes and edits
   * their own notes, the model checks whose; deleting and status need manage_notes). Unset: `manage`.
   */
  permissions?: Partial<Record<"create" | "update" | "status" | "remove", Permission>>;
  /**
   * The list's record-id filters (`patient_id`, `location_id`, …), each read by the one list-filter rule (FilterId,
   * app/domain/list-filters.ts): a malformed value answers 422 "Filters take a record id." at its name. Declared here
   * so the rule is checked over every list that takes one (test/workers/list-filters.test.ts).
   */
  idFilters?: readonly string[];
  /**
   * The list's other filters (`status`, `category`, …). A query parameter that is neither the list query's (paging,
   * search, dates, cache), an id filter nor one of these answers 422 naming it (takenParams; decision 017).
   */
  filters?: readonly string[];
  maxPerPage?: number;
  defaultPerPage?: number;
  list(ctx: ModelContext, query: ListQuery, filters: Record<string, string>): Promise<Paged<Row> | ModelResult<Paged<Row>>>;
  get(ctx: ModelContext, id: number): Promise<Row | null>;
  /** `headers`: the request's (notes read Idempotency-Key); `app`: for what needs the environment (a parent's password). */
  create?(ctx: ModelContext, input: Record<string, unknown>, headers: Headers, app: AppContext): Promise<ModelResult<Row>>;
  /** A create that answered an earlier one (an idempotent resend): 200 instead of 201 (as a result marked `replayed` is). */
  replayed?(result: { data: Row; message?: string }): boolean;
  update?(ctx: ModelContext, id: number, input: Record<string, unknown>, opts: { partial: boolean; version: number | null; app: AppContext }): Promise<ModelResult<Row>>;
  updateStatus?(ctx: ModelContext, id: number, input: Record<string, unknown>, app: AppContext): Promise<ModelResult<Row>>;
  remove?(ctx: ModelContext, id: number): Promise<ModelResult<unknown>>;
  /**
   * Records that return client data: every list page (cached or not) and every show writes one audit row
   * (action read) naming the clients whose data it answers, before the answer leaves (docs/decisions/019).
   * `showAudited`: `get` records its own read (the model's single-record pattern).
   */
  audit?: { entity: string; patientOf?: (row: Row) => number | null; showAudited?: boolean; subjects?: "patients" | "parents" };
}

export const UNSUPPORTED = "Unsupported HTTP method";

export function modelContext(c: Context<AppEnv>): ModelContext {
  return { db: c.var.app.db, actor: c.var.actor, ip: c.var.app.ip, now: c.var.app.now };
}

export { pathId };

/**
 * The version a client claims to update: the body's `version`, else the If-Match header; null when absent. A
 * version that is not a whole number answers 422 (thrown): never read as "no version", an unconditional write.
 */
export function requestVersion(c: Context<AppEnv>, body: Record<string, unknown>): number | null {
  const raw = body.version ?? c.req.header("If-Match")?.replace(/"/g, "");
  const parsed = parseVersion(raw);
  if (!parsed.ok) throw new HTTPException(422, { res: c.json({ message: VERSION_MESSAGE, errors: { version: VERSION_MESSAGE } }, 422) });
  return parsed.version;
}

/** Turns a model result into the JSON answer. */
export function answer<T>(c: Context<AppEnv>, result: ModelResult<T>, successStatus: 200 | 201 = 200) {
  if (result.ok) return c.json({ data: result.data, ...(result.message ? { message: result.message } : {}) }, successStatus);
  switch (result.status) {
    case 422:
      return jsonError(c, 422, result.message, { errors: result.errors });
    case 409:
      return jsonError(c, 409, result.message, { current: result.current });
    default:
      return jsonError(c, result.status, result.message);
  }
}

function isResult<T>(x: Paged<T> | ModelResult<Paged<T>>): x is ModelResult<Paged<T>> {
  return "ok" in x;
}

/**
 * A cached list's key: the asker's scope (kind, the location set or "all", and the permission set) and the
 * query without `cache`, in a stable order. Two users with the same scope share answers; a user who loses
 * a location or a permission has a new key at once, so a cached answer never outlives their access.
 */
export function listCacheKey(ctx: ModelContext, raw: Record<string, string>): string {
  const scope = locationScope(ctx.actor);
  const locations = scope === null ? "all" : [...new Set(scope)].sort((a, b) => a - b).join(",");
  const permissions = isAllAccess(ctx.actor) ? "all" : [...new Set(ctx.actor.permissions)].sort().join(",");
  const who = ctx.actor.kind === "user" ? "user" : `${ctx.actor.kind}:${ctx.actor.id}`;
  return `${who}|${locations}|${permissions}?${new URLSearchParams(Object.entries(raw).filter(([k]) => k !== "cache").sort()).toString()}`;
}

/** Every query parameter a list takes: the list query's, its id filters and its other filters. */
export function takenParams(resource: Pick<RestResource<unknown>, "idFilters" | "filters">): string[] {
  return [...LIST_QUERY_KEYS, ...(resource.idFilters ?? []), ...(resource.filters ?? [])];
}

/**
 * The 422 for the query parameters a list does not take, each named (decision 017, 2026-11-29): a filter the list
 * cannot apply is refused, never dropped, so an answer never looks filtered when it is not. Null when all are taken.
 */
export function refuseUnknownFilters(c: Context<AppEnv>, resource: Pick<RestResource<unknown>, "idFilters" | "filters">) {
  return refuseUnknownParams(c, takenParams(resource));
}

/**
 * The same 422 for a list outside RestResource, which declares every parameter it takes (`taken`: its own query's
 * names, and LIST_QUERY_KEYS only where it reads the list query); null when all are taken (decision 017, stop 45).
 */
export function refuseUnknownParams(c: Context<AppEnv>, taken: Iterable<string>) {
  const errors = unknownFilters(c.req.query(), taken);
  return errors ? jsonError(c, 422, Object.values(errors)[0]!, { errors }) : null;
}

async function listHandler<Row>(c: Context<AppEnv>, resource: RestResource<Row>) {
  const raw = c.req.query();
  const refused = refuseUnknownFilters(c, resource);
  if (refused) return refused;
  const parsed = parseWith(listQuerySchema(resource.maxPerPage, resource.defaultPerPage), raw);
  if (!parsed.ok) return jsonError(c, 422, Object.values(parsed.errors)[0]!, { errors: parsed.errors });
  const ctx = modelContext(c);
  const key = listCacheKey(ctx, raw);
  const result = await cachedList(ctx.db, resource.name, key, parsed.data.cache, () => resource.list(ctx, parsed.data, raw));
  if (isResult(result) && !result.ok) return answer(c, result);
  const page = isResult(result) ? (result as { data: Paged<Row> }).data : result;
  await auditRows(c, resource, page, page.data);
  return c.json(page);
}

/**
 * The read of client data in `rows`, recorded (one row) before it is answered; the tail comes from the guard.
 * A show names its record in `entity_id` (`recordId`), as the models' own shows do; a list names none.
 */
async function auditRows<Row>(c: Context<AppEnv>, resource: Pick<RestResource<Row>, "audit">, answer: object, rows: readonly Row[], recordId: number | null = null) {
  const audit = resource.audit;
  if (!audit) return;
  const ctx = modelContext(c);
  const ids = clientsOf(answer) ?? (audit.patientOf ? clientIds(rows, audit.patientOf) : []);
  if (ids.length === 0) return;
  await auditRead(ctx.db, { actor: ctx.actor, ip: ctx.ip }, { ...clientsReadEntry(audit.entity, ids, audit.subjects), entityId: recordId }, c.var.auditTail);
}

/**
 * The answer to a change (create, update, status) of a resource whose records are client data. A 409 answers the
 * record as stored now (`current`): that is a read of client data as a show's is, so it writes one read row naming
 * the record and its client (the row's `patientOf`, or the clients the model attached with withClients) before it
 * leaves, as a show does. Any other answer is `answer`'s. `recordId`: the path's id (null: the record in `current`).
 */
export async function answerChange<Row>(c: Context<AppEnv>, resource: Pick<RestResource<Row>, "audit">, recordId: number | null, result: ModelResult<Row>, successStatus: 200 | 201 = 200) {
  if (!result.ok && result.status === 409 && resource.audit && isRecord(result.current)) {
    const current = result.current as Row & { id?: unknown };
    const id = recordId ?? (typeof current.id === "number" ? current.id : null);
    await auditRows(c, resource, current, [current], id);
  }
  return answer(c, result, successStatus);
}

function isRecord(x: unknown): x is object {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

async function showHandler<Row>(c: Context<AppEnv>, resource: RestResource<Row>) {
  const id = pathId(c.req.param("id"));
  const row = id === null ? null : await resource.get(modelContext(c), id);
  if (!row) return jsonError(c, 404, `${resource.label} not found.`);
  if (!resource.audit?.showAudited) await auditRows(c, resource, row as object, [row], id);
  return c.json({ data: row });
}

/** An update body (PATCH or PUT) that names no field (only the version it expects, or nothing): nothing is written. */
export function isEmptyChange(body: Record<string, unknown>): boolean {
  return Object.keys(body).every((k) => k === "version" || k === "id");
}

export function emptyChange(c: Context<AppEnv>) {
  return jsonError(c, 422, NOTHING_TO_CHANGE, { errors: { form: NOTHING_TO_CHANGE } });
}

/**
 * The 422 on `id` when a change's body names another record than its path (decision 044, stop 35), else null: nothing
 * is written. Every update of the API asks this first (the generic PUT, PATCH and update-status, and the own handlers).
 */
export function otherRecordId(c: Context<AppEnv>, id: number, body: Record<string, unknown>) {
  const message = otherRecordIdMessage(body.id, id);
  return message === null ? null : jsonError(c, 422, message, { errors: { id: message } });
}

async function createHandler<Row>(c: Context<AppEnv>, resource: RestResource<Row>) {
  if (!resource.create) return jsonError(c, 405, UNSUPPORTED);
  const body = await readBody(c);
  const result = await resource.create(modelContext(c), body, c.req.raw.headers, c.var.app);
  return answerChange(c, resource, null, result, result.ok && (result.replayed || resource.replayed?.(result)) ? 200 : 201);
}

async function updateHandler<Row>(c: Context<AppEnv>, resource: RestResource<Row>, partial: boolean) {
  if (!resource.update) return jsonError(c, 405, UNSUPPORTED);
  const id = pathId(c.req.param("id"));
  if (id === null) return jsonError(c, 404, `${resource.label} not found.`);
  const body = await readBody(c);
  const refused = otherRecordId(c, id, body);
  if (refused) return refused;
  if (isEmptyChange(body)) return emptyChange(c);
  return answerChange(c, resource, id, await resource.update(modelContext(c), id, body, { partial, version: requestVersion(c, body), app: c.var.app }));
}

async function statusHandler<Row>(c: Context<AppEnv>, resource: RestResource<Row>) {
  if (!resource.updateStatus) return jsonError(c, 405, UNSUPPORTED);
  const id = pathId(c.req.param("id"));
  if (id === null) return jsonError(c, 404, `${resource.label} not found.`);
  const body = await readBody(c);
  return otherRecordId(c, id, body) ?? answerChange(c, resource, id, await resource.updateStatus(modelContext(c), id, body, c.var.app));
}

async function removeHandler<Row>(c: Context<AppEnv>, resource: RestResource<Row>) {
  if (!resource.remove) return jsonError(c, 405, UNSUPPORTED);
  const id = pathId(c.req.param("id"));
  if (id === null) return jsonError(c, 404, `${resource.label} not found.`);
  const result = await resource.remove(modelContext(c), id);
  return result.ok ? c.json({ message: result.message ?? `${resource.label} deleted.` }) : answerChange(c, resource, id, result as ModelResult<Row>);
}

/** Any other method on a path the API serves: 405 JSON (platform §7), never a fall-through to the screens. */
export const unsupported = (c: Context<AppEnv>) => jsonError(c, 405, UNSUPPORTED);

/** Registers `unsupported` for every method the router has no handler for on each of `paths` (call after the handlers). */
export function refuseOtherMethods(router: Hono<AppEnv>, paths: readonly string[]): void {
  for (const path of paths) router.all(path, unsupported);
}

/**
 * The guards of a resource's calls. A call that answers the record (show, create, update, status) needs the view
 * permission; a change needs its own permission as well. Delete answers a message only (decision 007, 2026-11-27).
 */
function guards<Row>(resource: RestResource<Row>) {
  const [create, update, status, remove] = (["create", "update", "status", "remove"] as const).map((k) => resource.permissions?.[k] ?? resource.manage);
  const reads = (p: Permission) => p === resource.view || !!resource.readers?.includes(p);
  const answering = (p: Permission) => (reads(p) ? requireApiPermission(p) : requireApiPermission(p, resource.view));
  return { view: requireApiPermission(resource.view), create: answering(create!), update: answering(update!), status: answering(status!), remove: requireApiPermission(remove!) };
}

/**
 * GET list, GET /:id, POST, PUT /:id, PUT /update-status/:id, PATCH /:id, DELETE /:id; anything else 405. A call the
 * resource lacks (no `create`, no `remove` …) is not registered, so the 405's `Allow` header (./index.ts
 * `answerAllowedMethods`, read from the route table) never lists it; without `updateStatus` the path does not exist.
 */
export function v2Router<Row>(resource: RestResource<Row>) {
  const { view, create, update, status, remove } = guards(resource);
  const router = new Hono<AppEnv>().get("/", view, (c) => listHandler(c, resource));
  if (resource.create) router.post("/", create, (c) => createHandler(c, resource));
  if (resource.updateStatus) router.put("/update-status/:id", status, (c) => statusHandler(c, resource));
  router.get("/:id", view, (c) => showHandler(c, resource));
  if (resource.update) router.put("/:id", update, (c) => updateHandler(c, resource, false)).patch("/:id", update, (c) => updateHandler(c, resource, true));
  if (resource.remove) router.delete("/:id", remove, (c) => removeHandler(c, resource));
  // A resource without a status call has no such path: 404 "Endpoint not found", not a 405 that could list no method.
  if (resource.updateStatus) router.all("/update-status/:id", unsupported);
  return router.all("/", unsupported).all("/:id", unsupported);
}

/** GET show/:id, POST store, PUT update/:id, DELETE destroy/:id; any other method on those paths 405. */
export function v1Router<Row>(resource: RestResource<Row>) {
  const { view, create, update, remove } = guards({ ...resource, permissions: undefined });
  const router = new Hono<AppEnv>().get("/show/:id", view, (c) => showHandler(c, resource));
  if (resource.create) router.post("/store", create, (c) => createHandler(c, resource));
  if (resource.update) router.put("/update/:id", update, (c) => updateHandler(c, resource, false));
  if (resource.remove) router.delete("/destroy/:id", remove, (c) => removeHandler(c, resource));
  // Likewise a v1 call the resource lacks has no path (404), rather than a 405 that could list no method.
  if (resource.create) router.all("/store", unsupported);
  if (resource.update) router.all("/update/:id", unsupported);
  if (resource.remove) router.all("/destroy/:id", unsupported);
  return router.all("/show/:id", unsupported);
}
