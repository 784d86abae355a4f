CREATE INDEX `notes_calendar_idx` ON `notes` (`location_id`,`session_date`,`start_at`,`id`,`patient_id`,`provider_id`,`deleted_at`) WHERE "notes"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `scheduled_calendar_idx` ON `scheduled_sessions` (`location_id`,`session_date`,`start_at`,`id`,`patient_id`,`provider_id`,`status`) WHERE "scheduled_sessions"."status" = 'scheduled';
