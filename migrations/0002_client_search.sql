-- Client search (docs/decisions/012-client-search.md): a trigram FTS5 index over "first last" and the
-- patient identifier, so a substring search ("arci", "Liam Garc", "100500") reads the index instead of
-- scanning every client. The triggers keep it in step with patients; rowid = patients.id.
CREATE VIRTUAL TABLE `patients_search` USING fts5(`full_name`, `patient_identifier`, tokenize = 'trigram');--> statement-breakpoint
INSERT INTO `patients_search` (`rowid`, `full_name`, `patient_identifier`) SELECT `id`, `first_name` || ' ' || `last_name`, `patient_identifier` FROM `patients`;--> statement-breakpoint
-- INSERT OR REPLACE of an existing client does not fire the delete trigger, so the insert clears the row first.
CREATE TRIGGER `patients_search_insert` AFTER INSERT ON `patients` BEGIN
  DELETE FROM `patients_search` WHERE `rowid` = new.`id`;
  INSERT INTO `patients_search` (`rowid`, `full_name`, `patient_identifier`) VALUES (new.`id`, new.`first_name` || ' ' || new.`last_name`, new.`patient_identifier`);
END;--> statement-breakpoint
CREATE TRIGGER `patients_search_update` AFTER UPDATE OF `first_name`, `last_name`, `patient_identifier` ON `patients` BEGIN
  DELETE FROM `patients_search` WHERE `rowid` = old.`id`;
  INSERT INTO `patients_search` (`rowid`, `full_name`, `patient_identifier`) VALUES (new.`id`, new.`first_name` || ' ' || new.`last_name`, new.`patient_identifier`);
END;--> statement-breakpoint
CREATE TRIGGER `patients_search_delete` AFTER DELETE ON `patients` BEGIN
  DELETE FROM `patients_search` WHERE `rowid` = old.`id`;
END;--> statement-breakpoint
-- The list of every location is ordered by name: walk this index instead of sorting 20,000 rows. Partial
-- (live clients only), so it also answers the list's count without reading the client rows.
CREATE INDEX `patients_live_name_idx` ON `patients` (`last_name`, `first_name`, `id`) WHERE `deleted_at` IS NULL;
