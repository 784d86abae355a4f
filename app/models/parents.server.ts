import { and, asc, count, eq, getTableColumns, isNull, or, sql, type SQL } from "drizzle-orm";
import { leavesAsStored } from "~/domain/audit-changes";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "~/db/client.server";
import { locations, parents, patients } from "~/db/schema";
import { changeDetail } from "~/domain/audit-changes";
import { AUTH_MESSAGES } from "~/domain/auth-rules";
import { isFutureDate, MESSAGES } from "~/domain/fields";
import { PARENT_PASSWORD_FIELDS, PARENT_PASSWORD_ON_PROFILE, ParentInput, ParentPasswordInput, ParentStatusInput } from "~/domain/parents";
import { todayAtLocation } from "~/domain/pa-pacing";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { canSeeLocation, locationScope, type Actor } from "~/domain/permissions";
import { namesNoField, parseChange, parseWith, type Parsed } from "~/domain/validation";
import { mayChangeParent, type ParentSignInChange, type ParentTarget } from "~/domain/who-may-change";
import { endAllAccessStatements } from "~/services/access.server";
import { auditedRead, auditRead, auditTail, clientsReadEntry, withAudit, withConditionalAudit } from "~/services/audit.server";
import type { AppContext } from "~/services/context.server";
import { emailChangedNotice, enqueueEmail, securityNotice } from "~/services/jobs.server";
import { bumpListVersion } from "~/services/list-cache.server";
import { hashPassword } from "~/services/passwords.server";
import type { ModelContext } from "./context";
import { locationOptionsQuery } from "./locations.server";
import { isKeyRace, patientScope, who } from "./patients.server";
import { conflict, denied, errorText, invalid, type ModelResult, notFound, nothingToChange, ok } from "./results";
import { contains } from "./like.server";
import { idsIn } from "./scope.server";
import { nextIdOf, plainId } from "./ids.server";

/** A signed-in parent sees only their own children. */
export async function listChildrenOfParent(db: Db, actor: Actor) {
  if (actor.kind !== "parent") return [];
  return db
    .select({ id: patients.id, first_name: patients.firstName, last_name: patients.lastName, status: patients.status })
    .from(patients)
    .where(and(eq(patients.parentId, actor.id), isNull(patients.deletedAt)))
    .orderBy(patients.firstName);
}

/** Parents and guardians (staff side). A parent with a location is seen by staff of that location; one without, by all. */
export const PARENTS = "parents";
const EMAIL_IN_USE = "This email is already in use.";
/** What a parent record shows: every column but the password hash and the tokens' cut-offs, which no read needs. */
const { passwordHash: _hash, tokensValidAfter: _cutoff, accessGeneration: _generation, ...SHOWN } = getTableColumns(parents);
type Row = Omit<typeof parents.$inferSelect, "passwordHash" | "tokensValidAfter" | "accessGeneration">;

export function parentJson(r: Row & { locationTitle?: string | null }) {
  return {
    id: r.id,
    name: r.name,
    surname: r.surname,
    full_name: `${r.name} ${r.surname}`.trim(),
    email: r.email,
    phone: r.phone,
    work_phone: r.workPhone,
    home_phone: r.homePhone,
    birth_date: r.birthDate,
    gender: r.gender,
    address: r.address,
    city: r.city,
    state: r.state,
    zip_code: r.zipCode,
    location_id: r.locationId,
    location: r.locationId ? { id: r.locationId, title: r.locationTitle ?? null } : null,
    status: r.status,
    version: r.version,
    created_at: r.createdAt,
  };
}
export type ParentJson = ReturnType<typeof parentJson>;

function scoped(ctx: ModelContext): SQL {
  const scope = locationScope(ctx.actor);
  if (scope === null) return isNull(parents.deletedAt);
  return and(isNull(parents.deletedAt), or(isNull(parents.locationId), idsIn(parents.locationId, scope)))!;
}

function select(ctx: ModelContext) {
  return ctx.db.select({ p: SHOWN, locationTitle: locations.title }).from(parents).leftJoin(locations, eq(locations.id, parents.locationId));
}
const toJson = (r: { p: Row; locationTitle: string | null }) => parentJson({ ...r.p, locationTitle: r.locationTitle });

