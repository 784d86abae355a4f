CREATE TABLE `client_consents` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`patient_id` integer NOT NULL,
	`sections` text DEFAULT '[]' NOT NULL,
	`notes` text DEFAULT '' NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`signer_type` text,
	`signer_id` integer,
	`signer_name` text,
	`signature` text,
	`signed_at` text,
	`signed_ip` text,
	`created_by` integer,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `client_consents_patient_idx` ON `client_consents` (`patient_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `pdf_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`patient_id` integer NOT NULL,
	`bip_id` integer,
	`params` text DEFAULT '{}' NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`file_key` text,
	`file_size` integer,
	`error` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`requested_by` integer NOT NULL,
	`started_at` text,
	`finished_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`bip_id`) REFERENCES `bips`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`requested_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `pdf_jobs_patient_idx` ON `pdf_jobs` (`patient_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `schedule_series` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`patient_id` integer NOT NULL,
	`provider_id` integer NOT NULL,
	`location_id` integer NOT NULL,
	`cpt_code` text NOT NULL,
	`pa_service_id` integer,
	`weekday` integer NOT NULL,
	`starts_on` text NOT NULL,
	`until` text NOT NULL,
	`time_in` text NOT NULL,
	`time_out` text NOT NULL,
	`cancelled_from` text,
	`created_by` integer,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`provider_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`pa_service_id`) REFERENCES `pa_services`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `schedule_series_patient_idx` ON `schedule_series` (`patient_id`);--> statement-breakpoint
CREATE TABLE `scheduled_sessions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`series_id` integer,
	`patient_id` integer NOT NULL,
	`provider_id` integer NOT NULL,
	`location_id` integer NOT NULL,
	`cpt_code` text NOT NULL,
	`pa_service_id` integer,
	`session_date` text NOT NULL,
	`time_in` text NOT NULL,
	`time_out` text NOT NULL,
	`start_at` integer NOT NULL,
	`end_at` integer NOT NULL,
	`minutes` integer NOT NULL,
	`units` integer NOT NULL,
	`status` text DEFAULT 'scheduled' NOT NULL,
	`note_id` integer,
	`created_by` integer,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`series_id`) REFERENCES `schedule_series`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`provider_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`pa_service_id`) REFERENCES `pa_services`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`note_id`) REFERENCES `notes`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `scheduled_location_date_idx` ON `scheduled_sessions` (`location_id`,`session_date`) WHERE "scheduled_sessions"."status" != 'cancelled';--> statement-breakpoint
CREATE INDEX `scheduled_provider_start_idx` ON `scheduled_sessions` (`provider_id`,`start_at`) WHERE "scheduled_sessions"."status" = 'scheduled';--> statement-breakpoint
CREATE INDEX `scheduled_patient_start_idx` ON `scheduled_sessions` (`patient_id`,`start_at`) WHERE "scheduled_sessions"."status" = 'scheduled';--> statement-breakpoint
CREATE INDEX `scheduled_series_idx` ON `scheduled_sessions` (`series_id`,`session_date`);--> statement-breakpoint
CREATE TABLE `shared_documents` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`patient_id` integer NOT NULL,
	`title` text NOT NULL,
	`pdf_job_id` text NOT NULL,
	`shared_by` integer NOT NULL,
	`revoked_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`pdf_job_id`) REFERENCES `pdf_jobs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`shared_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `shared_documents_patient_idx` ON `shared_documents` (`patient_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `ticket_responses` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ticket_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`body` text NOT NULL,
	`by_staff` integer DEFAULT false NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ticket_responses_ticket_idx` ON `ticket_responses` (`ticket_id`,`id`);--> statement-breakpoint
ALTER TABLE `tickets` ADD `location_id` integer REFERENCES locations(id);--> statement-breakpoint
ALTER TABLE `tickets` ADD `body` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `category` text DEFAULT 'general' NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `priority` text DEFAULT 'normal' NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `assigned_to` integer REFERENCES users(id);--> statement-breakpoint
ALTER TABLE `tickets` ADD `first_response_at` text;--> statement-breakpoint
ALTER TABLE `tickets` ADD `closed_at` text;--> statement-breakpoint
ALTER TABLE `tickets` ADD `version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE INDEX `tickets_status_created_idx` ON `tickets` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `tickets_location_created_idx` ON `tickets` (`location_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `audit_at_idx` ON `audit_log` (`at`);--> statement-breakpoint
CREATE INDEX `audit_actor_at_idx` ON `audit_log` (`actor_id`,`at`);--> statement-breakpoint
CREATE INDEX `audit_patient_at_idx` ON `audit_log` (`patient_id`,`at`);