-- The hourly clean-up (decision 001, 2026-11-27) deletes ended sessions by sign-in time, revoked token ids by their
-- keep-until time and two-factor challenges by creation time, in bounded steps: an index for each cut-off.
CREATE INDEX `revoked_tokens_expires_idx` ON `revoked_tokens` (`expires_at`);--> statement-breakpoint
CREATE INDEX `sessions_created_idx` ON `sessions` (`created_at`);--> statement-breakpoint
CREATE INDEX `two_factor_created_idx` ON `two_factor_challenges` (`created_at`);