-- Decision 039, 2026-11-27 "deleted clients": payroll and hours by provider or CPT count every live note, whatever
-- became of its client (the session happened; decision 023). note_month_totals and note_day_totals keep their live-client
-- counts (n, minutes, units: caseload, and the hours chart by client) and gain the same sums of every live note (all_n,
-- all_minutes, all_units). The note triggers of 0015 for these two tables are replaced by ones that keep both: they
-- now fire for every live note and add the live-client counts only when the client is live (the client's liveness,
-- 0 or 1, multiplies them: one statement per body, no CASE … END). The client deletion and restore triggers of 0015
-- are unchanged: they move n, minutes and units only, so the all_ columns never follow a client's deletion.
-- The refill below is RECOUNT_NOTES_SQL's (app/db/note-counts.ts).
ALTER TABLE `note_day_totals` ADD `all_n` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `note_day_totals` ADD `all_minutes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `note_month_totals` ADD `all_n` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `note_month_totals` ADD `all_minutes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `note_month_totals` ADD `all_units` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
DROP TRIGGER `notes_month_insert`;
--> statement-breakpoint
DROP TRIGGER `notes_month_delete`;
--> statement-breakpoint
DROP TRIGGER `notes_month_leave`;
--> statement-breakpoint
DROP TRIGGER `notes_month_enter`;
--> statement-breakpoint
DROP TRIGGER `notes_day_insert`;
--> statement-breakpoint
DROP TRIGGER `notes_day_delete`;
--> statement-breakpoint
DROP TRIGGER `notes_day_leave`;
--> statement-breakpoint
DROP TRIGGER `notes_day_enter`;
--> statement-breakpoint
DELETE FROM `note_month_totals`;
--> statement-breakpoint
INSERT INTO `note_month_totals` (`location_id`, `month`, `provider_id`, `type`, `cpt_code`, `n`, `minutes`, `units`, `all_n`, `all_minutes`, `all_units`)
SELECT `location_id`, substr(`session_date`, 1, 7), coalesce(`provider_id`, 0), `type`, `cpt_code`,
  sum(`patient_id` NOT IN (SELECT `id` FROM `patients` WHERE `deleted_at` IS NOT NULL)),
  sum((`patient_id` NOT IN (SELECT `id` FROM `patients` WHERE `deleted_at` IS NOT NULL)) * `minutes`),
  sum((`patient_id` NOT IN (SELECT `id` FROM `patients` WHERE `deleted_at` IS NOT NULL)) * `units`),
  count(*), sum(`minutes`), sum(`units`) FROM `notes`
WHERE `deleted_at` IS NULL
GROUP BY `location_id`, substr(`session_date`, 1, 7), coalesce(`provider_id`, 0), `type`, `cpt_code`;
--> statement-breakpoint
DELETE FROM `note_day_totals`;
--> statement-breakpoint
INSERT INTO `note_day_totals` (`location_id`, `session_date`, `n`, `minutes`, `all_n`, `all_minutes`)
SELECT `location_id`, `session_date`,
  sum(`patient_id` NOT IN (SELECT `id` FROM `patients` WHERE `deleted_at` IS NOT NULL)),
  sum((`patient_id` NOT IN (SELECT `id` FROM `patients` WHERE `deleted_at` IS NOT NULL)) * `minutes`),
  count(*), sum(`minutes`) FROM `notes`
