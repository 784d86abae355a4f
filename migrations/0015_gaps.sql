ALTER TABLE `client_consents` ADD `withdrawn_at` text;--> statement-breakpoint
ALTER TABLE `client_consents` ADD `withdrawn_by` integer REFERENCES users(id);--> statement-breakpoint
ALTER TABLE `pdf_jobs` ADD `expired_at` text;--> statement-breakpoint
CREATE INDEX `tickets_assigned_created_idx` ON `tickets` (`assigned_to`,`created_at`);--> statement-breakpoint
CREATE INDEX `pdf_jobs_file_age_idx` ON `pdf_jobs` (`status`,`finished_at`) WHERE "pdf_jobs"."file_key" is not null;--> statement-breakpoint
CREATE INDEX `shared_documents_job_idx` ON `shared_documents` (`pdf_job_id`) WHERE "shared_documents"."revoked_at" is null;
