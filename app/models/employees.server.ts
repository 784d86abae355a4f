import { and, asc, count, eq, isNull, or, sql, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { insertChunks } from "~/db/chunks";
import type { BatchItem } from "drizzle-orm/batch";
import { roles, scheduledSessions, userLocations, userRoles, users } from "~/db/schema";
import {
  AdminPasswordInput,
  chosenLocations,
  COMPLIANCE_KEYS,
  complianceState,
  EMPLOYEE_EDIT_SET_ELSEWHERE,
  EMPLOYEE_SET_ELSEWHERE,
  EMPLOYEE_STATUSES,
  EmployeeEditInput,
  EmployeeInput,
  EmployeeStatusInput,
  employeeSaveErrors,
  HIDDEN_PRIMARY_MESSAGE,
  isEmployeeGender,
  maskSsn,
  NewEmployeeInput,
  PRIMARY_MESSAGE,
  PROFILE_DATE_FIELDS,
  PROFILE_TEXT_FIELDS,
  readEmployeeBody,
  type ComplianceKey,
  type ComplianceState,
  type EmploymentInput,
} from "~/domain/employees";
import { changeDetail, changesNoField } from "~/domain/audit-changes";
import { FilterId, filterStatus, parseFilters as parseListFilters } from "~/domain/list-filters";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { can, locationScope } from "~/domain/permissions";
import { todayAtLocation } from "~/domain/pa-pacing";
import { changeReach, mayChange, mayCreate, mayGrantRole, type ChangeReach, type IdentityChange, type RoleGrant, type Verdict } from "~/domain/who-may-change";
import { withCancelledCount, type UnfitReason } from "~/domain/schedule";
import { isValidNpi } from "~/domain/npi";
import { fieldsSetElsewhere, namesNoField, parseChange, parseWith } from "~/domain/validation";
import { AUTH_MESSAGES } from "~/domain/auth-rules";
import { setPassword, setTwoFactor } from "~/models/auth.server";
import { endAllAccessStatements } from "~/services/access.server";
import { auditTail, withAudit } from "~/services/audit.server";
import type { AppContext } from "~/services/context.server";
import { emailChangedNotice, enqueueEmail } from "~/services/jobs.server";
import { bumpListVersion } from "~/services/list-cache.server";
import { hashPassword } from "~/services/passwords.server";
import type { ModelContext } from "./context";
import { getLocation, locationOptions, locationOptionsQuery } from "./locations.server";
import { jsonRows, visibleLocationsQuery } from "./patients.server";
import { cancelledCount, cancelUnfitBookings, unfitDetail } from "./schedule.server";
import { conflict, denied, errorText, invalid, type ModelResult, notFound, nothingToChange, ok, unchangedAt } from "./results";
import { contains } from "./like.server";
import { idsIn, inLocationScope } from "./scope.server";
import { nextIdOf } from "./ids.server";

/**
 * Employees ("doctors", platform §3 User). Reads are limited to employees who share a location with the
 * actor (unless the actor sees every location); a location the actor cannot see is left out of an
 * employee's answer and kept as it is on a save. Never answers password_hash or the full ss_number.
 */

export const EMPLOYEES = "employees";
export const DUPLICATE_EMAIL = "An employee with this email already exists.";
type Row = typeof users.$inferSelect;

const PROFILE_KEYS = [...PROFILE_TEXT_FIELDS.map(([k]) => k), ...PROFILE_DATE_FIELDS.map(([k]) => k), "note"] as const;

/** The columns an answer is built from: never password_hash. */
const columns = {
  id: users.id,
  name: users.name,
  surname: users.surname,
  email: users.email,
  status: users.status,
  phone: users.phone,
  gender: users.gender,
  address: users.address,
  city: users.city,
  avatar: users.avatar,
  locationId: users.locationId,
  twoFactorEnabled: users.twoFactorEnabled,
  profile: users.profile,
  version: users.version,
  createdAt: users.createdAt,
};
type Selected = Pick<Row, keyof typeof columns>;

function parseObject(text: string | null | undefined): Record<string, unknown> {
  try {
    const x = JSON.parse(text ?? "{}") as unknown;
    return x && typeof x === "object" && !Array.isArray(x) ? (x as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
const str = (x: unknown): string | null => (typeof x === "string" && x !== "" ? x : null);

export interface EmploymentJson {
  id: number;
  title: string;
  position_id: number | null;
  salary: number | null;
  telehealth_salary: number | null;
  fixed_hours_salary: number | null;
  fixed_weekly_hours: number | null;
  compliance: Record<ComplianceKey, string | null>;
  /** The location's time zone: its compliance dates are judged on today there (decision 038, stop 32). */
  time_zone: string;
}

function employeeJson(r: Selected, roleRows: { id: number; name: string }[], locationRows: EmploymentJson[]) {
  const profile = parseObject(r.profile);
  const fields = Object.fromEntries(PROFILE_KEYS.map((k) => [k, str(profile[k])])) as Record<(typeof PROFILE_KEYS)[number], string | null>;
  return {
    id: r.id,
    name: r.name,
    surname: r.surname,
    full_name: `${r.name} ${r.surname}`.trim(),
    email: r.email,
    status: r.status,
    phone: r.phone,
    gender: r.gender,
    address: r.address,
    city: r.city,
    avatar: r.avatar,
    location_id: r.locationId,
    two_factor_enabled: r.twoFactorEnabled,
    roles: roleRows,
    locations: locationRows,
    ...fields,
    /** Masked: only the last four digits. */
    ss_number: maskSsn(str(profile.ss_number)),
    version: r.version,
    created_at: r.createdAt,
  };
}
export type EmployeeJson = ReturnType<typeof employeeJson>;

/* ---------------------------------------------------------------- scope */

function inScope(ctx: ModelContext): SQL {
  const scope = locationScope(ctx.actor);
  if (scope === null) return isNull(users.deletedAt);
  if (!scope.length) return sql`1 = 0`;
  return and(
    isNull(users.deletedAt),
    sql`exists (select 1 from ${userLocations} where ${userLocations.userId} = ${users.id} and ${idsIn(userLocations.locationId, scope)})`,
  )!;
}

/** The actor's location scope as a condition on `ul.location_id` (plain SQL, for the correlated subqueries). */
function visibleMembership(ctx: ModelContext): SQL {
  const scope = locationScope(ctx.actor);
  if (scope === null) return sql`1 = 1`;
  return idsIn(sql`ul.location_id`, scope);
}

type EmploymentRow = {
  location_id: number;
  title: string;
  position_id: number | null;
  salary: number | null;
  telehealth_salary: number | null;
  fixed_hours_salary: number | null;
  fixed_weekly_hours: number | null;
  compliance: string | null;
  time_zone: string;
};
const EMPLOYMENT_COLUMNS = ["location_id", "title", "position_id", "salary", "telehealth_salary", "fixed_hours_salary", "fixed_weekly_hours", "compliance", "time_zone"] as const;

/**
 * An employee's columns with their roles and the memberships the actor can see as JSON aggregates, so a
 * page of employees (or one) is one statement. The subqueries name "users" in plain SQL: drizzle leaves a
 * single-table select's columns unqualified, which inside a subquery would bind to its own tables.
 */
function withRelations(ctx: ModelContext) {
  return {
    ...columns,
    roleRows: jsonRows<{ id: number; name: string }>(sql`(select r.id as "id", r.name as "name" from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = "users"."id" order by r.name)`, ["id", "name"]),
    locationRows: jsonRows<EmploymentRow>(
      sql`(select ul.location_id as "location_id", l.title as "title", ul.position_id as "position_id", ul.salary as "salary", ul.telehealth_salary as "telehealth_salary",
             ul.fixed_hours_salary as "fixed_hours_salary", ul.fixed_weekly_hours as "fixed_weekly_hours", ul.compliance as "compliance", l.time_zone as "time_zone"
           from user_locations ul join locations l on l.id = ul.location_id
           where ul.user_id = "users"."id" and l.deleted_at is null and ${visibleMembership(ctx)} order by l.title)`,
      EMPLOYMENT_COLUMNS,
    ),
  };
}

/**
 * Pay (salary, telehealth salary, fixed hours salary) is shown only to actors who manage employees;
 * everyone else reading an employee gets null in its place (decision 015).
 */
function toEmployee(ctx: ModelContext, r: Selected & { roleRows: { id: number; name: string }[]; locationRows: EmploymentRow[] }): EmployeeJson {
  const pay = can(ctx.actor, "manage_employees");
  return employeeJson(
    r,
    r.roleRows,
    r.locationRows.map((ul) => {
      const c = parseObject(ul.compliance);
      return {
        id: ul.location_id,
        title: ul.title,
        position_id: ul.position_id,
        salary: pay ? ul.salary : null,
        telehealth_salary: pay ? ul.telehealth_salary : null,
        fixed_hours_salary: pay ? ul.fixed_hours_salary : null,
        fixed_weekly_hours: ul.fixed_weekly_hours,
        compliance: Object.fromEntries(COMPLIANCE_KEYS.map((k) => [k, str(c[k])])) as Record<ComplianceKey, string | null>,
        time_zone: ul.time_zone,
      };
    }),
  );
}

/* ---------------------------------------------------------------- reads */

/** The employee list's filters (decision 017): a record id and a status, refused when malformed, never dropped. */
export const EmployeeFilters = v.object({ location_id: FilterId, status: filterStatus(EMPLOYEE_STATUSES) });
export type EmployeeFilters = v.InferOutput<typeof EmployeeFilters>;
const NO_FILTERS: EmployeeFilters = { location_id: "", status: "" };

function listWhere(ctx: ModelContext, query: ListQuery, fl: EmployeeFilters): SQL | undefined {
  const q = query.search;
  const locationId = fl.location_id;
  // A location filter outside the actor's locations lists nobody, not that location's people.
  const scope = locationScope(ctx.actor);
  if (locationId !== "" && scope !== null && !scope.includes(locationId)) return sql`1 = 0`;
  return and(
    inScope(ctx),
    q ? or(contains(users.name, q), contains(users.surname, q), contains(users.email, q), contains(sql`(${users.name} || ' ' || ${users.surname})`, q)) : undefined,
    locationId !== "" ? sql`exists (select 1 from ${userLocations} where ${userLocations.userId} = ${users.id} and ${userLocations.locationId} = ${locationId})` : undefined,
    fl.status !== "" ? eq(users.status, fl.status) : undefined,
  );
}

function pageQuery(ctx: ModelContext, query: ListQuery, where: SQL | undefined) {
  return ctx.db.select(withRelations(ctx)).from(users).where(where).orderBy(asc(users.surname), asc(users.name), asc(users.id)).limit(query.per_page).offset(offset(query));
}

/** A page of employees; a malformed filter (`location_id=abc`, `status=Inactive`) answers 422 at its field. */
export async function listEmployees(ctx: ModelContext, query: ListQuery, rawFilters: Record<string, string | undefined> = {}): Promise<ModelResult<Paged<EmployeeJson>>> {
  const parsed = parseListFilters(EmployeeFilters, rawFilters);
  if (!parsed.ok) return invalid(parsed.errors);
  const where = listWhere(ctx, query, parsed.data);
  const [rows, [total]] = await ctx.db.batch([pageQuery(ctx, query, where), ctx.db.select({ n: count() }).from(users).where(where)]);
  return ok(paged(rows.map((r) => toEmployee(ctx, r)), total?.n ?? 0, query));
}

/**
 * The employee list screen: the page, its total and the location filter's options in one batch of two statements.
 * A filter that does not parse is dropped from the page, with its message at its field (`filterErrors`), as the
 * client list does; the form keeps what was typed.
 */
export async function employeeListScreen(ctx: ModelContext, query: ListQuery, rawFilters: Record<string, string | undefined> = {}) {
  const parsed = parseListFilters(EmployeeFilters, rawFilters);
  const where = listWhere(ctx, query, parsed.ok ? parsed.data : NO_FILTERS);
  const [rows, [extra]] = await ctx.db.batch([
    pageQuery(ctx, query, where),
    ctx.db
      .select({ n: count(), locations: jsonRows<{ id: number; title: string }>(visibleLocationsQuery(ctx), ["id", "title"]) })
      .from(users)
      .where(where),
  ]);
  return { page: paged(rows.map((r) => toEmployee(ctx, r)), extra?.n ?? 0, query), locations: extra?.locations ?? [], filterErrors: parsed.ok ? null : parsed.errors };
}

export async function getEmployee(ctx: ModelContext, id: number): Promise<EmployeeJson | null> {
  const [row] = await ctx.db.select(withRelations(ctx)).from(users).where(and(eq(users.id, id), inScope(ctx)));
  return row ? toEmployee(ctx, row) : null;
}

export type EmployeeProfile = EmployeeJson & { locations: (EmploymentJson & { compliance_state: Record<ComplianceKey, ComplianceState> })[] };

/** The employee with the state of each compliance date on today at that location (as the expiration-dates report). */
export async function getEmployeeProfile(ctx: ModelContext, id: number): Promise<EmployeeProfile | null> {
  const e = await getEmployee(ctx, id);
  if (!e) return null;
  return {
    ...e,
    locations: e.locations.map((l) => ({
      ...l,
      compliance_state: Object.fromEntries(COMPLIANCE_KEYS.map((k) => [k, complianceState(l.compliance[k], todayAtLocation(ctx.now(), l.time_zone))])) as Record<ComplianceKey, ComplianceState>,
    })),
  };
}

type RoleRow = RoleGrant & { id: number };

function permissionList(json: string | null | undefined): string[] {
  try {
    const x = JSON.parse(json ?? "[]") as unknown;
    return Array.isArray(x) ? x.filter((p): p is string => typeof p === "string") : [];
  } catch {
    return [];
  }
}

/** Every role with its permissions, as a statement (to ride in a batch). */
function rolesQuery(ctx: ModelContext) {
  return ctx.db.select({ id: roles.id, name: roles.name, permissions: roles.permissions }).from(roles).orderBy(asc(roles.name));
}

function roleRowsOf(rows: { id: number; name: string; permissions: string | null }[]): RoleRow[] {
  return rows.map((r) => ({ id: r.id, name: r.name, permissions: permissionList(r.permissions) }));
}

async function allRoles(ctx: ModelContext): Promise<RoleRow[]> {
  return roleRowsOf(await rolesQuery(ctx));
}

/** The roles the actor may give: those holding no permission the actor lacks (decision 015). */
export async function assignableRoles(ctx: ModelContext) {
  return (await allRoles(ctx)).filter((r) => mayGrantRole(ctx.actor, r)).map((r) => ({ id: r.id, name: r.name }));
}

/** The roles and locations the actor may assign (for the employee form and GET doctors/config). */
export async function employeeConfig(ctx: ModelContext) {
  const [roleRows, locationRows] = await Promise.all([assignableRoles(ctx), locationOptions(ctx)]);
  return { roles: roleRows, locations: locationRows, statuses: [...EMPLOYEE_STATUSES] };
}

/** Employees of one location the actor can see (404 otherwise). */
export async function employeesByLocation(ctx: ModelContext, locationId: number): Promise<ModelResult<{ id: number; name: string; surname: string; full_name: string; email: string; status: string }[]>> {
  const location = await getLocation(ctx, locationId);
  if (!location) return notFound("Location");
  const rows = await ctx.db
    .select({ id: users.id, name: users.name, surname: users.surname, email: users.email, status: users.status })
    .from(users)
    .innerJoin(userLocations, and(eq(userLocations.userId, users.id), eq(userLocations.locationId, locationId)))
    .where(isNull(users.deletedAt))
    .orderBy(asc(users.surname), asc(users.name));
  return ok(rows.map((r) => ({ ...r, full_name: `${r.name} ${r.surname}`.trim() })));
}

/** GET doctors/configlocation/{id}: the config for one location (404 if the actor cannot see it). */
export async function employeeLocationConfig(ctx: ModelContext, locationId: number) {
  const location = await getLocation(ctx, locationId);
  if (!location) return notFound("Location");
  const staff = await employeesByLocation(ctx, locationId);
  return ok({ location: { id: location.id, title: location.title }, roles: await assignableRoles(ctx), employees: staff.ok ? staff.data : [] });
}

/* ---------------------------------------------------------------- writes */

type Input = EmployeeInput;

/** Roles must exist and locations be ones the actor sees; answers the chosen roles with their permissions. */
async function checkRefs(ctx: ModelContext, input: Pick<Input, "roles" | "locations">): Promise<{ errors: Record<string, string> | null; roles: Map<number, RoleRow> }> {
  const [roleRows, locationRows] = await Promise.all([allRoles(ctx), locationOptions(ctx)]);
  return refsChecked(input, roleRows, locationRows);
}

/** checkRefs on roles and locations already read (every role; the locations the actor sees). */
function refsChecked(input: Pick<Input, "roles" | "locations">, roleRows: RoleRow[], locationRows: { id: number }[]): { errors: Record<string, string> | null; roles: Map<number, RoleRow> } {
  const byId = new Map(roleRows.map((r) => [r.id, r]));
  const locationIds = new Set(locationRows.map((l) => l.id));
  const errors: Record<string, string> = {};
  if (!input.roles.every((id) => byId.has(id))) errors.roles = "Choose roles from the list.";
  if (!input.locations.every((id) => locationIds.has(id))) errors.locations = "Choose locations from the list.";
  return { errors: Object.keys(errors).length ? errors : null, roles: byId };
}

/** A refused verdict of the rule as a model result: 404, 403, or a field error. */
function refused(verdict: Exclude<Verdict, { ok: true }>): ModelResult<never> {
  if (verdict.status === 422) return invalid({ [verdict.field]: verdict.message });
  return verdict.status === 404 ? notFound("Employee") : denied(verdict.message);
}

/** The live accounts other than `id` holding `email` or the stored email of `id` (lower case), as a statement. */
function emailHoldersQuery(ctx: ModelContext, id: number, email: string | null) {
  return ctx.db
    .select({ email: sql<string>`lower(${users.email})` })
    .from(users)
    .where(and(isNull(users.deletedAt), sql`${users.id} <> ${id}`, sql`lower(${users.email}) in (${email}, (select lower(u.email) from users u where u.id = ${id}))`));
}

/** Whether the memberships as stored (those the actor sees) are the ones a save would write, pay and dates included. */
function sameEmployment(stored: EmploymentRow[], next: ReturnType<typeof employmentRows>): boolean {
  if (stored.length !== next.length) return false;
  const byLocation = new Map(stored.map((s) => [s.location_id, s]));
  return next.every((n) => {
    const s = byLocation.get(n.locationId);
    if (!s) return false;
    const c = parseObject(s.compliance);
    const nc = JSON.parse(n.compliance) as Record<string, unknown>;
    return (
      s.position_id === n.positionId &&
      s.salary === n.salary &&
      s.telehealth_salary === n.telehealthSalary &&
      s.fixed_hours_salary === n.fixedHoursSalary &&
      s.fixed_weekly_hours === n.fixedWeeklyHours &&
      COMPLIANCE_KEYS.every((k) => (c[k] ?? null) === nc[k])
    );
  });
}

/** Another live employee has this email (a deleted one's address is free again: migration 0033). */
async function emailTaken(ctx: ModelContext, email: string, exceptId?: number): Promise<boolean> {
  const [row] = await ctx.db.select({ id: users.id }).from(users).where(and(eq(sql`lower(${users.email})`, email.toLowerCase()), isNull(users.deletedAt))).limit(1);
  return !!row && row.id !== exceptId;
}

function profileOf(input: Input, previous: Record<string, unknown>): string {
  const out: Record<string, unknown> = {};
  for (const k of PROFILE_KEYS) out[k] = input[k];
  // A blank ss_number keeps the stored one (it is never shown, so it cannot be typed back).
  out.ss_number = input.ss_number ?? str(previous.ss_number);
  return JSON.stringify(out);
}

function userValues(input: Input, locationId: number | null = input.location_id ?? input.locations[0] ?? null) {
  return {
    name: input.name,
    surname: input.surname,
    email: input.email,
    status: input.status,
    phone: input.phone,
    gender: input.gender,
    address: input.address,
    city: input.city,
    locationId,
  };
}

function employmentRows(userId: number, input: Input) {
  const byLocation = new Map<number, EmploymentInput>(input.employment.map((e) => [e.location_id, e]));
  return input.locations.map((locationId) => {
    const e = byLocation.get(locationId);
    return {
      userId,
      locationId,
      positionId: e?.position_id ?? null,
      salary: e?.salary ?? null,
      telehealthSalary: e?.telehealth_salary ?? null,
      fixedHoursSalary: e?.fixed_hours_salary ?? null,
      fixedWeeklyHours: e?.fixed_weekly_hours ?? null,
      compliance: JSON.stringify(Object.fromEntries(COMPLIANCE_KEYS.map((k) => [k, e?.[k] ?? null]))),
    };
  });
}

const who = (ctx: ModelContext) => ({ actor: ctx.actor, ip: ctx.ip });

export async function createEmployee(ctx: ModelContext, raw: Record<string, unknown>, pepper: string): Promise<ModelResult<EmployeeJson>> {
  const elsewhere = fieldsSetElsewhere(raw, EMPLOYEE_SET_ELSEWHERE);
  if (elsewhere) return invalid(elsewhere);
  const parsed = parseWith(NewEmployeeInput, readEmployeeBody(raw));
  if (!parsed.ok) return invalid(employeeSaveErrors(parsed.errors, raw));
  const input = parsed.data;
  const refs = await checkRefs(ctx, input);
  if (refs.errors) return invalid(refs.errors);
  // Never an account above the actor's own rank, nor at a location the actor does not cover.
  const verdict = mayCreate(ctx.actor, input.roles.map((id) => refs.roles.get(id)!), input.locations);
  if (!verdict.ok) return refused(verdict);
  if (await emailTaken(ctx, input.email)) return invalid({ email: DUPLICATE_EMAIL });
  const passwordHash = await hashPassword(input.password, pepper);
  // The id is chosen here so the roles, locations and audit row can name it in the same batch; a racing
  // insert that took it makes the primary key fail and we try the next one.
  for (let attempt = 0; ; attempt++) {
    const [top] = await ctx.db.select({ id: nextIdOf(users) }).from(users);
    const id = Number(top?.id ?? 1) + attempt;
    try {
      await withAudit(ctx.db, who(ctx), { action: "create", entity: "employee", entityId: id }, () => {
        const writes: BatchItem<"sqlite">[] = [
          ctx.db.insert(users).values({ id, ...userValues(input), passwordHash, profile: profileOf(input, {}) }),
          ...insertChunks(userRoles, input.roles.map((roleId) => ({ userId: id, roleId }))).map((rows) => ctx.db.insert(userRoles).values(rows)),
          ...insertChunks(userLocations, employmentRows(id, input)).map((rows) => ctx.db.insert(userLocations).values(rows)),
          bumpListVersion(ctx.db, EMPLOYEES),
        ];
        return writes as [BatchItem<"sqlite">];
      });
    } catch (e) {
      const text = errorText(e);
      if (/UNIQUE constraint failed: users\.email/i.test(text)) return invalid({ email: DUPLICATE_EMAIL });
      if (attempt < 5 && /UNIQUE constraint failed: users\.id|PRIMARY KEY/i.test(text)) continue;
      throw e;
    }
    const created = await getEmployee(ctx, id);
    return ok(created!, "Employee created.");
  }
}

/**
 * The roles (with their permissions) and every location an employee works at, whatever the actor sees. A
 * membership left at a deleted location is not one (decision 015, stop 25): it does not count for the rule.
 */
function targetQuery(ctx: ModelContext, id: number) {
  return ctx.db
    .select({
      id: users.id,
      roles: jsonRows<{ id: number; name: string; permissions: string }>(
        sql`(select r.id as "id", r.name as "name", r.permissions as "permissions" from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = "users"."id")`,
        ["id", "name", "permissions"],
      ),
      locationIds: sql<string>`(select json_group_array(ul.location_id) from user_locations ul join locations l on l.id = ul.location_id where ul.user_id = "users"."id" and l.deleted_at is null)`.mapWith((v: unknown) =>
        typeof v === "string" ? (JSON.parse(v) as number[]) : [],
      ),
    })
    .from(users)
    .where(and(eq(users.id, id), isNull(users.deletedAt)));
}

export interface ForChange {
  /** The employee as the actor sees it. */
  current: EmployeeJson;
  /** Its roles and all its locations, for the rule. */
  target: { id: number; roles: RoleRow[]; locationIds: number[] };
  /** The stored row: the profile as stored (the full ss number) and the visible memberships with their pay. */
  stored: ForChangeRow;
  /** The audit chain's tail, read with the row (withAudit's `tail`). */
  tail: string | null;
}

/** The employee in the actor's scope with its roles and visible memberships, and the audit chain's tail: one statement. */
function forChangeQuery(ctx: ModelContext, id: number) {
  return ctx.db
    .select({ ...withRelations(ctx), tail: auditTail })
    .from(users)
    .where(and(eq(users.id, id), inScope(ctx)));
}
type ForChangeRow = Awaited<ReturnType<typeof forChangeQuery>>[number];
type TargetRow = Awaited<ReturnType<typeof targetQuery>>[number];

/** loadForChange's answer from rows already read. */
function checkedForChange(ctx: ModelContext, row: ForChangeRow | undefined, t: TargetRow | undefined, changes: readonly IdentityChange[]): ModelResult<ForChange> {
  if (!row || !t) return notFound("Employee");
  const target = targetOf(t);
  const verdict = mayChange(ctx.actor, target, { changes });
  return verdict.ok ? ok({ current: toEmployee(ctx, row), target, stored: row, tail: row.tail }) : refused(verdict);
}

/**
 * The stored employee for a change, checked by the rule (decision 015) for the given changes: 404
 * outside the actor's locations; 403 when the employee outranks the actor, or when who they are changes
 * and the actor does not cover every location they work at. One round trip.
 */
export async function loadForChange(ctx: ModelContext, id: number, changes: readonly IdentityChange[] = []): Promise<ModelResult<ForChange>> {
  const [[row], [t]] = await ctx.db.batch([forChangeQuery(ctx, id), targetQuery(ctx, id)]);
  return checkedForChange(ctx, row, t, changes);
}

function targetOf(t: { id: number; roles: { id: number; name: string; permissions: string }[]; locationIds: number[] }): ForChange["target"] {
  return { id: t.id, roles: t.roles.map((r) => ({ id: r.id, name: r.name, permissions: permissionList(r.permissions) })), locationIds: t.locationIds };
}

/** How much of this employee the actor may change (the rule's `changeReach`), for the edit screen. Null: not found. */
export async function employeeChangeReach(ctx: ModelContext, id: number): Promise<ChangeReach | null> {
  const [t] = await targetQuery(ctx, id);
  return t ? changeReach(ctx.actor, targetOf(t)) : null;
}

/** The form/API field names of a stored employee, for merging a partial edit (ss_number blank = keep). */
function asInput(e: EmployeeJson): Record<string, unknown> {
  const { id: _i, version: _v, created_at: _c, avatar: _a, full_name: _f, two_factor_enabled: _t, roles: r, locations: l, ss_number: _s, ...rest } = e;
  return {
    ...rest,
    roles: r.map((x) => x.id),
    locations: l.map((x) => x.id),
    employment: l.map((x) => ({ location_id: x.id, position_id: x.position_id, salary: x.salary, telehealth_salary: x.telehealth_salary, fixed_hours_salary: x.fixed_hours_salary, fixed_weekly_hours: x.fixed_weekly_hours, ...x.compliance })),
  };
}

const STALE_GUARD = "user_roles.role_id";

/** The fields of an employee whose new values its update's audit row shows: who they are to the rule (decision 019, stop 43). */
const EMPLOYEE_SHOWN = ["roles", "status", "locations", "location_id"];

/**
 * What an update changes of an employee, for its audit row: the roles (id and name) and locations (ids) they hold after
 * the save, their status and primary location with values; personal details, the profile and pay by name only.
 */
function employeeChange(stored: ForChangeRow, written: { values: ReturnType<typeof userValues>; profile: string; roles: { id: number; name: string }[]; locations: number[]; employmentSame: boolean }, held: { id: number; name: string }[], heldLocations: number[]) {
  const byId = (rows: { id: number; name: string }[]) => [...rows].sort((a, b) => a.id - b.id).map((r) => ({ id: r.id, name: r.name }));
  const storedProfile = parseObject(stored.profile);
  const writtenProfile = parseObject(written.profile);
  const { locationId: writtenLocation, ...writtenColumns } = written.values;
  const before: Record<string, unknown> = {
    ...Object.fromEntries(Object.keys(writtenColumns).map((k) => [k, stored[k as keyof typeof writtenColumns]])),
    location_id: stored.locationId,
    ...Object.fromEntries([...PROFILE_KEYS, "ss_number"].map((k) => [k, storedProfile[k]])),
    roles: byId(held),
    locations: [...heldLocations].sort((a, b) => a - b),
  };
  const after: Record<string, unknown> = {
    ...writtenColumns,
    location_id: writtenLocation,
    ...Object.fromEntries([...PROFILE_KEYS, "ss_number"].map((k) => [k, writtenProfile[k]])),
    roles: byId(written.roles),
    locations: [...written.locations].sort((a, b) => a - b),
  };
  const detail = changeDetail(before, after, EMPLOYEE_SHOWN);
  if (!written.employmentSame) detail.changed.push("employment");
  return detail;
}

/**
 * `opts.keep`: one's own browser's fresh session (sessionAfterOwnChange), stored in the save's batch after the
 * statements that end access when the save ends it (a new email, roles, locations or status), else not at all.
 */
export async function updateEmployee(
  ctx: ModelContext,
  id: number,
  raw: Record<string, unknown>,
  opts: { partial: boolean; version: number | null; app: Pick<AppContext, "env" | "email">; keep?: () => BatchItem<"sqlite"> },
): Promise<ModelResult<EmployeeJson>> {
  const body = readEmployeeBody(raw);
  // Everything the checks need in one round trip (decision 043, stop 36): the employee with its roles and memberships
  // and the audit tail, the rule's view of them, every role (the chosen ones' permissions and the ones the actor may
  // give), the locations the actor sees, and the live accounts holding the sent or the stored email.
  const sentEmail = typeof body.email === "string" ? body.email.trim().toLowerCase() : null;
  const [[row], [t], roleList, locationList, emailHolders] = await ctx.db.batch([
    forChangeQuery(ctx, id),
    targetQuery(ctx, id),
    rolesQuery(ctx),
    locationOptionsQuery(ctx),
    emailHoldersQuery(ctx, id, sentEmail),
  ]);
  const loaded = checkedForChange(ctx, row, t, []);
  if (!loaded.ok) return loaded;
  const { current, target, stored, tail } = loaded.data;
  const elsewhere = fieldsSetElsewhere(raw, EMPLOYEE_EDIT_SET_ELSEWHERE);
  if (elsewhere) return invalid(elsewhere);
  if (namesNoField(body, EmployeeEditInput)) return nothingToChange();
  const storedAsInput = asInput(current);
  const storedInput = opts.partial ? storedAsInput : null;
  // A save (PUT, PATCH, v1 update, the screen) that names the locations but sends no `employment` keeps each kept
  // location's employment as stored, unless the body gives that location's details (an answered location, a form's
  // fields), and drops a removed location's (decision 017: what a save does not send keeps its stored value; stop 31
  // later). Named in any shape the schema reads (a list, a comma-separated string, null): the answer to "no location"
  // is then on `locations` alone, not also on the employment the call did not send (decision 015, stop 31).
  let sent = body;
  if (raw.employment === undefined && body.locations !== undefined) {
    const chosen = chosenLocations(body.locations);
    const given = Array.isArray(body.employment) ? (body.employment as { location_id: unknown }[]) : [];
    const detailed = new Set(given.map((e) => String(e.location_id).trim()));
    const keptAsStored = (storedAsInput.employment as { location_id: number }[]).filter((e) => chosen.has(String(e.location_id)) && !detailed.has(String(e.location_id)));
    sent = { ...body, employment: [...given, ...keptAsStored] };
  }
  // The ss number as answered (masked, "***-**-6789") keeps the stored one, as a blank does: a read sent back is
  // not a new number (decision 017: clients that send back a record they read keep working).
  if (current.ss_number !== null && sent.ss_number === current.ss_number) sent = { ...sent, ss_number: null };
  const merged = { ...storedInput, ...sent };
  // A stored gender the form no longer offers stays while the save sends it back as it is (decision 017: only a
  // changed value is checked); another value must be one of the list.
  const keepsGender = !isEmployeeGender(current.gender) && typeof merged.gender === "string" && merged.gender.trim() === current.gender;
  // So does an NPI stored before it was checked at entry (probe 8974 §4): the scrubber names it until it is corrected.
  const keepsNpi = current.npi !== null && !isValidNpi(current.npi) && merged.npi === current.npi;
  const unchecked = { ...(keepsGender ? { gender: null } : {}), ...(keepsNpi ? { npi: null } : {}) };
  const parsed = parseChange(EmployeeEditInput, { ...sent, ...unchecked }, storedInput);
  if (!parsed.ok) return invalid(employeeSaveErrors(parsed.errors, raw));
  const input = { ...parsed.data, ...(keepsGender ? { gender: current.gender } : {}), ...(keepsNpi ? { npi: current.npi } : {}) };
  const allRoleRows = roleRowsOf(roleList);
  const refs = refsChecked(input, allRoleRows, locationList);
  if (refs.errors) return invalid(refs.errors);
  if (id === ctx.actor.id && input.status !== "active") return invalid({ status: "You cannot deactivate your own account." });
  // What the save changes about who the employee is, as the rule sees it (decision 015).
  const scope = locationScope(ctx.actor);
  const heldRoles = new Set(target.roles.map((r) => r.id));
  const addedRoles = input.roles.filter((r) => !heldRoles.has(r));
  const rolesChanged = addedRoles.length > 0 || target.roles.some((r) => mayGrantRole(ctx.actor, r) && !input.roles.includes(r.id));
  // Memberships of locations the actor cannot see are kept, so the result is those plus the chosen ones.
  const kept = target.locationIds.filter((l) => scope !== null && !scope.includes(l));
  const resulting = new Set([...kept, ...input.locations]);
  const addedLocations = input.locations.filter((l) => !target.locationIds.includes(l));
  const locationsChanged = addedLocations.length > 0 || target.locationIds.some((l) => !resulting.has(l));
  const changes: IdentityChange[] = [];
  if (input.email.toLowerCase() !== current.email.toLowerCase()) changes.push("email");
  if (rolesChanged) changes.push("roles");
  if (locationsChanged) changes.push("locations");
  if (input.status !== current.status) changes.push("status");
  const verdict = mayChange(ctx.actor, target, { changes, addedRoles: addedRoles.map((r) => refs.roles.get(r)!), addedLocations });
  // The rank was checked on loading, so a 403 here is coverage, or one's own email (decision 015, stop 35): it names
  // the fields whose change it refuses.
  if (!verdict.ok) return verdict.status === 403 ? denied(verdict.message, id === ctx.actor.id ? changes.filter((c) => c === "email") : changes) : refused(verdict);
  // A stored primary location the actor cannot see stays as it is, like the membership there: a blank (the screen)
  // or the same id (a PATCH merges the stored one) keeps it, another id is refused. Otherwise the chosen one, or
  // the first chosen location. Either way it must be one of the resulting locations, not only the chosen ones.
  const primaryHidden = current.location_id !== null && scope !== null && !scope.includes(current.location_id);
  if (primaryHidden && input.location_id !== null && input.location_id !== current.location_id) return invalid({ location_id: HIDDEN_PRIMARY_MESSAGE });
  const primary = primaryHidden ? current.location_id : (input.location_id ?? input.locations[0] ?? null);
  // A visible id is among the resulting ones only when chosen; one the actor cannot see may not be newly named.
  if (primary !== null && !(primaryHidden ? resulting.has(primary) : input.locations.includes(primary))) return invalid({ location_id: PRIMARY_MESSAGE });
  // The holders read with the employee answer for the sent and the stored email; another (a body the schema read
  // differently) is looked up on its own.
  const email = input.email.toLowerCase();
  const emailRead = email === sentEmail || email === current.email.toLowerCase();
  if (emailRead ? emailHolders.some((h) => h.email === email) : await emailTaken(ctx, input.email, id)) return invalid({ email: DUPLICATE_EMAIL });
  const assignable = allRoleRows.filter((r) => mayGrantRole(ctx.actor, r)).map((r) => r.id);
  // A save that changes neither the roles nor the memberships (with their pay and compliance dates) leaves their rows alone.
  const newEmployment = employmentRows(id, input);
  const writesLocations = locationsChanged || !sameEmployment(stored.locationRows, newEmployment);
  // Future bookings that no longer fit go in the same batch (decision 037, 2026-11-27): all of an employee made
  // inactive, those at the locations an employee is taken off (as the memberships stand after the batch's writes).
  const deactivated = input.status !== "active";
  const leftLocation = target.locationIds.some((l) => !resulting.has(l));
  const unfit: UnfitReason | null = deactivated ? "provider_inactive" : leftLocation ? "provider_left_location" : null;
  const unfitWhich = deactivated
    ? eq(scheduledSessions.providerId, id)
    : leftLocation
      ? and(eq(scheduledSessions.providerId, id), sql`${scheduledSessions.locationId} not in (select ${userLocations.locationId} from ${userLocations} where ${userLocations.userId} = ${id})`)!
      : null;
  // What the save changes, for its audit row (decision 019, stop 43): the roles and locations as the batch leaves them.
  const roleName = new Map(allRoleRows.map((r) => [r.id, r.name]));
  const rolesAfter = rolesChanged ? [...target.roles.filter((r) => !assignable.includes(r.id)).map((r) => r.id), ...input.roles] : target.roles.map((r) => r.id);
  const profile = profileOf(input, parseObject(stored.profile));
  const change = employeeChange(
    stored,
    {
      values: userValues(input, primary),
      profile,
      roles: [...new Set(rolesAfter)].map((r) => ({ id: r, name: roleName.get(r) ?? "" })),
      locations: [...resulting],
      employmentSame: !writesLocations || sameEmployment(stored.locationRows, newEmployment),
    },
    target.roles,
    target.locationIds,
  );
  // A save that leaves every field, role and membership as stored writes nothing and keeps the version (decision
  // 017, stop 44); a stale version is still a 409, as for a real change.
  if (changesNoField(change)) return unchangedAt(current, current.version, opts.version);
  let cancelled = 0;
  let saved: ForChangeRow | undefined;
  try {
    let cancelAt = -1;
    const results = await withAudit(
      ctx.db,
      who(ctx),
      { action: "update", entity: "employee", entityId: id, detail: { ...change, ...(unfit ? unfitDetail(unfit) : {}) } },
      () => {
        const writes: BatchItem<"sqlite">[] = [
          ctx.db
            .update(users)
            .set({ ...userValues(input, primary), profile, version: sql`${users.version} + 1`, updatedAt: ctx.now().toISOString() })
            .where(and(eq(users.id, id), isNull(users.deletedAt), opts.version === null ? undefined : eq(users.version, opts.version))),
          // When the versioned update changed nothing (someone saved first), this NULL insert fails and the
          // whole batch, roles and locations included, is rolled back.
          ctx.db.insert(userRoles).select(sql`select ${id}, null where changes() = 0`),
        ];
        if (rolesChanged)
          writes.push(
            // The roles the actor may give, written into the statement (idsIn): a deployment may have more than D1 binds.
            ctx.db.delete(userRoles).where(and(eq(userRoles.userId, id), idsIn(userRoles.roleId, assignable))),
            ...insertChunks(userRoles, input.roles.map((roleId) => ({ userId: id, roleId }))).map((rows) => ctx.db.insert(userRoles).values(rows).onConflictDoNothing()),
          );
        if (writesLocations)
          writes.push(
            // Memberships of locations the actor cannot see stay as they are.
            ctx.db.delete(userLocations).where(and(eq(userLocations.userId, id), inLocationScope(userLocations.locationId, scope))),
            ...insertChunks(userLocations, newEmployment).map((rows) => ctx.db.insert(userLocations).values(rows)),
          );
        writes.push(bumpListVersion(ctx.db, EMPLOYEES));
        // A new email, roles, locations or status end every session and API token of the employee.
        if (changes.length) writes.push(...endAllAccessStatements(ctx.db, { type: "user", id }, ctx.now()), ...(opts.keep ? [opts.keep()] : []));
        cancelAt = unfitWhich ? writes.push(cancelUnfitBookings(ctx, unfitWhich)) - 1 : -1;
        // The saved employee, read back in the same batch.
        writes.push(forChangeQuery(ctx, id));
        return writes as [BatchItem<"sqlite">];
      },
      tail,
    );
    if (cancelAt >= 0) cancelled = cancelledCount(results[cancelAt]);
    saved = (results[results.length - 1] as ForChangeRow[])[0];
  } catch (e) {
    const text = errorText(e);
    if (text.includes(STALE_GUARD)) return conflict((await getEmployee(ctx, id)) ?? current);
    if (/UNIQUE constraint failed: users\.email/i.test(text)) return invalid({ email: DUPLICATE_EMAIL });
    throw e;
  }
  if (changes.includes("email")) await enqueueEmail(opts.app, emailChangedNotice(current.email, current.name), { kind: "email_changed", account: { type: "user", id } }, who(ctx));
  return ok(saved ? toEmployee(ctx, saved) : (await getEmployee(ctx, id))!, withCancelledCount("Employee updated.", cancelled));
}

/** Active or inactive; a change of status ends every session and API token of the employee; inactive cancels their future bookings. */
export async function updateEmployeeStatus(ctx: ModelContext, id: number, raw: Record<string, unknown>): Promise<ModelResult<EmployeeJson>> {
  const parsed = parseWith(EmployeeStatusInput, raw);
  const loaded = await loadForChange(ctx, id, ["status"]);
  if (!loaded.ok) return loaded;
  if (!parsed.ok) return invalid(parsed.errors);
  const { status } = parsed.data;
  if (id === ctx.actor.id && status !== "active") return invalid({ status: "You cannot deactivate your own account." });
  // The status they have already writes nothing and ends no session, once the rule allowed the change (decision 017, stop 45).
  if (status === loaded.data.current.status) return nothingToChange(loaded.data.current);
  const deactivated = status !== "active";
  // Two round trips: the load (with the audit tail) and the batch, which reads the saved employee back.
  const results = await withAudit(
    ctx.db,
    who(ctx),
    { action: "status", entity: "employee", entityId: id, ...(deactivated ? { detail: unfitDetail("provider_inactive") } : {}) },
    () => {
      const writes: BatchItem<"sqlite">[] = [
        // An inactive employee's future bookings are cancelled with the change (decision 037, 2026-11-27).
        cancelUnfitBookings(ctx, deactivated ? eq(scheduledSessions.providerId, id) : sql`0`),
        ctx.db.update(users).set({ status, version: sql`${users.version} + 1`, updatedAt: ctx.now().toISOString() }).where(eq(users.id, id)),
        bumpListVersion(ctx.db, EMPLOYEES),
      ];
      writes.push(...endAllAccessStatements(ctx.db, { type: "user", id }, ctx.now()), forChangeQuery(ctx, id));
      return writes as [BatchItem<"sqlite">];
    },
    loaded.data.tail,
  );
  const [saved] = results[results.length - 1] as ForChangeRow[];
  const employee = saved ? toEmployee(ctx, saved) : (await getEmployee(ctx, id))!;
  return ok(employee, deactivated ? withCancelledCount("Employee deactivated.", cancelledCount(results[0])) : "Employee activated.");
}

/** Soft delete: the employee disappears from lists, cannot sign in, their sessions end and their future bookings are cancelled. */
export async function deleteEmployee(ctx: ModelContext, id: number): Promise<ModelResult<null>> {
  const loaded = await loadForChange(ctx, id, ["delete"]);
  if (!loaded.ok) return loaded;
  if (id === ctx.actor.id) return invalid({ employee: "You cannot delete your own account." });
  const [cancelled] = await withAudit(ctx.db, who(ctx), { action: "delete", entity: "employee", entityId: id, detail: unfitDetail("provider_deleted") }, () => [
    cancelUnfitBookings(ctx, eq(scheduledSessions.providerId, id)),
    ctx.db.update(users).set({ deletedAt: ctx.now().toISOString(), status: "inactive", version: sql`${users.version} + 1` }).where(eq(users.id, id)),
    ...endAllAccessStatements(ctx.db, { type: "user", id }, ctx.now()),
    bumpListVersion(ctx.db, EMPLOYEES),
  ]);
  return ok(null, withCancelledCount("Employee deleted.", cancelledCount(cancelled)));
}


/**
 * One's own email, from the profile once the current password was checked (decision 015, stop 35: the staff paths
 * refuse it). Every session and API token of the account ends in the same batch; `keep`, this browser's fresh
 * session (sessionAfterOwnChange), is stored after that.
 */
export async function changeOwnEmail(ctx: ModelContext, app: Pick<AppContext, "env" | "email">, email: string, keep: () => BatchItem<"sqlite">): Promise<ModelResult<null>> {
  const id = ctx.actor.id;
  if (ctx.actor.kind !== "user") return notFound("Employee");
  if (email === ctx.actor.email.toLowerCase()) return invalid({ email: AUTH_MESSAGES.ownEmailUnchanged });
  if (await emailTaken(ctx, email, id)) return invalid({ email: DUPLICATE_EMAIL });
  try {
    await withAudit(ctx.db, who(ctx), { action: "update", entity: "employee", entityId: id }, () => [
      ctx.db.update(users).set({ email, version: sql`${users.version} + 1`, updatedAt: ctx.now().toISOString() }).where(and(eq(users.id, id), isNull(users.deletedAt))),
      bumpListVersion(ctx.db, EMPLOYEES),
      ...endAllAccessStatements(ctx.db, { type: "user", id }, ctx.now()),
      keep(),
    ]);
  } catch (e) {
    if (/UNIQUE constraint failed: users\.email/i.test(errorText(e))) return invalid({ email: DUPLICATE_EMAIL });
    throw e;
  }
  await enqueueEmail(app, emailChangedNotice(ctx.actor.email, ctx.actor.name), { kind: "email_changed", account: { type: "user", id } }, who(ctx));
  return ok(null, AUTH_MESSAGES.ownEmailChanged);
}

/** An administrator sets a user's password (platform §7 change-password); every session and API token of that user ends. */
export async function changeEmployeePassword(ctx: ModelContext, app: Pick<AppContext, "db" | "env" | "email">, id: number, raw: Record<string, unknown>): Promise<ModelResult<null>> {
  const loaded = await loadForChange(ctx, id, ["password"]);
  if (!loaded.ok) return loaded;
  const parsed = parseWith(AdminPasswordInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  await setPassword(app, { type: "user", id }, parsed.data.new_password, { who: who(ctx), action: "password" });
  return ok(null, "Password changed. The user has been signed out everywhere.");
}

/**
 * An administrator turns a user's two-factor off and clears their backup codes; every session and API token of that
 * user ends. When it is already off nothing is written and nothing ends (decision 016, stop 31): the answer says so.
 */
export async function resetEmployeeTwoFactor(ctx: ModelContext, id: number): Promise<ModelResult<{ two_factor_enabled: false }>> {
  const loaded = await loadForChange(ctx, id, ["two_factor"]);
  if (!loaded.ok) return loaded;
  const switched = await setTwoFactor(ctx.db, { type: "user", id }, false, { who: who(ctx), action: "two_factor_reset" });
  const changed = switched.ok && switched.changed;
  return ok({ two_factor_enabled: false }, changed ? "Two-factor authentication was turned off and the backup codes were cleared." : AUTH_MESSAGES.twoFactorAlreadyOff);
}
