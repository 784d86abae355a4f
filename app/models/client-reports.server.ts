import { and, asc, count, desc, eq, getTableColumns, gte, inArray, isNull, lte, sql, type SQL } from "drizzle-orm";
import { primaryOf } from "~/db/client.server";
import { fastRows } from "~/db/fast-rows.server";
import { auditLog, clientReports, insurances, locations, noteMonthClientTotals, notes, paServices, patients, userLocations, users } from "~/db/schema";
import { centsOf, claimedPrice, dollarsOf, hoursOf, notePayer, priceNote, serviceLabel, serviceProvider, servicesInUse, splitModifiers, type PriceService } from "~/domain/billing";
import {
  BILLING_LIST_PAGE_SIZE,
  BILLING_MESSAGES,
  claimedChanges,
  remittedPayRefusal,
  BillingListQuery,
  CLIENT_REPORT_PAGE_SIZE,
  CLIENT_REPORT_PAGE_WINDOW,
  defaultPeriod,
  LIST_PERIOD,
  MODIFIER_CHOICES,
  MODIFIER_CHOICES_BY_NOTE_TYPE,
  noteTypesOf,
  periodInput,
  POS_CHOICES,
  REPORT_NOTE_TYPE_LABELS,
  REPORT_PERIOD,
  ReportQuery,
  SAVE_FIELDS,
  saveInputOf,
  SavePayload,
  savedFields,
  type SaveInput,
  StatusInput,
  totalsWeek,
  type ReportSort,
} from "~/domain/client-reports";
import { STAFF_OPTIONS_MAX } from "~/domain/employees";
import { modifierRefusal } from "~/domain/insurance";
import { codeList } from "~/domain/scrubber";
import type { NoteType } from "~/domain/notes";
import { lastPage, pageWindow, showingText, type Paged } from "~/domain/paging";
import { can, locationScope } from "~/domain/permissions";
import { splitWholeMonths } from "~/domain/report-operations";
import { namesNoField, parseWith } from "~/domain/validation";
import { auditClientsRead, auditedRead, auditTail, withClients, withConditionalAudit, type KnownTail } from "~/services/audit.server";
import { bumpListVersionIfChanged } from "~/services/list-cache.server";
import { priceServicesQuery, providerCredentialSql } from "./billing-prices.server";
import type { ModelContext } from "./context";
import { actorToday } from "./local-today.server";
import { NOTES } from "./notes.server";
import { claimedLine, claimedLineOf, liveClaimLabel, liveClaimOf } from "./claimed-notes.server";
import { reasonsFromReads, scrubNotes, scrubReadsFor } from "./scrubber.server";
import { isKeyRace, patientScope, searchCondition, who } from "./patients.server";
import { conflict, denied, invalid, notFound, nothingToChange, ok, replayedOk, type ModelResult } from "./results";
import { idsIn, inLocationScope } from "./scope.server";
import { nextIdQuery } from "./ids.server";

/**
 * Billing by client (clinical §2 report-by-client, §3, §4, §7 client reports; issue 11; decision 030).
 *
 * Every screen and call here needs manage_claims, and the client (or note) must be in one of the actor's
 * locations: another location's record answers 404. A row is one note (RBT, BCBA and combined rows apart,
 * sorted by date); its price, multiplier and charges come from `priceNote` with the services loaded by
 * `priceServicesQuery` in the same batch as the rows. A save writes the note's client_reports row and the
 * note's md/md2/billed/paid in ONE batch, conditional on both versions: a stale save changes nothing and
 * answers 409 with the current row.
 */

/** One row of the billing table: a note priced by the one price function. */
export interface BillingRow {
  id: number;
  note_id: number;
  type: NoteType;
  session_date: string;
  status: string;
  pos: string;
  total_minutes: number;
  total_hours: number;
  cpt_code: string;
  md: string | null;
  md2: string | null;
  total_units: number;
  unit_price_cents: number;
  unit_price: string;
  multiplier: number;
  charges_cents: number;
  charges: string;
  xp_cents: number;
  xp: string | null;
  provider_id: number | null;
  provider_name: string;
  billed: boolean;
  pay: boolean;
  created_at: string;
  note_version: number;
  signed: boolean;
  patient_id: number;
  insurer_id: number | null;
  pa_number: string | null;
  /** The note's billing record, when one was saved. */
  client_report: { id: number; version: number; charges_cents: number; updated_at: string } | null;
  /** What would make a claim for this note fail (the scrubber); empty when nothing. */
  reasons: string[];
}

export interface ClientReport {
  patient: {
    id: number;
    full_name: string;
    patient_id: string;
    location_id: number;
    /** The client's location's time zone: the screen shows each row's creation day in it. */
    time_zone: string;
    insurer_id: number | null;
    insurer_name: string | null;
    rbt_id: number | null;
    rbt2_id: number | null;
    bcba_id: number | null;
    bcba2_id: number | null;
  };
  /**
   * "Insurer rate and CPT": the client's insurer's prices that notes of the CPTs of its PA services can be priced
   * with at its location (`servicesInUse`), each with its provider (bcba, bcaba, rbt, or all), modifiers, service
   * multiplier and label ("97153 RBT HM GT"); a service priced for one location names it (decision 030, stop 35).
   */
  rates: { cpt: string; provider: string; unit_price_cents: number; unit_price: string; service_id: number; modifiers: string[]; multiplier: number; location_id: number | null; label: string }[];
  pa_services: { id: number; pa_service: string; cpt: string; n_units: number; start_date: string; end_date: string }[];
  page: Paged<BillingRow>;
  arrayPages: number[];
  showing: string;
  week: { start: string; end: string } | null;
  week_total_hours: number;
  week_total_units: number;
  doctors: { id: number; name: string }[];
  pos_covered: { code: string; label: string }[];
  filters: { date_start: string; date_end: string; noteType: string; sort: string; dir: string };
  provider: { id: number; name: string } | null;
}

/**
 * A table's columns under prefixed names: D1's batch answers rows as objects keyed by column name, so two
 * joined tables' "id" (or "version") would overwrite each other.
 */
function prefixed<T extends Record<string, { name: string }>>(columns: T, prefix: string): { [K in keyof T]: SQL.Aliased<T[K] extends { _: { data: infer D } } ? D : unknown> } {
  return Object.fromEntries(Object.entries(columns).map(([k, c]) => [k, sql`${c}`.mapWith(c as never).as(`${prefix}${c.name}`)])) as never;
}

/**
 * The name of a note's provider, the user of notes.provider_id (users joined on it): the provider a claim bills
 * (decision 032), named as on the billing rows and the claim builder's note picker; the typed signature name only
 * when the note names no user. One expression for every screen that names a note's provider for billing.
 */
export const noteProviderName = sql<string>`coalesce(nullif(trim(coalesce(${users.name}, '') || ' ' || coalesce(${users.surname}, '')), ''), ${notes.providerName})`;

const SORT_COLUMNS: Record<ReportSort, SQL | typeof notes.sessionDate> = {
  date: sql`${notes.sessionDate}`,
  type: sql`${notes.type}`,
  status: sql`${notes.status}`,
  pos: sql`${notes.pos}`,
  hours: sql`${notes.minutes}`,
  cpt: sql`${notes.cptCode}`,
  units: sql`${notes.units}`,
  provider: noteProviderName,
  billed: sql`${notes.billed}`,
  pay: sql`${notes.paid}`,
  created: sql`${notes.createdAt}`,
};