WHERE `deleted_at` IS NULL
GROUP BY `location_id`, `session_date`;
--> statement-breakpoint
CREATE TRIGGER `notes_month_insert` AFTER INSERT ON `notes`
WHEN new.deleted_at IS NULL
BEGIN
  INSERT INTO `note_month_totals` (`location_id`, `month`, `provider_id`, `type`, `cpt_code`, `n`, `minutes`, `units`, `all_n`, `all_minutes`, `all_units`)
  VALUES (new.location_id, substr(new.session_date, 1, 7), coalesce(new.provider_id, 0), new.type, new.cpt_code, ((SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL), ((SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL) * new.minutes, ((SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL) * new.units, 1, new.minutes, new.units)
  ON CONFLICT (`location_id`, `month`, `provider_id`, `type`, `cpt_code`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`, `all_n` = `all_n` + 1, `all_minutes` = `all_minutes` + excluded.`all_minutes`, `all_units` = `all_units` + excluded.`all_units`;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_month_delete` AFTER DELETE ON `notes`
WHEN old.deleted_at IS NULL
BEGIN
  UPDATE `note_month_totals` SET `n` = `n` - ((SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL), `minutes` = `minutes` - ((SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL) * old.minutes, `units` = `units` - ((SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL) * old.units,
    `all_n` = `all_n` - 1, `all_minutes` = `all_minutes` - old.minutes, `all_units` = `all_units` - old.units
  WHERE `location_id` = old.location_id AND `month` = substr(old.session_date, 1, 7) AND `provider_id` = coalesce(old.provider_id, 0) AND `type` = old.type AND `cpt_code` = old.cpt_code;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_month_leave` AFTER UPDATE OF `deleted_at`, `location_id`, `session_date`, `provider_id`, `patient_id`, `type`, `cpt_code`, `minutes`, `units` ON `notes`
WHEN old.deleted_at IS NULL
  AND (new.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.session_date IS NOT old.session_date OR new.provider_id IS NOT old.provider_id
    OR new.patient_id IS NOT old.patient_id OR new.type IS NOT old.type OR new.cpt_code IS NOT old.cpt_code OR new.minutes IS NOT old.minutes OR new.units IS NOT old.units)
BEGIN
  UPDATE `note_month_totals` SET `n` = `n` - ((SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL), `minutes` = `minutes` - ((SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL) * old.minutes, `units` = `units` - ((SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL) * old.units,
    `all_n` = `all_n` - 1, `all_minutes` = `all_minutes` - old.minutes, `all_units` = `all_units` - old.units
  WHERE `location_id` = old.location_id AND `month` = substr(old.session_date, 1, 7) AND `provider_id` = coalesce(old.provider_id, 0) AND `type` = old.type AND `cpt_code` = old.cpt_code;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_month_enter` AFTER UPDATE OF `deleted_at`, `location_id`, `session_date`, `provider_id`, `patient_id`, `type`, `cpt_code`, `minutes`, `units` ON `notes`
WHEN new.deleted_at IS NULL
  AND (old.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.session_date IS NOT old.session_date OR new.provider_id IS NOT old.provider_id
    OR new.patient_id IS NOT old.patient_id OR new.type IS NOT old.type OR new.cpt_code IS NOT old.cpt_code OR new.minutes IS NOT old.minutes OR new.units IS NOT old.units)
BEGIN
  INSERT INTO `note_month_totals` (`location_id`, `month`, `provider_id`, `type`, `cpt_code`, `n`, `minutes`, `units`, `all_n`, `all_minutes`, `all_units`)
  VALUES (new.location_id, substr(new.session_date, 1, 7), coalesce(new.provider_id, 0), new.type, new.cpt_code, ((SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL), ((SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL) * new.minutes, ((SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL) * new.units, 1, new.minutes, new.units)
  ON CONFLICT (`location_id`, `month`, `provider_id`, `type`, `cpt_code`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`, `all_n` = `all_n` + 1, `all_minutes` = `all_minutes` + excluded.`all_minutes`, `all_units` = `all_units` + excluded.`all_units`;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_day_insert` AFTER INSERT ON `notes`
WHEN new.deleted_at IS NULL
BEGIN
  INSERT INTO `note_day_totals` (`location_id`, `session_date`, `n`, `minutes`, `all_n`, `all_minutes`)
  VALUES (new.location_id, new.session_date, ((SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL), ((SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL) * new.minutes, 1, new.minutes)
  ON CONFLICT (`location_id`, `session_date`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `all_n` = `all_n` + 1, `all_minutes` = `all_minutes` + excluded.`all_minutes`;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_day_delete` AFTER DELETE ON `notes`
WHEN old.deleted_at IS NULL
BEGIN
  UPDATE `note_day_totals` SET `n` = `n` - ((SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL), `minutes` = `minutes` - ((SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL) * old.minutes, `all_n` = `all_n` - 1, `all_minutes` = `all_minutes` - old.minutes
  WHERE `location_id` = old.location_id AND `session_date` = old.session_date;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_day_leave` AFTER UPDATE OF `deleted_at`, `location_id`, `session_date`, `patient_id`, `minutes` ON `notes`
WHEN old.deleted_at IS NULL
  AND (new.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.session_date IS NOT old.session_date OR new.patient_id IS NOT old.patient_id OR new.minutes IS NOT old.minutes)
BEGIN
  UPDATE `note_day_totals` SET `n` = `n` - ((SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL), `minutes` = `minutes` - ((SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL) * old.minutes, `all_n` = `all_n` - 1, `all_minutes` = `all_minutes` - old.minutes
  WHERE `location_id` = old.location_id AND `session_date` = old.session_date;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_day_enter` AFTER UPDATE OF `deleted_at`, `location_id`, `session_date`, `patient_id`, `minutes` ON `notes`
WHEN new.deleted_at IS NULL
  AND (old.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.session_date IS NOT old.session_date OR new.patient_id IS NOT old.patient_id OR new.minutes IS NOT old.minutes)
BEGIN
  INSERT INTO `note_day_totals` (`location_id`, `session_date`, `n`, `minutes`, `all_n`, `all_minutes`)
  VALUES (new.location_id, new.session_date, ((SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL), ((SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL) * new.minutes, 1, new.minutes)
  ON CONFLICT (`location_id`, `session_date`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `all_n` = `all_n` + 1, `all_minutes` = `all_minutes` + excluded.`all_minutes`;
END;
