-- Decision 041 (2026-11-28, stop 39): a PDF request carries a one-time token (the chooser form's form_token, or the
-- API's Idempotency-Key), so a resend answers the job it already made instead of queuing a second render and file.
ALTER TABLE `pdf_jobs` ADD `form_token` text;--> statement-breakpoint
CREATE UNIQUE INDEX `pdf_jobs_form_token_unique` ON `pdf_jobs` (`form_token`) WHERE "pdf_jobs"."form_token" is not null;