const rowColumns = {
  n: {
    id: notes.id,
    type: notes.type,
    patientId: notes.patientId,
    locationId: notes.locationId,
    sessionDate: notes.sessionDate,
    status: notes.status,
    pos: notes.pos,
    minutes: notes.minutes,
    cptCode: notes.cptCode,
    md: notes.md,
    md2: notes.md2,
    units: notes.units,
    unitPriceCents: notes.unitPriceCents,
    providerId: notes.providerId,
    billed: notes.billed,
    paid: notes.paid,
    createdAt: notes.createdAt,
    version: notes.version,
    signedAt: notes.signedAt,
  },
  providerName: noteProviderName,
  providerCredential: providerCredentialSql(notes.providerId).as("prov_credential"),
  paInsurerId: paServices.insuranceId,
  claimedLine: claimedLineOf(notes.id).as("claimed_line"),
  cr: prefixed({ id: clientReports.id, version: clientReports.version, chargesCents: clientReports.chargesCents, paNumber: clientReports.paNumber, updatedAt: clientReports.updatedAt }, "cr_"),
};
type RawRow = { n: { id: number; type: NoteType; patientId: number; locationId: number; sessionDate: string; status: string; pos: string; minutes: number; cptCode: string; md: string | null; md2: string | null; units: number; unitPriceCents: number | null; providerId: number | null; billed: boolean; paid: boolean; createdAt: string; version: number; signedAt: string | null }; providerName: string; providerCredential: string | null; paInsurerId: number | null; claimedLine: string | null; cr: { id: number | null; version: number | null; chargesCents: number | null; paNumber: string | null; updatedAt: string | null } | null };

/**
 * A stored note as a priced billing row (the one price function); a note a generated, sent or accepted claim bills
 * shows what its claim line charged it (`claimedPrice`, decision 030, stop 34).
 */
export function billingRow(r: RawRow, services: readonly PriceService[], patientInsurerId: number | null, reasons: string[] = []): BillingRow {
  const insurerId = notePayer(r.paInsurerId, patientInsurerId);
  const today = priceNote(services, { type: r.n.type, cptCode: r.n.cptCode, units: r.n.units, modifiers: [r.n.md, r.n.md2], locationId: r.n.locationId, insurerId, providerCredential: r.providerCredential, unitPriceCents: r.n.unitPriceCents });
  const price = claimedPrice(today, r.n.units, claimedLine(r.claimedLine));
  return {
    id: r.n.id,
    note_id: r.n.id,
    type: r.n.type,
    session_date: r.n.sessionDate,
    status: r.n.status,
    pos: r.n.pos,
    total_minutes: r.n.minutes,
    total_hours: hoursOf(r.n.minutes),
    cpt_code: r.n.cptCode,
    md: r.n.md,
    md2: r.n.md2,
    total_units: r.n.units,
    unit_price_cents: price.unitPriceCents,
    unit_price: dollarsOf(price.unitPriceCents),
    multiplier: price.multiplier,
    charges_cents: price.chargesCents,
    charges: dollarsOf(price.chargesCents),
    xp_cents: price.xpCents,
    xp: price.modifiers.includes("XP") ? dollarsOf(price.xpCents) : null,
    provider_id: r.n.providerId,
    provider_name: r.providerName ?? "",
    billed: !!r.n.billed,
    pay: !!r.n.paid,
    created_at: r.n.createdAt,
    note_version: r.n.version,
    signed: !!r.n.signedAt,
    patient_id: r.n.patientId,
    insurer_id: insurerId,
    pa_number: r.cr?.paNumber ?? null,
    client_report: r.cr?.id != null ? { id: r.cr.id, version: r.cr.version!, charges_cents: r.cr.chargesCents!, updated_at: r.cr.updatedAt! } : null,
    reasons,
  };
}

const manages = (ctx: ModelContext) => can(ctx.actor, "manage_claims");

/** Insurer ids that may pay a client's notes: the primary insurer and the insurers of its PA services. */
function payersOf(patientId: number | SQL, primaryInsurer: SQL | number | null): SQL {
  return sql`(select ${primaryInsurer ?? sql`null`} union select ${paServices.insuranceId} from ${paServices} where ${paServices.patientId} = ${patientId} and ${paServices.deletedAt} is null and ${paServices.insuranceId} is not null)`;
}

/* ------------------------------------------------------------------ report by client */

export interface ReportOptions {
  /** /client-report/employee-by-client: only this provider's notes. */
  providerId?: number | null;
  /** Show the pre-billing scrubber's reasons for the page's rows (its reads ride in the page's batch). */
  scrub?: boolean;
  /** false: the header and PA services without any row (a screen whose filters were refused shows no rows). */
  withList?: boolean;
  /** The audit chain's tail as the guard read it with the session (decision 019); without it, one more round trip. */
  tail?: KnownTail;
  /**
   * The API's query parameters the call does not take (unknownFilters), each with its message: refused with 422 as a
   * bad query is, after the same scope read (a client the actor may not see stays 404; decision 017, stop 45).
   */
  unknown?: Record<string, string> | null;
}

/**
 * The report-by-client screen and GET byprofile / byemployee: the client's header, PA services, one page of
 * rows, the totals — in ONE round trip after the guard's (decision 030, 2026-11-27): every read of the batch is
 * conditioned on the client being in the actor's scope (and, for one employee's notes, on the employee being
 * one the actor may know), so a client out of scope reads nothing but the empty header (404), and the read's
 * audit row is written only when the client was found. The week totals come back per session date for the
 * last seven days up to the newest note, and the week is picked from them here (app/domain/weeks.ts).
 */
