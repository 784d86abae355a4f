import { and, asc, count, eq, isNull, ne, notExists, or, sql, type SQL } from "drizzle-orm";
import { changeDetail, changesNoField, leavesAsStored } from "~/domain/audit-changes";
import { insuranceServices, insurances, locations, notes, paServices, patients } from "~/db/schema";
import { dollarPrice, notesPricedBy, pickService } from "~/domain/billing";
import { INSURER_IN_USE, SERVICE_COVERS_PA, SERVICE_IN_USE, SERVICE_MATCH_IN_USE, insuranceInput, InsuranceInput, InsuranceServiceInput, modifierInfo, SERVICE_SET_ELSEWHERE, SERVICE_TWIN_MESSAGE, serviceCode, serviceLocationText, serviceTwinKey, splitModifiers, unitMultiplier, type PriceLookupQuery } from "~/domain/insurance";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { canSeeLocation, locationScope } from "~/domain/permissions";
import { fieldsSetElsewhere, namesNoField, parseChange, parseWith } from "~/domain/validation";
import { auditWho, withAudit, withConditionalAudit } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import type { ModelContext } from "./context";
import { conflict, invalid, type ModelResult, notFound, nothingToChange, ok, unchangedAt } from "./results";
import { contains } from "./like.server";
import { priceServicesQuery, providerCredentialSql } from "./billing-prices.server";
import { claimedLineOf } from "./claimed-notes.server";
import { locationOptionsQuery } from "./locations.server";
import { coversCptSql } from "./pa-services.server";
import { withNextId } from "./patients.server";
import { idsIn } from "./scope.server";

/**
 * Insurers and their CPT services with prices (clinical §3 billing and insurance entities).
 * Insurers are shared by every location; the route or API guard (manage_insurances) decides who may see them.
 */

export const INSURANCES = "insurances";
export const INSURANCE_SERVICES = "insurance_services";
type Row = typeof insurances.$inferSelect;
type ServiceRow = typeof insuranceServices.$inferSelect;

const codes = (stored: string) => (stored ? stored.split(",").filter(Boolean) : []);