export async function listParents(ctx: ModelContext, query: ListQuery): Promise<Paged<ParentJson>> {
  const s = query.search;
  const where = and(
    scoped(ctx),
    s ? or(contains(parents.name, s), contains(parents.surname, s), contains(parents.email, s), contains(sql`${parents.name} || ' ' || ${parents.surname}`, s)) : undefined,
  );
  const [rows, [total]] = await ctx.db.batch([
    select(ctx).where(where).orderBy(asc(parents.name), asc(parents.surname), asc(parents.id)).limit(query.per_page).offset(offset(query)),
    ctx.db.select({ n: count() }).from(parents).where(where),
  ]);
  return paged(rows.map(toJson), total?.n ?? 0, query);
}

/** A parent in scope, without an audit row (for checks inside other use cases). */
export async function findParent(ctx: ModelContext, id: number): Promise<ParentJson | null> {
  const [row] = await select(ctx).where(and(eq(parents.id, id), scoped(ctx)));
  return row ? toJson(row) : null;
}

/** A parent in the actor's scope with its location's title and the audit tail (one statement). */
function parentRecordQuery(ctx: ModelContext, id: number) {
  return ctx.db
    .select({ p: SHOWN, locationTitle: locations.title, tail: auditTail })
    .from(parents)
    .leftJoin(locations, eq(locations.id, parents.locationId))
    .where(and(eq(parents.id, id), scoped(ctx)));
}

/** A parent record read (profile, show): in scope, and the read is audited like a client read (entity "parent"). */
export async function getParent(ctx: ModelContext, id: number): Promise<ParentJson | null> {
  const [row] = await parentRecordQuery(ctx, id);
  if (!row) return null;
  await auditRead(ctx.db, who(ctx), { entity: "parent", entityId: id }, row.tail);
  return toJson(row);
}

/**
 * The parent's profile screen: the parent in scope (404 first), the children the actor may see and the
 * locations of all their children in one batch; then the read's audit row, naming the children shown
 * (decision 019), in the batch of the location options (session, reads, batch: 3 round trips).
 * `maySetSignIn`: whether the actor may change the parent's password, email, status or location (decision 015).
 */
export async function getParentProfile(ctx: ModelContext, id: number) {
  const [[row], children, childLocations] = await ctx.db.batch([parentRecordQuery(ctx, id), childrenQuery(ctx, id), childLocationsQuery(ctx, id)]);
  if (!row) return null;
  const shown = children.map((c) => c.id);
  const entry = shown.length ? { ...clientsReadEntry("parent", shown), entityId: id } : { entity: "parent", entityId: id };
  const [locationList] = await auditedRead(ctx.db, who(ctx), entry, () => [locationOptionsQuery(ctx)], row.tail);
  const target = { locationId: row.p.locationId, childLocationIds: childLocations.map((c) => c.locationId) };
  // Children at locations the actor cannot see are not listed, but the page says they exist (not "No linked clients.").
  const childrenElsewhere = target.childLocationIds.some((l) => !canSeeLocation(ctx.actor, l));
  const parent = toJson(row);
  return { parent, children, childrenElsewhere, locations: locationList, maySetSignIn: mayChangeParent(ctx.actor, target, ["password"]).ok, locationRequired: parentNeedsLocation(ctx.actor, parent) };
}

/** The locations of every live child of the parent, also those the actor cannot see (for the rule). */
function childLocationsQuery(ctx: ModelContext, parentId: number) {
  return ctx.db
    .selectDistinct({ locationId: patients.locationId })
    .from(patients)
    .where(and(eq(patients.parentId, parentId), isNull(patients.deletedAt)));
}

/**
 * The stored parent for a change, checked by the rule (decision 015): 404 outside the actor's scope (as
 * findParent); 403 when the change touches who can sign in as the parent and the actor does not cover every
 * location of their children. One round trip.
 */
async function loadForChange(ctx: ModelContext, id: number, changes: readonly ParentSignInChange[] = []): Promise<ModelResult<{ current: ParentJson; target: ParentTarget; tail: string | null }>> {
  const [[row], childLocations] = await ctx.db.batch([parentRecordQuery(ctx, id), childLocationsQuery(ctx, id)]);
  return checkedForChange(ctx, row, childLocations, changes);
}

