CREATE INDEX `claims_insurer_created_idx` ON `claims` (`insurer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `claims_created_idx` ON `claims` (`created_at`);--> statement-breakpoint
CREATE INDEX `notes_pa_service_date_idx` ON `notes` (`pa_service_id`,`session_date`) WHERE "notes"."deleted_at" is null;