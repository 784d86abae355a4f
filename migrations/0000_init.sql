CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`actor_type` text NOT NULL,
	`actor_id` integer,
	`action` text NOT NULL,
	`entity` text NOT NULL,
	`entity_id` text,
	`patient_id` integer,
	`ip` text,
	`at` text NOT NULL,
	`prev_hash` text NOT NULL,
	`hash` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `audit_prev_hash_unique` ON `audit_log` (`prev_hash`);--> statement-breakpoint
CREATE INDEX `audit_patient_idx` ON `audit_log` (`patient_id`);--> statement-breakpoint
CREATE INDEX `audit_entity_idx` ON `audit_log` (`entity`,`entity_id`);--> statement-breakpoint
CREATE TABLE `backup_codes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`principal_type` text NOT NULL,
	`principal_id` integer NOT NULL,
	`code_hash` text NOT NULL,
	`used_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `backup_codes_principal_idx` ON `backup_codes` (`principal_type`,`principal_id`);--> statement-breakpoint
CREATE TABLE `bips` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`patient_id` integer NOT NULL,
	`location_id` integer NOT NULL,
	`doctor_id` integer,
	`type_of_assessment` integer DEFAULT 1 NOT NULL,
	`attention` integer DEFAULT false NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`doctor_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `bips_location_created_idx` ON `bips` (`location_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `bips_patient_idx` ON `bips` (`patient_id`);--> statement-breakpoint
CREATE TABLE `insurance_services` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`insurance_id` integer NOT NULL,
	`location_id` integer,
	`cpt_code` text NOT NULL,
	`modifiers` text DEFAULT '' NOT NULL,
	`provider` text DEFAULT '' NOT NULL,
	`type` text DEFAULT 'all' NOT NULL,
	`description` text,
	`unit_price` real DEFAULT 0 NOT NULL,
	`hourly_fee` real,
	`max_allowed` real,
	`max_per_day` integer,
	`multiplier` real DEFAULT 1 NOT NULL,
	`auto_on_pos` integer DEFAULT false NOT NULL,
	`auto_on_provider` integer DEFAULT false NOT NULL,
	`auto_on_same_day` integer DEFAULT false NOT NULL,
	`auto_on_overlapping` integer DEFAULT false NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`insurance_id`) REFERENCES `insurances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `insurance_services_lookup_idx` ON `insurance_services` (`insurance_id`,`cpt_code`,`type`);--> statement-breakpoint
CREATE TABLE `insurances` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`street` text,
	`street2` text,
	`city` text,
	`state` text,
	`zip` text,
	`payer_id` text,
	`notes` text,
	`uses_supervisor_as_provider` integer DEFAULT false NOT NULL,
	`uses_is_telehealth` integer DEFAULT false NOT NULL,
	`pos_allowed_to_cg` text DEFAULT '' NOT NULL,
	`pos_allowed_to_tt` text DEFAULT '' NOT NULL,
	`extra_pos_for_bcba` text DEFAULT '' NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `insurances_name_idx` ON `insurances` (`name`);--> statement-breakpoint
CREATE TABLE `list_versions` (
	`resource` text PRIMARY KEY NOT NULL,
	`version` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `locations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`title` text NOT NULL,
	`address` text,
	`phone1` text,
	`phone2` text,
	`email` text,
	`city` text,
	`state` text,
	`zip` text,
	`telfax` text,
	`avatar` text,
	`time_zone` text DEFAULT 'America/New_York' NOT NULL,
	`pos_codes` text DEFAULT '11' NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `login_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`key` text NOT NULL,
	`at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `login_failures_key_at_idx` ON `login_failures` (`key`,`at`);--> statement-breakpoint
CREATE TABLE `notes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text NOT NULL,
	`patient_id` integer NOT NULL,
	`location_id` integer NOT NULL,
	`provider_id` integer,
	`session_date` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`provider_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `notes_location_type_idx` ON `notes` (`location_id`,`type`);--> statement-breakpoint
CREATE INDEX `notes_patient_idx` ON `notes` (`patient_id`);--> statement-breakpoint
CREATE TABLE `outbox_emails` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`to` text NOT NULL,
	`subject` text NOT NULL,
	`text` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `outbox_to_idx` ON `outbox_emails` (`to`,`id`);--> statement-breakpoint
CREATE TABLE `pa_services` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`patient_id` integer NOT NULL,
	`pa_service` text NOT NULL,
	`cpt` text NOT NULL,
	`n_units` integer NOT NULL,
	`start_date` text NOT NULL,
	`end_date` text NOT NULL,
	`insurance_id` integer,
	`is_primary` integer DEFAULT false NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`insurance_id`) REFERENCES `insurances`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `pa_services_patient_idx` ON `pa_services` (`patient_id`,`end_date`);--> statement-breakpoint