/** loadForChange's answer from rows already read (the record with the audit tail, its children's locations). */
function checkedForChange(
  ctx: ModelContext,
  row: Awaited<ReturnType<typeof parentRecordQuery>>[number] | undefined,
  childLocations: { locationId: number }[],
  changes: readonly ParentSignInChange[],
): ModelResult<{ current: ParentJson; target: ParentTarget; tail: string | null }> {
  if (!row) return notFound("Parent");
  const target = { locationId: row.p.locationId, childLocationIds: childLocations.map((c) => c.locationId) };
  const refusal = refused(mayChangeParent(ctx.actor, target, changes));
  return refusal ?? ok({ current: toJson(row), target, tail: row.tail });
}

function refused(verdict: ReturnType<typeof mayChangeParent>): ModelResult<never> | null {
  if (verdict.ok) return null;
  return verdict.status === 403 ? denied(verdict.message) : notFound("Parent");
}

/** The parent's children the actor may see, as a statement. */
function childrenQuery(ctx: ModelContext, parentId: number) {
  return ctx.db
    .select({ id: patients.id, first_name: patients.firstName, last_name: patients.lastName, status: patients.status, patient_identifier: patients.patientIdentifier })
    .from(patients)
    .where(and(eq(patients.parentId, parentId), patientScope(ctx)))
    .orderBy(asc(patients.firstName));
}

/**
 * A parent without a location is seen by staff of every location, so staff limited to some locations must
 * link a new parent to one of theirs, and may not unlink one that has a location (decisions 015, 020). The forms
 * offer "None" only where it may be saved. `current`: the parent as stored, none for a new one.
 */
export function parentNeedsLocation(actor: Actor, current: { location_id: number | null } | null): boolean {
  return locationScope(actor) !== null && (current === null || current.location_id !== null);
}

async function check(ctx: ModelContext, input: ParentInput, current: ParentJson | null, read: CheckReads): Promise<Record<string, string>> {
  const errors: Record<string, string> = {};
  if (input.location_id === null && parentNeedsLocation(ctx.actor, current)) errors.location_id = "Choose one of your locations.";
  let zone = "UTC";
  if (input.location_id !== null) {
    // Read with the record when the body named it plainly (or kept the stored one); else on its own.
    const [loc] = read.locationIds.includes(input.location_id) ? read.locations.filter((l) => l.id === input.location_id) : await liveLocationsQuery(ctx, [input.location_id]);
    if (!loc || !canSeeLocation(ctx.actor, input.location_id)) errors.location_id = "Choose one of your locations.";
    zone = loc?.timeZone ?? zone;
  }
  // A birth date after today (at the parent's location, else UTC) is refused when the save sets it; a stored one is kept.
  if (isFutureDate(input.birth_date, todayAtLocation(ctx.now(), zone)) && current?.birth_date !== input.birth_date) errors.birth_date = MESSAGES.futureDate("Birth date");
  // Among live parents only: a deleted parent's address is free again (migration 0033).
  const holders = read.emails.includes(input.email) ? read.holders.filter((h) => h.email === input.email) : await emailHoldersQuery(ctx, [input.email]);
  if (holders.some((h) => h.id !== current?.id)) errors.email = EMAIL_IN_USE;
  return errors;
}

/**
 * What check() needs, read in the batch before it (decision 043, stop 36): the live locations among `locationIds` and
 * the live parents holding one of `emails`. A value the body turns out to name that was not read is read on its own.
 */
interface CheckReads {
  locationIds: (number | null)[];
  locations: { id: number; timeZone: string }[];
  emails: string[];
  holders: { id: number; email: string }[];
}

/** The live locations among `ids` (numbers, or a scalar subquery) with their time zones, as a statement. */
function liveLocationsQuery(ctx: ModelContext, ids: (number | null | SQL)[]) {
  return ctx.db
    .select({ id: locations.id, timeZone: locations.timeZone })
    .from(locations)
    .where(and(sql`${locations.id} in (${sql.join(ids.map((i) => sql`${i}`), sql`, `)})`, isNull(locations.deletedAt)));
}

