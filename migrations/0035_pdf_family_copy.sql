-- Decision 041 (2026-11-28, stop 38): a parent is served only a family copy of a shared plan PDF (pdf_jobs.audience =
-- 'family'), linked from its share (shared_documents.family_job_id). Shares made before have none: they stay on record
-- but are never listed or served to a parent, and no longer keep a file from the 30-day expiry; staff share the plan
-- PDF again to send the family copy.
ALTER TABLE `pdf_jobs` ADD `audience` text DEFAULT 'staff' NOT NULL;--> statement-breakpoint
ALTER TABLE `shared_documents` ADD `family_job_id` text REFERENCES pdf_jobs(id);--> statement-breakpoint
CREATE INDEX `shared_documents_family_job_idx` ON `shared_documents` (`family_job_id`) WHERE "shared_documents"."revoked_at" is null;
