import { sql } from "drizzle-orm";
import { customType, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;
const timestamps = {
  createdAt: text("created_at").notNull().default(now),
  updatedAt: text("updated_at").notNull().default(now),
};

/** A clinic location. Dates and times of its sessions are in its IANA time zone. */
export const locations = sqliteTable("locations", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  title: text("title").notNull(),
  address: text("address"),
  phone1: text("phone1"),
  phone2: text("phone2"),
  email: text("email"),
  city: text("city"),
  state: text("state"),
  zip: text("zip"),
  telfax: text("telfax"),
  avatar: text("avatar"),
  timeZone: text("time_zone").notNull().default("America/New_York"),
  /** Place-of-service codes offered at this location, comma-separated (02,03,11,12,99,10). */
  posCodes: text("pos_codes").notNull().default("11"),
  /** The billing provider of claims made here (837P loop 2010AA): 10-digit NPI and 9-digit tax id (EIN). */
  npi: text("npi"),
  taxId: text("tax_id"),
  version: integer("version").notNull().default(1),
  deletedAt: text("deleted_at"),
  ...timestamps,
});

export const roles = sqliteTable("roles", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull().unique(),
  /** JSON array of permission strings (standard names only; legacy names are mapped on write). */
  permissions: text("permissions").notNull().default("[]"),
  version: integer("version").notNull().default(1),
  ...timestamps,
});

/** Staff users (employees, "doctors"). Parents sign in through the parents table. */
export const users = sqliteTable(
  "users",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    surname: text("surname").notNull().default(""),
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    status: text("status").notNull().default("active"),
    phone: text("phone"),
    gender: text("gender"),
    address: text("address"),
    city: text("city"),
    avatar: text("avatar"),
    /** Primary location. */
    locationId: integer("location_id").references(() => locations.id),
    twoFactorEnabled: integer("two_factor_enabled", { mode: "boolean" }).notNull().default(false),
    /** JSON: the remaining staff fields of platform §3 (npi, ss_number, languages, …). */
    profile: text("profile").notNull().default("{}"),
    /** Epoch ms: API tokens issued before the `gen` claim existed are refused when issued at or before it (decision 015). */
    tokensValidAfter: integer("tokens_valid_after").notNull().default(0),
    /**
     * Counts the changes that ended every way this principal is signed in (endAllAccessStatements). Read with the
     * password hash at sign-in, carried by the session row and the token, which are valid only while it is unchanged.
     */
    accessGeneration: integer("access_generation").notNull().default(0),
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    ...timestamps,
  },
  // One live account per email: a deleted employee's address is free again (migration 0033, decision 015 stop 33).
  (t) => [
    uniqueIndex("users_email_unique").on(t.email).where(sql`${t.deletedAt} is null`),
    index("users_location_idx").on(t.locationId),
    // The employees list's order (surname, name, id) and the staff selects' (surname, name): a page is read in
    // order instead of sorting every employee (decision 043, 2026-11-28 (stop 41)).
    index("users_live_name_idx").on(t.surname, t.name, t.id).where(sql`${t.deletedAt} is null`),
  ],
);

export const userRoles = sqliteTable(
  "user_roles",
  {
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    roleId: integer("role_id").notNull().references(() => roles.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.roleId] }), index("user_roles_role_idx").on(t.roleId)],
);

/** A user's membership of a location, with the per-location employment record (platform §3). */
export const userLocations = sqliteTable(
  "user_locations",
  {
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    locationId: integer("location_id").notNull().references(() => locations.id, { onDelete: "cascade" }),
    positionId: integer("position_id"),
    salary: real("salary"),
    telehealthSalary: real("telehealth_salary"),
    fixedHoursSalary: real("fixed_hours_salary"),
    fixedWeeklyHours: real("fixed_weekly_hours"),
    /** JSON map of compliance dates (driver_license_expiration, cpr_every_2_years, …). */
    compliance: text("compliance").notNull().default("{}"),
  },
  (t) => [primaryKey({ columns: [t.userId, t.locationId] }), index("user_locations_location_idx").on(t.locationId)],
);

export const parents = sqliteTable(
  "parents",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    surname: text("surname").notNull().default(""),
    email: text("email").notNull(),
    passwordHash: text("password_hash"),
    phone: text("phone"),
    workPhone: text("work_phone"),
    homePhone: text("home_phone"),
    birthDate: text("birth_date"),
    gender: text("gender"),
    address: text("address"),
    city: text("city"),
    state: text("state"),
    zipCode: text("zip_code"),
    locationId: integer("location_id").references(() => locations.id),
    status: text("status").notNull().default("active"),
    twoFactorEnabled: integer("two_factor_enabled", { mode: "boolean" }).notNull().default(false),
    /** Epoch ms: API tokens issued before the `gen` claim existed are refused when issued at or before it (decision 015). */
    tokensValidAfter: integer("tokens_valid_after").notNull().default(0),
    /**
     * Counts the changes that ended every way this principal is signed in (endAllAccessStatements). Read with the
     * password hash at sign-in, carried by the session row and the token, which are valid only while it is unchanged.
     */
    accessGeneration: integer("access_generation").notNull().default(0),
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    ...timestamps,
  },
  (t) => [
    // One live parent per email: a deleted parent's address is free again (migration 0033).
    uniqueIndex("parents_email_unique").on(t.email).where(sql`${t.deletedAt} is null`),
    index("parents_location_idx").on(t.locationId),
    // The parents list's order (name, surname, id): a page is read in order instead of sorting every parent.
    index("parents_live_name_idx").on(t.name, t.surname, t.id).where(sql`${t.deletedAt} is null`),
  ],
);

/**
 * Clients (clinical §3 Patient). Columns for what lists filter, sort and join on; the remaining field
 * groups (contact, parent details, education, flags, diagnosis, referral, eligibility, onboarding
 * documents) live in `details` as JSON validated by the one patient schema in app/domain.
 */
export const patients = sqliteTable(
  "patients",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    patientIdentifier: text("patient_identifier").notNull(),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull(),
    status: text("status").notNull().default("active"),
    gender: integer("gender"),
    birthDate: text("birth_date"),
    locationId: integer("location_id").notNull().references(() => locations.id),
    parentId: integer("parent_id").references(() => parents.id),
    insurerId: integer("insurer_id"),
    insurerSecondaryId: integer("insurer_secondary_id"),
    rbtHomeId: integer("rbt_home_id"),
    rbt2SchoolId: integer("rbt2_school_id"),
    bcbaHomeId: integer("bcba_home_id"),
    bcbaSchoolId: integer("bcba_school_id"),
    bcba2SchoolId: integer("bcba2_school_id"),
    clinDirectorId: integer("clin_director_id"),
    caseManagerId: integer("case_manager_id"),
    details: text("details").notNull().default("{}"),
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    /** The add form's one-time token (decision 024's `form_token`): a resend of the same form adds no second client. */
    formToken: text("form_token"),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("patients_identifier_unique").on(t.patientIdentifier),
    uniqueIndex("patients_form_token_unique").on(t.formToken).where(sql`${t.formToken} is not null`),
    index("patients_location_created_idx").on(t.locationId, t.createdAt),
    // The dashboard's counts and newest clients across all locations (covering: no table reads).
    index("patients_created_idx").on(t.createdAt, t.deletedAt),
    index("patients_location_status_name_idx").on(t.locationId, t.status, t.lastName, t.firstName),
    // The clients list of one location in its order (last_name, first_name, id), live clients only: a page is read
    // in order instead of sorting the location's clients (decision 043, 2026-11-28 (stop 41)). Every location's list
    // walks patients_live_name_idx (migration 0002, not declared here).
    index("patients_location_name_idx").on(t.locationId, t.lastName, t.firstName, t.id).where(sql`${t.deletedAt} is null`),
    index("patients_insurer_idx").on(t.insurerId),
    index("patients_rbt_home_idx").on(t.rbtHomeId),
    index("patients_rbt2_school_idx").on(t.rbt2SchoolId),
    index("patients_bcba_home_idx").on(t.bcbaHomeId),
    index("patients_bcba_school_idx").on(t.bcbaSchoolId),
    index("patients_bcba2_school_idx").on(t.bcba2SchoolId),
    index("patients_clin_director_idx").on(t.clinDirectorId),
    index("patients_case_manager_idx").on(t.caseManagerId),
    index("patients_parent_idx").on(t.parentId),
    // The deleted clients (few): the notes lists' capped totals leave out their notes without reading each
    // note's client (decision 035).
    index("patients_deleted_idx").on(t.id, t.deletedAt).where(sql`${t.deletedAt} is not null`),
  ],
);