/** The live parents holding one of `emails` (texts, or a scalar subquery), as a statement. */
function emailHoldersQuery(ctx: ModelContext, emails: (string | null | SQL)[]) {
  return ctx.db
    .select({ id: parents.id, email: parents.email })
    .from(parents)
    .where(and(sql`${parents.email} in (${sql.join(emails.map((e) => sql`${e}`), sql`, `)})`, isNull(parents.deletedAt)));
}

function values(i: ParentInput) {
  return {
    name: i.name,
    surname: i.surname,
    email: i.email,
    phone: i.phone,
    workPhone: i.work_phone,
    homePhone: i.home_phone,
    birthDate: i.birth_date,
    gender: i.gender,
    address: i.address,
    city: i.city,
    state: i.state,
    zipCode: i.zip_code,
    locationId: i.location_id,
    status: i.status,
  };
}

/** What setting a parent's password needs besides the database: the pepper and the email queue. */
type PasswordApp = Pick<AppContext, "env" | "email">;
type PasswordToSet = { password: string; app: PasswordApp } | null;

/**
 * The password a create or an edit sets (decision 044, stop 35): null when the body names neither password field; else
 * read with the profile's Set password rules and messages (ParentPasswordInput). Without `app` (the profile's save,
 * which never sets it) naming them answers PARENT_PASSWORD_ON_PROFILE: never dropped.
 */
function passwordToSet(raw: Record<string, unknown>, app: PasswordApp | undefined): Parsed<PasswordToSet> {
  if (!PARENT_PASSWORD_FIELDS.some((k) => raw[k] !== undefined)) return { ok: true, data: null };
  if (!app) return { ok: false, errors: { password: PARENT_PASSWORD_ON_PROFILE } };
  const parsed = parseWith(ParentPasswordInput, raw);
  return parsed.ok ? { ok: true, data: { password: parsed.data.password, app } } : parsed;
}

/** The audit row of a create or edit that set the password says so (the password itself never). */
const passwordDetail = (set: PasswordToSet) => (set ? { detail: { password: "set" } } : {});

/**
 * The fields of a parent whose old and new values an edit's audit row shows (decision 019, stop 44): the location,
 * which decides who sees the family (decision 015), and the status. Names, the email, phones, birth date, gender and
 * address are named only, never copied, as on an employee's row.
 */
const PARENT_SHOWN = ["location_id", "status"];

/** What an edit changes of a parent, for its audit row: the stored record against what the save writes; a new password by name. */
function parentChange(current: ParentJson, input: ParentInput, set: PasswordToSet) {
  const change = changeDetail(parentAsInput(current), { ...input }, PARENT_SHOWN);
  if (set) change.changed.push("password");
  return { ...change, ...(set ? { password: "set" } : {}) };
}

export function parentAsInput(p: ParentJson): Record<string, unknown> {
  const { id: _i, full_name: _f, location: _l, version: _v, created_at: _c, ...rest } = p;
  return rest;
}

/**
 * `app`: the API's, with which the body may set the first password (`password`, `password_confirmation`): the same
 * rules, messages and coverage rule (mayChangeParent, "password") as the profile's Set password, in the create's batch.
 */
