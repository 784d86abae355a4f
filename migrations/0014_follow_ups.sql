CREATE TABLE `note_day_totals` (
	`location_id` integer NOT NULL,
	`session_date` text NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	`minutes` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`location_id`, `session_date`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `note_month_client_totals` (
	`location_id` integer NOT NULL,
	`month` text NOT NULL,
	`patient_id` integer NOT NULL,
	`type` text NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	`minutes` integer DEFAULT 0 NOT NULL,
	`units` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`location_id`, `month`, `patient_id`, `type`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `note_month_totals` (
	`location_id` integer NOT NULL,
	`month` text NOT NULL,
	`provider_id` integer NOT NULL,
	`type` text NOT NULL,
	`cpt_code` text NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	`minutes` integer DEFAULT 0 NOT NULL,
	`units` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`location_id`, `month`, `provider_id`, `type`, `cpt_code`)
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `client_consents` ADD `withdrawn_at` text;--> statement-breakpoint
ALTER TABLE `client_consents` ADD `withdrawn_by` integer REFERENCES users(id);--> statement-breakpoint
ALTER TABLE `pdf_jobs` ADD `expired_at` text;--> statement-breakpoint
CREATE INDEX `pdf_jobs_file_age_idx` ON `pdf_jobs` (`status`,`finished_at`) WHERE "pdf_jobs"."file_key" is not null;--> statement-breakpoint
CREATE INDEX `notes_calendar_idx` ON `notes` (`location_id`,`session_date`,`start_at`,`id`,`patient_id`,`provider_id`,`deleted_at`) WHERE "notes"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `scheduled_calendar_idx` ON `scheduled_sessions` (`location_id`,`session_date`,`start_at`,`id`,`patient_id`,`provider_id`,`status`) WHERE "scheduled_sessions"."status" = 'scheduled';--> statement-breakpoint
CREATE INDEX `shared_documents_job_idx` ON `shared_documents` (`pdf_job_id`) WHERE "shared_documents"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX `tickets_assigned_created_idx` ON `tickets` (`assigned_to`,`created_at`);