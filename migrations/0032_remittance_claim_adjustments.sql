-- An 835's claim-level adjustments (CAS right after CLP), one row per adjustment, by remittance and claim. They are the
-- claim's, not any line's (005010X221A1: the lines' payments less the claim's own CAS are its payment, CLP04), so a
-- claim's paid and adjusted totals count them and the remittance page shows them (stop 33, decision 033, probe 8961 #2).
CREATE TABLE `remittance_claim_adjustments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`remittance_id` integer NOT NULL,
	`claim_id` integer NOT NULL,
	`adjustment_group` text NOT NULL,
	`reason` text NOT NULL,
	`amount_cents` integer NOT NULL,
	FOREIGN KEY (`remittance_id`) REFERENCES `remittances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`claim_id`) REFERENCES `claims`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `remittance_claim_adjustments_remittance_idx` ON `remittance_claim_adjustments` (`remittance_id`);--> statement-breakpoint
CREATE INDEX `remittance_claim_adjustments_claim_idx` ON `remittance_claim_adjustments` (`claim_id`);