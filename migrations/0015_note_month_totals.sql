-- Month and day sums of the live notes of live clients, kept by triggers (decision 039, 2026-11-26): the
-- tables are created by 0014_follow_ups; this fills them from the notes and adds the triggers that keep them.
-- Each trigger body is one statement without CASE … END (decision 035: wrangler's splitter and D1).
-- Decision 039 (rollup): the live notes (deleted_at null) of live clients — what the operations reports sum —
-- as number, minutes and units per location, month ('YYYY-MM' of the session date), provider (0 when none), type
-- and CPT code (note_month_totals); per location, month, client and type (note_month_client_totals); and number
-- and minutes per location and session date (note_day_totals, the hours chart). The triggers keep them in the
-- statement that changes a note or a client, as note_counts (decision 035): one statement per body, no CASE … END.
-- The fills below are RECOUNT_NOTES_SQL's (app/db/note-counts.ts).
INSERT INTO `note_month_totals` (`location_id`, `month`, `provider_id`, `type`, `cpt_code`, `n`, `minutes`, `units`)
SELECT `location_id`, substr(`session_date`, 1, 7), coalesce(`provider_id`, 0), `type`, `cpt_code`, count(*), sum(`minutes`), sum(`units`) FROM `notes`
WHERE `deleted_at` IS NULL AND `patient_id` NOT IN (SELECT `id` FROM `patients` WHERE `deleted_at` IS NOT NULL)
GROUP BY `location_id`, substr(`session_date`, 1, 7), coalesce(`provider_id`, 0), `type`, `cpt_code`;
--> statement-breakpoint
INSERT INTO `note_month_client_totals` (`location_id`, `month`, `patient_id`, `type`, `n`, `minutes`, `units`)
SELECT `location_id`, substr(`session_date`, 1, 7), `patient_id`, `type`, count(*), sum(`minutes`), sum(`units`) FROM `notes`
WHERE `deleted_at` IS NULL AND `patient_id` NOT IN (SELECT `id` FROM `patients` WHERE `deleted_at` IS NOT NULL)
GROUP BY `location_id`, substr(`session_date`, 1, 7), `patient_id`, `type`;
--> statement-breakpoint
INSERT INTO `note_day_totals` (`location_id`, `session_date`, `n`, `minutes`)
SELECT `location_id`, `session_date`, count(*), sum(`minutes`) FROM `notes`
WHERE `deleted_at` IS NULL AND `patient_id` NOT IN (SELECT `id` FROM `patients` WHERE `deleted_at` IS NOT NULL)
GROUP BY `location_id`, `session_date`;
--> statement-breakpoint
CREATE TRIGGER `notes_month_insert` AFTER INSERT ON `notes`
WHEN new.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL
BEGIN
  INSERT INTO `note_month_totals` (`location_id`, `month`, `provider_id`, `type`, `cpt_code`, `n`, `minutes`, `units`)
  VALUES (new.location_id, substr(new.session_date, 1, 7), coalesce(new.provider_id, 0), new.type, new.cpt_code, 1, new.minutes, new.units)
  ON CONFLICT (`location_id`, `month`, `provider_id`, `type`, `cpt_code`) DO UPDATE SET `n` = `n` + 1, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_month_delete` AFTER DELETE ON `notes`
WHEN old.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL
BEGIN
  UPDATE `note_month_totals` SET `n` = `n` - 1, `minutes` = `minutes` - old.minutes, `units` = `units` - old.units
  WHERE `location_id` = old.location_id AND `month` = substr(old.session_date, 1, 7) AND `provider_id` = coalesce(old.provider_id, 0) AND `type` = old.type AND `cpt_code` = old.cpt_code;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_month_leave` AFTER UPDATE OF `deleted_at`, `location_id`, `session_date`, `provider_id`, `patient_id`, `type`, `cpt_code`, `minutes`, `units` ON `notes`
WHEN old.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL
  AND (new.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.session_date IS NOT old.session_date OR new.provider_id IS NOT old.provider_id
    OR new.patient_id IS NOT old.patient_id OR new.type IS NOT old.type OR new.cpt_code IS NOT old.cpt_code OR new.minutes IS NOT old.minutes OR new.units IS NOT old.units)
BEGIN
  UPDATE `note_month_totals` SET `n` = `n` - 1, `minutes` = `minutes` - old.minutes, `units` = `units` - old.units
  WHERE `location_id` = old.location_id AND `month` = substr(old.session_date, 1, 7) AND `provider_id` = coalesce(old.provider_id, 0) AND `type` = old.type AND `cpt_code` = old.cpt_code;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_month_enter` AFTER UPDATE OF `deleted_at`, `location_id`, `session_date`, `provider_id`, `patient_id`, `type`, `cpt_code`, `minutes`, `units` ON `notes`
WHEN new.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL
  AND (old.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.session_date IS NOT old.session_date OR new.provider_id IS NOT old.provider_id
    OR new.patient_id IS NOT old.patient_id OR new.type IS NOT old.type OR new.cpt_code IS NOT old.cpt_code OR new.minutes IS NOT old.minutes OR new.units IS NOT old.units)
BEGIN
  INSERT INTO `note_month_totals` (`location_id`, `month`, `provider_id`, `type`, `cpt_code`, `n`, `minutes`, `units`)
  VALUES (new.location_id, substr(new.session_date, 1, 7), coalesce(new.provider_id, 0), new.type, new.cpt_code, 1, new.minutes, new.units)
  ON CONFLICT (`location_id`, `month`, `provider_id`, `type`, `cpt_code`) DO UPDATE SET `n` = `n` + 1, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_day_insert` AFTER INSERT ON `notes`
WHEN new.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL
BEGIN
  INSERT INTO `note_day_totals` (`location_id`, `session_date`, `n`, `minutes`) VALUES (new.location_id, new.session_date, 1, new.minutes)
  ON CONFLICT (`location_id`, `session_date`) DO UPDATE SET `n` = `n` + 1, `minutes` = `minutes` + excluded.`minutes`;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_day_delete` AFTER DELETE ON `notes`
WHEN old.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL
BEGIN
  UPDATE `note_day_totals` SET `n` = `n` - 1, `minutes` = `minutes` - old.minutes WHERE `location_id` = old.location_id AND `session_date` = old.session_date;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_day_leave` AFTER UPDATE OF `deleted_at`, `location_id`, `session_date`, `patient_id`, `minutes` ON `notes`
WHEN old.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL
  AND (new.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.session_date IS NOT old.session_date OR new.patient_id IS NOT old.patient_id OR new.minutes IS NOT old.minutes)
BEGIN
  UPDATE `note_day_totals` SET `n` = `n` - 1, `minutes` = `minutes` - old.minutes WHERE `location_id` = old.location_id AND `session_date` = old.session_date;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_day_enter` AFTER UPDATE OF `deleted_at`, `location_id`, `session_date`, `patient_id`, `minutes` ON `notes`
WHEN new.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL
  AND (old.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.session_date IS NOT old.session_date OR new.patient_id IS NOT old.patient_id OR new.minutes IS NOT old.minutes)
BEGIN
  INSERT INTO `note_day_totals` (`location_id`, `session_date`, `n`, `minutes`) VALUES (new.location_id, new.session_date, 1, new.minutes)
  ON CONFLICT (`location_id`, `session_date`) DO UPDATE SET `n` = `n` + 1, `minutes` = `minutes` + excluded.`minutes`;
END;
--> statement-breakpoint
CREATE TRIGGER `patients_note_month_delete` AFTER UPDATE OF `deleted_at` ON `patients`
WHEN old.deleted_at IS NULL AND new.deleted_at IS NOT NULL
BEGIN
  INSERT INTO `note_month_totals` (`location_id`, `month`, `provider_id`, `type`, `cpt_code`, `n`, `minutes`, `units`)
  SELECT o.location_id, substr(o.session_date, 1, 7), coalesce(o.provider_id, 0), o.type, o.cpt_code, -count(*), -sum(o.minutes), -sum(o.units) FROM `notes` o
  WHERE o.patient_id = new.id AND o.deleted_at IS NULL GROUP BY o.location_id, substr(o.session_date, 1, 7), coalesce(o.provider_id, 0), o.type, o.cpt_code
  ON CONFLICT (`location_id`, `month`, `provider_id`, `type`, `cpt_code`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
--> statement-breakpoint
CREATE TRIGGER `patients_note_month_restore` AFTER UPDATE OF `deleted_at` ON `patients`
WHEN old.deleted_at IS NOT NULL AND new.deleted_at IS NULL
BEGIN
  INSERT INTO `note_month_totals` (`location_id`, `month`, `provider_id`, `type`, `cpt_code`, `n`, `minutes`, `units`)
  SELECT o.location_id, substr(o.session_date, 1, 7), coalesce(o.provider_id, 0), o.type, o.cpt_code, count(*), sum(o.minutes), sum(o.units) FROM `notes` o
  WHERE o.patient_id = new.id AND o.deleted_at IS NULL GROUP BY o.location_id, substr(o.session_date, 1, 7), coalesce(o.provider_id, 0), o.type, o.cpt_code
  ON CONFLICT (`location_id`, `month`, `provider_id`, `type`, `cpt_code`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
--> statement-breakpoint
CREATE TRIGGER `patients_note_day_delete` AFTER UPDATE OF `deleted_at` ON `patients`
WHEN old.deleted_at IS NULL AND new.deleted_at IS NOT NULL
BEGIN
  INSERT INTO `note_day_totals` (`location_id`, `session_date`, `n`, `minutes`)
  SELECT o.location_id, o.session_date, -count(*), -sum(o.minutes) FROM `notes` o
  WHERE o.patient_id = new.id AND o.deleted_at IS NULL GROUP BY o.location_id, o.session_date
  ON CONFLICT (`location_id`, `session_date`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`;
END;
--> statement-breakpoint
CREATE TRIGGER `patients_note_day_restore` AFTER UPDATE OF `deleted_at` ON `patients`
WHEN old.deleted_at IS NOT NULL AND new.deleted_at IS NULL
BEGIN
  INSERT INTO `note_day_totals` (`location_id`, `session_date`, `n`, `minutes`)
  SELECT o.location_id, o.session_date, count(*), sum(o.minutes) FROM `notes` o
  WHERE o.patient_id = new.id AND o.deleted_at IS NULL GROUP BY o.location_id, o.session_date
  ON CONFLICT (`location_id`, `session_date`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_month_client_insert` AFTER INSERT ON `notes`
WHEN new.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL
BEGIN
  INSERT INTO `note_month_client_totals` (`location_id`, `month`, `patient_id`, `type`, `n`, `minutes`, `units`)
  VALUES (new.location_id, substr(new.session_date, 1, 7), new.patient_id, new.type, 1, new.minutes, new.units)
  ON CONFLICT (`location_id`, `month`, `patient_id`, `type`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_month_client_delete` AFTER DELETE ON `notes`
WHEN old.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL
BEGIN
  UPDATE `note_month_client_totals` SET `n` = `n` - 1, `minutes` = `minutes` - old.minutes, `units` = `units` - old.units
  WHERE `location_id` = old.location_id AND `month` = substr(old.session_date, 1, 7) AND `patient_id` = old.patient_id AND `type` = old.type;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_month_client_leave` AFTER UPDATE OF `deleted_at`, `location_id`, `session_date`, `patient_id`, `type`, `minutes`, `units` ON `notes`
WHEN old.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL
  AND (new.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.session_date IS NOT old.session_date OR new.patient_id IS NOT old.patient_id
    OR new.type IS NOT old.type OR new.minutes IS NOT old.minutes OR new.units IS NOT old.units)
BEGIN
  UPDATE `note_month_client_totals` SET `n` = `n` - 1, `minutes` = `minutes` - old.minutes, `units` = `units` - old.units
  WHERE `location_id` = old.location_id AND `month` = substr(old.session_date, 1, 7) AND `patient_id` = old.patient_id AND `type` = old.type;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_month_client_enter` AFTER UPDATE OF `deleted_at`, `location_id`, `session_date`, `patient_id`, `type`, `minutes`, `units` ON `notes`
WHEN new.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL
  AND (old.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.session_date IS NOT old.session_date OR new.patient_id IS NOT old.patient_id
    OR new.type IS NOT old.type OR new.minutes IS NOT old.minutes OR new.units IS NOT old.units)
BEGIN
  INSERT INTO `note_month_client_totals` (`location_id`, `month`, `patient_id`, `type`, `n`, `minutes`, `units`)
  VALUES (new.location_id, substr(new.session_date, 1, 7), new.patient_id, new.type, 1, new.minutes, new.units)
  ON CONFLICT (`location_id`, `month`, `patient_id`, `type`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
--> statement-breakpoint
CREATE TRIGGER `patients_note_month_client_delete` AFTER UPDATE OF `deleted_at` ON `patients`
WHEN old.deleted_at IS NULL AND new.deleted_at IS NOT NULL
BEGIN
  INSERT INTO `note_month_client_totals` (`location_id`, `month`, `patient_id`, `type`, `n`, `minutes`, `units`)
  SELECT o.location_id, substr(o.session_date, 1, 7), o.patient_id, o.type, -count(*), -sum(o.minutes), -sum(o.units) FROM `notes` o
  WHERE o.patient_id = new.id AND o.deleted_at IS NULL GROUP BY o.location_id, substr(o.session_date, 1, 7), o.patient_id, o.type
  ON CONFLICT (`location_id`, `month`, `patient_id`, `type`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
--> statement-breakpoint
CREATE TRIGGER `patients_note_month_client_restore` AFTER UPDATE OF `deleted_at` ON `patients`
WHEN old.deleted_at IS NOT NULL AND new.deleted_at IS NULL
BEGIN
  INSERT INTO `note_month_client_totals` (`location_id`, `month`, `patient_id`, `type`, `n`, `minutes`, `units`)
  SELECT o.location_id, substr(o.session_date, 1, 7), o.patient_id, o.type, count(*), sum(o.minutes), sum(o.units) FROM `notes` o
  WHERE o.patient_id = new.id AND o.deleted_at IS NULL GROUP BY o.location_id, substr(o.session_date, 1, 7), o.patient_id, o.type
  ON CONFLICT (`location_id`, `month`, `patient_id`, `type`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`;
END;
