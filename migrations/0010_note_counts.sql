CREATE TABLE `note_counts` (
	`location_id` integer NOT NULL,
	`type` text NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`location_id`, `type`)
);
--> statement-breakpoint
DROP INDEX `notes_location_type_idx`;--> statement-breakpoint
DROP INDEX `notes_type_date_idx`;--> statement-breakpoint
CREATE INDEX `notes_location_type_idx` ON `notes` (`location_id`,`type`,`session_date`,`status`,`patient_id`,`deleted_at`) WHERE "notes"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `notes_type_date_idx` ON `notes` (`type`,`session_date`,`status`,`patient_id`,`deleted_at`) WHERE "notes"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `patients_deleted_idx` ON `patients` (`id`,`deleted_at`) WHERE "patients"."deleted_at" is not null;--> statement-breakpoint
-- Decision 035: note_counts holds, per location and type, the live notes (deleted_at null) of live clients —
-- exactly what the notes lists show. The triggers below keep it in the statement that changes a note or a
-- client, so every write path moves it and a refused write moves nothing. Each body is one statement
-- (no CASE … END), which wrangler's splitter and D1's remote migrations take as one statement.
INSERT INTO `note_counts` (`location_id`, `type`, `n`)
SELECT `location_id`, `type`, count(*) FROM `notes`
WHERE `deleted_at` IS NULL AND `patient_id` NOT IN (SELECT `id` FROM `patients` WHERE `deleted_at` IS NOT NULL)
GROUP BY `location_id`, `type`;
--> statement-breakpoint
CREATE TRIGGER `notes_count_insert` AFTER INSERT ON `notes`
WHEN new.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL
BEGIN
  INSERT INTO `note_counts` (`location_id`, `type`, `n`) VALUES (new.location_id, new.type, 1)
  ON CONFLICT (`location_id`, `type`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_count_delete` AFTER DELETE ON `notes`
WHEN old.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL
BEGIN
  UPDATE `note_counts` SET `n` = `n` - 1 WHERE `location_id` = old.location_id AND `type` = old.type;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_count_leave` AFTER UPDATE OF `deleted_at`, `location_id`, `type`, `patient_id` ON `notes`
WHEN old.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = old.patient_id) IS NULL
  AND (new.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.type IS NOT old.type OR new.patient_id IS NOT old.patient_id)
BEGIN
  UPDATE `note_counts` SET `n` = `n` - 1 WHERE `location_id` = old.location_id AND `type` = old.type;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_count_enter` AFTER UPDATE OF `deleted_at`, `location_id`, `type`, `patient_id` ON `notes`
WHEN new.deleted_at IS NULL AND (SELECT `deleted_at` FROM `patients` WHERE `id` = new.patient_id) IS NULL
  AND (old.deleted_at IS NOT NULL OR new.location_id IS NOT old.location_id OR new.type IS NOT old.type OR new.patient_id IS NOT old.patient_id)
BEGIN
  INSERT INTO `note_counts` (`location_id`, `type`, `n`) VALUES (new.location_id, new.type, 1)
  ON CONFLICT (`location_id`, `type`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `patients_note_count_delete` AFTER UPDATE OF `deleted_at` ON `patients`
WHEN old.deleted_at IS NULL AND new.deleted_at IS NOT NULL
BEGIN
  UPDATE `note_counts` SET `n` = `n` - (SELECT count(*) FROM `notes` o WHERE o.patient_id = new.id AND o.deleted_at IS NULL AND o.location_id = `note_counts`.`location_id` AND o.type = `note_counts`.`type`)
  WHERE `location_id` IN (SELECT o.location_id FROM `notes` o WHERE o.patient_id = new.id AND o.deleted_at IS NULL);
END;
--> statement-breakpoint
CREATE TRIGGER `patients_note_count_restore` AFTER UPDATE OF `deleted_at` ON `patients`
WHEN old.deleted_at IS NOT NULL AND new.deleted_at IS NULL
BEGIN
  INSERT INTO `note_counts` (`location_id`, `type`, `n`)
  SELECT o.location_id, o.type, count(*) FROM `notes` o WHERE o.patient_id = new.id AND o.deleted_at IS NULL GROUP BY o.location_id, o.type
  ON CONFLICT (`location_id`, `type`) DO UPDATE SET `n` = `n` + excluded.`n`;
END;