export async function clientReport(ctx: ModelContext, patientId: number, rawQuery: Record<string, unknown>, opts: ReportOptions = {}): Promise<ModelResult<ClientReport>> {
  if (!manages(ctx)) return denied();
  const providerId = opts.providerId ?? null;
  // The employee when the actor may know them: staff of one of the actor's locations, or a provider of this
  // client's notes (else 404, as for an employee of another location anywhere else).
  const providerKnown = (u: string) => sql.raw(`${u}.id = `).append(sql`${providerId} and (${employeeInScope(ctx, sql.raw(`${u}.id`))} or exists (select 1 from notes en where en.patient_id = ${patientId} and en.provider_id = ${sql.raw(`${u}.id`)}))`);
  const employeeKnown = () => (providerId !== null ? sql<number>`exists (select 1 from users pk where ${providerKnown("pk")})` : undefined);
  const found = and(sql`exists (select 1 from ${patients} where ${patients.id} = ${patientId} and ${patientScope(ctx)})`, employeeKnown())!;
  const period = periodInput(rawQuery, REPORT_PERIOD);
  const parsed = parseWith(ReportQuery, period.input);
  if (!parsed.ok || period.errors || opts.unknown) {
    // Scope before the query's 422, as everywhere: a client (or employee) the actor may not see answers 404 whatever
    // the query. Checked on this refused path only, so a valid query stays one batch after the guard's (decision 030).
    const [seen] = await ctx.db
      .select({ employee: employeeKnown() ?? sql<number>`1` })
      .from(patients)
      .where(and(eq(patients.id, patientId), patientScope(ctx)));
    if (!seen) return notFound("Client");
    if (!seen.employee) return notFound("Employee");
    return invalid(opts.unknown ?? { ...(parsed.ok ? {} : parsed.errors), ...period.errors });
  }
  const q = parsed.data;
  const types = noteTypesOf(q.noteType);
  const where = and(
    eq(notes.patientId, patientId),
    isNull(notes.deletedAt),
    types.length < 3 ? inArray(notes.type, [...types]) : undefined,
    q.date_start ? gte(notes.sessionDate, q.date_start) : undefined,
    q.date_end ? lte(notes.sessionDate, q.date_end) : undefined,
    providerId !== null ? eq(notes.providerId, providerId) : undefined,
    opts.withList === false ? sql`0` : undefined,
    found,
  )!;
  const latest = sql<string | null>`(select max(${notes.sessionDate}) from ${notes} where ${where})`;
  const head = ctx.db
    .select({
      p: { id: patients.id, firstName: patients.firstName, lastName: patients.lastName, identifier: patients.patientIdentifier, locationId: patients.locationId, insurerId: patients.insurerId, rbt: patients.rbtHomeId, rbt2: patients.rbt2SchoolId, bcba: patients.bcbaHomeId, bcba2: patients.bcba2SchoolId },
      insurerName: insurances.name,
      timeZone: sql<string>`(select ${locations.timeZone} from ${locations} where ${locations.id} = ${patients.locationId})`,
      posCovered: sql<string | null>`json_extract(${patients.details}, '$.pos_covered')`,
      latest,
      providerName: providerId !== null ? sql<string | null>`(select trim(u.name || ' ' || u.surname) from users u where ${providerKnown("u")})` : sql<string | null>`null`,
    })
    .from(patients)
    .leftJoin(insurances, eq(insurances.id, patients.insurerId))
    .where(and(eq(patients.id, patientId), patientScope(ctx)));
  const per = CLIENT_REPORT_PAGE_SIZE;
  const order = q.sort ? [q.dir === "desc" ? desc(SORT_COLUMNS[q.sort]) : asc(SORT_COLUMNS[q.sort]), asc(notes.sessionDate), asc(notes.id)] : [asc(notes.sessionDate), asc(notes.type), asc(notes.id)];
  const pageRows = () =>
    ctx.db
      .select(rowColumns)
      .from(notes)
      .leftJoin(users, eq(users.id, notes.providerId))
      .leftJoin(paServices, eq(paServices.id, notes.paServiceId))
      .leftJoin(clientReports, eq(clientReports.noteId, notes.id))
      .where(where)
      .orderBy(...order)
      .limit(per)
      .offset((q.page - 1) * per);
  // The page's note ids as a subquery, for the scrubber's reads in the same batch.
  const pageIds = sql`${notes.id} in (select ${notes.id} from ${notes} left join ${users} on ${users.id} = ${notes.providerId} where ${where} order by ${sql.join(
    order.map((o) => sql`${o}`),
    sql`, `,
  )} limit ${per} offset ${(q.page - 1) * per})`;
  // The week of the To date when there is one; else the week of the newest note, picked below from its last seven days.
  const toWeek = q.date_end ? totalsWeek(q.date_end, null) : null;
  const weekDays = ctx.db
    .select({ date: notes.sessionDate, minutes: sql<number>`sum(${notes.minutes})`, units: sql<number>`sum(${notes.units})` })
    .from(notes)
    .where(and(where, toWeek ? and(gte(notes.sessionDate, toWeek.start), lte(notes.sessionDate, toWeek.end)) : sql`${notes.sessionDate} >= (select date(${latest}, '-6 days'))`))
    .groupBy(notes.sessionDate);
  const staff = [patients.rbtHomeId, patients.rbt2SchoolId, patients.bcbaHomeId, patients.bcba2SchoolId].map((c) => sql`select ${c} from ${patients} where ${patients.id} = ${patientId}`);
  const reads = () => [
    fastRows(head),
    fastRows(pageRows()),
    ctx.db.select({ n: count() }).from(notes).where(where),
    fastRows(weekDays),
    fastRows(
      ctx.db
        .select({ id: paServices.id, paService: paServices.paService, cpt: paServices.cpt, nUnits: paServices.nUnits, startDate: paServices.startDate, endDate: paServices.endDate })
        .from(paServices)
        .where(and(eq(paServices.patientId, patientId), isNull(paServices.deletedAt), found))
        .orderBy(desc(paServices.endDate), asc(paServices.id)),
    ),
    fastRows(
      ctx.db
        .select({ id: users.id, name: sql<string>`trim(${users.name} || ' ' || ${users.surname})` })
        .from(users)
        .where(and(sql`${users.id} in (${sql.join(staff, sql` union all `)})`, found)),
    ),
    fastRows(priceServicesQuery(ctx, payersOf(patientId, sql`(select ${patients.insurerId} from ${patients} where ${patients.id} = ${patientId})`))),
    // Without `scrub` the scrubber's statements select nothing (a constant false filter).
    ...scrubReadsFor(ctx, opts.scrub ? pageIds : sql`0`),
  ] as const;
  const entry = { action: "read", entity: "client_report", entityId: patientId, patientId, detail: { patients: [patientId], ...(providerId !== null ? { provider: providerId } : {}) } } as const;
  const results = await withConditionalAudit(ctx.db, who(ctx), entry, (audit) => [...reads(), audit(found)], opts.tail);
  const [[h], rows, [totals], days, pas, doctors, services, ...rest] = results as unknown as [
    Awaited<typeof head>,
    Awaited<ReturnType<typeof pageRows>>,
    { n: number }[],
    Awaited<typeof weekDays>,
    { id: number; paService: string; cpt: string; nUnits: number; startDate: string; endDate: string }[],
    { id: number; name: string }[],
    PriceService[],
    ...unknown[],
  ];
  if (!h) return notFound("Client");
  if (providerId !== null && h.providerName === null) return notFound("Employee");
  const week = toWeek ?? totalsWeek("", h.latest);
  const inWeek = week ? days.filter((d) => d.date >= week.start && d.date <= week.end) : [];
  const scrubRows = rest.slice(0, -1);
  const reasons = opts.scrub ? reasonsFromReads(scrubRows) : new Map<number, { message: string }[]>();
  const data = (rows as unknown as RawRow[]).map((r) => billingRow(r, services, h.p.insurerId, (reasons.get(r.n.id) ?? []).map((x) => x.message)));
  const total = totals?.n ?? 0;
  const page: Paged<BillingRow> = { data, total, page: q.page, per_page: per, last_page: lastPage(total, per) };
  const rates = servicesInUse(services, h.p.insurerId, h.p.locationId, pas.map((p) => p.cpt)).map((s) => ({
    cpt: s.cptCode,
    provider: serviceProvider(s),
    unit_price_cents: centsOf(s.unitPrice),
    unit_price: dollarsOf(centsOf(s.unitPrice)),
    service_id: s.id,
    modifiers: splitModifiers(s.modifiers).map((m) => m.toUpperCase()),
    multiplier: s.multiplier,
    location_id: s.locationId,
    label: serviceLabel(s),
  }));
  return ok({
    patient: {
      id: h.p.id,
      full_name: `${h.p.firstName} ${h.p.lastName}`.trim(),
      patient_id: h.p.identifier,
      location_id: h.p.locationId,
      time_zone: h.timeZone,
      insurer_id: h.p.insurerId,
      insurer_name: h.insurerName,
      rbt_id: h.p.rbt,
      rbt2_id: h.p.rbt2,
      bcba_id: h.p.bcba,
      bcba2_id: h.p.bcba2,
    },
    rates,
    pa_services: pas.map((p) => ({ id: p.id, pa_service: p.paService, cpt: p.cpt, n_units: p.nUnits, start_date: p.startDate, end_date: p.endDate })),
    page,
    arrayPages: pageWindow(page.page, page.last_page, CLIENT_REPORT_PAGE_WINDOW),
    showing: showingText(page),
    week,
    week_total_hours: hoursOf(inWeek.reduce((m, d) => m + Number(d.minutes), 0)),
    week_total_units: inWeek.reduce((u, d) => u + Number(d.units), 0),
    doctors,
    // The client's covered places of service (clinical §3 eligibility); none recorded restricts nothing: every code.
    pos_covered: coveredPos(h.posCovered),
    filters: { date_start: q.date_start, date_end: q.date_end, noteType: q.noteType, sort: q.sort, dir: q.dir },
    provider: providerId !== null ? { id: providerId, name: h.providerName ?? "" } : null,
  });
}

