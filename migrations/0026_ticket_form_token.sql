-- The new-ticket form's one-time token (decision 036, stop 26; the note forms' form_token, decision 024): a resend of
-- the same form load opens one ticket. Null for API creates and tickets opened before it (a unique index allows many nulls).
ALTER TABLE `tickets` ADD `form_token` text;--> statement-breakpoint
CREATE UNIQUE INDEX `tickets_form_token_unique` ON `tickets` (`form_token`);