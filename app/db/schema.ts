import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

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
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    ...timestamps,
  },
  (t) => [uniqueIndex("users_email_unique").on(t.email), index("users_location_idx").on(t.locationId)],
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
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    ...timestamps,
  },
  (t) => [uniqueIndex("parents_email_unique").on(t.email), index("parents_location_idx").on(t.locationId)],
);

/** Clients. Minimal here; the people/places issue completes the record. */
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
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("patients_identifier_unique").on(t.patientIdentifier),
    index("patients_location_created_idx").on(t.locationId, t.createdAt),
    index("patients_parent_idx").on(t.parentId),
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
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    ...timestamps,
  },
  (t) => [index("bips_location_created_idx").on(t.locationId, t.createdAt), index("bips_patient_idx").on(t.patientId)],
);

/** Session notes (RBT and BCBA). Minimal here; the notes issue completes them. */
export const notes = sqliteTable(
  "notes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    type: text("type", { enum: ["rbt", "bcba"] }).notNull(),
    patientId: integer("patient_id").notNull().references(() => patients.id),
    locationId: integer("location_id").notNull().references(() => locations.id),
    providerId: integer("provider_id").references(() => users.id),
    sessionDate: text("session_date").notNull(),
    status: text("status").notNull().default("pending"),
    version: integer("version").notNull().default(1),
    deletedAt: text("deleted_at"),
    ...timestamps,
  },
  (t) => [index("notes_location_type_idx").on(t.locationId, t.type), index("notes_patient_idx").on(t.patientId)],
);

/** Customer-service tickets: only what the notification badge needs until the tickets issue. */
export const tickets = sqliteTable(
  "tickets",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id").notNull().references(() => users.id),
    subject: text("subject").notNull(),
    status: text("status").notNull().default("open"),
    readByStaff: integer("read_by_staff", { mode: "boolean" }).notNull().default(false),
    unreadResponses: integer("unread_responses").notNull().default(0),
    ...timestamps,
  },
  (t) => [index("tickets_user_idx").on(t.userId)],
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
  },
  (t) => [index("sessions_principal_idx").on(t.principalType, t.principalId)],
);

/** API bearer tokens are JWTs; this table lists revoked token ids until they expire. */
export const revokedTokens = sqliteTable("revoked_tokens", {
  jti: text("jti").primaryKey(),
  expiresAt: text("expires_at").notNull(),
});

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
    /** For password resets: hash of the reset token issued after the code verified. */
    resetTokenHash: text("reset_token_hash"),
    resetTokenExpiresAt: text("reset_token_expires_at"),
    consumedAt: text("consumed_at"),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [index("two_factor_principal_idx").on(t.principalType, t.principalId, t.context)],
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
  (t) => [index("login_failures_key_at_idx").on(t.key, t.at)],
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
