-- The billing list's month sums (decision 043, stop 22): note_month_client_totals also counts, per location,
-- month, client and type, the notes pending, billed and paid, so that /billing/list and GET bylocation over whole
-- months read the month sums (about 1,000 rows for a location's month) instead of grouping every note of the
-- period (6,000 for one location, 250,000 over every location on the bench data). The triggers of 0015 that keep
-- the table are remade with the three counts and also follow a note's status, billed and paid. Each trigger body
-- is one statement without CASE … END (decision 035). The fill is RECOUNT_NOTES_SQL's (app/db/note-counts.ts).
ALTER TABLE `note_month_client_totals` ADD `pending` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `note_month_client_totals` ADD `billed` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `note_month_client_totals` ADD `paid` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
DROP TRIGGER `notes_month_client_insert`;--> statement-breakpoint
DROP TRIGGER `notes_month_client_delete`;--> statement-breakpoint
DROP TRIGGER `notes_month_client_leave`;--> statement-breakpoint
DROP TRIGGER `notes_month_client_enter`;--> statement-breakpoint
DROP TRIGGER `patients_note_month_client_delete`;--> statement-breakpoint
DROP TRIGGER `patients_note_month_client_restore`;--> statement-breakpoint
DELETE FROM `note_month_client_totals`;--> statement-breakpoint
INSERT INTO `note_month_client_totals` (`location_id`, `month`, `patient_id`, `type`, `n`, `minutes`, `units`, `pending`, `billed`, `paid`)
SELECT `location_id`, substr(`session_date`, 1, 7), `patient_id`, `type`, count(*), sum(`minutes`), sum(`units`), sum(`status` = 'pending'), sum(`billed`), sum(`paid`) FROM `notes`
WHERE `deleted_at` IS NULL AND `patient_id` NOT IN (SELECT `id` FROM `patients` WHERE `deleted_at` IS NOT NULL)
GROUP BY `location_id`, substr(`session_date`, 1, 7), `patient_id`, `type`;
--> statement-breakpoint
CREATE TRIGGER `notes_month_client_insert` AFTER INSERT ON `notes`
WHEN new.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL
BEGIN
  INSERT INTO `note_month_client_totals` (`location_id`, `month`, `patient_id`, `type`, `n`, `minutes`, `units`, `pending`, `billed`, `paid`)
  VALUES (new.location_id, substr(new.session_date, 1, 7), new.patient_id, new.type, 1, new.minutes, new.units, new.status = 'pending', new.billed, new.paid)
  ON CONFLICT (`location_id`, `month`, `patient_id`, `type`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`,
    `pending` = `pending` + excluded.`pending`, `billed` = `billed` + excluded.`billed`, `paid` = `paid` + excluded.`paid`;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_month_client_delete` AFTER DELETE ON `notes`
WHEN old.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL
BEGIN
  UPDATE `note_month_client_totals` SET `n` = `n` - 1, `minutes` = `minutes` - old.minutes, `units` = `units` - old.units,
    `pending` = `pending` - (old.status = 'pending'), `billed` = `billed` - old.billed, `paid` = `paid` - old.paid
  WHERE `location_id` = old.location_id AND `month` = substr(old.session_date, 1, 7) AND `patient_id` = old.patient_id AND `type` = old.type;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_month_client_leave` AFTER UPDATE OF `deleted_at`, `location_id`, `session_date`, `patient_id`, `type`, `minutes`, `units`, `status`, `billed`, `paid` ON `notes`
WHEN old.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL
  AND (new.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.session_date IS NOT old.session_date OR new.patient_id IS NOT old.patient_id
    OR new.type IS NOT old.type OR new.minutes IS NOT old.minutes OR new.units IS NOT old.units
    OR new.status IS NOT old.status OR new.billed IS NOT old.billed OR new.paid IS NOT old.paid)
BEGIN
  UPDATE `note_month_client_totals` SET `n` = `n` - 1, `minutes` = `minutes` - old.minutes, `units` = `units` - old.units,
    `pending` = `pending` - (old.status = 'pending'), `billed` = `billed` - old.billed, `paid` = `paid` - old.paid
  WHERE `location_id` = old.location_id AND `month` = substr(old.session_date, 1, 7) AND `patient_id` = old.patient_id AND `type` = old.type;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_month_client_enter` AFTER UPDATE OF `deleted_at`, `location_id`, `session_date`, `patient_id`, `type`, `minutes`, `units`, `status`, `billed`, `paid` ON `notes`
WHEN new.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL
  AND (old.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.session_date IS NOT old.session_date OR new.patient_id IS NOT old.patient_id
    OR new.type IS NOT old.type OR new.minutes IS NOT old.minutes OR new.units IS NOT old.units
    OR new.status IS NOT old.status OR new.billed IS NOT old.billed OR new.paid IS NOT old.paid)
BEGIN
  INSERT INTO `note_month_client_totals` (`location_id`, `month`, `patient_id`, `type`, `n`, `minutes`, `units`, `pending`, `billed`, `paid`)
  VALUES (new.location_id, substr(new.session_date, 1, 7), new.patient_id, new.type, 1, new.minutes, new.units, new.status = 'pending', new.billed, new.paid)
  ON CONFLICT (`location_id`, `month`, `patient_id`, `type`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`,
    `pending` = `pending` + excluded.`pending`, `billed` = `billed` + excluded.`billed`, `paid` = `paid` + excluded.`paid`;
END;
--> statement-breakpoint
CREATE TRIGGER `patients_note_month_client_delete` AFTER UPDATE OF `deleted_at` ON `patients`
WHEN old.deleted_at IS NULL AND new.deleted_at IS NOT NULL
BEGIN
  INSERT INTO `note_month_client_totals` (`location_id`, `month`, `patient_id`, `type`, `n`, `minutes`, `units`, `pending`, `billed`, `paid`)
  SELECT o.location_id, substr(o.session_date, 1, 7), o.patient_id, o.type, -count(*), -sum(o.minutes), -sum(o.units), -sum(o.status = 'pending'), -sum(o.billed), -sum(o.paid) FROM `notes` o
  WHERE o.patient_id = new.id AND o.deleted_at IS NULL GROUP BY o.location_id, substr(o.session_date, 1, 7), o.patient_id, o.type
  ON CONFLICT (`location_id`, `month`, `patient_id`, `type`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`,
    `pending` = `pending` + excluded.`pending`, `billed` = `billed` + excluded.`billed`, `paid` = `paid` + excluded.`paid`;
END;
--> statement-breakpoint
CREATE TRIGGER `patients_note_month_client_restore` AFTER UPDATE OF `deleted_at` ON `patients`
WHEN old.deleted_at IS NOT NULL AND new.deleted_at IS NULL
BEGIN
  INSERT INTO `note_month_client_totals` (`location_id`, `month`, `patient_id`, `type`, `n`, `minutes`, `units`, `pending`, `billed`, `paid`)
  SELECT o.location_id, substr(o.session_date, 1, 7), o.patient_id, o.type, count(*), sum(o.minutes), sum(o.units), sum(o.status = 'pending'), sum(o.billed), sum(o.paid) FROM `notes` o
  WHERE o.patient_id = new.id AND o.deleted_at IS NULL GROUP BY o.location_id, substr(o.session_date, 1, 7), o.patient_id, o.type
  ON CONFLICT (`location_id`, `month`, `patient_id`, `type`) DO UPDATE SET `n` = `n` + excluded.`n`, `minutes` = `minutes` + excluded.`minutes`, `units` = `units` + excluded.`units`,
    `pending` = `pending` + excluded.`pending`, `billed` = `billed` + excluded.`billed`, `paid` = `paid` + excluded.`paid`;
END;
