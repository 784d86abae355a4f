-- Scratch migration of the reports (decision 038), for the lead to merge into the issue's one migration.
-- The pas, client-projection and client-eligibility reports page authorizations by end date.
CREATE INDEX `pa_services_end_idx` ON `pa_services` (`end_date`,`id`) WHERE "pa_services"."deleted_at" is null;