export function insuranceJson(r: Row) {
  return {
    id: r.id,
    name: r.name,
    street: r.street,
    street2: r.street2,
    city: r.city,
    state: r.state,
    zip: r.zip,
    payer_id: r.payerId,
    notes: r.notes,
    uses_supervisor_as_provider: r.usesSupervisorAsProvider,
    uses_is_telehealth: r.usesIsTelehealth,
    pos_allowed_to_cg: codes(r.posAllowedToCg),
    pos_allowed_to_tt: codes(r.posAllowedToTt),
    extra_pos_for_bcba: codes(r.extraPosForBcba),
    version: r.version,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
export type InsuranceJson = ReturnType<typeof insuranceJson>;

export function serviceJson(r: ServiceRow) {
  const modifiers = splitModifiers(r.modifiers);
  return {
    id: r.id,
    insurance_id: r.insuranceId,
    location_id: r.locationId,
    code: serviceCode(r.cptCode, modifiers),
    cpt_code: r.cptCode,
    /** Dash-separated, as stored (clinical §3). */
    modifiers: r.modifiers,
    modifier_details: modifiers.map((code) => modifierInfo(code) ?? { code, meaning: "Unknown", type: "all" as const, multiplier: 1 }),
    unit_multiplier: unitMultiplier(modifiers),
    provider: r.provider,
    type: r.type,
    description: r.description,
    unit_price: r.unitPrice,
    hourly_fee: r.hourlyFee,
    max_allowed: r.maxAllowed,
    max_per_day: r.maxPerDay,
    multiplier: r.multiplier,
    auto_on_pos: r.autoOnPos,
    auto_on_provider: r.autoOnProvider,
    auto_on_same_day: r.autoOnSameDay,
    auto_on_overlapping: r.autoOnOverlapping,
    version: r.version,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
export type InsuranceServiceJson = ReturnType<typeof serviceJson>;
export type InsuranceWithServices = InsuranceJson & { services: InsuranceServiceJson[] };

const live = isNull(insurances.deletedAt);

export async function listInsurances(ctx: ModelContext, query: ListQuery, filters: { insurer_name?: string } = {}): Promise<Paged<InsuranceJson>> {
  const name = (filters.insurer_name ?? "").trim();
  const where = and(
    live,
    query.search ? or(contains(insurances.name, query.search), contains(insurances.payerId, query.search)) : undefined,
    name ? contains(insurances.name, name) : undefined,
  );
  const [rows, [total]] = await ctx.db.batch([
    ctx.db.select().from(insurances).where(where).orderBy(asc(insurances.name), asc(insurances.id)).limit(query.per_page).offset(offset(query)),
    ctx.db.select({ n: count() }).from(insurances).where(where),
  ]);
  return paged(rows.map(insuranceJson), total?.n ?? 0, query);
}

/** Every insurer, for selects, as a statement (to ride in a batch). */
export function insuranceOptionsQuery(ctx: ModelContext) {
  return ctx.db.select({ id: insurances.id, name: insurances.name }).from(insurances).where(live).orderBy(asc(insurances.name));
}

async function getInsuranceRow(ctx: ModelContext, id: number): Promise<InsuranceJson | null> {
  const [row] = await ctx.db.select().from(insurances).where(and(eq(insurances.id, id), live));
  return row ? insuranceJson(row) : null;
}

/** An insurer with its services. */
export async function getInsurance(ctx: ModelContext, id: number): Promise<InsuranceWithServices | null> {
  const [rows, services] = await ctx.db.batch([
    ctx.db.select().from(insurances).where(and(eq(insurances.id, id), live)),
    ctx.db
      .select()
      .from(insuranceServices)
      .where(and(eq(insuranceServices.insuranceId, id), isNull(insuranceServices.deletedAt), serviceInScope(ctx)))
      .orderBy(asc(insuranceServices.cptCode), asc(insuranceServices.type), asc(insuranceServices.id)),
  ]);
  const row = rows[0];
  return row ? { ...insuranceJson(row), services: services.map(serviceJson) } : null;
}

function values(input: InsuranceInput) {
  return {
    name: input.name,
    street: input.street,
    street2: input.street2,
    city: input.city,
    state: input.state,
    zip: input.zip,
    payerId: input.payer_id,
    notes: input.notes,
    usesSupervisorAsProvider: input.uses_supervisor_as_provider,
    usesIsTelehealth: input.uses_is_telehealth,
    posAllowedToCg: input.pos_allowed_to_cg.join(","),
    posAllowedToTt: input.pos_allowed_to_tt.join(","),
    extraPosForBcba: input.extra_pos_for_bcba.join(","),
  };
}

function asInput(i: InsuranceJson): Record<string, unknown> {
  const { id: _id, version: _v, created_at: _c, updated_at: _u, ...rest } = i;
  return rest;
}

export async function createInsurance(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<InsuranceWithServices>> {
  const parsed = parseWith(InsuranceInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const [rows] = await withNextId(ctx, insurances, (newId, tail) =>
    withAudit(
      ctx.db,
      auditWho(ctx),
      { action: "create", entity: "insurance", entityId: newId },
      () => [ctx.db.insert(insurances).values({ id: newId, ...values(parsed.data) }).returning(), bumpListVersion(ctx.db, INSURANCES)],
      tail,
    ),
  );
  return ok({ ...insuranceJson(rows[0]!), services: [] }, "Insurance created.");
}

export async function updateInsurance(
  ctx: ModelContext,
  id: number,
  raw: Record<string, unknown>,
  opts: { partial: boolean; version: number | null },
): Promise<ModelResult<InsuranceWithServices>> {
  const current = await getInsuranceRow(ctx, id);
  if (!current) return notFound("Insurance");
  if (namesNoField(raw, InsuranceInput)) return nothingToChange();
  // A stored state sent back as it is passes; a new or changed one must be a state code (decision 017, stop 36).
  const parsed = parseChange(insuranceInput(current.state), raw, opts.partial ? asInput(current) : null);
  if (!parsed.ok) return invalid(parsed.errors);
  // A stale version is refused before anything is written; the versioned WHERE catches a race.
  if (opts.version !== null && opts.version !== current.version) return conflict((await getInsurance(ctx, id)) ?? current);
  // A save that leaves every field as stored writes nothing and keeps the version (decision 017, stop 44).
  if (leavesAsStored(asInput(current), parsed.data)) return nothingToChange(current);
  const [rows] = await withAudit(ctx.db, auditWho(ctx), { action: "update", entity: "insurance", entityId: id }, () => [
    ctx.db
      .update(insurances)
      .set({ ...values(parsed.data), version: sql`${insurances.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(and(eq(insurances.id, id), live, opts.version === null ? undefined : eq(insurances.version, opts.version)))
      .returning(),
    bumpListVersion(ctx.db, INSURANCES),
  ]);
  if (!rows[0]) return conflict((await getInsurance(ctx, id)) ?? current);
  const fresh = await getInsurance(ctx, id);
  return ok(fresh ?? { ...insuranceJson(rows[0]), services: [] }, "Insurance updated.");
}

/**
 * Who still uses the insurer, as `from … where` SQL: live clients with it as their primary or secondary insurer (of
 * every location: insurers are shared), and live PA services of live clients billed to it.
 */
function usersOf(id: number) {
  return {
    clients: sql`from patients p where (p.insurer_id = ${id} or p.insurer_secondary_id = ${id}) and p.deleted_at is null`,
    paServices: sql`from pa_services s join patients p on p.id = s.patient_id where s.insurance_id = ${id} and s.deleted_at is null and p.deleted_at is null`,
  };
}

/** 422 naming how many clients and PA services use the insurer, or null when none does. */
async function stillInUse(ctx: ModelContext, id: number): Promise<ModelResult<never> | null> {
  const u = usersOf(id);
  const [n] = await ctx.db.select({ clients: sql<number>`(select count(*) ${u.clients})`, paServices: sql<number>`(select count(*) ${u.paServices})` }).from(insurances).where(eq(insurances.id, id));
  const messages = (["clients", "paServices"] as const).filter((k) => Number(n?.[k] ?? 0) > 0).map((k) => INSURER_IN_USE[k](Number(n![k])));
  return messages.length ? invalid({ insurance: messages.join(" ") }) : null;
}

/**
 * Soft delete of the insurer and its services, in one batch; refused (422) while live clients or PA services use it
 * (decision 017, stop 33): their billing would lose its insurer. The delete is conditional on that in SQL too, so a
 * client given the insurer meanwhile makes it write nothing (no audit row).
 */
export async function deleteInsurance(ctx: ModelContext, id: number): Promise<ModelResult<null>> {
  const current = await getInsuranceRow(ctx, id);
  if (!current) return notFound("Insurance");
  const refusal = await stillInUse(ctx, id);
  if (refusal) return refusal;
  const u = usersOf(id);
  const at = ctx.now().toISOString();
  const [deleted] = await withConditionalAudit(ctx.db, auditWho(ctx), { action: "delete", entity: "insurance", entityId: id }, (audit) => [
    ctx.db
      .update(insurances)
      .set({ deletedAt: at })
      .where(and(eq(insurances.id, id), live, sql`not exists (select 1 ${u.clients}) and not exists (select 1 ${u.paServices})`))
      .returning({ id: insurances.id }),
    audit(sql`changes() = 1`),
    ctx.db
      .update(insuranceServices)
      .set({ deletedAt: at })
      .where(and(eq(insuranceServices.insuranceId, id), isNull(insuranceServices.deletedAt), sql`exists (select 1 from insurances i where i.id = ${id} and i.deleted_at = ${at})`)),
    bumpListVersion(ctx.db, INSURANCES),
    bumpListVersion(ctx.db, INSURANCE_SERVICES),
  ]);
  if (!deleted.length) return (await stillInUse(ctx, id)) ?? notFound("Insurance");
  return ok(null, "Insurance deleted.");
}

/* ---------- Services ---------- */

/**
 * The services the actor may see: those without a location (the insurer's, shared by every location) and
 * those of the actor's locations. A service of another location answers 404 to read, re-price or delete.
 */
function serviceInScope(ctx: ModelContext): SQL | undefined {
  const scope = locationScope(ctx.actor);
  if (scope === null) return undefined;
  return or(isNull(insuranceServices.locationId), scope.length ? idsIn(insuranceServices.locationId, scope) : undefined);
}

/** A service whose insurer is not deleted. */
const liveService = (id: number): SQL =>
  and(eq(insuranceServices.id, id), isNull(insuranceServices.deletedAt), sql`exists (select 1 from ${insurances} where ${insurances.id} = ${insuranceServices.insuranceId} and ${insurances.deletedAt} is null)`)!;

export async function getInsuranceService(ctx: ModelContext, id: number): Promise<InsuranceServiceJson | null> {
  const [row] = await ctx.db.select().from(insuranceServices).where(and(liveService(id), serviceInScope(ctx)));
  return row ? serviceJson(row) : null;
}

export async function listServicesByInsurance(ctx: ModelContext, insuranceId: number): Promise<InsuranceServiceJson[] | null> {
  const insurer = await getInsuranceRow(ctx, insuranceId);
  if (!insurer) return null;
  const rows = await ctx.db
    .select()
    .from(insuranceServices)
    .where(and(eq(insuranceServices.insuranceId, insuranceId), isNull(insuranceServices.deletedAt), serviceInScope(ctx)))
    .orderBy(asc(insuranceServices.cptCode), asc(insuranceServices.type), asc(insuranceServices.id));
  return rows.map(serviceJson);
}

/** Every service of every live insurer, paginated (search by CPT, description or insurer name). */
export async function listInsuranceServices(ctx: ModelContext, query: ListQuery): Promise<Paged<InsuranceServiceJson & { insurance_name: string }>> {
  const where = and(
    isNull(insuranceServices.deletedAt),
    live,
    serviceInScope(ctx),
    query.search
      ? or(contains(insuranceServices.cptCode, query.search), contains(insuranceServices.description, query.search), contains(insurances.name, query.search))
      : undefined,
  );
  const [rows, [total]] = await ctx.db.batch([
    ctx.db
      .select({ service: insuranceServices, insuranceName: insurances.name })
      .from(insuranceServices)
      .innerJoin(insurances, eq(insurances.id, insuranceServices.insuranceId))
      .where(where)
      .orderBy(asc(insurances.name), asc(insuranceServices.cptCode), asc(insuranceServices.id))
      .limit(query.per_page)
      .offset(offset(query)),
    ctx.db.select({ n: count() }).from(insuranceServices).innerJoin(insurances, eq(insurances.id, insuranceServices.insuranceId)).where(where),
  ]);
  return paged(
    rows.map((r) => ({ ...serviceJson(r.service), insurance_name: r.insuranceName })),
    total?.n ?? 0,
    query,
  );
}

function serviceValues(input: InsuranceServiceInput) {
  return {
    locationId: input.location_id,
    cptCode: input.code.cpt,
    modifiers: input.code.modifiers.join("-"),
    provider: input.provider ?? "",
    type: input.type,
    description: input.description,
    unitPrice: input.unit_price,
    hourlyFee: input.hourly_fee,
    maxAllowed: input.max_allowed,
    maxPerDay: input.max_per_day,
    multiplier: input.multiplier,
    autoOnPos: input.auto_on_pos,
    autoOnProvider: input.auto_on_provider,
    autoOnSameDay: input.auto_on_same_day,
    autoOnOverlapping: input.auto_on_overlapping,
  };
}

function serviceAsInput(s: InsuranceServiceJson): Record<string, unknown> {
  return {
    code: s.code,
    provider: s.provider,
    description: s.description,
    unit_price: s.unit_price,
    hourly_fee: s.hourly_fee,
    max_allowed: s.max_allowed,
    max_per_day: s.max_per_day,
    multiplier: s.multiplier,
    location_id: s.location_id,
    auto_on_pos: s.auto_on_pos,
    auto_on_provider: s.auto_on_provider,
    auto_on_same_day: s.auto_on_same_day,
    auto_on_overlapping: s.auto_on_overlapping,
  };
}

/**
 * The fields of a price whose old and new values its update's audit row shows: all that decide what a note is charged
 * (decision 019, stop 44); the description, free text, by name only.
 */
const SERVICE_SHOWN = ["code", "provider", "type", "location_id", "unit_price", "hourly_fee", "max_allowed", "max_per_day", "multiplier", "auto_on_pos", "auto_on_provider", "auto_on_same_day", "auto_on_overlapping"];

/** What an update changes of a price, for its audit row (changeDetail): the stored service against what the save writes. */
function serviceChange(current: InsuranceServiceJson, input: InsuranceServiceInput) {
  const written = serviceValues(input);
  return changeDetail(
    { ...serviceAsInput(current), type: current.type },
    {
      code: serviceCode(input.code.cpt, input.code.modifiers),
      provider: written.provider,
      type: written.type,
      location_id: written.locationId,
      description: written.description,
      unit_price: written.unitPrice,
      hourly_fee: written.hourlyFee,
      max_allowed: written.maxAllowed,
      max_per_day: written.maxPerDay,
      multiplier: written.multiplier,
      auto_on_pos: written.autoOnPos,
      auto_on_provider: written.autoOnProvider,
      auto_on_same_day: written.autoOnSameDay,
      auto_on_overlapping: written.autoOnOverlapping,
    },
    SERVICE_SHOWN,
  );
}

/**
 * What a service write checks against the database, in one read: its new location, when given, must exist and be one
 * the actor can see (the stored one was checked when the service was found: getInsuranceService answers only services
 * in scope, so moving a service needs both); and, with `twins`, it must not be a twin of a live service of the insurer
 * (`serviceTwinKey`: billing would only ever use the oldest; probe 8974 §1), 422 on `code` naming that service. A check,
 * not a unique index: two writes racing past it can still store twins, which the service tables then mark.
 */
async function checkService(ctx: ModelContext, insuranceId: number, input: InsuranceServiceInput, twins: { exceptId: number | null } | null): Promise<Record<string, string> | null> {
  if (input.location_id === null && !twins) return null;
  return serviceCheckErrors(ctx, insuranceId, input, await ctx.db.batch(serviceCheckQueries(ctx, insuranceId, input, twins)));
}

/** checkService's reads, as statements for a batch (an update adds its in-use reads to the same batch). */
function serviceCheckQueries(ctx: ModelContext, insuranceId: number, input: InsuranceServiceInput, twins: { exceptId: number | null } | null) {
  return [
    ctx.db.select({ id: locations.id }).from(locations).where(and(eq(locations.id, input.location_id ?? -1), isNull(locations.deletedAt))),
    ctx.db
      .select({ service: insuranceServices, location: locations.title })
      .from(insuranceServices)
      .leftJoin(locations, eq(locations.id, insuranceServices.locationId))
      .where(
        twins
          ? and(eq(insuranceServices.insuranceId, insuranceId), eq(insuranceServices.cptCode, input.code.cpt), isNull(insuranceServices.deletedAt), twins.exceptId === null ? undefined : ne(insuranceServices.id, twins.exceptId))
          : sql`0`,
      )
      .orderBy(asc(insuranceServices.id)),
  ] as const;
}

type ServiceCheckRead = readonly [{ id: number }[], { service: ServiceRow; location: string | null }[]];

function serviceCheckErrors(ctx: ModelContext, insuranceId: number, input: InsuranceServiceInput, [place, live]: ServiceCheckRead): Record<string, string> | null {
  const locationId = input.location_id;
  if (locationId !== null && !(place[0] && canSeeLocation(ctx.actor, locationId))) return { location_id: "Choose a valid option." };
  const key = serviceTwinKey({ insuranceId, cptCode: input.code.cpt, modifiers: input.code.modifiers, provider: input.provider, locationId });
  const twin = live.find((r) => serviceTwinKey({ ...r.service, modifiers: splitModifiers(r.service.modifiers) }) === key);
  if (!twin) return null;
  const s = twin.service;
  const location = s.locationId === null ? serviceLocationText(null, []) : (twin.location ?? serviceLocationText(s.locationId, []));
  return { code: SERVICE_TWIN_MESSAGE({ id: s.id, code: serviceCode(s.cptCode, splitModifiers(s.modifiers)), provider: s.provider, location, price: dollarPrice(s.unitPrice) }) };
}

/** Creates a service for an insurer; the insurer comes from the argument or from `insurance_id` in the input. */
export async function createInsuranceService(ctx: ModelContext, insuranceId: number | null, raw: Record<string, unknown>): Promise<ModelResult<InsuranceServiceJson>> {
  const id = insuranceId ?? Number(raw.insurance_id ?? raw.insurer_id);
  if (!Number.isInteger(id) || id <= 0) return invalid({ insurance_id: "Choose an insurance." });
  const insurer = await getInsuranceRow(ctx, id);
  if (!insurer) return insuranceId === null ? invalid({ insurance_id: "Choose an insurance." }) : notFound("Insurance");
  const elsewhere = fieldsSetElsewhere(raw, SERVICE_SET_ELSEWHERE);
  if (elsewhere) return invalid(elsewhere);
  const parsed = parseWith(InsuranceServiceInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const refused = await checkService(ctx, id, parsed.data, { exceptId: null });
  if (refused) return invalid(refused);
  const [rows] = await withNextId(ctx, insuranceServices, (newId, tail) =>
    withAudit(
      ctx.db,
      auditWho(ctx),
      { action: "create", entity: "insurance_service", entityId: newId, detail: { insurance_id: id } },
      () => [
        ctx.db
          .insert(insuranceServices)
          .values({ id: newId, insuranceId: id, ...serviceValues(parsed.data) })
          .returning(),
        bumpListVersion(ctx.db, INSURANCE_SERVICES),
      ],
      tail,
    ),
  );
  return ok(serviceJson(rows[0]!), "Service added.");
}

export async function updateInsuranceService(
  ctx: ModelContext,
  id: number,
  raw: Record<string, unknown>,
  opts: { partial: boolean; version: number | null; insuranceId?: number },
): Promise<ModelResult<InsuranceServiceJson>> {
  const current = await getInsuranceService(ctx, id);
  if (!current || (opts.insuranceId !== undefined && current.insurance_id !== opts.insuranceId)) return notFound("Service");
  const elsewhere = fieldsSetElsewhere(raw, SERVICE_SET_ELSEWHERE);
  if (elsewhere) return invalid(elsewhere);
  if (namesNoField(raw, InsuranceServiceInput)) return nothingToChange();
  const parsed = parseChange(InsuranceServiceInput, raw, opts.partial ? serviceAsInput(current) : null);
  if (!parsed.ok) return invalid(parsed.errors);
  // A save that leaves every field as stored writes nothing and keeps the version (decision 017, stop 44; stop 45),
  // before any rule about what a change may change: a price sent back as stored changes nothing it matches, so it is
  // never the in-use refusal. A stale version is still a 409.
  const detail = serviceChange(current, parsed.data);
  if (changesNoField(detail)) return unchangedAt(current, current.version, opts.version);
  // Only a change of what makes the service (code, provider, location) is checked for a twin: re-pricing a service
  // that has a twin stored before the rule is not refused (decision 017: an edit fails only on what it changes).
  // The same change is refused while notes are priced by the service, or PA services need its CPT (decision 017, stop 44).
  const input = parsed.data;
  const change = matchChange(current, input);
  let read: PricedByRead | null = null;
  if (change) {
    const [place, twins, ...inUse] = await ctx.db.batch([...serviceCheckQueries(ctx, current.insurance_id, input, { exceptId: id }), ...pricedByQueries(ctx, current)]);
    const refused = serviceCheckErrors(ctx, current.insurance_id, input, [place, twins]);
    if (refused) return invalid(refused);
    read = pricedByOf(current, inUse);
    const inUseRefusal = matchChangeRefusal(current, read, change);
    if (inUseRefusal) return inUseRefusal;
  } else {
    const refused = await checkService(ctx, current.insurance_id, input, null);
    if (refused) return invalid(refused);
  }
  const [rows] = await withConditionalAudit(ctx.db, auditWho(ctx), { action: "update", entity: "insurance_service", entityId: id, detail: { insurance_id: current.insurance_id, ...detail } }, (audit) => [
    ctx.db
      .update(insuranceServices)
      .set({ ...serviceValues(parsed.data), version: sql`${insuranceServices.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(
        and(
          eq(insuranceServices.id, id),
          isNull(insuranceServices.deletedAt),
          opts.version === null ? undefined : eq(insuranceServices.version, opts.version),
          // The in-use read still holds: no note written, no price added or deleted, no PA service given the CPT meanwhile.
          read && change ? stillUnused(ctx, current, read, change.cpt) : undefined,
        ),
      )
      .returning(),
    audit(sql`changes() = 1`),
    bumpListVersion(ctx.db, INSURANCE_SERVICES),
  ]);
  if (!rows[0]) {
    const fresh = await getInsuranceService(ctx, id);
    if (change && fresh && (opts.version === null || fresh.version === opts.version)) {
      const refusal = matchChangeRefusal(current, await pricedByServiceRead(ctx, current), change);
      if (refusal) return refusal;
    }
    return conflict(fresh ?? current);
  }
  return ok(serviceJson(rows[0]), "Service updated.");
}

/** Which of what a price matches an edit changes (null: none): its code (CPT and modifiers), its CPT alone, its provider type, its location. */
interface MatchChange {
  code: boolean;
  cpt: boolean;
  provider: boolean;
  location: boolean;
}

function matchChange(current: InsuranceServiceJson, input: InsuranceServiceInput): MatchChange | null {
  const key = (over: { cptCode?: string; modifiers?: string[]; provider?: string | null; locationId?: number | null }) =>
    serviceTwinKey({ insuranceId: current.insurance_id, cptCode: current.cpt_code, modifiers: splitModifiers(current.modifiers), provider: current.provider, locationId: current.location_id, ...over });
  const stored = key({});
  const change = {
    code: key({ cptCode: input.code.cpt, modifiers: input.code.modifiers }) !== stored,
    cpt: key({ cptCode: input.code.cpt }) !== stored,
    provider: key({ provider: input.provider }) !== stored,
    location: key({ locationId: input.location_id }) !== stored,
  };
  return change.code || change.provider || change.location ? change : null;
}

/**
 * 422 for an edit that changes what the price matches while notes are priced by it (at the first changed field: code,
 * else provider, else location), or that changes its CPT while PA services billed to the insurer authorize the old
 * CPT and no other price covers it (at the code); null when neither holds.
 */
function matchChangeRefusal(current: InsuranceServiceJson, read: PricedByRead, change: MatchChange): ModelResult<never> | null {
  const errors: Record<string, string> = {};
  if (read.count > 0) errors[change.code ? "code" : change.provider ? "provider" : "location_id"] = SERVICE_MATCH_IN_USE(read.count);
  if (change.cpt && read.paServices > 0) {
    const text = SERVICE_COVERS_PA(read.paServices, current.cpt_code, "edit");
    errors.code = errors.code ? `${errors.code} ${text}` : text;
  }
  return Object.keys(errors).length ? invalid(errors) : null;
}

/**
 * The live notes of live clients (every location: a price without a location is the insurer's everywhere) that the
 * service could price today, grouped by what the price pick reads of them: the payer is the service's insurer, the
 * CPT its code, no price of their own, and no generated, sent or accepted claim holds their line's price. Which of
 * them the service actually prices is the pick's to say (`notesPricedBy`). One statement for a read's batch; with
 * `also`, the delete's own condition (`not exists` of it).
 */
function notesPricedAsTodayQuery(ctx: ModelContext, service: InsuranceServiceJson, also?: SQL) {
  const payer = sql<number | null>`coalesce(${paServices.insuranceId}, ${patients.insurerId})`;
  const credential = providerCredentialSql(notes.providerId);
  return ctx.db
    .select({ locationId: notes.locationId, cptCode: notes.cptCode, type: notes.type, md: notes.md, md2: notes.md2, providerCredential: sql<string | null>`${credential}`.as("credential"), n: count() })
    .from(notes)
    .innerJoin(patients, and(eq(patients.id, notes.patientId), isNull(patients.deletedAt)))
    .leftJoin(paServices, eq(paServices.id, notes.paServiceId))
    .where(
      and(
        isNull(notes.deletedAt),
        sql`upper(trim(${notes.cptCode})) = ${service.cpt_code.trim().toUpperCase()}`,
        sql`${payer} = ${service.insurance_id}`,
        sql`coalesce(${notes.unitPriceCents}, 0) <= 0`,
        sql`${claimedLineOf(notes.id)} is null`,
        also,
      ),
    )
    .groupBy(notes.locationId, notes.cptCode, notes.type, notes.md, notes.md2, sql`credential`);
}

/**
 * The live PA services of live clients billed to the service's insurer (the PA service's insurer, else the client's
 * primary one: `notePayer`, decision 030) that authorize the service's CPT, while no other live price of the insurer
 * covers that CPT (the coverage a PA service's save checks, `coversCptSql`, decision 031 stop 38): those the price alone
 * covers. As `from … where` SQL.
 */
function paServicesCoveredOnlyBy(service: InsuranceServiceJson) {
  const cpt = service.cpt_code.trim().toUpperCase();
  return sql`from pa_services ps join patients pp on pp.id = ps.patient_id where ps.deleted_at is null and pp.deleted_at is null
    and coalesce(ps.insurance_id, pp.insurer_id) = ${service.insurance_id} and upper(ps.cpt) = ${cpt} and not ${coversCptSql(service.insurance_id, cpt, service.id)}`;
}

/**
 * The reads behind a price's in-use count, as statements for one batch: the insurer's services, the notes the service
 * could price grouped as the pick reads them, and the PA services it alone covers.
 */
function pricedByQueries(ctx: ModelContext, service: InsuranceServiceJson) {
  return [
    priceServicesQuery(ctx, [service.insurance_id]),
    notesPricedAsTodayQuery(ctx, service),
    ctx.db
      .select({ n: sql<number>`(select count(*) ${paServicesCoveredOnlyBy(service)})`.mapWith(Number) })
      .from(insurances)
      .where(eq(insurances.id, service.insurance_id)),
  ] as const;
}

type PricedByRows = readonly [Awaited<ReturnType<typeof priceServicesQuery>>, Awaited<ReturnType<typeof notesPricedAsTodayQuery>>, { n: number }[]];

/** What the reads say: the insurer's services, the groups of notes, how many of them the service prices (`notesPricedBy`), and the PA services it alone covers. */
function pricedByOf(service: InsuranceServiceJson, [services, rows, pa]: PricedByRows) {
  const groups = rows.map((g) => ({ ...g, modifiers: [g.md, g.md2], insurerId: service.insurance_id, n: Number(g.n) }));
  return { services, groups, count: notesPricedBy(services, service.id, groups), paServices: Number(pa[0]?.n ?? 0) };
}
type PricedByRead = ReturnType<typeof pricedByOf>;

/** The read behind a price's in-use count (one read batch). */
async function pricedByServiceRead(ctx: ModelContext, service: InsuranceServiceJson): Promise<PricedByRead> {
  return pricedByOf(service, await ctx.db.batch(pricedByQueries(ctx, service)));
}

/**
 * The in-use read, as a condition of the write that depends on it (decision 017, stop 41): no note the price could
 * price lies outside the groups the read found priced by another price, the insurer's live prices are the ones read
 * (a price added or deleted changes the pick), and, with `pa`, no PA service relies on the price alone for its CPT.
 */
function stillUnused(ctx: ModelContext, current: InsuranceServiceJson, read: PricedByRead, pa: boolean): SQL {
  const elsewhere = read.groups.filter((g) => notesPricedBy(read.services, current.id, [g]) === 0).map((g) => [g.locationId, g.cptCode, g.type, g.md, g.md2, g.providerCredential]);
  const pricedElsewhere = sql`exists (select 1 from json_each(${JSON.stringify(elsewhere)}) g where g.value ->> 0 is ${notes.locationId} and g.value ->> 1 is ${notes.cptCode}
    and g.value ->> 2 is ${notes.type} and g.value ->> 3 is ${notes.md} and g.value ->> 4 is ${notes.md2} and g.value ->> 5 is ${providerCredentialSql(notes.providerId)})`;
  const pricesRead = read.services.map((s) => s.id).sort((a, b) => a - b).join(",");
  const samePrices = sql`coalesce((select group_concat(x.id, ',') from (select s.id from insurance_services s join insurances i on i.id = s.insurance_id
    where s.insurance_id = ${current.insurance_id} and s.deleted_at is null and i.deleted_at is null order by s.id) x), '') = ${pricesRead}`;
  return and(notExists(notesPricedAsTodayQuery(ctx, current, sql`not ${pricedElsewhere}`)), samePrices, pa ? sql`not exists (select 1 ${paServicesCoveredOnlyBy(current)})` : undefined)!;
}

/** The delete's refusal: notes priced by the price, PA services it alone covers (422 on `service`); null when neither. */
function deleteRefusal(current: InsuranceServiceJson, read: PricedByRead): ModelResult<never> | null {
  const messages = [read.count > 0 ? SERVICE_IN_USE(read.count) : null, read.paServices > 0 ? SERVICE_COVERS_PA(read.paServices, current.cpt_code, "delete") : null].filter((m): m is string => m !== null);
  return messages.length ? invalid({ service: messages.join(" ") }) : null;
}

/**
 * How many notes the service prices today; the delete is refused while any are, and the screen's confirm step says so.
 */
export async function notesPricedByService(ctx: ModelContext, service: InsuranceServiceJson): Promise<number> {
  return (await pricedByServiceRead(ctx, service)).count;
}

/**
 * Soft delete. With `insuranceId`, the service must belong to that insurer. Refused (422) while live notes are
 * priced by it (decision 017, stop 40): their charges would fall to $0.00; and while PA services billed to the insurer
 * authorize its CPT and no other price covers it (decision 017, stop 44). The check and the write are one: the read
 * finds, by the one price pick (`notesPricedBy`), the groups of notes another price prices; the write deletes only
 * while no note the service could price lies outside those groups and the insurer's live prices are the ones read
 * (decision 017, stop 41). A note written (or a price added or deleted) in between makes it write nothing; it is then
 * read again: the in-use refusal with the count, or another try.
 */
export async function deleteInsuranceService(ctx: ModelContext, id: number, insuranceId?: number): Promise<ModelResult<null>> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const current = await getInsuranceService(ctx, id);
    if (!current || (insuranceId !== undefined && current.insurance_id !== insuranceId)) return notFound("Service");
    const read = await pricedByServiceRead(ctx, current);
    const refusal = deleteRefusal(current, read);
    if (refusal) return refusal;
    const [deleted] = await withConditionalAudit(ctx.db, auditWho(ctx), { action: "delete", entity: "insurance_service", entityId: id, detail: { insurance_id: current.insurance_id } }, (audit) => [
      ctx.db
        .update(insuranceServices)
        .set({ deletedAt: ctx.now().toISOString() })
        .where(and(eq(insuranceServices.id, id), isNull(insuranceServices.deletedAt), stillUnused(ctx, current, read, true)))
        .returning({ id: insuranceServices.id }),
      audit(sql`changes() = 1`),
      bumpListVersion(ctx.db, INSURANCE_SERVICES),
    ]);
    if ((deleted as unknown[]).length) return ok(null, "Service deleted.");
  }
  const current = await getInsuranceService(ctx, id);
  if (!current) return notFound("Service");
  return deleteRefusal(current, await pricedByServiceRead(ctx, current)) ?? conflict(current);
}

/** A price lookup's answer: the service billing uses, and with no location given, each location's own price. */
export interface PriceLookup {
  /** The price for the location given (none given: the insurer-wide one), or null. */
  service: InsuranceServiceJson | null;
  /** With no location given: each of the actor's locations whose price is a service of its own, and that service. */
  by_location: { location_id: number; location: string; service: InsuranceServiceJson }[];
}

/**
 * The price of a CPT for a provider at an insurer (clinical §7 showInsuranceCpt): the pick of the one price
 * function (`pickService`, app/domain/billing.ts) over the insurer's services of that CPT the actor may see, for
 * the location and modifiers given, as billing prices a note there (probe 8933 §3). Without a location, also each
 * of the actor's locations whose own service prices it, so that a payer priced per location is not answered "No
 * price". Null when the location is not one the actor may see. Never another CPT's price.
 */
export async function findUnitPrice(ctx: ModelContext, insuranceId: number, cpt: string, provider: string, query: PriceLookupQuery = { location_id: null, modifiers: [] }): Promise<PriceLookup | null> {
  const code = cpt.trim().toUpperCase();
  const [rows, places] = await ctx.db.batch([
    ctx.db
      .select({ service: insuranceServices })
      .from(insuranceServices)
      .innerJoin(insurances, eq(insurances.id, insuranceServices.insuranceId))
      .where(and(eq(insuranceServices.insuranceId, insuranceId), live, isNull(insuranceServices.deletedAt), serviceInScope(ctx), eq(insuranceServices.cptCode, code))),
    locationOptionsQuery(ctx),
  ]);
  if (query.location_id !== null && !places.some((l) => l.id === query.location_id)) return null;
  const services = rows.map((r) => r.service);
  const priced = (locationId: number | null) => {
    const picked = pickService(services, insuranceId, code, provider, locationId, query.modifiers);
    return picked ? serviceJson(services.find((s) => s.id === picked.id)!) : null;
  };
  const scoped = new Set(services.map((s) => s.locationId));
  const byLocation =
    query.location_id !== null
      ? []
      : places.flatMap((l) => {
          const service = scoped.has(l.id) ? priced(l.id) : null;
          return service && service.location_id !== null ? [{ location_id: l.id, location: l.title, service }] : [];
        });
  return { service: priced(query.location_id), by_location: byLocation };
}