CREATE TABLE `parents` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`surname` text DEFAULT '' NOT NULL,
	`email` text NOT NULL,
	`password_hash` text,
	`phone` text,
	`work_phone` text,
	`home_phone` text,
	`birth_date` text,
	`gender` text,
	`address` text,
	`city` text,
	`state` text,
	`zip_code` text,
	`location_id` integer,
	`status` text DEFAULT 'active' NOT NULL,
	`two_factor_enabled` integer DEFAULT false NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `parents_email_unique` ON `parents` (`email`);--> statement-breakpoint
CREATE INDEX `parents_location_idx` ON `parents` (`location_id`);--> statement-breakpoint
CREATE TABLE `patients` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`patient_identifier` text NOT NULL,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`gender` integer,
	`birth_date` text,
	`location_id` integer NOT NULL,
	`parent_id` integer,
	`insurer_id` integer,
	`insurer_secondary_id` integer,
	`rbt_home_id` integer,
	`rbt2_school_id` integer,
	`bcba_home_id` integer,
	`bcba_school_id` integer,
	`bcba2_school_id` integer,
	`clin_director_id` integer,
	`case_manager_id` integer,
	`details` text DEFAULT '{}' NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`parent_id`) REFERENCES `parents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `patients_identifier_unique` ON `patients` (`patient_identifier`);--> statement-breakpoint
CREATE INDEX `patients_location_created_idx` ON `patients` (`location_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `patients_location_status_name_idx` ON `patients` (`location_id`,`status`,`last_name`,`first_name`);--> statement-breakpoint
CREATE INDEX `patients_insurer_idx` ON `patients` (`insurer_id`);--> statement-breakpoint
CREATE INDEX `patients_rbt_home_idx` ON `patients` (`rbt_home_id`);--> statement-breakpoint
CREATE INDEX `patients_rbt2_school_idx` ON `patients` (`rbt2_school_id`);--> statement-breakpoint
CREATE INDEX `patients_bcba_home_idx` ON `patients` (`bcba_home_id`);--> statement-breakpoint
CREATE INDEX `patients_bcba_school_idx` ON `patients` (`bcba_school_id`);--> statement-breakpoint
CREATE INDEX `patients_bcba2_school_idx` ON `patients` (`bcba2_school_id`);--> statement-breakpoint
CREATE INDEX `patients_clin_director_idx` ON `patients` (`clin_director_id`);--> statement-breakpoint
CREATE INDEX `patients_case_manager_idx` ON `patients` (`case_manager_id`);--> statement-breakpoint
CREATE INDEX `patients_parent_idx` ON `patients` (`parent_id`);--> statement-breakpoint
CREATE TABLE `rate_records` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`location_id` integer,
	`rbt` real,
	`bcba` real,
	`manager` real,
	`client` real,
	`info` text DEFAULT '{}' NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `rate_records_location_idx` ON `rate_records` (`location_id`);--> statement-breakpoint
CREATE TABLE `revoked_tokens` (
	`jti` text PRIMARY KEY NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `roles` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`permissions` text DEFAULT '[]' NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `roles_name_unique` ON `roles` (`name`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`principal_type` text NOT NULL,
	`principal_id` integer NOT NULL,
	`created_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`locked` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sessions_principal_idx` ON `sessions` (`principal_type`,`principal_id`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `tickets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`subject` text NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	`read_by_staff` integer DEFAULT false NOT NULL,
	`unread_responses` integer DEFAULT 0 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tickets_user_idx` ON `tickets` (`user_id`);--> statement-breakpoint
CREATE TABLE `two_factor_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`principal_type` text NOT NULL,
	`principal_id` integer NOT NULL,
	`context` text NOT NULL,
	`code_hash` text,
	`expires_at` text,
	`attempts_remaining` integer DEFAULT 5 NOT NULL,
	`reset_token_hash` text,
	`reset_token_expires_at` text,
	`consumed_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `two_factor_principal_idx` ON `two_factor_challenges` (`principal_type`,`principal_id`,`context`);--> statement-breakpoint
CREATE TABLE `user_locations` (
	`user_id` integer NOT NULL,
	`location_id` integer NOT NULL,
	`position_id` integer,
	`salary` real,
	`telehealth_salary` real,
	`fixed_hours_salary` real,
	`fixed_weekly_hours` real,
	`compliance` text DEFAULT '{}' NOT NULL,
	PRIMARY KEY(`user_id`, `location_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `user_locations_location_idx` ON `user_locations` (`location_id`);--> statement-breakpoint
CREATE TABLE `user_roles` (
	`user_id` integer NOT NULL,
	`role_id` integer NOT NULL,
	PRIMARY KEY(`user_id`, `role_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`role_id`) REFERENCES `roles`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `user_roles_role_idx` ON `user_roles` (`role_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`surname` text DEFAULT '' NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`phone` text,
	`gender` text,
	`address` text,
	`city` text,
	`avatar` text,
	`location_id` integer,
	`two_factor_enabled` integer DEFAULT false NOT NULL,
	`profile` text DEFAULT '{}' NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE INDEX `users_location_idx` ON `users` (`location_id`);