/** Behavior intervention plans. Minimal here; the BIP issue completes the document. */
export const bips = sqliteTable(
  "bips",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    patientId: integer("patient_id").notNull().references(() => patients.id),
    locationId: integer("location_id").notNull().references(() => locations.id),
    doctorId: integer("doctor_id").references(() => users.id),
    typeOfAssessment: integer("type_of_assessment").notNull().default(1),
    /** Needs attention (the BIP attention list). */
    attention: integer("attention", { mode: "boolean" }).notNull().default(false),
    /**
     * The plan document (clinical §3): narrative text fields and list sections (evaluation settings,
     * documents reviewed, schedules, interventions, medications, strategies, de-escalation, consent
     * signatures, crisis plan, recommendations, setting events, fading phases) as one JSON object.
     * Shape and defaults: app/domain/bip-document.ts.
     */
    document: text("document").notNull().default("{}"),
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    ...timestamps,
  },
  (t) => [
    index("bips_location_created_idx").on(t.locationId, t.createdAt),
    index("bips_created_idx").on(t.createdAt),
    index("bips_patient_idx").on(t.patientId),
    // The BIPs that need attention, newest first (/bip/attention and its count): the few flagged plans, not a walk of
    // every plan (decision 043, 2026-11-28 (stop 41)).
    index("bips_attention_idx").on(t.attention, t.id).where(sql`${t.deletedAt} is null`),
  ],
);

/**
 * Goals of a BIP (clinical §3 plan): maladaptive, replacement and the training categories.
 * patient_id is copied from the BIP so scope checks and the chart join need no extra hop.
 */
export const plans = sqliteTable(
  "plans",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    bipId: integer("bip_id").notNull().references(() => bips.id),
    patientId: integer("patient_id").notNull().references(() => patients.id),
    name: text("name").notNull(),
    description: text("description"),
    category: text("category").notNull(),
    status: text("status").notNull().default("active"),
    currentProgress: text("current_progress"),
    baselineLevel: real("baseline_level"),
    baselineDate: text("baseline_date"),
    baselineTimeframe: text("baseline_timeframe"),
    initialIntensity: text("initial_intensity"),
    currentIntensity: text("current_intensity"),
    intensityKey: text("intensity_key"),
    timeframe: text("timeframe"),
    unitType: text("unit_type"),
    /** 1-based order within the BIP and category (lists are re-indexed in order, clinical §4). */
    position: integer("position").notNull().default(1),
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    ...timestamps,
  },
  (t) => [index("plans_bip_category_idx").on(t.bipId, t.category, t.position), index("plans_patient_idx").on(t.patientId)],
);

/** Short- and long-term objectives of a plan (clinical §3 objective). The LTO always sorts last. */
export const objectives = sqliteTable(
  "objectives",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    planId: integer("plan_id").notNull().references(() => plans.id),
    type: text("type").notNull().default("STO"),
    status: text("status").notNull().default("not started"),
    name: text("name"),
    description: text("description"),
    target: real("target"),
    startPoint: real("start_point"),
    initialDate: text("initial_date"),
    endDate: text("end_date"),
    weeksToComplete: integer("weeks_to_complete"),
    comparisonOperator: text("comparison_operator"),
    /** 1-based index/order within the plan. */
    position: integer("position").notNull().default(1),
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    ...timestamps,
  },
  (t) => [index("objectives_plan_idx").on(t.planId, t.position)],
);

/** One value per plan and week; week_end is the Saturday, week_start six days earlier (clinical §3, §9). */
export const weeklyReports = sqliteTable(
  "weekly_reports",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    planId: integer("plan_id").notNull().references(() => plans.id),
    weekStart: text("week_start").notNull(),
    weekEnd: text("week_end").notNull(),
    value: real("value").notNull(),
    totalUnits: real("total_units"),
    version: integer("version").notNull().default(1),
    ...timestamps,
  },
  (t) => [uniqueIndex("weekly_reports_plan_week_unique").on(t.planId, t.weekEnd)],
);

/** Chart comments (clinical §3): a date and at most 50 characters, drawn as markers on the chart. */
export const chartComments = sqliteTable(
  "chart_comments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    planId: integer("plan_id").notNull().references(() => plans.id),
    commentDate: text("comment_date").notNull(),
    comment: text("comment").notNull(),
    version: integer("version").notNull().default(1),
    ...timestamps,
  },
  (t) => [index("chart_comments_plan_date_idx").on(t.planId, t.commentDate)],
);

/**
 * Intake assessment (clinical §3; platform medical/initial-assessment). Header fields are columns;
 * the sub-records (household, medical necessity, histories, programs, …) are one JSON document whose
 * shape lives in app/domain/intake.ts.
 */
export const intakeAssessments = sqliteTable(
  "intake_assessments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    patientId: integer("patient_id").notNull().references(() => patients.id),
    bipId: integer("bip_id").references(() => bips.id),
    personResponding: text("person_responding"),
    observationDate: text("observation_date"),
    currentInsurance: text("current_insurance"),
    additionalInsurance: text("additional_insurance"),
    impairsOtherServicesWithoutRbt: integer("impairs_other_services_without_rbt", { mode: "boolean" }).notNull().default(false),
    document: text("document").notNull().default("{}"),
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    ...timestamps,
  },
  (t) => [index("intake_assessments_patient_idx").on(t.patientId)],
);

/**
 * Session notes (clinical §3; issue 10): RBT, BCBA and combined. The columns hold what the rules, lists
 * and billing query; the type- and CPT-specific clinical fields live in `content` (JSON, `NoteContent`).
 *
 * Times: `time_in`…`time_out2` are the location's local "HH:MM"; `start1_at`…`end2_at` are the same
 * instants as local minutes since 1970-01-01 (day number × 1440 + minute), so the overlap, buffer and
 * cap checks compare integers across midnight. `start_at`/`end_at` span both pairs (index range scans).
 */