export async function createParent(ctx: ModelContext, raw: Record<string, unknown>, app?: PasswordApp): Promise<ModelResult<ParentJson>> {
  const parsed = parseWith(ParentInput, raw);
  const password = passwordToSet(raw, app);
  if (!parsed.ok || !password.ok) return invalid({ ...(parsed.ok ? {} : parsed.errors), ...(password.ok ? {} : password.errors) });
  // One read batch (the location, the email's holders, the next id and the audit tail), then the write batch, which
  // reads the new parent back: two round trips.
  const [locationRows, holders, [next]] = await ctx.db.batch([
    liveLocationsQuery(ctx, [parsed.data.location_id]),
    emailHoldersQuery(ctx, [parsed.data.email]),
    ctx.db.select({ n: nextIdOf(parents), tail: auditTail }).from(parents),
  ]);
  const errors = await check(ctx, parsed.data, null, { locationIds: [parsed.data.location_id], locations: locationRows, emails: [parsed.data.email], holders });
  if (Object.keys(errors).length) return invalid(errors);
  if (password.data) {
    const refusal = refused(mayChangeParent(ctx.actor, { locationId: parsed.data.location_id, childLocationIds: [] }, ["password"]));
    if (refusal) return refusal;
  }
  const passwordHash = password.data ? await hashPassword(password.data.password, password.data.app.env.PASSWORD_PEPPER ?? "") : null;
  for (let attempt = 0; ; attempt++) {
    // A racing create took the id: the next one, with a fresh tail.
    const [top] = attempt === 0 ? [next] : await ctx.db.select({ n: nextIdOf(parents), tail: auditTail }).from(parents);
    const newId = Number(top?.n ?? 1);
    try {
      const [, , created] = await withAudit(
        ctx.db,
        who(ctx),
        { action: "create", entity: "parent", entityId: newId, ...passwordDetail(password.data) },
        () => [ctx.db.insert(parents).values({ id: newId, ...values(parsed.data), passwordHash }), bumpListVersion(ctx.db, PARENTS), select(ctx).where(and(eq(parents.id, newId), scoped(ctx)))],
        top?.tail ?? null,
      );
      return ok(created[0] ? toJson(created[0]) : (await findParent(ctx, newId))!, "Parent created.");
    } catch (e) {
      if (attempt < 5 && isKeyRace(e)) continue;
      throw e;
    }
  }
}

/**
 * `opts.app`: the email queue for the security notices (a new password, to the parent; a new email, to the old address).
 * `opts.profileForm`: the profile's save, which never sets the password (naming it answers PARENT_PASSWORD_ON_PROFILE);
 * without it (the API) the body may set the password as the profile's Set password does (passwordToSet): the coverage
 * rule, the hash in the edit's batch with the end of the parent's sessions and tokens, and the notice.
 */
export async function updateParent(
  ctx: ModelContext,
  id: number,
  raw: Record<string, unknown>,
  opts: { partial: boolean; version: number | null; app: PasswordApp; profileForm?: boolean },
): Promise<ModelResult<ParentJson>> {
  // One read batch: the record with the audit tail, its children's locations, and what check() needs for the location
  // and email the body names (or the stored ones). Then the write batch, which reads the saved parent back.
  const sentLocation = plainId(raw.location_id);
  const sentEmail = typeof raw.email === "string" ? raw.email.trim().toLowerCase() : null;
  const storedOf = (column: typeof parents.locationId | typeof parents.email) => sql`(select ${column} from ${parents} where ${parents.id} = ${id})`;
  const [[row], childLocations, locationRows, holders] = await ctx.db.batch([
    parentRecordQuery(ctx, id),
    childLocationsQuery(ctx, id),
    liveLocationsQuery(ctx, [sentLocation, storedOf(parents.locationId)]),
    emailHoldersQuery(ctx, [sentEmail, storedOf(parents.email)]),
  ]);
  const loaded = checkedForChange(ctx, row, childLocations, []);
  if (!loaded.ok) return loaded;
  const { current, target, tail } = loaded.data;
  const read: CheckReads = { locationIds: [sentLocation, current.location_id], locations: locationRows, emails: [...(sentEmail ? [sentEmail] : []), current.email], holders };
  if (namesNoField(raw, ParentInput, PARENT_PASSWORD_FIELDS)) return nothingToChange();
  const parsed = parseChange(ParentInput, raw, opts.partial ? parentAsInput(current) : null);
  const password = passwordToSet(raw, opts.profileForm ? undefined : opts.app);
  if (!parsed.ok || !password.ok) return invalid({ ...(parsed.ok ? {} : parsed.errors), ...(password.ok ? {} : password.errors) });
  // A new password, email or status changes who can sign in as the parent, and a new location (another or none) who
  // sees and manages them: the actor must cover their children's locations (decision 015, stop 36).
  const changes: ParentSignInChange[] = [];
  if (password.data) changes.push("password");
  if (parsed.data.email.toLowerCase() !== current.email.toLowerCase()) changes.push("email");
  if (parsed.data.status !== current.status) changes.push("status");
  if (parsed.data.location_id !== current.location_id) changes.push("locations");
  const refusal = refused(mayChangeParent(ctx.actor, target, changes));
  if (refusal) return refusal;
  // A stale version is refused before anything (or any audit row) is written; the versioned WHERE catches a race.
  if (opts.version !== null && opts.version !== current.version) return conflict(current);
  // A save that leaves every field as stored (and sets no password) writes nothing and keeps the version (decision
  // 017, stop 44).
  if (!password.data && leavesAsStored(parentAsInput(current), parsed.data)) return nothingToChange(current);
  const errors = await check(ctx, parsed.data, current, read);
  if (Object.keys(errors).length) return invalid(errors);
  // A new password, email, status or location ends every session and API token of the parent.
  const endsAccess = changes.length > 0;
  const passwordHash = password.data ? await hashPassword(password.data.password, password.data.app.env.PASSWORD_PEPPER ?? "") : null;
  const results = await withAudit(
    ctx.db,
    who(ctx),
    { action: "update", entity: "parent", entityId: id, detail: parentChange(current, parsed.data, password.data) },
    () => {
      const update = ctx.db
        .update(parents)
        .set({ ...values(parsed.data), ...(passwordHash ? { passwordHash } : {}), version: sql`${parents.version} + 1`, updatedAt: ctx.now().toISOString() })
        .where(and(eq(parents.id, id), isNull(parents.deletedAt), opts.version === null ? undefined : eq(parents.version, opts.version)))
        .returning({ id: parents.id });
      const rest = [bumpListVersion(ctx.db, PARENTS), ...(endsAccess ? endAllAccessStatements(ctx.db, { type: "parent", id }, ctx.now()) : [])];
      // The parent as the batch leaves it (saved, or as another save left it), read back in the same batch.
      return [update, ...rest, select(ctx).where(and(eq(parents.id, id), scoped(ctx)))] as unknown as [typeof update];
    },
    tail,
  );
  const [rows] = results;
  const [after] = results[results.length - 1] as unknown as { p: Row; locationTitle: string | null }[];
  const saved = after ? toJson(after) : await findParent(ctx, id);
  if (!rows[0]) return conflict(saved ?? current);
  const account = { type: "parent", id } as const;
  if (password.data) await enqueueEmail(opts.app, securityNotice(current.email, current.name, "Your password was changed"), { kind: "password_changed", account }, who(ctx));
  if (changes.includes("email")) await enqueueEmail(opts.app, emailChangedNotice(current.email, current.name), { kind: "email_changed", account }, who(ctx));
  return ok(saved!, "Parent updated.");
}

