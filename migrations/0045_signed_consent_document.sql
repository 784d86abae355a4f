ALTER TABLE `client_consents` ADD `signed_location_id` integer REFERENCES locations(id);--> statement-breakpoint
ALTER TABLE `client_consents` ADD `signed_location_title` text;--> statement-breakpoint
ALTER TABLE `client_consents` ADD `signed_client_name` text;--> statement-breakpoint
-- Backfill (decision 040, stop 45): consents signed before this migration keep the clinic and client name they show
-- today (the values at the time of signing were not recorded); from now on the signing statement stores them.
UPDATE `client_consents` SET
  `signed_location_id` = (SELECT p.`location_id` FROM `patients` p WHERE p.`id` = `client_consents`.`patient_id`),
  `signed_location_title` = (SELECT l.`title` FROM `patients` p JOIN `locations` l ON l.`id` = p.`location_id` WHERE p.`id` = `client_consents`.`patient_id`),
  `signed_client_name` = (SELECT trim(p.`first_name` || ' ' || p.`last_name`) FROM `patients` p WHERE p.`id` = `client_consents`.`patient_id`)
WHERE `status` = 'signed' AND `signed_client_name` IS NULL;
