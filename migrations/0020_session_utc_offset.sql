-- Session moments (decision 024, 2026-11-26): notes and scheduled sessions store the UTC offset of the client's
-- location at the session's first start (minutes, local = UTC + offset). The provider rules (no overlap, 15 minutes
-- between sessions) compare local minutes minus the offset, so a provider working in two time zones is judged on
-- moments, not clock times. Existing rows keep NULL, which the rules read as "the new session's own zone": the
-- local comparison of before, so nothing already stored is judged differently.
ALTER TABLE `notes` ADD `utc_offset` integer;--> statement-breakpoint
ALTER TABLE `scheduled_sessions` ADD `utc_offset` integer;