ALTER TABLE `tickets` ADD `opened_on` text;--> statement-breakpoint
CREATE INDEX `tickets_location_opened_idx` ON `tickets` (`location_id`,`opened_on`);--> statement-breakpoint
CREATE INDEX `tickets_opened_idx` ON `tickets` (`opened_on`);--> statement-breakpoint
-- Backfill (decision 036, 2026-11-28): SQLite has no IANA zones, so the location's local day is computed here for the
-- product's common US zones with their standard offset and the US daylight-saving rule since 2007 (second Sunday of
-- March 02:00 to first Sunday of November 02:00 local); Phoenix, Honolulu and Puerto Rico keep no daylight time. A
-- ticket without a location, or at a location in another zone, gets its UTC day. New tickets store the exact day.
UPDATE `tickets` SET `opened_on` = coalesce((
  SELECT date(`tickets`.`created_at`, printf('%+d hours', z.s + CASE WHEN z.dst = 1
      AND datetime(`tickets`.`created_at`) >= datetime(date(strftime('%Y', `tickets`.`created_at`) || '-03-01', 'weekday 0', '+7 days'), printf('%+d hours', 2 - z.s))
      AND datetime(`tickets`.`created_at`) < datetime(date(strftime('%Y', `tickets`.`created_at`) || '-11-01', 'weekday 0'), printf('%+d hours', 2 - (z.s + 1)))
    THEN 1 ELSE 0 END))
  FROM (
    SELECT
      CASE l.`time_zone` WHEN 'America/New_York' THEN -5 WHEN 'America/Chicago' THEN -6 WHEN 'America/Denver' THEN -7
        WHEN 'America/Phoenix' THEN -7 WHEN 'America/Los_Angeles' THEN -8 WHEN 'America/Anchorage' THEN -9
        WHEN 'Pacific/Honolulu' THEN -10 WHEN 'America/Puerto_Rico' THEN -4 END AS s,
      CASE WHEN l.`time_zone` IN ('America/Phoenix', 'Pacific/Honolulu', 'America/Puerto_Rico') THEN 0 ELSE 1 END AS dst
    FROM `locations` l
    WHERE l.`id` = `tickets`.`location_id`
  ) z
  WHERE z.s IS NOT NULL
), substr(`tickets`.`created_at`, 1, 10))
WHERE `opened_on` IS NULL;