/**
 * A signed-in parent changes their own sign-in email (profile, after the current password; decision 015, stop 37):
 * another live parent's email is refused as on the staff form; the change ends every session and API token of the
 * parent in its batch, `keep` (this browser's fresh session) excepted, and the old address is told. Two round trips:
 * the email's holders with the audit tail, then the write batch.
 */
export async function changeOwnParentEmail(ctx: ModelContext, app: Pick<AppContext, "env" | "email">, email: string, keep: () => BatchItem<"sqlite">): Promise<ModelResult<null>> {
  if (ctx.actor.kind !== "parent") return notFound("Parent");
  const id = ctx.actor.id;
  if (email === ctx.actor.email.toLowerCase()) return invalid({ email: AUTH_MESSAGES.ownEmailUnchanged });
  const [holders, [top]] = await ctx.db.batch([emailHoldersQuery(ctx, [email]), ctx.db.select({ tail: auditTail }).from(parents).limit(1)]);
  if (holders.some((h) => h.id !== id)) return invalid({ email: EMAIL_IN_USE });
  try {
    await withAudit(
      ctx.db,
      who(ctx),
      // The email by name only, as on the staff edit's row (decision 019, stop 44).
      { action: "update", entity: "parent", entityId: id, detail: changeDetail({ email: ctx.actor.email }, { email }, []) },
      () => [
        ctx.db.update(parents).set({ email, version: sql`${parents.version} + 1`, updatedAt: ctx.now().toISOString() }).where(and(eq(parents.id, id), isNull(parents.deletedAt))),
        bumpListVersion(ctx.db, PARENTS),
        ...endAllAccessStatements(ctx.db, { type: "parent", id }, ctx.now()),
        keep(),
      ],
      top?.tail ?? null,
    );
  } catch (e) {
    if (/UNIQUE constraint failed: parents\.email/i.test(errorText(e))) return invalid({ email: EMAIL_IN_USE });
    throw e;
  }
  await enqueueEmail(app, emailChangedNotice(ctx.actor.email, ctx.actor.name), { kind: "email_changed", account: { type: "parent", id } }, who(ctx));
  return ok(null, AUTH_MESSAGES.ownEmailChanged);
}