export const notes = sqliteTable(
  "notes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    type: text("type", { enum: ["rbt", "bcba", "combined"] }).notNull(),
    patientId: integer("patient_id").notNull().references(() => patients.id),
    locationId: integer("location_id").notNull().references(() => locations.id),
    providerId: integer("provider_id").references(() => users.id),
    supervisorId: integer("supervisor_id").references(() => users.id),
    bipId: integer("bip_id").references(() => bips.id),
    paServiceId: integer("pa_service_id").references(() => paServices.id),
    cptCode: text("cpt_code").notNull().default(""),
    subtype: text("subtype"),
    diagnosisCode: text("diagnosis_code").notNull().default(""),
    pos: text("pos").notNull().default(""),
    isTelehealth: integer("is_telehealth", { mode: "boolean" }).notNull().default(false),
    sessionDate: text("session_date").notNull(),
    timeIn: text("time_in"),
    timeOut: text("time_out"),
    timeIn2: text("time_in2"),
    timeOut2: text("time_out2"),
    start1At: integer("start1_at"),
    end1At: integer("end1_at"),
    start2At: integer("start2_at"),
    end2At: integer("end2_at"),
    startAt: integer("start_at"),
    endAt: integer("end_at"),
    /**
     * The location's UTC offset at the session's first start, in minutes (local = UTC + offset: −300 for New York
     * in winter), for both pairs; the provider rules compare start − offset across locations (decision 024,
     * 2026-11-26). NULL (notes written before migration 0020) compares on local time, as before.
     */
    utcOffset: integer("utc_offset"),
    /** Minutes of both pairs; units = unitsForMinutes(minutes). */
    minutes: integer("minutes").notNull().default(0),
    units: integer("units").notNull().default(0),
    md: text("md"),
    md2: text("md2"),
    md3: text("md3"),
    /** Combined notes: the unit price in cents (clinical §3 unit_price). */
    unitPriceCents: integer("unit_price_cents"),
    status: text("status").notNull().default("pending"),
    billed: integer("billed", { mode: "boolean" }).notNull().default(false),
    paid: integer("paid", { mode: "boolean" }).notNull().default(false),
    providerName: text("provider_name").notNull().default(""),
    /** A drawn signature as a PNG data URL, or null when only the typed name was given. */
    providerSignature: text("provider_signature"),
    providerSignedOn: text("provider_signed_on"),
    supervisorName: text("supervisor_name").notNull().default(""),
    supervisorSignature: text("supervisor_signature"),
    supervisorSignedOn: text("supervisor_signed_on"),
    /** Set when the note is signed: from then on it changes only by amendment (note_versions). */
    signedAt: text("signed_at"),
    summaryNote: text("summary_note").notNull().default(""),
    content: text("content").notNull().default("{}"),
    /** The one-time token of the form (or Idempotency-Key) that created the note: a resend creates nothing. */
    formToken: text("form_token"),
    createdBy: integer("created_by").references(() => users.id),
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    ...timestamps,
  },
  (t) => [
    // Live notes only, for the capped totals of filtered lists (decision 035): type, date range and status
    // within a location (or every location), answered from the index alone — status and patient_id are here
    // so that the status filter and the "client not deleted" check need no table row (deleted_at, always
    // null here, makes it covering).
    // The id after the date (migration 0021): a list of one type, newest first (session_date, id), is read in
    // the index's order; without it SQLite sorted a whole day's notes by id for each page (decision 043).
    index("notes_location_type_idx").on(t.locationId, t.type, t.sessionDate, t.id, t.status, t.patientId, t.deletedAt).where(sql`${t.deletedAt} is null`),
    index("notes_type_date_idx").on(t.type, t.sessionDate, t.id, t.status, t.patientId, t.deletedAt).where(sql`${t.deletedAt} is null`),
    index("notes_date_idx").on(t.sessionDate).where(sql`${t.deletedAt} is null`),
    index("notes_patient_idx").on(t.patientId),
    uniqueIndex("notes_form_token_unique").on(t.formToken),
    index("notes_provider_start_idx").on(t.providerId, t.startAt).where(sql`${t.deletedAt} is null`),
    index("notes_patient_start_idx").on(t.patientId, t.startAt).where(sql`${t.deletedAt} is null`),
    index("notes_patient_date_idx").on(t.patientId, t.sessionDate).where(sql`${t.deletedAt} is null`),
    index("notes_pa_service_idx").on(t.paServiceId).where(sql`${t.deletedAt} is null`),
    // The PA calculator's week and pacing's last 28 days of one PA service (decision 031).
    index("notes_pa_service_date_idx").on(t.paServiceId, t.sessionDate).where(sql`${t.deletedAt} is null`),
    index("notes_location_date_idx").on(t.locationId, t.sessionDate).where(sql`${t.deletedAt} is null`),
    // The calendar (decision 037): a location's notes of a date in time order, read from the index alone up to
    // the day's cap, and each date's count; provider and client filter in the index, deleted_at makes it covering.
    index("notes_calendar_idx").on(t.locationId, t.sessionDate, t.startAt, t.id, t.patientId, t.providerId, t.deletedAt).where(sql`${t.deletedAt} is null`),
    // The operations reports' sums (decision 039): hours, payroll, supervision, caseload and units by CPT of a
    // period in a location, answered from the index alone (every column they group or sum is here; deleted_at,
    // always null here, makes it covering for the `deleted_at is null` condition, as in decision 035). Status,
    // billed and paid make it covering for the billing list's grouping too (decision 042, 2026-11-26 (stop 19)).
    index("notes_report_idx")
      .on(t.locationId, t.sessionDate, t.providerId, t.patientId, t.type, t.cptCode, t.minutes, t.units, t.paServiceId, t.md, t.md2, t.unitPriceCents, t.status, t.billed, t.paid, t.deletedAt)
      .where(sql`${t.deletedAt} is null`),
    // The caseload report's page of providers (decision 039, 2026-11-26): each page provider's notes of the period,
    // from the index alone (migration 0016).
    index("notes_provider_report_idx")
      .on(t.providerId, t.sessionDate, t.locationId, t.patientId, t.minutes, t.deletedAt)
      .where(sql`${t.deletedAt} is null`),
  ],
);

/**
 * How many notes each location holds of each type, counting exactly the notes the lists show: live notes
 * (deleted_at null) of live clients (decision 035). Kept by triggers of migration 0010 on notes (insert,
 * delete, and updates of deleted_at, location_id, type or patient_id) and on patients (deleted_at), so
 * every write path — the note models, the seed, the bench data, a client's deletion — moves the count in
 * the same statement as the write, and a refused write moves nothing. Read by the dashboard and by the
 * totals of the notes lists without other filters than the location scope and the type.
 */
export const noteCounts = sqliteTable(
  "note_counts",
  {
    locationId: integer("location_id").notNull(),
    type: text("type", { enum: ["rbt", "bcba", "combined"] }).notNull(),
    n: integer("n").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.locationId, t.type] })],
);

/**
 * The operations reports' month sums (decision 039, rollup): per location, month ("YYYY-MM" of the session
 * date), provider (0 when the note has none), type and CPT code, the number, minutes and units of the live
 * notes (deleted_at null) of live clients — exactly what `noteReportWhere` sums. Kept by triggers of migration
 * 0015 on notes and patients, as note_counts (decision 035). Rows at n = 0 may stay; readers skip them.
 * `all_n`, `all_minutes`, `all_units` (migration 0030): the same of every live note, whatever became of its client
 * (a client's deletion does not move them): the work of staff, which payroll and hours by provider or CPT count
 * (decision 039, 2026-11-27 "deleted clients").
 */
export const noteMonthTotals = sqliteTable(
  "note_month_totals",
  {
    locationId: integer("location_id").notNull(),
    month: text("month").notNull(),
    providerId: integer("provider_id").notNull(),
    type: text("type", { enum: ["rbt", "bcba", "combined"] }).notNull(),
    cptCode: text("cpt_code").notNull(),
    n: integer("n").notNull().default(0),
    minutes: integer("minutes").notNull().default(0),
    units: integer("units").notNull().default(0),
    allN: integer("all_n").notNull().default(0),
    allMinutes: integer("all_minutes").notNull().default(0),
    allUnits: integer("all_units").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.locationId, t.month, t.providerId, t.type, t.cptCode] })],
);

/**
 * The same notes' number, minutes and units per location, month, client and type (decision 039, rollup): the
 * hours report by client and the BCBA report. Migration 0015 keeps it; rows at n = 0 may stay.
 */
export const noteMonthClientTotals = sqliteTable(
  "note_month_client_totals",
  {
    locationId: integer("location_id").notNull(),
    month: text("month").notNull(),
    patientId: integer("patient_id").notNull(),
    type: text("type", { enum: ["rbt", "bcba", "combined"] }).notNull(),
    n: integer("n").notNull().default(0),
    minutes: integer("minutes").notNull().default(0),
    units: integer("units").notNull().default(0),
    /** Of those notes: status pending, billed, paid (migration 0019: the billing list's month sums). */
    pending: integer("pending").notNull().default(0),
    billed: integer("billed").notNull().default(0),
    paid: integer("paid").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.locationId, t.month, t.patientId, t.type] })],
);

