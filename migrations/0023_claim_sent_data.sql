-- A generated claim keeps the data its 837P was written from (parties, diagnoses, lines), so the claim viewer
-- shows what was sent and not today's records (an NPI or a member id edited after sending). Null for drafts and
-- for claims generated before this migration (stop 25, decision 032).
ALTER TABLE `claims` ADD `sent_data` text;