/**
 * Active or inactive (PUT /update-status/{id}): an edit of the status alone through updateParent, so the rule
 * (mayChangeParent) and the end of the parent's sessions and tokens are the same as on the form. 404 comes first.
 */
export async function updateParentStatus(ctx: ModelContext, id: number, raw: Record<string, unknown>, app: PasswordApp): Promise<ModelResult<ParentJson>> {
  const parsed = parseWith(ParentStatusInput, raw);
  if (!parsed.ok) {
    const loaded = await loadForChange(ctx, id);
    return loaded.ok ? invalid(parsed.errors) : loaded;
  }
  const result = await updateParent(ctx, id, parsed.data, { partial: true, version: null, app, profileForm: true });
  return result.ok ? ok(result.data, "Status updated.") : result;
}

const UNLINK_CHILDREN_FIRST = "Unlink this parent from their children first.";

/** A live client is linked to the parent (in SQL, so the delete itself is conditional on it). */
const hasLiveChild = (id: number) => sql`exists (select 1 from ${patients} where ${patients.parentId} = ${id} and ${patients.deletedAt} is null)`;

/**
 * Soft delete (decision 015, stop 24): needs the rule's coverage like a password change, and no live
 * child: a parent still linked to a client answers 422, and unlinking is an edit of each client (where it
 * is audited against that client), never a side effect of this. The delete is conditional on that in SQL
 * too, so a child linked meanwhile makes it write nothing (no audit row) and answer the same 422.
 */
export async function deleteParent(ctx: ModelContext, id: number): Promise<ModelResult<null>> {
  const loaded = await loadForChange(ctx, id, ["delete"]);
  if (!loaded.ok) return loaded;
  if (loaded.data.target.childLocationIds.length) return invalid({ form: UNLINK_CHILDREN_FIRST });
  const [deleted] = await withConditionalAudit(ctx.db, who(ctx), { action: "delete", entity: "parent", entityId: id }, (audit) => [
    ctx.db
      .update(parents)
      .set({ deletedAt: ctx.now().toISOString() })
      .where(and(eq(parents.id, id), isNull(parents.deletedAt), sql`not ${hasLiveChild(id)}`))
      .returning({ id: parents.id }),
    audit(sql`changes() = 1`),
    ...endAllAccessStatements(ctx.db, { type: "parent", id }, ctx.now()),
    bumpListVersion(ctx.db, PARENTS),
  ]);
  if (!deleted.length) return (await findParent(ctx, id)) ? invalid({ form: UNLINK_CHILDREN_FIRST }) : notFound("Parent");
  return ok(null, "Parent deleted.");
}

/**
 * Staff set a parent's password (initial or new). The new hash, the end of every screen session and API
 * token of that parent and the audit row (entity "parent", action "password") land in one batch; the parent then gets
 * the usual security notice. The password is never answered back.
 */
export async function setParentPassword(ctx: ModelContext, app: Pick<AppContext, "env" | "email">, id: number, raw: Record<string, unknown>): Promise<ModelResult<null>> {
  const loaded = await loadForChange(ctx, id, ["password"]);
  if (!loaded.ok) return loaded;
  const current = loaded.data.current;
  const parsed = parseWith(ParentPasswordInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const passwordHash = await hashPassword(parsed.data.password, app.env.PASSWORD_PEPPER ?? "");
  await withAudit(ctx.db, who(ctx), { action: "password", entity: "parent", entityId: id }, () => [
    ctx.db.update(parents).set({ passwordHash, updatedAt: ctx.now().toISOString() }).where(and(eq(parents.id, id), isNull(parents.deletedAt))),
    bumpListVersion(ctx.db, PARENTS),
    ...endAllAccessStatements(ctx.db, { type: "parent", id }, ctx.now()),
  ]);
  await enqueueEmail(app, securityNotice(current.email, current.name, "Your password was changed"), { kind: "password_changed", account: { type: "parent", id } }, who(ctx));
  return ok(null, "Password set. The parent has been signed out everywhere.");
}