/**
 * The same notes' number, minutes and units per location, session date and every input of the one price
 * function (decision 039, 2026-11-26 "location-cpt"): CPT code, type, the two billing modifiers ('' when none), a
 * combined note's own unit price (0 when none) and the payer, coalesce(PA service's insurer, client's insurer)
 * (0 when none). Migration 0016 keeps it, with triggers on notes, patients (deletion, restore, insurer) and
 * pa_services (insurer); rows at n = 0 may stay.
 */
export const noteDayCptTotals = sqliteTable(
  "note_day_cpt_totals",
  {
    locationId: integer("location_id").notNull(),
    sessionDate: text("session_date").notNull(),
    cptCode: text("cpt_code").notNull(),
    type: text("type", { enum: ["rbt", "bcba", "combined"] }).notNull(),
    md: text("md").notNull(),
    md2: text("md2").notNull(),
    unitPriceCents: integer("unit_price_cents").notNull(),
    payerId: integer("payer_id").notNull(),
    n: integer("n").notNull().default(0),
    minutes: integer("minutes").notNull().default(0),
    units: integer("units").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.locationId, t.sessionDate, t.cptCode, t.type, t.md, t.md2, t.unitPriceCents, t.payerId] })],
);

/**
 * The same notes' number and minutes per location and session date (the hours report's chart); migration 0015 keeps
 * it. `all_n`, `all_minutes` (migration 0030): of every live note, whatever became of its client, as in note_month_totals.
 */
export const noteDayTotals = sqliteTable(
  "note_day_totals",
  {
    locationId: integer("location_id").notNull(),
    sessionDate: text("session_date").notNull(),
    n: integer("n").notNull().default(0),
    minutes: integer("minutes").notNull().default(0),
    allN: integer("all_n").notNull().default(0),
    allMinutes: integer("all_minutes").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.locationId, t.sessionDate] })],
);

/** Earlier versions of a note: an amendment of a signed note keeps the version it replaces here. */
export const noteVersions = sqliteTable(
  "note_versions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    noteId: integer("note_id").notNull().references(() => notes.id),
    version: integer("version").notNull(),
    /** The whole note as it was (the API's JSON shape). */
    snapshot: text("snapshot").notNull(),
    reason: text("reason").notNull().default(""),
    amendedBy: integer("amended_by").references(() => users.id),
    ...timestamps,
  },
  (t) => [uniqueIndex("note_versions_note_version_unique").on(t.noteId, t.version)],
);

/**
 * A note's typed values kept on the server when its POST arrived after the session had ended: bound to
 * the user, encrypted at rest (AES-GCM), deleted once restored or after 24 hours.
 */
export const noteDrafts = sqliteTable(
  "note_drafts",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id").notNull().references(() => users.id),
    /** Where the form lives, e.g. "/note-rbt" or "/note-rbt/edit/12". */
    path: text("path").notNull(),
    ciphertext: text("ciphertext").notNull(),
    expiresAt: text("expires_at").notNull(),
    ...timestamps,
  },
  (t) => [index("note_drafts_user_idx").on(t.userId, t.expiresAt)],
);

/**
 * Customer-service tickets (platform §2 tickets): a support request from a staff member to the office.
 * status: open (nobody answered yet), answered (the office replied), closed. `read_by_staff` is false
 * while the ticket or the requester's last response is unread by the office; `unread_responses` counts the
 * office's responses the requester has not read (both feed the badges and the notification summary).
 */
export const tickets = sqliteTable(
  "tickets",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id").notNull().references(() => users.id),
    /** The requester's location when the ticket was opened (scope of the office's list and reports). */
    locationId: integer("location_id").references(() => locations.id),
    subject: text("subject").notNull(),
    body: text("body").notNull().default(""),
    /** general | technical | billing | clinical | account (app/domain/tickets.ts). */
    category: text("category").notNull().default("general"),
    /** low | normal | high | urgent. */
    priority: text("priority").notNull().default("normal"),
    status: text("status").notNull().default("open"),
    readByStaff: integer("read_by_staff", { mode: "boolean" }).notNull().default(false),
    unreadResponses: integer("unread_responses").notNull().default(0),
    /** The office member the ticket is assigned to, if any. */
    assignedTo: integer("assigned_to").references(() => users.id),
    firstResponseAt: text("first_response_at"),
    closedAt: text("closed_at"),
    version: integer("version").notNull().default(1),
    /** The new-ticket form's one-time token (decision 024's `form_token`): a resend of the same form opens no second ticket. */
    formToken: text("form_token"),
    /** The day it was opened at its location (`ticketDay` of created_at, stored: SQLite has no IANA zones): the lists' Opened and their date filter (decision 036). */
    openedOn: text("opened_on"),
    ...timestamps,
  },
  // The badges count the tickets nobody on staff has read on every screen (with the session): a partial index keeps that small.
  (t) => [
    index("tickets_user_idx").on(t.userId),
    index("tickets_unread_by_staff_idx").on(t.status).where(sql`${t.readByStaff} = 0`),
    index("tickets_status_created_idx").on(t.status, t.createdAt),
    index("tickets_location_created_idx").on(t.locationId, t.createdAt),
    // The office list's "Assigned to" filter (me: one user's; unassigned: null), newest first.
    index("tickets_assigned_created_idx").on(t.assignedTo, t.createdAt),
    uniqueIndex("tickets_form_token_unique").on(t.formToken),
    // The lists' date filter (Opened from/to): the office's locations, and an all-locations office's whole list.
    index("tickets_location_opened_idx").on(t.locationId, t.openedOn),
    index("tickets_opened_idx").on(t.openedOn),
  ],
);

/** A response on a ticket, by the office or by the requester. */
export const ticketResponses = sqliteTable(
  "ticket_responses",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ticketId: integer("ticket_id").notNull().references(() => tickets.id),
    userId: integer("user_id").notNull().references(() => users.id),
    body: text("body").notNull(),
    /** True when written by someone answering for the office (manage_tickets), false for the requester. */
    byStaff: integer("by_staff", { mode: "boolean" }).notNull().default(false),
    /** The response form's one-time token (decision 024's `form_token`): a resend of the same form posts (and emails) once. */
    formToken: text("form_token"),
    ...timestamps,
  },
  (t) => [index("ticket_responses_ticket_idx").on(t.ticketId, t.id), uniqueIndex("ticket_responses_form_token_unique").on(t.formToken).where(sql`${t.formToken} is not null`)],
);

/**
 * A weekly series of scheduled sessions (issue 12, beyond the original): every `weekday` from `starts_on`
 * to `until` (local dates of the location). Its occurrences are rows of scheduled_sessions; cancelling
 * "the rest of the series" cancels the occurrences from a date on and sets `cancelled_from`.
 */
export const scheduleSeries = sqliteTable(
  "schedule_series",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    patientId: integer("patient_id").notNull().references(() => patients.id),
    providerId: integer("provider_id").notNull().references(() => users.id),
    locationId: integer("location_id").notNull().references(() => locations.id),
    cptCode: text("cpt_code").notNull(),
    paServiceId: integer("pa_service_id").references(() => paServices.id),
    /** 0 = Sunday … 6 = Saturday (app/domain/weeks.ts). */
    weekday: integer("weekday").notNull(),
    startsOn: text("starts_on").notNull(),
    until: text("until").notNull(),
    timeIn: text("time_in").notNull(),
    timeOut: text("time_out").notNull(),
    cancelledFrom: text("cancelled_from"),
    createdBy: integer("created_by").references(() => users.id),
    ...timestamps,
  },
  (t) => [index("schedule_series_patient_idx").on(t.patientId)],
);

/**
 * A scheduled session (one-off, or one occurrence of a series). Times are the location's local wall time;
 * `start_at`/`end_at` are local minutes since 1970-01-01 exactly as on notes, so booking runs the notes'
 * overlap, buffer and cap rules on the same integers. status: scheduled | cancelled | written (a note was
 * written from it: note_id).
 */
