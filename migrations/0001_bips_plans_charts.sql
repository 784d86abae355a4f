CREATE TABLE `chart_comments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`plan_id` integer NOT NULL,
	`comment_date` text NOT NULL,
	`comment` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`plan_id`) REFERENCES `plans`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `chart_comments_plan_date_idx` ON `chart_comments` (`plan_id`,`comment_date`);--> statement-breakpoint
CREATE TABLE `intake_assessments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`patient_id` integer NOT NULL,
	`bip_id` integer,
	`person_responding` text,
	`observation_date` text,
	`current_insurance` text,
	`additional_insurance` text,
	`impairs_other_services_without_rbt` integer DEFAULT false NOT NULL,
	`document` text DEFAULT '{}' NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`bip_id`) REFERENCES `bips`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `intake_assessments_patient_idx` ON `intake_assessments` (`patient_id`);--> statement-breakpoint
CREATE TABLE `objectives` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`plan_id` integer NOT NULL,
	`type` text DEFAULT 'STO' NOT NULL,
	`status` text DEFAULT 'not started' NOT NULL,
	`name` text,
	`description` text,
	`target` real,
	`start_point` real,
	`initial_date` text,
	`end_date` text,
	`weeks_to_complete` integer,
	`comparison_operator` text,
	`position` integer DEFAULT 1 NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`plan_id`) REFERENCES `plans`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `objectives_plan_idx` ON `objectives` (`plan_id`,`position`);--> statement-breakpoint
CREATE TABLE `plans` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`bip_id` integer NOT NULL,
	`patient_id` integer NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`category` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`current_progress` text,
	`baseline_level` real,
	`baseline_date` text,
	`baseline_timeframe` text,
	`initial_intensity` text,
	`current_intensity` text,
	`intensity_key` text,
	`timeframe` text,
	`unit_type` text,
	`position` integer DEFAULT 1 NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`bip_id`) REFERENCES `bips`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `plans_bip_category_idx` ON `plans` (`bip_id`,`category`,`position`);--> statement-breakpoint
CREATE INDEX `plans_patient_idx` ON `plans` (`patient_id`);--> statement-breakpoint
CREATE TABLE `weekly_reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`plan_id` integer NOT NULL,
	`week_start` text NOT NULL,
	`week_end` text NOT NULL,
	`value` real NOT NULL,
	`total_units` real,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`plan_id`) REFERENCES `plans`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `weekly_reports_plan_week_unique` ON `weekly_reports` (`plan_id`,`week_end`);--> statement-breakpoint
ALTER TABLE `bips` ADD `document` text DEFAULT '{}' NOT NULL;