/* ------------------------------------------------------------------ the billing list */

export interface BillingListRow {
  patient_id: number;
  patient_name: string;
  patient_identifier: string;
  location_id: number;
  location: string;
  notes: number;
  pending: number;
  unbilled: number;
  billed: number;
  paid: number;
  total_units: number;
  total_hours: number;
  first_date: string;
  last_date: string;
}

export interface BillingList {
  page: Paged<BillingListRow>;
  period: { from: string; to: string };
  filters: { location_id: number | ""; provider_id: number | ""; status: string };
  locations: { id: number; title: string }[];
  /**
   * The provider filter's choices: the staff of the chosen location (of every location in scope when none is),
   * by name; with more than STAFF_OPTIONS_MAX of them, only the provider already chosen (`providers_more`).
   */
  providers: { id: number; name: string }[];
  providers_more: boolean;
}

/**
 * /billing/list and GET bylocation: the clients with notes in the period (the current month unless one is
 * chosen), within the actor's locations, by location, provider and status, 50 clients a page. Round trips:
 * the page (each row carrying the list's count), the location and provider options and the chain's tail in one
 * batch, then the audit row naming the page's clients; a page past the end reads the count on its own instead.
 */
export async function billingList(ctx: ModelContext, rawQuery: Record<string, unknown>, opts: { notesOnly?: boolean; withList?: boolean } = {}): Promise<ModelResult<BillingList>> {
  if (!manages(ctx)) return denied();
  const scope = locationScope(ctx.actor);
  const named = periodInput(rawQuery, LIST_PERIOD);
  const parsed = parseWith(BillingListQuery, named.input);
  if (!parsed.ok || named.errors) {
    return invalid({ ...(parsed.ok ? {} : parsed.errors), ...named.errors });
  }
  const q = parsed.data;
  // "This month" is the actor's, as on the reports (decision 039).
  const fallback = defaultPeriod(actorToday(ctx));
  const period = { from: q.date_from || (q.date_to ? q.date_to.slice(0, 8) + "01" : fallback.from), to: q.date_to || (q.date_from ? defaultPeriod(q.date_from).to : fallback.to) };
  const statusCond: Record<string, SQL> = {
    pending: sql`${notes.status} = 'pending'`,
    ok: sql`${notes.status} = 'ok'`,
    unbilled: sql`${notes.billed} = 0`,
    billed: sql`${notes.billed} = 1`,
    paid: sql`${notes.paid} = 1`,
  };
  // The list's locations: the one chosen, else every location in scope; always within scope, so a location filter
  // the actor cannot see (another location's, or none) lists nothing (decision 017, decision 030).
  const inLocations = (column: typeof notes.locationId | typeof noteMonthClientTotals.locationId | typeof userLocations.locationId) =>
    and(q.location_id !== "" ? eq(column, q.location_id) : undefined, inLocationScope(column, scope));
  const where = and(
    isNull(notes.deletedAt),
    inLocations(notes.locationId),
    gte(notes.sessionDate, period.from),
    lte(notes.sessionDate, period.to),
    q.provider_id !== "" ? eq(notes.providerId, q.provider_id) : undefined,
    q.status ? statusCond[q.status] : undefined,
  )!;
  const per = BILLING_LIST_PAGE_SIZE;
  // Whole months with neither a provider nor a status filter (the list's default: this month) are read from the
  // month sums (migration 0019): about two rows per client and month instead of every note of the period.
  const split = opts.notesOnly || q.provider_id !== "" || q.status ? null : splitWholeMonths(period.from, period.to);
  const months = split?.months && split.edges.length === 0 ? split.months : null;
  const t = noteMonthClientTotals;
  // Per client in the period: from the month sums, or grouped from the notes of the location's date index; the
  // client's name after grouping.
  const grouped = months
    ? ctx.db
        .select({
          patientId: t.patientId,
          notes: sql<number>`sum(${t.n})`.as("notes_n"),
          pending: sql<number>`sum(${t.pending})`.as("pending_n"),
          unbilled: sql<number>`sum(${t.n}) - sum(${t.billed})`.as("unbilled_n"),
          billed: sql<number>`sum(${t.billed})`.as("billed_n"),
          paid: sql<number>`sum(${t.paid})`.as("paid_n"),
          units: sql<number>`sum(${t.units})`.as("units_n"),
          minutes: sql<number>`sum(${t.minutes})`.as("minutes_n"),
          // Read for the page's clients only, below.
          first: sql<string>`null`.as("first_d"),
          last: sql<string>`null`.as("last_d"),
        })
        .from(t)
        .where(and(inLocations(t.locationId), gte(t.month, months.from), lte(t.month, months.to), sql`${t.n} <> 0`))
        .groupBy(t.patientId)
        .having(sql`sum(${t.n}) <> 0`)
        .as("g")
    : ctx.db
        .select({
          patientId: notes.patientId,
          notes: sql<number>`count(*)`.as("notes_n"),
          pending: sql<number>`sum(${notes.status} = 'pending')`.as("pending_n"),
          unbilled: sql<number>`sum(${notes.billed} = 0)`.as("unbilled_n"),
          billed: sql<number>`sum(${notes.billed})`.as("billed_n"),
          paid: sql<number>`sum(${notes.paid})`.as("paid_n"),
          units: sql<number>`sum(${notes.units})`.as("units_n"),
          minutes: sql<number>`sum(${notes.minutes})`.as("minutes_n"),
          first: sql<string>`min(${notes.sessionDate})`.as("first_d"),
          last: sql<string>`max(${notes.sessionDate})`.as("last_d"),
        })
        .from(notes)
        .where(where)
        .groupBy(notes.patientId)
        .as("g");
  const db = ctx.db;
  // The clients of the list: not deleted, and (bylocation's ?query) named or identified by the search, as the client list searches.
  // withList false: the filters' choices without any client (a screen whose filters were refused shows no rows).
  const clientWhere = and(isNull(patients.deletedAt), searchCondition(q.query), opts.withList === false ? sql`0` : undefined);
  const clients = () => db.select({ n: count() }).from(grouped).innerJoin(patients, eq(patients.id, grouped.patientId)).where(clientWhere);
  // The page, each row with the number of clients of the whole list (a window over the one grouping pass;
  // a separate count would group the period's notes a second time).
  const page = db
    .select({
      patientId: sql<number>`${grouped.patientId}`.as("p_id"),
      notes: grouped.notes,
      pending: grouped.pending,
      unbilled: grouped.unbilled,
      billed: grouped.billed,
      paid: grouped.paid,
      units: grouped.units,
      minutes: grouped.minutes,
      first: grouped.first,
      last: grouped.last,
      firstName: sql<string>`${patients.firstName}`.as("p_first"),
      lastName: sql<string>`${patients.lastName}`.as("p_last"),
      identifier: sql<string>`${patients.patientIdentifier}`.as("p_ident"),
      locationId: sql<number>`${patients.locationId}`.as("p_loc"),
      location: sql<string>`${locations.title}`.as("p_loc_title"),
      total: sql<number>`count(*) over ()`.as("total_n"),
    })
    .from(grouped)
    .innerJoin(patients, eq(patients.id, grouped.patientId))
    .innerJoin(locations, eq(locations.id, patients.locationId))
    .where(clientWhere)
    .orderBy(asc(patients.lastName), asc(patients.firstName), asc(patients.id))
    .limit(per)
    .offset((q.page - 1) * per)
    .as("pg");
  // From the month sums, each page client's first and last session date of the period: read for the page only,
  // from the client's date index.
  const dateOf = (fn: "min" | "max") => sql<string>`(select ${sql.raw(fn)}(${notes.sessionDate}) from ${notes} where ${and(eq(notes.patientId, page.patientId), where)})`;
  const staffName = sql<string>`trim(${users.name} || ' ' || ${users.surname})`;
  const [rows, [head], locs, staff, chosen] = await db.batch([
    fastRows(
      db
        .select({
          g: { patientId: page.patientId, notes: page.notes, pending: page.pending, unbilled: page.unbilled, billed: page.billed, paid: page.paid, units: page.units, minutes: page.minutes, first: months ? dateOf("min") : page.first, last: months ? dateOf("max") : page.last },
          firstName: page.firstName,
          lastName: page.lastName,
          identifier: page.identifier,
          locationId: page.locationId,
          location: page.location,
          total: page.total,
        })
        .from(page)
        .orderBy(asc(page.lastName), asc(page.firstName), asc(page.patientId)),
    ),
    db.select({ tail: auditTail }).from(locations).limit(1),
    db
      .select({ id: locations.id, title: locations.title })
      .from(locations)
      .where(and(isNull(locations.deletedAt), inLocationScope(locations.id, scope)))
      .orderBy(asc(locations.title)),
    db
      .selectDistinct({ id: users.id, name: staffName })
      .from(users)
      .innerJoin(userLocations, eq(userLocations.userId, users.id))
      .where(and(isNull(users.deletedAt), inLocations(userLocations.locationId)))
      .orderBy(asc(users.name), asc(users.surname))
      .limit(STAFF_OPTIONS_MAX + 1),
    // The provider already chosen, when in the actor's locations: the select keeps it even when the list is too long.
    db
      .select({ id: users.id, name: staffName })
      .from(users)
      .where(
        q.provider_id !== ""
          ? and(eq(users.id, q.provider_id), isNull(users.deletedAt), scope === null ? undefined : scope.length ? sql`exists (select 1 from ${userLocations} where ${userLocations.userId} = ${users.id} and ${idsIn(userLocations.locationId, scope)})` : sql`1 = 0`)
          : sql`1 = 0`,
      ),
  ]);
  const providersMore = staff.length > STAFF_OPTIONS_MAX;
  const listed = providersMore ? [] : staff;
  const providers = [...listed, ...chosen.filter((c) => !listed.some((s) => s.id === c.id))];
  // A page past the end has no row to carry the count: only then is it read on its own (one more round trip).
  const n = rows.length ? Number(rows[0]!.total) : q.page > 1 ? Number((await clients())[0]?.n ?? 0) : 0;
  const data: BillingListRow[] = rows.map((r) => ({
    patient_id: r.g.patientId,
    patient_name: `${r.firstName} ${r.lastName}`.trim(),
    patient_identifier: r.identifier,
    location_id: r.locationId,
    location: r.location,
    notes: Number(r.g.notes),
    pending: Number(r.g.pending),
    unbilled: Number(r.g.unbilled),
    billed: Number(r.g.billed),
    paid: Number(r.g.paid),
    total_units: Number(r.g.units),
    total_hours: hoursOf(Number(r.g.minutes)),
    first_date: r.g.first,
    last_date: r.g.last,
  }));
  await auditClientsRead(ctx.db, who(ctx), "client_report", data.map((r) => r.patient_id), head?.tail);
  return ok({
    page: { data, total: n, page: q.page, per_page: per, last_page: lastPage(n, per) },
    period,
    filters: { location_id: q.location_id, provider_id: q.provider_id, status: q.status },
    locations: locs,
    providers,
    providers_more: providersMore,
  });
}

