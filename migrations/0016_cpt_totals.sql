-- Charges by location and CPT from day sums (decision 039, 2026-11-26 "location-cpt"): the live notes (deleted_at
-- null) of live clients as number, minutes and units per location, session date and every
-- input of the one price function (priceNote): CPT code, type, the two billing modifiers ('' when none), a combined
-- note's own unit price (0 when none) and the payer = coalesce(PA service's insurer, client's insurer) (0 when none).
-- The payer lives on pa_services and patients, so their triggers move the sums too. Triggers in the shape of 0015:
-- one statement per body, no CASE … END. The fill is RECOUNT_NOTES_SQL's (app/db/note-counts.ts).
-- Also the caseload report's index (provider, session date), covering its per-provider sums.
CREATE TABLE `note_day_cpt_totals` (
	`location_id` integer NOT NULL,
	`session_date` text NOT NULL,
	`cpt_code` text NOT NULL,
	`type` text NOT NULL,
	`md` text NOT NULL,
	`md2` text NOT NULL,
	`unit_price_cents` integer NOT NULL,
	`payer_id` integer NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	`minutes` integer DEFAULT 0 NOT NULL,
	`units` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `notes_provider_report_idx` ON `notes` (`provider_id`,`session_date`,`location_id`,`patient_id`,`minutes`,`deleted_at`) WHERE "notes"."deleted_at" is null;
--> statement-breakpoint
INSERT INTO `note_day_cpt_totals` (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`, `n`, `minutes`, `units`)
SELECT o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0), coalesce(pa.insurance_id, p.insurer_id, 0), count(*), sum(o.minutes), sum(o.units)
FROM `notes` o LEFT JOIN `patients` p ON p.id = o.patient_id LEFT JOIN `pa_services` pa ON pa.id = o.pa_service_id
WHERE o.deleted_at IS NULL AND p.deleted_at IS NULL
GROUP BY o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0), coalesce(pa.insurance_id, p.insurer_id, 0);
--> statement-breakpoint
CREATE TRIGGER `notes_day_cpt_insert` AFTER INSERT ON `notes`
WHEN new.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL
BEGIN
  INSERT INTO `note_day_cpt_totals` (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`, `n`, `minutes`, `units`)
  VALUES (new.location_id, new.session_date, new.cpt_code, new.type, coalesce(new.md, ''), coalesce(new.md2, ''), coalesce(new.unit_price_cents, 0), coalesce((SELECT `insurance_id` FROM `pa_services` WHERE `id` = new.pa_service_id), (SELECT `insurer_id` FROM `patients` WHERE `id` = new.patient_id), 0), 1, new.minutes, new.units)
  ON CONFLICT (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_day_cpt_delete` AFTER DELETE ON `notes`
WHEN old.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL
BEGIN
  UPDATE `note_day_cpt_totals` SET `n` = `n` - 1, `minutes` = `minutes` - old.minutes, `units` = `units` - old.units
  WHERE `location_id` = old.location_id AND `session_date` = old.session_date AND `cpt_code` = old.cpt_code AND `type` = old.type AND `md` = coalesce(old.md, '') AND `md2` = coalesce(old.md2, '') AND `unit_price_cents` = coalesce(old.unit_price_cents, 0) AND `payer_id` = coalesce((SELECT `insurance_id` FROM `pa_services` WHERE `id` = old.pa_service_id), (SELECT `insurer_id` FROM `patients` WHERE `id` = old.patient_id), 0);
END;
--> statement-breakpoint
CREATE TRIGGER `notes_day_cpt_leave` AFTER UPDATE OF `deleted_at`, `location_id`, `session_date`, `patient_id`, `pa_service_id`, `type`, `cpt_code`, `md`, `md2`, `unit_price_cents`, `minutes`, `units` ON `notes`
WHEN old.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL
  AND (new.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.session_date IS NOT old.session_date OR new.patient_id IS NOT old.patient_id OR new.pa_service_id IS NOT old.pa_service_id OR new.type IS NOT old.type OR new.cpt_code IS NOT old.cpt_code OR new.md IS NOT old.md OR new.md2 IS NOT old.md2 OR new.unit_price_cents IS NOT old.unit_price_cents OR new.minutes IS NOT old.minutes OR new.units IS NOT old.units)
BEGIN
  UPDATE `note_day_cpt_totals` SET `n` = `n` - 1, `minutes` = `minutes` - old.minutes, `units` = `units` - old.units
  WHERE `location_id` = old.location_id AND `session_date` = old.session_date AND `cpt_code` = old.cpt_code AND `type` = old.type AND `md` = coalesce(old.md, '') AND `md2` = coalesce(old.md2, '') AND `unit_price_cents` = coalesce(old.unit_price_cents, 0) AND `payer_id` = coalesce((SELECT `insurance_id` FROM `pa_services` WHERE `id` = old.pa_service_id), (SELECT `insurer_id` FROM `patients` WHERE `id` = old.patient_id), 0);
END;
--> statement-breakpoint
CREATE TRIGGER `notes_day_cpt_enter` AFTER UPDATE OF `deleted_at`, `location_id`, `session_date`, `patient_id`, `pa_service_id`, `type`, `cpt_code`, `md`, `md2`, `unit_price_cents`, `minutes`, `units` ON `notes`
WHEN new.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL
  AND (old.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.session_date IS NOT old.session_date OR new.patient_id IS NOT old.patient_id OR new.pa_service_id IS NOT old.pa_service_id OR new.type IS NOT old.type OR new.cpt_code IS NOT old.cpt_code OR new.md IS NOT old.md OR new.md2 IS NOT old.md2 OR new.unit_price_cents IS NOT old.unit_price_cents OR new.minutes IS NOT old.minutes OR new.units IS NOT old.units)
BEGIN
  INSERT INTO `note_day_cpt_totals` (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`, `n`, `minutes`, `units`)
  VALUES (new.location_id, new.session_date, new.cpt_code, new.type, coalesce(new.md, ''), coalesce(new.md2, ''), coalesce(new.unit_price_cents, 0), coalesce((SELECT `insurance_id` FROM `pa_services` WHERE `id` = new.pa_service_id), (SELECT `insurer_id` FROM `patients` WHERE `id` = new.patient_id), 0), 1, new.minutes, new.units)
  ON CONFLICT (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
--> statement-breakpoint
CREATE TRIGGER `patients_note_day_cpt_delete` AFTER UPDATE OF `deleted_at` ON `patients`
WHEN old.deleted_at IS NULL AND new.deleted_at IS NOT NULL
BEGIN
  INSERT INTO `note_day_cpt_totals` (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`, `n`, `minutes`, `units`)
  SELECT o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0), coalesce(pa.insurance_id, old.insurer_id, 0), -count(*), -sum(o.minutes), -sum(o.units)
  FROM `notes` o LEFT JOIN `pa_services` pa ON pa.id = o.pa_service_id
  WHERE o.patient_id = new.id AND o.deleted_at IS NULL
  GROUP BY o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0), coalesce(pa.insurance_id, old.insurer_id, 0)
  ON CONFLICT (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
--> statement-breakpoint
CREATE TRIGGER `patients_note_day_cpt_restore` AFTER UPDATE OF `deleted_at` ON `patients`
WHEN old.deleted_at IS NOT NULL AND new.deleted_at IS NULL
BEGIN
  INSERT INTO `note_day_cpt_totals` (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`, `n`, `minutes`, `units`)
  SELECT o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0), coalesce(pa.insurance_id, new.insurer_id, 0), count(*), sum(o.minutes), sum(o.units)
  FROM `notes` o LEFT JOIN `pa_services` pa ON pa.id = o.pa_service_id
  WHERE o.patient_id = new.id AND o.deleted_at IS NULL
  GROUP BY o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0), coalesce(pa.insurance_id, new.insurer_id, 0)
  ON CONFLICT (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
--> statement-breakpoint
CREATE TRIGGER `patients_note_day_cpt_insurer_leave` AFTER UPDATE OF `insurer_id` ON `patients`
WHEN old.insurer_id IS NOT new.insurer_id AND old.deleted_at IS NULL AND new.deleted_at IS NULL
BEGIN
  INSERT INTO `note_day_cpt_totals` (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`, `n`, `minutes`, `units`)
  SELECT o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0), coalesce(pa.insurance_id, old.insurer_id, 0), -count(*), -sum(o.minutes), -sum(o.units)
  FROM `notes` o LEFT JOIN `pa_services` pa ON pa.id = o.pa_service_id
  WHERE o.patient_id = new.id AND o.deleted_at IS NULL AND pa.insurance_id IS NULL
  GROUP BY o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0), coalesce(pa.insurance_id, old.insurer_id, 0)
  ON CONFLICT (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
--> statement-breakpoint
CREATE TRIGGER `patients_note_day_cpt_insurer_enter` AFTER UPDATE OF `insurer_id` ON `patients`
WHEN old.insurer_id IS NOT new.insurer_id AND old.deleted_at IS NULL AND new.deleted_at IS NULL
BEGIN
  INSERT INTO `note_day_cpt_totals` (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`, `n`, `minutes`, `units`)
  SELECT o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0), coalesce(pa.insurance_id, new.insurer_id, 0), count(*), sum(o.minutes), sum(o.units)
  FROM `notes` o LEFT JOIN `pa_services` pa ON pa.id = o.pa_service_id
  WHERE o.patient_id = new.id AND o.deleted_at IS NULL AND pa.insurance_id IS NULL
  GROUP BY o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0), coalesce(pa.insurance_id, new.insurer_id, 0)
  ON CONFLICT (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
--> statement-breakpoint
CREATE TRIGGER `pa_services_note_day_cpt_leave` AFTER UPDATE OF `insurance_id` ON `pa_services`
WHEN old.insurance_id IS NOT new.insurance_id
BEGIN
  INSERT INTO `note_day_cpt_totals` (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`, `n`, `minutes`, `units`)
  SELECT o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0), coalesce(old.insurance_id, p.insurer_id, 0), -count(*), -sum(o.minutes), -sum(o.units)
  FROM `notes` o LEFT JOIN `patients` p ON p.id = o.patient_id
  WHERE o.pa_service_id = new.id AND o.deleted_at IS NULL AND p.deleted_at IS NULL
  GROUP BY o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0), coalesce(old.insurance_id, p.insurer_id, 0)
  ON CONFLICT (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
--> statement-breakpoint
CREATE TRIGGER `pa_services_note_day_cpt_enter` AFTER UPDATE OF `insurance_id` ON `pa_services`
WHEN old.insurance_id IS NOT new.insurance_id
BEGIN
  INSERT INTO `note_day_cpt_totals` (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`, `n`, `minutes`, `units`)
  SELECT o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0), coalesce(new.insurance_id, p.insurer_id, 0), count(*), sum(o.minutes), sum(o.units)
  FROM `notes` o LEFT JOIN `patients` p ON p.id = o.patient_id
  WHERE o.pa_service_id = new.id AND o.deleted_at IS NULL AND p.deleted_at IS NULL
  GROUP BY o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0), coalesce(new.insurance_id, p.insurer_id, 0)
  ON CONFLICT (`location_id`, `session_date`, `cpt_code`, `type`, `md`, `md2`, `unit_price_cents`, `payer_id`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