export const scheduledSessions = sqliteTable(
  "scheduled_sessions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    seriesId: integer("series_id").references(() => scheduleSeries.id),
    patientId: integer("patient_id").notNull().references(() => patients.id),
    providerId: integer("provider_id").notNull().references(() => users.id),
    locationId: integer("location_id").notNull().references(() => locations.id),
    cptCode: text("cpt_code").notNull(),
    paServiceId: integer("pa_service_id").references(() => paServices.id),
    sessionDate: text("session_date").notNull(),
    timeIn: text("time_in").notNull(),
    timeOut: text("time_out").notNull(),
    startAt: integer("start_at").notNull(),
    endAt: integer("end_at").notNull(),
    /** As notes.utc_offset: the location's UTC offset at the start (NULL: booked before migration 0020, local). */
    utcOffset: integer("utc_offset"),
    minutes: integer("minutes").notNull(),
    units: integer("units").notNull(),
    status: text("status").notNull().default("scheduled"),
    noteId: integer("note_id").references(() => notes.id),
    createdBy: integer("created_by").references(() => users.id),
    version: integer("version").notNull().default(1),
    ...timestamps,
    /**
     * Last (migration 0038): the booking form's one-time token, or an API booking's Idempotency-Key token (decision
     * 024), on the first session of the booking it made: a resend answers that booking (decision 037, stop 40).
     */
    formToken: text("form_token"),
  },
  (t) => [
    uniqueIndex("scheduled_sessions_form_token_unique").on(t.formToken).where(sql`${t.formToken} is not null`),
    index("scheduled_location_date_idx").on(t.locationId, t.sessionDate).where(sql`${t.status} != 'cancelled'`),
    // The calendar (decision 037): as notes_calendar_idx, for the sessions still scheduled.
    index("scheduled_calendar_idx").on(t.locationId, t.sessionDate, t.startAt, t.id, t.patientId, t.providerId, t.status).where(sql`${t.status} = 'scheduled'`),
    index("scheduled_provider_start_idx").on(t.providerId, t.startAt).where(sql`${t.status} = 'scheduled'`),
    index("scheduled_patient_start_idx").on(t.patientId, t.startAt).where(sql`${t.status} = 'scheduled'`),
    index("scheduled_series_idx").on(t.seriesId, t.sessionDate),
    // The session a note was written for, by its note: a deleted note gives it back (decision 037, stop 25).
    index("scheduled_note_idx").on(t.noteId).where(sql`${t.noteId} is not null`),
  ],
);

/**
 * A client consent (clinical §2 client-consent-form, §3 consent sections, §7 consents): the sections it
 * covers (JSON array of section ids of app/domain/consents.ts) and who signed it. status: draft (staff may
 * edit) | signed (read-only: signer, typed name, drawn signature, when) | withdrawn (a draft staff took back).
 */
export const clientConsents = sqliteTable(
  "client_consents",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    patientId: integer("patient_id").notNull().references(() => patients.id),
    sections: text("sections").notNull().default("[]"),
    notes: text("notes").notNull().default(""),
    status: text("status").notNull().default("draft"),
    /** parent | user */
    signerType: text("signer_type"),
    signerId: integer("signer_id"),
    signerName: text("signer_name"),
    /** A drawn signature as a PNG data URL, or null when only the typed name was given. */
    signature: text("signature"),
    signedAt: text("signed_at"),
    signedIp: text("signed_ip"),
    createdBy: integer("created_by").references(() => users.id),
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    /** A draft withdrawn by staff (status withdrawn): kept on record, no longer offered to the parent. */
    withdrawnAt: text("withdrawn_at"),
    withdrawnBy: integer("withdrawn_by").references(() => users.id),
    /**
     * The one-time token of the create that made the draft: the form's `form_token`, or the API's Idempotency-Key
     * (`key:<scope>:<body>`, app/services/idempotency.server.ts). A resend answers this draft (decisions 024, 040).
     */
    formToken: text("form_token"),
    /**
     * What the signed document shows that can change later, as it stood when the parent signed (decision 040, stop 45),
     * written by the signing statement itself: the client's location (id and title) and the client's name. A signed
     * consent's PDF prints these; a draft's prints the client as now. Null on drafts and withdrawn drafts.
     */
    signedLocationId: integer("signed_location_id").references(() => locations.id),
    signedLocationTitle: text("signed_location_title"),
    signedClientName: text("signed_client_name"),
    ...timestamps,
  },
  (t) => [
    index("client_consents_patient_idx").on(t.patientId, t.createdAt),
    uniqueIndex("client_consents_form_token_unique").on(t.formToken).where(sql`${t.formToken} is not null`),
  ],
);

/**
 * A PDF made by the queue consumer (plan export, weekly report, chart comments): what was asked
 * (params JSON: sections, months…), its state queued | running | done | failed | expired (the file was
 * deleted after 30 days, unless shared with parents), and the R2 key of the file.
 * The consumer claims a job with a conditional update (queued → running), so a duplicate delivery of the
 * same message makes nothing twice.
 */
export const pdfJobs = sqliteTable(
  "pdf_jobs",
  {
    id: text("id").primaryKey(),
    /** plan | weekly_report | chart_comments */
    kind: text("kind").notNull(),
    patientId: integer("patient_id").notNull().references(() => patients.id),
    bipId: integer("bip_id").references(() => bips.id),
    params: text("params").notNull().default("{}"),
    status: text("status").notNull().default("queued"),
    fileKey: text("file_key"),
    fileSize: integer("file_size"),
    error: text("error"),
    attempts: integer("attempts").notNull().default(0),
    requestedBy: integer("requested_by").notNull().references(() => users.id),
    startedAt: text("started_at"),
    finishedAt: text("finished_at"),
    /** When the file was deleted from R2 (status expired; docs/decisions/041). */
    expiredAt: text("expired_at"),
    /**
     * Who the file is for: 'staff' (what was asked), or 'family' — the copy of a shared plan PDF made under the portal's
     * rules, the only file a parent is served (decision 041, stop 38).
     */
    audience: text("audience").notNull().default("staff"),
    /**
     * The one-time token of the request that made the job: the chooser form's `form_token`, or the API's
     * Idempotency-Key (`key:<scope>:<body>`, app/services/idempotency.server.ts). A resend answers this job (decision 041).
     */
    formToken: text("form_token"),
    ...timestamps,
    /**
     * A family copy: whether it was rendered with the chart comments (portal_show_narrative as read at render time: 1
     * shown, 0 not); null for a staff job, and for a family copy not rendered yet or made before stop 42 (taken as
     * "shown"). The portal serves a copy only when it shows no more than the setting now allows (decision 041, stop 42).
     */
    narrative: integer("narrative"),
  },
  (t) => [
    index("pdf_jobs_patient_idx").on(t.patientId, t.createdAt),
    uniqueIndex("pdf_jobs_form_token_unique").on(t.formToken).where(sql`${t.formToken} is not null`),
    // The expiry cron walks jobs that still hold a file, oldest first: done ones past 30 days, expired ones whose delete is pending.
    index("pdf_jobs_file_age_idx").on(t.status, t.finishedAt).where(sql`${t.fileKey} is not null`),
  ],
);

/** A document staff shared with a client's parents (a finished PDF job): listed on the parent portal. */
export const sharedDocuments = sqliteTable(
  "shared_documents",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    patientId: integer("patient_id").notNull().references(() => patients.id),
    title: text("title").notNull(),
    pdfJobId: text("pdf_job_id").notNull().references(() => pdfJobs.id),
    /**
     * The family copy the parents are served (a pdf_jobs row with audience 'family', made when the plan PDF was
     * shared). Null on shares made before stop 38: they are never served (decision 041).
     */
    familyJobId: text("family_job_id").references(() => pdfJobs.id),
    sharedBy: integer("shared_by").notNull().references(() => users.id),
    revokedAt: text("revoked_at"),
    ...timestamps,
  },
  (t) => [
    index("shared_documents_patient_idx").on(t.patientId, t.createdAt),
    // "Is this job shared?" (the status page, sharing once, the expiry cron's keep-if-shared): live shares by job.
    index("shared_documents_job_idx").on(t.pdfJobId).where(sql`${t.revokedAt} is null`),
    // The expiry cron's keep-if-shared for a family copy: live shares by family copy.
    index("shared_documents_family_job_idx").on(t.familyJobId).where(sql`${t.revokedAt} is null`),
  ],
);

