-- The hourly clean-up (decision 001, 2026-11-27) deletes ended sessions by sign-in time, revoked token ids by their
-- keep-until time and two-factor challenges by creation time, in bounded steps: an index for each cut-off.
CREATE INDEX `revoked_tokens_expires_idx` ON `revoked_tokens` (`expires_at`);--> statement-breakpoint
CREATE INDEX `sessions_created_idx` ON `sessions` (`created_at`);--> statement-breakpoint
CREATE INDEX `two_factor_created_idx` ON `two_factor_challenges` (`created_at`);--> statement-breakpoint
-- Revoked token ids written before 0027 were kept until sign-in + the absolute limit of the day: now that the cron
-- deletes them, keep each a day longer, which covers the rule of 0027 (the token's own expiry, and sign-in + the
-- largest absolute limit the settings allow).
UPDATE `revoked_tokens` SET `expires_at` = strftime('%Y-%m-%dT%H:%M:%fZ', `expires_at`, '+24 hours');
