-- A plan belongs to its client's location (decision 010, stop 24). The plan screens and the API already scoped
-- plans by the client's location, but bips.location_id was copied once, when the plan was made, and the
-- dashboard counted plans by it: after a client moved, the old location's staff saw the plan in their counts
-- (and the moved client's id in the dashboard's recent plans), the new location's did not.
-- The column now follows the client: existing rows are corrected here, and the trigger moves a client's plans
-- in the same statement that moves the client, for every write path. One statement per body (decision 035).
UPDATE `bips` SET `location_id` = (SELECT `location_id` FROM `patients` WHERE `patients`.`id` = `bips`.`patient_id`)
WHERE `location_id` IS NOT (SELECT `location_id` FROM `patients` WHERE `patients`.`id` = `bips`.`patient_id`);
--> statement-breakpoint
CREATE TRIGGER `patients_bips_location` AFTER UPDATE OF `location_id` ON `patients`
WHEN new.location_id IS NOT old.location_id
BEGIN
  UPDATE `bips` SET `location_id` = new.location_id WHERE `patient_id` = new.id;
END;