/** Key/value settings (two-factor expiry, session timeouts, demo flag). */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

/** Server-side screen sessions. The cookie holds the id; only its SHA-256 is stored. */
export const sessions = sqliteTable(
  "sessions",
  {
    idHash: text("id_hash").primaryKey(),
    principalType: text("principal_type", { enum: ["user", "parent"] }).notNull(),
    principalId: integer("principal_id").notNull(),
    createdAt: text("created_at").notNull(),
    lastSeenAt: text("last_seen_at").notNull(),
    /** Set when the idle timeout passed: the lock screen must be answered. */
    locked: integer("locked", { mode: "boolean" }).notNull().default(false),
    /** The principal's access_generation when the password (or own change) that made this session was checked. */
    accessGeneration: integer("access_generation").notNull().default(0),
  },
  // The hourly clean-up deletes by sign-in time (pruneEndedSessions).
  (t) => [index("sessions_principal_idx").on(t.principalType, t.principalId), index("sessions_created_idx").on(t.createdAt)],
);

/** API bearer tokens are JWTs; this table lists revoked token ids until they expire. */
export const revokedTokens = sqliteTable(
  "revoked_tokens",
  {
    jti: text("jti").primaryKey(),
    expiresAt: text("expires_at").notNull(),
  },
  // The hourly clean-up deletes by expiry (pruneRevokedTokens).
  (t) => [index("revoked_tokens_expires_idx").on(t.expiresAt)],
);

/** One row per successful API token refresh, by token family, kept five minutes (docs/decisions/016). */
export const tokenRefreshes = sqliteTable(
  "token_refreshes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    family: text("family").notNull(),
    at: text("at").notNull(),
  },
  // `at` alone: the hourly clean-up deletes by it (decision 001, stop 29).
  (t) => [index("token_refreshes_family_at_idx").on(t.family, t.at), index("token_refreshes_at_idx").on(t.at)],
);

/** A pending sign-in or password-reset code sent by email. */
export const twoFactorChallenges = sqliteTable(
  "two_factor_challenges",
  {
    id: text("id").primaryKey(),
    principalType: text("principal_type", { enum: ["user", "parent"] }).notNull(),
    principalId: integer("principal_id").notNull(),
    context: text("context", { enum: ["login", "password_reset"] }).notNull(),
    codeHash: text("code_hash"),
    expiresAt: text("expires_at"),
    attemptsRemaining: integer("attempts_remaining").notNull().default(5),
    /** Code emails sent for this challenge (the first one included); bounds resends (docs/decisions/016). */
    sends: integer("sends").notNull().default(1),
    /** For password resets: hash of the reset token issued after the code verified. */
    resetTokenHash: text("reset_token_hash"),
    resetTokenExpiresAt: text("reset_token_expires_at"),
    consumedAt: text("consumed_at"),
    createdAt: text("created_at").notNull().default(now),
    /** Sign-ins: the principal's access_generation read with the password hash; the session or token made on it carries it. */
    accessGeneration: integer("access_generation").notNull().default(0),
  },
  // The hourly clean-up deletes by creation time (pruneOldChallenges).
  (t) => [index("two_factor_principal_idx").on(t.principalType, t.principalId, t.context), index("two_factor_created_idx").on(t.createdAt)],
);

export const backupCodes = sqliteTable(
  "backup_codes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    principalType: text("principal_type", { enum: ["user", "parent"] }).notNull(),
    principalId: integer("principal_id").notNull(),
    codeHash: text("code_hash").notNull(),
    usedAt: text("used_at"),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [index("backup_codes_principal_idx").on(t.principalType, t.principalId)],
);

/** Failed sign-in attempts, for throttling by account and by address. */
export const loginFailures = sqliteTable(
  "login_failures",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** "account:<email>" or "ip:<address>". */
    key: text("key").notNull(),
    at: text("at").notNull(),
  },
  // `at` alone: the hourly clean-up deletes by it (decision 001, stop 29).
  (t) => [index("login_failures_key_at_idx").on(t.key, t.at), index("login_failures_at_idx").on(t.at)],
);

/** Emails kept locally when no provider is configured (development outbox). */
export const outboxEmails = sqliteTable(
  "outbox_emails",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [index("outbox_to_idx").on(t.to, t.id)],
);

/** Insurers (clinical §3 insurance/location). */
export const insurances = sqliteTable(
  "insurances",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    street: text("street"),
    street2: text("street2"),
    city: text("city"),
    state: text("state"),
    zip: text("zip"),
    payerId: text("payer_id"),
    notes: text("notes"),
    usesSupervisorAsProvider: integer("uses_supervisor_as_provider", { mode: "boolean" }).notNull().default(false),
    usesIsTelehealth: integer("uses_is_telehealth", { mode: "boolean" }).notNull().default(false),
    /** Comma-separated POS codes. */
    posAllowedToCg: text("pos_allowed_to_cg").notNull().default(""),
    posAllowedToTt: text("pos_allowed_to_tt").notNull().default(""),
    extraPosForBcba: text("extra_pos_for_bcba").notNull().default(""),
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    ...timestamps,
  },
  (t) => [index("insurances_name_idx").on(t.name)],
);

/** An insurer's CPT services with their prices (clinical §3 insurance service). */
export const insuranceServices = sqliteTable(
  "insurance_services",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    insuranceId: integer("insurance_id").notNull().references(() => insurances.id),
    locationId: integer("location_id").references(() => locations.id),
    cptCode: text("cpt_code").notNull(),
    /** Dash-separated, at most two (e.g. "HM-GT"). */
    modifiers: text("modifiers").notNull().default(""),
    /** The provider the price is for: bcba, bcaba, rbt, … */
    provider: text("provider").notNull().default(""),
    /** bcba for providers bcba or bcaba, rbt for rbt, otherwise all. */
    type: text("type", { enum: ["bcba", "rbt", "all"] }).notNull().default("all"),
    description: text("description"),
    unitPrice: real("unit_price").notNull().default(0),
    hourlyFee: real("hourly_fee"),
    maxAllowed: real("max_allowed"),
    maxPerDay: integer("max_per_day"),
    multiplier: real("multiplier").notNull().default(1),
    autoOnPos: integer("auto_on_pos", { mode: "boolean" }).notNull().default(false),
    autoOnProvider: integer("auto_on_provider", { mode: "boolean" }).notNull().default(false),
    autoOnSameDay: integer("auto_on_same_day", { mode: "boolean" }).notNull().default(false),
    autoOnOverlapping: integer("auto_on_overlapping", { mode: "boolean" }).notNull().default(false),
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    ...timestamps,
  },
  (t) => [index("insurance_services_lookup_idx").on(t.insuranceId, t.cptCode, t.type)],
);

/** Rate/pay records (platform §3). */
export const rateRecords = sqliteTable(
  "rate_records",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    locationId: integer("location_id").references(() => locations.id),
    rbt: real("rbt"),
    bcba: real("bcba"),
    manager: real("manager"),
    client: real("client"),
    /** JSON: { rbt: string[], bcba: string[], manager: string[] }. */
    info: text("info").notNull().default("{}"),
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    ...timestamps,
  },
  (t) => [index("rate_records_location_idx").on(t.locationId)],
);

/**
 * A rate/pay record's amounts over time (decision 039, 2026-11-28 stop 40; migration 0040): integer cents from
 * `effective_from` (yyyy-mm-dd, at the record's location) until the next row's date. Payroll pays a session at
 * the row in effect on its session date; the record's own amounts are the latest row's. The primary key is the
 * index payroll reads by (record, date).
 */
