-- Decision 039 (2026-11-28, stop 40): a rate/pay record's amounts have a history. Each row holds the record's
-- amounts (integer cents) from `effective_from` until the next row's date; payroll pays each session at the
-- amounts in effect on its session date. The record keeps its current amounts (the latest row's).
-- Backfill: each existing record's amounts from 0001-01-01, before any session date, so every period's payroll
-- reads the very amounts it read before this migration (a record's created date would leave the sessions before
-- it unpriced, and so move past payroll).
CREATE TABLE `rate_record_amounts` (
	`rate_record_id` integer NOT NULL,
	`effective_from` text NOT NULL,
	`rbt_cents` integer,
	`bcba_cents` integer,
	`manager_cents` integer,
	`client_cents` integer,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`rate_record_id`, `effective_from`),
	FOREIGN KEY (`rate_record_id`) REFERENCES `rate_records`(`id`) ON UPDATE no action ON DELETE no action
);--> statement-breakpoint
INSERT INTO `rate_record_amounts` (`rate_record_id`, `effective_from`, `rbt_cents`, `bcba_cents`, `manager_cents`, `client_cents`)
SELECT `id`, '0001-01-01', CAST(round(`rbt` * 100) AS integer), CAST(round(`bcba` * 100) AS integer), CAST(round(`manager` * 100) AS integer), CAST(round(`client` * 100) AS integer)
FROM `rate_records`;
