-- The hourly clean-up (decision 001, stop 29) deletes failed sign-ins and token refreshes out of their throttling
-- windows, in bounded steps, instead of a delete on every attempt: an index for each cut-off.
CREATE INDEX `login_failures_at_idx` ON `login_failures` (`at`);--> statement-breakpoint
CREATE INDEX `token_refreshes_at_idx` ON `token_refreshes` (`at`);