export const rateRecordAmounts = sqliteTable(
  "rate_record_amounts",
  {
    rateRecordId: integer("rate_record_id")
      .notNull()
      .references(() => rateRecords.id),
    effectiveFrom: text("effective_from").notNull(),
    rbtCents: integer("rbt_cents"),
    bcbaCents: integer("bcba_cents"),
    managerCents: integer("manager_cents"),
    clientCents: integer("client_cents"),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.rateRecordId, t.effectiveFrom] })],
);

/** Prior-authorization services of a client (clinical §3). Spent units come from notes (a later issue). */
export const paServices = sqliteTable(
  "pa_services",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    patientId: integer("patient_id").notNull().references(() => patients.id),
    paService: text("pa_service").notNull(),
    cpt: text("cpt").notNull(),
    nUnits: integer("n_units").notNull(),
    startDate: text("start_date").notNull(),
    endDate: text("end_date").notNull(),
    insuranceId: integer("insurance_id").references(() => insurances.id),
    isPrimary: integer("is_primary", { mode: "boolean" }).notNull().default(false),
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    /**
     * The one-time token of the create that made it: the form's `form_token`, or the API's Idempotency-Key
     * (`key:<scope>:<body>`, app/services/idempotency.server.ts). A resend answers this service (decisions 024, 031).
     */
    formToken: text("form_token"),
    ...timestamps,
  },
  (t) => [
    index("pa_services_patient_idx").on(t.patientId, t.endDate),
    uniqueIndex("pa_services_form_token_unique").on(t.formToken).where(sql`${t.formToken} is not null`),
    // The pas, client-projection and client-eligibility reports page authorizations by end date (decision 038).
    index("pa_services_end_idx").on(t.endDate, t.id).where(sql`${t.deletedAt} is null`),
  ],
);

/**
 * Append-only audit trail: one row per read of a client record and per change to clients, parents,
 * employees and PA services. Each row's hash covers its fields and the previous row's hash, so an
 * edited or removed row breaks the chain (app/services/audit.server.ts verifies it).
 */
/**
 * The audit rows of password-reset requests (decision 016, stop 45), which a client address's hourly count reads: its
 * requests and its one refusal of the hour. `resetRequestRows` is the WHERE of their partial index; a query repeats it
 * word for word (SQLite uses a partial index only for a query whose WHERE holds the index's own terms).
 */
export const RESET_REQUEST_ACTIONS = { requested: "password_reset_requested", throttled: "password_reset_request_throttled" } as const;
export const resetRequestRows = (action: unknown) => sql`${action} in (${sql.raw(`'${RESET_REQUEST_ACTIONS.requested}', '${RESET_REQUEST_ACTIONS.throttled}'`)})`;

export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    actorType: text("actor_type").notNull(),
    actorId: integer("actor_id"),
    action: text("action").notNull(),
    entity: text("entity").notNull(),
    entityId: text("entity_id"),
    patientId: integer("patient_id"),
    ip: text("ip"),
    at: text("at").notNull(),
    /** JSON: the clients a list returned ({"patients":[…]}), the email a sign-in tried; part of the hash. */
    detail: text("detail"),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  // A unique previous hash keeps the chain linear: two writers racing for the same tail cannot both land.
  (t) => [
    uniqueIndex("audit_prev_hash_unique").on(t.prevHash),
    index("audit_patient_idx").on(t.patientId),
    index("audit_entity_idx").on(t.entity, t.entityId),
    // The logs and access reports (issue 12): by period, by actor and period, by client and period.
    index("audit_at_idx").on(t.at),
    index("audit_actor_at_idx").on(t.actorId, t.at),
    index("audit_patient_at_idx").on(t.patientId, t.at),
    // A client address's password-reset requests of the last hour (decision 016, stop 45): only those rows are in it,
    // so every other audited request pays nothing for it.
    index("audit_reset_requests_idx").on(t.ip, t.action, t.at).where(resetRequestRows(t.action)),
  ],
);

/** A version counter per resource: any write bumps it, which invalidates cached lists (`cache=true`). */
export const listVersions = sqliteTable("list_versions", {
  resource: text("resource").primaryKey(),
  version: integer("version").notNull().default(0),
});

/** Raw bytes as a BLOB. D1 takes a Uint8Array and answers an array of numbers (or an ArrayBuffer); no Buffer needed. */
const bytes = customType<{ data: Uint8Array<ArrayBuffer>; driverData: Uint8Array | ArrayBuffer | number[] }>({
  dataType: () => "blob",
  toDriver: (value) => value,
  fromDriver: (value) => new Uint8Array(value as ArrayBuffer),
});

/**
 * Avatar images of users and locations (platform §3 User.avatar, Location.avatar). The owner's `avatar`
 * column holds `/avatars/{id}`; a new image gets a new id, so the URL can be cached.
 */
export const avatars = sqliteTable(
  "avatars",
  {
    id: text("id").primaryKey(),
    ownerType: text("owner_type", { enum: ["user", "location"] }).notNull(),
    ownerId: integer("owner_id").notNull(),
    contentType: text("content_type").notNull(),
    bytes: bytes("bytes").notNull(),
    size: integer("size").notNull(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [index("avatars_owner_idx").on(t.ownerType, t.ownerId)],
);

/**
 * Billing rows (clinical §2 report-by-client, §3 billing report save payload, §4 billing row save): one per
 * note, created by the first Save and updated by the next. The note keeps its modifiers, status and billed/pay
 * flags (the billing table edits them in the same batch); this row keeps what was billed: the price, the
 * multiplier and the charges as they were when saved, in integer cents.
 */
export const clientReports = sqliteTable(
  "client_reports",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    noteId: integer("note_id").notNull().references(() => notes.id),
    noteType: text("note_type", { enum: ["rbt", "bcba", "combined"] }).notNull(),
    patientId: integer("patient_id").notNull().references(() => patients.id),
    locationId: integer("location_id").notNull().references(() => locations.id),
    insurerId: integer("insurer_id").references(() => insurances.id),
    sessionDate: text("session_date").notNull(),
    pos: text("pos").notNull().default(""),
    /** Minutes of the note's sessions (total hours = minutes / 60). */
    minutes: integer("minutes").notNull().default(0),
    cptCode: text("cpt_code").notNull().default(""),
    md: text("md"),
    md2: text("md2"),
    units: integer("units").notNull().default(0),
    unitPriceCents: integer("unit_price_cents").notNull().default(0),
    /** The product of the modifiers' and the service's multipliers (XP → 0). */
    multiplier: real("multiplier").notNull().default(1),
    chargesCents: integer("charges_cents").notNull().default(0),
    /** With an XP modifier: what the units would have been charged without it (not reimbursed). */
    xpCents: integer("xp_cents").notNull().default(0),
    paNumber: text("pa_number"),
    npi: text("npi"),
    billed: integer("billed", { mode: "boolean" }).notNull().default(false),
    pay: integer("pay", { mode: "boolean" }).notNull().default(false),
    createdBy: integer("created_by").references(() => users.id),
    version: integer("version").notNull().default(1),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("client_reports_note_unique").on(t.noteId),
    index("client_reports_patient_date_idx").on(t.patientId, t.sessionDate),
    index("client_reports_location_date_idx").on(t.locationId, t.sessionDate),
  ],
);

/**
 * One X12 file: an 837P interchange of claims, or an 835 remittance as received. Its id is the interchange and
 * group control number (ISA13 = id padded to 9 digits, GS06 = id): unique and increasing by construction.
 */
export const x12Files = sqliteTable(
  "x12_files",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    kind: text("kind", { enum: ["837P", "835"] }).notNull(),
    fileName: text("file_name").notNull(),
    content: text("content").notNull(),
    /** 837P: sent through which sender ("local" records the file), and when. */
    sender: text("sender"),
    sentAt: text("sent_at"),
    createdBy: integer("created_by").references(() => users.id),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [index("x12_files_kind_created_idx").on(t.kind, t.createdAt)],
);

/**
 * A claim (platform §2 claims): one per client + location + rendering provider + payer. Draft until its 837P is
 * generated (file_id set), then sent, accepted or rejected. Money in integer cents.
 */
export const claims = sqliteTable(
  "claims",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    status: text("status", { enum: ["draft", "generated", "sent", "accepted", "rejected"] }).notNull().default("draft"),
    patientId: integer("patient_id").notNull().references(() => patients.id),
    locationId: integer("location_id").notNull().references(() => locations.id),
    providerId: integer("provider_id").references(() => users.id),
    insurerId: integer("insurer_id").references(() => insurances.id),
    /** CLM01, the patient control number the payer echoes back in the 835 (CLP01). */
    claimNumber: text("claim_number").notNull(),
    fileId: integer("file_id").references(() => x12Files.id),
    /** The transaction set control number (ST02) of this claim's set within its file. */
    setControl: text("set_control"),
    /** ICD-10 codes without the dot, comma-separated, principal first. */
    diagnosisCodes: text("diagnosis_codes").notNull().default(""),
    totalCents: integer("total_cents").notNull().default(0),
    paidCents: integer("paid_cents").notNull().default(0),
    adjustedCents: integer("adjusted_cents").notNull().default(0),
    /** JSON: the validation errors of the last build ([{ field, message }]). */
    errors: text("errors").notNull().default("[]"),
    createdBy: integer("created_by").references(() => users.id),
    version: integer("version").notNull().default(1),
    ...timestamps,
    // Last: added by migration 0023 (ALTER TABLE puts it after the others; the INSERT … SELECT of a build lists values in this order).
    /**
     * JSON: the claim's data (ClaimData: parties, diagnoses, lines) exactly as its 837P was written, kept when it is
     * generated so the viewer shows what was sent, not today's records. Null for a draft, and for claims generated
     * before stop 25 (the viewer then says it shows the current records).
     */
    sentData: text("sent_data"),
    /**
     * Last (migration 0038): the build form's one-time token, or an API build's Idempotency-Key token (decision 024):
     * the build's first claim holds it, its others `<token>#<n>`; a resend answers the claims it built (decision 032).
     */
    formToken: text("form_token"),
  },
  (t) => [
    uniqueIndex("claims_number_unique").on(t.claimNumber),
    uniqueIndex("claims_form_token_unique").on(t.formToken).where(sql`${t.formToken} is not null`),
    index("claims_location_status_created_idx").on(t.locationId, t.status, t.createdAt),
    index("claims_status_created_idx").on(t.status, t.createdAt),
    index("claims_patient_idx").on(t.patientId),
    // The claims list filtered by payer, or by date alone (decision 032).
    index("claims_insurer_created_idx").on(t.insurerId, t.createdAt),
    index("claims_created_idx").on(t.createdAt),
    index("claims_file_idx").on(t.fileId),
  ],
);

