-- Scratch migration of the reports-b branch (issue 12, decision 039): the lead merges it into 0012/0013.
CREATE INDEX `notes_report_idx` ON `notes` (`location_id`,`session_date`,`provider_id`,`patient_id`,`type`,`cpt_code`,`minutes`,`units`,`pa_service_id`,`md`,`md2`,`unit_price_cents`,`deleted_at`) WHERE "notes"."deleted_at" is null;
