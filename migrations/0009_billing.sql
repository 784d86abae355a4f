CREATE TABLE `claim_line_notes` (
	`claim_line_id` integer NOT NULL,
	`note_id` integer NOT NULL,
	PRIMARY KEY(`claim_line_id`, `note_id`),
	FOREIGN KEY (`claim_line_id`) REFERENCES `claim_lines`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`note_id`) REFERENCES `notes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `claim_line_notes_note_idx` ON `claim_line_notes` (`note_id`);--> statement-breakpoint
CREATE TABLE `claim_lines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`claim_id` integer NOT NULL,
	`line_number` integer NOT NULL,
	`service_date` text NOT NULL,
	`cpt_code` text NOT NULL,
	`modifiers` text DEFAULT '' NOT NULL,
	`units` integer NOT NULL,
	`unit_price_cents` integer NOT NULL,
	`charge_cents` integer NOT NULL,
	`pos` text NOT NULL,
	`pa_number` text,
	`paid_cents` integer DEFAULT 0 NOT NULL,
	`adjustments` text DEFAULT '[]' NOT NULL,
	`remarks` text DEFAULT '[]' NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	FOREIGN KEY (`claim_id`) REFERENCES `claims`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `claim_lines_claim_line_unique` ON `claim_lines` (`claim_id`,`line_number`);--> statement-breakpoint
CREATE TABLE `claims` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`patient_id` integer NOT NULL,
	`location_id` integer NOT NULL,
	`provider_id` integer,
	`insurer_id` integer,
	`claim_number` text NOT NULL,
	`file_id` integer,
	`set_control` text,
	`diagnosis_codes` text DEFAULT '' NOT NULL,
	`total_cents` integer DEFAULT 0 NOT NULL,
	`paid_cents` integer DEFAULT 0 NOT NULL,
	`adjusted_cents` integer DEFAULT 0 NOT NULL,
	`errors` text DEFAULT '[]' NOT NULL,
	`created_by` integer,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`provider_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`insurer_id`) REFERENCES `insurances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`file_id`) REFERENCES `x12_files`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `claims_number_unique` ON `claims` (`claim_number`);--> statement-breakpoint
CREATE INDEX `claims_location_status_created_idx` ON `claims` (`location_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `claims_status_created_idx` ON `claims` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `claims_patient_idx` ON `claims` (`patient_id`);--> statement-breakpoint
CREATE INDEX `claims_file_idx` ON `claims` (`file_id`);--> statement-breakpoint
CREATE TABLE `client_reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`note_id` integer NOT NULL,
	`note_type` text NOT NULL,
	`patient_id` integer NOT NULL,
	`location_id` integer NOT NULL,
	`insurer_id` integer,
	`session_date` text NOT NULL,
	`pos` text DEFAULT '' NOT NULL,
	`minutes` integer DEFAULT 0 NOT NULL,
	`cpt_code` text DEFAULT '' NOT NULL,
	`md` text,
	`md2` text,
	`units` integer DEFAULT 0 NOT NULL,
	`unit_price_cents` integer DEFAULT 0 NOT NULL,
	`multiplier` real DEFAULT 1 NOT NULL,
	`charges_cents` integer DEFAULT 0 NOT NULL,
	`xp_cents` integer DEFAULT 0 NOT NULL,
	`pa_number` text,
	`npi` text,
	`billed` integer DEFAULT false NOT NULL,
	`pay` integer DEFAULT false NOT NULL,
	`created_by` integer,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`note_id`) REFERENCES `notes`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`insurer_id`) REFERENCES `insurances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `client_reports_note_unique` ON `client_reports` (`note_id`);--> statement-breakpoint
CREATE INDEX `client_reports_patient_date_idx` ON `client_reports` (`patient_id`,`session_date`);--> statement-breakpoint
CREATE INDEX `client_reports_location_date_idx` ON `client_reports` (`location_id`,`session_date`);--> statement-breakpoint
CREATE TABLE `remittance_lines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`remittance_id` integer NOT NULL,
	`claim_id` integer NOT NULL,
	`claim_line_id` integer NOT NULL,
	`charge_cents` integer NOT NULL,
	`paid_cents` integer NOT NULL,
	`adjustments` text DEFAULT '[]' NOT NULL,
	`remarks` text DEFAULT '[]' NOT NULL,
	`status` text NOT NULL,
	FOREIGN KEY (`remittance_id`) REFERENCES `remittances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`claim_id`) REFERENCES `claims`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`claim_line_id`) REFERENCES `claim_lines`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `remittance_lines_remittance_idx` ON `remittance_lines` (`remittance_id`);--> statement-breakpoint
CREATE INDEX `remittance_lines_claim_idx` ON `remittance_lines` (`claim_id`);--> statement-breakpoint
CREATE TABLE `remittances` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`file_id` integer NOT NULL,
	`payer_name` text DEFAULT '' NOT NULL,
	`trace_number` text NOT NULL,
	`payment_date` text,
	`total_paid_cents` integer DEFAULT 0 NOT NULL,
	`created_by` integer,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`file_id`) REFERENCES `x12_files`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `remittances_trace_unique` ON `remittances` (`payer_name`,`trace_number`);--> statement-breakpoint
CREATE INDEX `remittances_created_idx` ON `remittances` (`created_at`);--> statement-breakpoint
CREATE TABLE `x12_files` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`file_name` text NOT NULL,
	`content` text NOT NULL,
	`sender` text,
	`sent_at` text,
	`created_by` integer,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `x12_files_kind_created_idx` ON `x12_files` (`kind`,`created_at`);--> statement-breakpoint
ALTER TABLE `locations` ADD `npi` text;--> statement-breakpoint
ALTER TABLE `locations` ADD `tax_id` text;