/* ------------------------------------------------------------------ one billing record */

export interface ClientReportJson {
  id: number;
  note_id: number;
  note_type: NoteType;
  patient_id: number;
  location_id: number;
  insurer_id: number | null;
  session_date: string;
  pos: string;
  total_minutes: number;
  total_hours: number;
  cpt_code: string;
  md: string | null;
  md2: string | null;
  total_units: number;
  unit_price_cents: number;
  multiplier: number;
  charges_cents: number;
  charges: string;
  xp_cents: number;
  pa_number: string | null;
  npi: string | null;
  billed: boolean;
  pay: boolean;
  version: number;
  created_at: string;
  updated_at: string;
}

type ReportRow = typeof clientReports.$inferSelect;

export function clientReportJson(r: ReportRow): ClientReportJson {
  return {
    id: r.id,
    note_id: r.noteId,
    note_type: r.noteType,
    patient_id: r.patientId,
    location_id: r.locationId,
    insurer_id: r.insurerId,
    session_date: r.sessionDate,
    pos: r.pos,
    total_minutes: r.minutes,
    total_hours: hoursOf(r.minutes),
    cpt_code: r.cptCode,
    md: r.md,
    md2: r.md2,
    total_units: r.units,
    unit_price_cents: r.unitPriceCents,
    multiplier: r.multiplier,
    charges_cents: r.chargesCents,
    charges: dollarsOf(r.chargesCents),
    xp_cents: r.xpCents,
    pa_number: r.paNumber,
    npi: r.npi,
    billed: r.billed,
    pay: r.pay,
    version: r.version,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

function reportScope(ctx: ModelContext): SQL {
  const scope = locationScope(ctx.actor);
  return and(isNull(patients.deletedAt), inLocationScope(clientReports.locationId, scope))!;
}

/** GET show/{id}: one billing record in scope, its read audited. */
export async function getClientReport(ctx: ModelContext, id: number): Promise<ModelResult<ClientReportJson>> {
  if (!manages(ctx)) return denied();
  const [found] = await ctx.db
    .select({ patientId: clientReports.patientId, tail: auditTail })
    .from(clientReports)
    .innerJoin(patients, eq(patients.id, clientReports.patientId))
    .where(and(eq(clientReports.id, id), reportScope(ctx)));
  if (!found) return notFound("Billing record");
  const [[row]] = await auditedRead(ctx.db, who(ctx), { entity: "client_report", entityId: id, patientId: found.patientId, detail: { patients: [found.patientId] } }, () => [ctx.db.select().from(clientReports).where(eq(clientReports.id, id))], found.tail);
  return row ? ok(clientReportJson(row)) : notFound("Billing record");
}

/* ------------------------------------------------------------------ save (store / update) */

function changed(result: unknown): boolean {
  return Number((result as { meta?: { changes?: number } })?.meta?.changes ?? 0) > 0;
}

/** The list cache moves when the billing write before it happened (as the notes model does): decision 017. */
function bumpNotesIfWritten(ctx: ModelContext) {
  return bumpListVersionIfChanged(ctx.db, NOTES);
}

/**
 * A note in scope with what a save needs: the note, its payer, the location's NPI, its billing row, the insurers'
 * services; and, for a screen's save or status, whether the actor may see the screen's client (`clientSeen`).
 */
async function saveFacts(ctx: ModelContext, noteId: number, clientId: number | null = null) {
  const db = primaryOf(ctx.db);
  const [found, services] = await db.batch([
    db
      .select({
        n: notes,
        patientInsurerId: patients.insurerId,
        paInsurerId: paServices.insuranceId,
        locationNpi: sql<string | null>`${locations.npi}`.as("location_npi"),
        providerCredential: providerCredentialSql(notes.providerId).as("prov_credential"),
        cr: prefixed(getTableColumns(clientReports), "cr_"),
        claim: liveClaimLabel(notes.id).as("live_claim"),
        claimedLine: claimedLineOf(notes.id).as("claimed_line"),
        remitted: remittedPaymentOf(notes.id).as("remitted"),
        tail: auditTail,
        // A new billing record's id, read with the tail so that its create row names it (decision 019).
        nextReportId: nextIdQuery(clientReports).mapWith(Number).as("next_report_id"),
        clientSeen: (clientId === null ? sql<number>`1` : clientSeenSql(ctx, clientId)).as("client_seen"),
        // Who saved the billing record last (its latest create or update audit row): a resend of one's own save that
        // landed answers as it did (ownResend).
        lastSaver: sql<string | null>`(select a.actor_type || ':' || a.actor_id from ${auditLog} a
          where a.entity = 'client_report' and a.entity_id = cast(${clientReports.id} as text) and a.action in ('create', 'update') order by a.id desc limit 1)`.as("last_saver"),
      })
      .from(notes)
      .innerJoin(patients, eq(patients.id, notes.patientId))
      .innerJoin(locations, eq(locations.id, notes.locationId))
      .leftJoin(paServices, eq(paServices.id, notes.paServiceId))
      .leftJoin(clientReports, eq(clientReports.noteId, notes.id))
      .where(and(eq(notes.id, noteId), isNull(notes.deletedAt), isNull(patients.deletedAt), noteLocationScope(ctx))),
    priceServicesQuery(ctx, payersOf(sql`(select ${notes.patientId} from ${notes} where ${notes.id} = ${noteId})`, sql`(select ${patients.insurerId} from ${patients} join ${notes} on ${notes.patientId} = ${patients.id} where ${notes.id} = ${noteId})`)),
  ]);
  const f = found[0];
  if (!f) return null;
  const cr = f.cr.id == null ? null : (f.cr as unknown as ReportRow);
  return { ...f, cr, services };
}

/**
 * The latest imported remittance that paid (or partly paid) a claim line billing the note, as JSON `[trace, date]`
 * (the payment date, else the import's day), or null. A scalar subquery, riding in the save's read of the note.
 */
function remittedPaymentOf(noteId: SQL | typeof notes.id): SQL<string | null> {
  return sql<string | null>`(select json_array(r.trace_number, coalesce(r.payment_date, substr(r.created_at, 1, 10))) from remittance_lines rl join remittances r on r.id = rl.remittance_id join claim_line_notes cln on cln.claim_line_id = rl.claim_line_id where cln.note_id = ${noteId} and rl.status in ('paid', 'partial') order by rl.id desc limit 1)`;
}

function remittedPayment(json: string | null | undefined): { trace: string; date: string } | null {
  if (!json) return null;
  const [trace, date] = JSON.parse(json) as [string, string];
  return { trace, date };
}

/** Whether the actor may see a client (its location is one of theirs), as an SQL expression. */
function clientSeenSql(ctx: ModelContext, patientId: number): SQL<number> {
  return sql<number>`exists (select 1 from ${patients} where ${patients.id} = ${patientId} and ${patientScope(ctx)})`;
}

/**
 * Whether the actor may see a client: a billing screen's POST that the model refused before reading the note (its
 * body did not parse, or named no action) answers 404 for a client of another location, as the screen does.
 */
export async function clientInScope(ctx: ModelContext, patientId: number): Promise<boolean> {
  const [row] = await ctx.db.select({ id: patients.id }).from(patients).where(and(eq(patients.id, patientId), patientScope(ctx)));
  return !!row;
}

/** An employee (by id expression) who works in one of the actor's locations; always true for an actor who sees every location. */
function employeeInScope(ctx: ModelContext, userId: SQL): SQL {
  const scope = locationScope(ctx.actor);
  if (scope === null) return sql`1`;
  if (!scope.length) return sql`0`;
  return sql`exists (select 1 from user_locations ul where ul.user_id = ${userId} and ul.location_id in (select value from json_each(${JSON.stringify(scope)})))`;
}

function noteLocationScope(ctx: ModelContext): SQL | undefined {
  const scope = locationScope(ctx.actor);
  return inLocationScope(notes.locationId, scope);
}

const REPORT_COLUMNS = Object.entries(getTableColumns(clientReports)).map(([key, column]) => ({ key, name: column.name }));

/** A client's stored pos_covered (a JSON list or comma text) as choices with labels; every code when none is recorded (the scrubber's rule). */
function coveredPos(stored: string | null): { code: string; label: string }[] {
  let parsed: unknown = stored;
  try {
    parsed = stored ? JSON.parse(stored) : null;
  } catch {
    // Comma text, read as it is.
  }
  const codes = codeList(parsed);
  return codes.length ? POS_CHOICES.filter((p) => codes.includes(p.code)) : POS_CHOICES;
}

export interface SaveOptions {
  /** update/{id}: the billing record named by the path (it must be the note's). */
  reportId?: number | null;
  /** A billing screen's client (its path): one the actor may not see answers 404, as the screen (decision 030, stop 35). */
  patientId?: number;
}

/**
 * Creates or updates a note's billing record (clinical §4 billing row save) with the note's md/md2/billed/paid,
 * in one batch conditional on the versions. Messages of clinical §8. A new record takes the next id, read with
 * the facts, so its audit row names it; a racing create that took the id makes the save run again.
 */
export async function saveClientReport(ctx: ModelContext, raw: Record<string, unknown>, opts: SaveOptions = {}): Promise<ModelResult<{ report: ClientReportJson; row: CurrentRow }>> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await saveClientReportOnce(ctx, raw, opts);
    } catch (e) {
      if (attempt < 5 && isKeyRace(e)) continue;
      throw e;
    }
  }
}

