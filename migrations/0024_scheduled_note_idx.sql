-- A scheduled session found by the note written for it: deleting the note gives the session back even after the
-- note's date was edited (decision 037, stop 25).
CREATE INDEX `scheduled_note_idx` ON `scheduled_sessions` (`note_id`) WHERE "scheduled_sessions"."note_id" is not null;
