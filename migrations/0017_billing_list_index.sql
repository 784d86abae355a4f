-- The billing list groups a location's notes of a period by client with their status, billed and paid
-- (decision 042, 2026-11-26 (stop 19, billing screens)): notes_report_idx gains those three columns, so the grouping reads the
-- index alone instead of each note's table row. Same leading columns, so the operations reports' plans stay.
DROP INDEX `notes_report_idx`;--> statement-breakpoint
CREATE INDEX `notes_report_idx` ON `notes` (`location_id`,`session_date`,`provider_id`,`patient_id`,`type`,`cpt_code`,`minutes`,`units`,`pa_service_id`,`md`,`md2`,`unit_price_cents`,`status`,`billed`,`paid`,`deleted_at`) WHERE "notes"."deleted_at" is null;