async function saveClientReportOnce(ctx: ModelContext, raw: Record<string, unknown>, opts: SaveOptions): Promise<ModelResult<{ report: ClientReportJson; row: CurrentRow }>> {
  if (!manages(ctx)) return denied();
  const parsed = parseWith(SavePayload, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const checked = saveInputOf(parsed.data);
  if (!checked.ok) return invalid(checked.errors);
  const input = checked.input;
  const facts = await saveFacts(ctx, input.noteId, opts.patientId ?? null);
  if (!facts) return notFound("Note");
  if (!facts.clientSeen) return notFound("Client");
  const note = facts.n;
  const existing = facts.cr;
  if (opts.reportId != null && existing?.id !== opts.reportId) return notFound("Billing record");
  if (input.patientId !== null && input.patientId !== note.patientId) return invalid({ patient_id: BILLING_MESSAGES.patient });
  const payer = notePayer(facts.paInsurerId, facts.patientInsurerId);
  if (input.insurerId !== null && input.insurerId !== payer) return invalid({ insurer_id: BILLING_MESSAGES.insurer });
  // A save of an existing record that names none of the fields a save writes changes nothing (as every update).
  if (existing && namesNoField(raw, SAVE_FIELDS)) return nothingToChange();
  const current = (): CurrentRow => currentRow(note, existing);
  // Stale: the client saw another version of the note or of its billing record (or none when one exists now).
  // update/{id} names the record it changes: without a version it sets no precondition, as every API update
  // (probe 8896, stop 25); the screen's row and store always say which version they saw, none for a new record.
  const unconditional = opts.reportId != null && input.version === null;
  const stale = (input.noteVersion !== null && input.noteVersion !== note.version) || (existing && !unconditional && input.version !== existing.version) || (!existing && input.version !== null);
  if (stale) {
    // A resend of the actor's own save that landed (the same form, the same versions: a slow answer, a double click)
    // answers as that save did; a save on an old version by anyone else, or with other values, keeps its 409 (decision 030).
    if (ownResend(ctx, input, note, existing, facts)) return replayedOk({ report: clientReportJson(existing!), row: current() }, input.version === null ? BILLING_MESSAGES.added : BILLING_MESSAGES.updated);
    return conflict(current());
  }
  // Absent is not cleared: a field the body left out keeps the note's (modifiers, flags) or the record's (PA number, NPI).
  const saved = savedFields(input, { md: note.md, md2: note.md2, billed: note.billed, pay: note.paid, paNumber: existing?.paNumber ?? null, npi: existing?.npi ?? null });
  if (!saved.ok) return invalid(saved.errors);
  const f = saved.fields;
  // A note on a live claim keeps the modifiers and billed flag it was claimed with (pay and the record's PA number
  // and NPI may still change); checked again in the write, so a claim built meanwhile makes the save a 409.
  const claimed = claimedChanges(input.role, f, note);
  if (claimed.length && facts.claim) return invalid({ [claimed[0]!]: BILLING_MESSAGES.onClaim(facts.claim) });
  // Pay that an imported 835 recorded stays ticked (decision 030, stop 40).
  const remitted = remittedPayRefusal(input.role, f, note, remittedPayment(facts.remitted));
  if (remitted) return invalid(remitted);
  // The modifiers fit the note's type, once each (md3 is not a billing field: kept, but a code may not repeat it).
  const suffix = input.role === "bcba" ? "bcba" : "";
  const badModifier = modifierRefusal(note.type, [
    { field: `md${suffix}`, code: f.md, stored: note.md },
    { field: `md2${suffix}`, code: f.md2, stored: note.md2 },
    { field: "md3", code: note.md3, stored: note.md3 },
  ]);
  if (badModifier) return invalid({ [badModifier.field]: badModifier.message });
  const notClaimed = claimed.length ? sql`not exists (select 1 from ${liveClaimOf(note.id)})` : undefined;
  // A save that leaves the note billed is scrubbed when it turns Billed on or changes what the rules read (of the
  // fields a save writes, md/md2 and the PA number): a billed note never holds facts no scrub has passed (decision 034,
  // stop 30). Scrubbed as this save leaves the note: with the modifiers and PA number it writes (removing XP can make
  // the charge $0, adding it makes $0 the design), priced by the same priceNote as the row below.
  const newModifier = claimed.find((field) => !field.startsWith("billed"));
  // A new PA number alone is refused only when its claim line could not carry it: the note's other reasons do not
  // lock the record's PA number (stop 30; decision 034, stop 31).
  const newPaNumber = f.billed && note.billed && !newModifier && f.paNumber !== (existing?.paNumber?.trim() || null);
  if (f.billed && (!note.billed || newModifier || newPaNumber)) {
    const scrubbed = (await scrubNotes(ctx, [note.id], new Map([[note.id, { modifiers: [f.md, f.md2], paNumber: f.paNumber }]]))).get(note.id) ?? [];
    const reasons = newPaNumber ? scrubbed.filter((r) => r.code === "invalid_pa_number") : scrubbed;
    const text = reasons.map((r) => r.message).join(" ");
    if (reasons.length) {
      if (!note.billed) return invalid({ [`billed${suffix}`]: BILLING_MESSAGES.cannotBill(text) });
      return invalid(newModifier ? { [newModifier]: BILLING_MESSAGES.billedModifiers(text) } : { pa_number: BILLING_MESSAGES.billedPaNumber(text) });
    }
  }
  // A note a generated, sent or accepted claim bills keeps its claim line's price (its modifiers cannot change, above).
  const today = priceNote(facts.services, { type: note.type, cptCode: note.cptCode, units: note.units, modifiers: [f.md, f.md2], locationId: note.locationId, insurerId: payer, providerCredential: facts.providerCredential, unitPriceCents: note.unitPriceCents });
  const price = claimedPrice(today, note.units, claimedLine(facts.claimedLine));
  const now = ctx.now().toISOString();
  const values = {
    noteId: note.id,
    noteType: note.type,
    patientId: note.patientId,
    locationId: note.locationId,
    insurerId: payer,
    sessionDate: note.sessionDate,
    pos: note.pos,
    minutes: note.minutes,
    cptCode: note.cptCode,
    md: f.md,
    md2: f.md2,
    units: note.units,
    unitPriceCents: price.unitPriceCents,
    multiplier: price.multiplier,
    chargesCents: price.chargesCents,
    xpCents: price.xpCents,
    paNumber: f.paNumber,
    npi: f.npi ?? facts.locationNpi ?? null,
    billed: f.billed,
    pay: f.pay,
  };
  const noteMatches = sql`(select ${notes.version} from ${notes} where ${notes.id} = ${note.id} and ${notes.deletedAt} is null) = ${note.version}`;
  const reportWrite = existing
    ? ctx.db
        .update(clientReports)
        .set({ ...values, version: sql`${clientReports.version} + 1`, updatedAt: now })
        .where(and(eq(clientReports.id, existing.id), eq(clientReports.version, existing.version), noteMatches, notClaimed))
    : (() => {
        const all: Record<string, unknown> = { ...values, id: facts.nextReportId, createdBy: ctx.actor.kind === "user" ? ctx.actor.id : null, version: 1, createdAt: now, updatedAt: now };
        const cells = REPORT_COLUMNS.map((c) => {
          const x = all[c.key];
          return typeof x === "boolean" ? sql`${x ? 1 : 0}` : x === null || x === undefined ? sql`null` : sql`${x}`;
        });
        return ctx.db.insert(clientReports).select(sql`select ${sql.join(cells, sql`, `)} where not exists (select 1 from ${clientReports} where ${clientReports.noteId} = ${note.id}) and ${noteMatches}${notClaimed ? sql` and ${notClaimed}` : sql``}`);
      })();
  const [written, noteWritten, , , reportRows, noteRows] = await withConditionalAudit(
    ctx.db,
    who(ctx),
    { action: existing ? "update" : "create", entity: "client_report", entityId: existing?.id ?? facts.nextReportId, patientId: note.patientId, detail: { patients: [note.patientId], note: note.id, billed: f.billed, pay: f.pay } },
    (audit) => [
      reportWrite,
      ctx.db
        .update(notes)
        .set({ md: f.md, md2: f.md2, billed: f.billed, paid: f.pay, version: sql`${notes.version} + 1`, updatedAt: now })
        .where(and(eq(notes.id, note.id), eq(notes.version, note.version), sql`changes() = 1`)),
      audit(sql`changes() = 1`),
      bumpNotesIfWritten(ctx),
      ctx.db.select().from(clientReports).where(eq(clientReports.noteId, note.id)),
      ctx.db.select().from(notes).where(eq(notes.id, note.id)),
    ],
    facts.tail,
  );
  const report = (reportRows as ReportRow[])[0];
  const after = (noteRows as (typeof notes.$inferSelect)[])[0];
  if (!changed(written) || !changed(noteWritten) || !report || !after) {
    const again = await saveFacts(ctx, input.noteId);
    return again ? conflict(currentRow(again.n, again.cr)) : notFound("Note");
  }
  return ok({ report: clientReportJson(report), row: currentRow(after, report) }, existing ? BILLING_MESSAGES.updated : BILLING_MESSAGES.added);
}

/**
 * A stale save is a resend of the actor's own save that landed when the note and its billing record are each exactly
 * one version past what it read (the record at version 1 for a create), the actor saved the record last, and the
 * values it sends are the ones stored now (decision 030, stop 40).
 */
function ownResend(ctx: ModelContext, input: SaveInput, note: typeof notes.$inferSelect, existing: ReportRow | null, facts: { lastSaver: string | null; locationNpi: string | null }): boolean {
  if (!existing || existing.version !== (input.version ?? 0) + 1) return false;
  if (input.noteVersion !== null && note.version !== input.noteVersion + 1) return false;
  if (facts.lastSaver !== `${ctx.actor.kind}:${ctx.actor.id}`) return false;
  const saved = savedFields(input, { md: note.md, md2: note.md2, billed: note.billed, pay: note.paid, paNumber: existing.paNumber ?? null, npi: existing.npi ?? null });
  if (!saved.ok) return false;
  const f = saved.fields;
  return (f.md ?? null) === (note.md ?? null) && (f.md2 ?? null) === (note.md2 ?? null) && f.billed === note.billed && f.pay === note.paid && (f.paNumber ?? null) === (existing.paNumber ?? null) && (f.npi ?? facts.locationNpi ?? null) === (existing.npi ?? null);
}

/** What a 409 answers: the note's billing fields and its billing record as they are now. */
export interface CurrentRow {
  note_id: number;
  note_version: number;
  md: string | null;
  md2: string | null;
  billed: boolean;
  pay: boolean;
  status: string;
  client_report: ClientReportJson | null;
}

function currentRow(n: typeof notes.$inferSelect, cr: ReportRow | null): CurrentRow {
  // The client attached: a 409 answers this row, and the API records that read with the client (withClients).
  return withClients({ note_id: n.id, note_version: n.version, md: n.md, md2: n.md2, billed: n.billed, pay: n.paid, status: n.status, client_report: cr ? clientReportJson(cr) : null }, [n.patientId]);
}

/** POST update/{id}: the billing record's note, saved with the payload. */
export async function updateClientReport(ctx: ModelContext, id: number, raw: Record<string, unknown>) {
  if (!manages(ctx)) return denied();
  const [found] = await primaryOf(ctx.db)
    .select({ noteId: clientReports.noteId })
    .from(clientReports)
    .innerJoin(patients, eq(patients.id, clientReports.patientId))
    .where(and(eq(clientReports.id, id), reportScope(ctx)));
  if (!found) return notFound("Billing record");
  const named = ["note_id", "note_rbt_id", "note_bcba_id"].filter((k) => raw[k] != null && raw[k] !== "");
  // The path names the record; a body that names another note is refused, one that names none takes the record's
  // as note_id, which reads either role's field names (a BCBA record's md or mdbcba), so a sent field is never ignored.
  const body = named.length ? raw : { ...raw, note_id: found.noteId };
  return saveClientReport(ctx, body, { reportId: id });
}

/** DELETE destroy/{id}: a billing record not billed nor paid. */
export async function deleteClientReport(ctx: ModelContext, id: number): Promise<ModelResult<null>> {
  if (!manages(ctx)) return denied();
  const [found] = await primaryOf(ctx.db)
    .select({ r: clientReports, tail: auditTail })
    .from(clientReports)
    .innerJoin(patients, eq(patients.id, clientReports.patientId))
    .where(and(eq(clientReports.id, id), reportScope(ctx)));
  if (!found) return notFound("Billing record");
  if (found.r.billed || found.r.pay) return invalid({ billed: BILLING_MESSAGES.billedDelete });
  const [deleted] = await withConditionalAudit(
    ctx.db,
    who(ctx),
    { action: "delete", entity: "client_report", entityId: id, patientId: found.r.patientId, detail: { patients: [found.r.patientId], note: found.r.noteId } },
    (audit) => [ctx.db.delete(clientReports).where(and(eq(clientReports.id, id), eq(clientReports.billed, false), eq(clientReports.pay, false))), audit(sql`changes() = 1`), bumpNotesIfWritten(ctx)],
    found.tail,
  );
  if (!changed(deleted)) return invalid({ billed: BILLING_MESSAGES.billedDelete });
  return ok(null, BILLING_MESSAGES.deleted);
}

/* ------------------------------------------------------------------ status */

/**
 * A row's status, pending or ok (clinical §4), saved at once. Billing work: manage_claims (decision 030),
 * where the notes' own status call needs manage_notes. `note_version` optional: when sent, a stale one is a 409.
 */
export async function setBillingStatus(ctx: ModelContext, noteId: number, raw: Record<string, unknown>, opts: { patientId?: number } = {}): Promise<ModelResult<CurrentRow>> {
  if (!manages(ctx)) return denied();
  const parsed = parseWith(StatusInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const facts = await saveFacts(ctx, noteId, opts.patientId ?? null);
  if (!facts) return notFound("Note");
  // A client's screen answers 404 for a client the actor may not see, and changes that client's notes only (as its Save does).
  if (!facts.clientSeen) return notFound("Client");
  const note = facts.n;
  if (opts.patientId !== undefined && opts.patientId !== note.patientId) return invalid({ status: BILLING_MESSAGES.patient });
  const expected = parsed.data.note_version == null || parsed.data.note_version === "" ? note.version : Number(parsed.data.note_version);
  if (expected !== note.version) return conflict(currentRow(note, facts.cr));
  const [updated, , rows] = await withConditionalAudit(
    ctx.db,
    who(ctx),
    { action: "status", entity: "note", entityId: noteId, patientId: note.patientId, detail: { patients: [note.patientId], status: parsed.data.status } },
    (audit) => [
      ctx.db
        .update(notes)
        .set({ status: parsed.data.status, version: sql`${notes.version} + 1`, updatedAt: ctx.now().toISOString() })
        .where(and(eq(notes.id, noteId), eq(notes.version, expected), isNull(notes.deletedAt))),
      audit(sql`changes() = 1`),
      ctx.db.select().from(notes).where(eq(notes.id, noteId)),
      bumpNotesIfWritten(ctx),
    ],
    facts.tail,
  );
  const row = (rows as (typeof notes.$inferSelect)[])[0];
  if (!changed(updated) || !row) {
    const again = await saveFacts(ctx, noteId);
    return again ? conflict(currentRow(again.n, again.cr)) : notFound("Note");
  }
  return ok(currentRow(row, facts.cr), BILLING_MESSAGES.statusSaved);
}

/* ------------------------------------------------------------------ config */

/**
 * GET config: the choices of the billing table (no client data). `modifiers` lists every code, as it always has
 * (decision 044); `modifiers_by_note_type` the ones each note type takes, the rest being refused by the save.
 */
export function clientReportConfig() {
  return {
    modifiers: MODIFIER_CHOICES,
    modifiers_by_note_type: MODIFIER_CHOICES_BY_NOTE_TYPE,
    note_types: Object.entries(REPORT_NOTE_TYPE_LABELS).map(([value, label]) => ({ value, label })),
    statuses: ["pending", "ok"],
    pos: POS_CHOICES,
    page_size: CLIENT_REPORT_PAGE_SIZE,
    page_window: CLIENT_REPORT_PAGE_WINDOW,
  };
}
