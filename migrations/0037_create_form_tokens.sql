-- Decision 024 (2026-11-28, stop 39): more creates carry a one-time token (a form's form_token, or the API's
-- Idempotency-Key): PA services, consent drafts, clients and ticket responses. A resend answers what the first made.
ALTER TABLE `client_consents` ADD `form_token` text;--> statement-breakpoint
CREATE UNIQUE INDEX `client_consents_form_token_unique` ON `client_consents` (`form_token`) WHERE "client_consents"."form_token" is not null;--> statement-breakpoint
ALTER TABLE `pa_services` ADD `form_token` text;--> statement-breakpoint
CREATE UNIQUE INDEX `pa_services_form_token_unique` ON `pa_services` (`form_token`) WHERE "pa_services"."form_token" is not null;--> statement-breakpoint
ALTER TABLE `patients` ADD `form_token` text;--> statement-breakpoint
CREATE UNIQUE INDEX `patients_form_token_unique` ON `patients` (`form_token`) WHERE "patients"."form_token" is not null;--> statement-breakpoint
ALTER TABLE `ticket_responses` ADD `form_token` text;--> statement-breakpoint
CREATE UNIQUE INDEX `ticket_responses_form_token_unique` ON `ticket_responses` (`form_token`) WHERE "ticket_responses"."form_token" is not null;