/** A claim's service lines: one per CPT and date of service (and modifiers), with the notes it bills. */
export const claimLines = sqliteTable(
  "claim_lines",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    claimId: integer("claim_id").notNull().references(() => claims.id),
    /** LX01: 1, 2, … within the claim. */
    lineNumber: integer("line_number").notNull(),
    serviceDate: text("service_date").notNull(),
    cptCode: text("cpt_code").notNull(),
    /** Dash-separated, at most four (SV101-3..6). */
    modifiers: text("modifiers").notNull().default(""),
    units: integer("units").notNull(),
    unitPriceCents: integer("unit_price_cents").notNull(),
    chargeCents: integer("charge_cents").notNull(),
    pos: text("pos").notNull(),
    paNumber: text("pa_number"),
    paidCents: integer("paid_cents").notNull().default(0),
    /** JSON from the remittance: [{ group, reason, amount_cents }] (CARC) and remark codes (RARC). */
    adjustments: text("adjustments").notNull().default("[]"),
    remarks: text("remarks").notNull().default("[]"),
    status: text("status", { enum: ["open", "paid", "partial", "patient", "denied"] }).notNull().default("open"),
    /** The multiplier of the line's price (priceNote's: the modifiers' times the service's; XP → 0), so units × unit price × multiplier is the charge. Null on lines built before stop 28. */
    multiplier: real("multiplier"),
    /** The line's own diagnoses, comma-separated (each note's code, else the client's principal), each among its claim's `diagnosis_codes`: SV107 points to them first. Null on lines built before stop 31 (they pointed to the claim's 1 to 4). */
    diagnosisCodes: text("diagnosis_codes"),
    /** The multiplier its notes' XP amount is taken at: the service's own, without the modifiers' part (XP's 0), so units × unit price × it is what an XP note would have been charged without XP (decision 030, stop 40). Null on lines built before stop 40. */
    xpMultiplier: real("xp_multiplier"),
  },
  (t) => [
    uniqueIndex("claim_lines_claim_line_unique").on(t.claimId, t.lineNumber),
    // The lines of a period of service dates: the location-and-CPT report's claimed notes (migration 0043, decision 039).
    index("claim_lines_service_date_idx").on(t.serviceDate),
  ],
);

/** Which notes a claim line bills. A note is on at most one claim that is not rejected (checked on build). */
export const claimLineNotes = sqliteTable(
  "claim_line_notes",
  {
    claimLineId: integer("claim_line_id").notNull().references(() => claimLines.id),
    noteId: integer("note_id").notNull().references(() => notes.id),
  },
  (t) => [primaryKey({ columns: [t.claimLineId, t.noteId] }), index("claim_line_notes_note_idx").on(t.noteId)],
);

/** An imported 835 remittance (its file in x12_files) and what it did. */
export const remittances = sqliteTable(
  "remittances",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    fileId: integer("file_id").notNull().references(() => x12Files.id),
    payerName: text("payer_name").notNull().default(""),
    /** TRN02: the check or EFT trace number; one import per payer and trace. */
    traceNumber: text("trace_number").notNull(),
    paymentDate: text("payment_date"),
    totalPaidCents: integer("total_paid_cents").notNull().default(0),
    createdBy: integer("created_by").references(() => users.id),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("remittances_trace_unique").on(t.payerName, t.traceNumber), index("remittances_created_idx").on(t.createdAt)],
);

/** A remittance's service lines (835 SVC) as matched to claim lines. */
export const remittanceLines = sqliteTable(
  "remittance_lines",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    remittanceId: integer("remittance_id").notNull().references(() => remittances.id),
    claimId: integer("claim_id").notNull().references(() => claims.id),
    claimLineId: integer("claim_line_id").notNull().references(() => claimLines.id),
    chargeCents: integer("charge_cents").notNull(),
    paidCents: integer("paid_cents").notNull(),
    /** JSON: [{ group, reason, amount_cents }] (CAS: CARC codes by group CO/PR/OA/PI). */
    adjustments: text("adjustments").notNull().default("[]"),
    /** JSON: RARC codes (LQ). */
    remarks: text("remarks").notNull().default("[]"),
    status: text("status", { enum: ["paid", "partial", "patient", "denied"] }).notNull(),
  },
  (t) => [index("remittance_lines_remittance_idx").on(t.remittanceId), index("remittance_lines_claim_idx").on(t.claimId)],
);

/**
 * A remittance's claim-level adjustments (835 CAS right after CLP), one row per adjustment: they are the claim's, not
 * any line's (005010X221A1: Σ SVC03 − Σ claim CAS = CLP04), so the claim's paid and adjusted totals count them.
 */
export const remittanceClaimAdjustments = sqliteTable(
  "remittance_claim_adjustments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    remittanceId: integer("remittance_id").notNull().references(() => remittances.id),
    claimId: integer("claim_id").notNull().references(() => claims.id),
    /** CAS01: CO, PR, OA, PI or CR. */
    adjustmentGroup: text("adjustment_group").notNull(),
    /** The CARC. */
    reason: text("reason").notNull(),
    /** Positive: taken off what was charged; negative: given back. */
    amountCents: integer("amount_cents").notNull(),
  },
  (t) => [index("remittance_claim_adjustments_remittance_idx").on(t.remittanceId), index("remittance_claim_adjustments_claim_idx").on(t.claimId)],
);
