/**
 * The trigger-kept note tables from scratch: note_counts (decision 035: the live notes (deleted_at null) of
 * live clients per location and type) and the operations reports' note_month_totals / note_day_totals
 * (decision 039, migration 0016: the same notes' number, minutes and units per location, month, provider,
 * type and CPT, and number and minutes per location and day). What the migrations' triggers keep from then on.
 * For bulk loads that bypass the triggers (scripts/bench-data.ts), migration 0016's initial fill (the same
 * statements) and for checking the tables against the notes in tests.
 */
const LIVE = "deleted_at is null and patient_id not in (select id from patients where deleted_at is not null)";

export const RECOUNT_NOTES_SQL = [
  "delete from note_counts",
  `insert into note_counts (location_id, type, n)
   select location_id, type, count(*) from notes
   where ${LIVE}
   group by location_id, type`,
  "delete from note_month_totals",
  `insert into note_month_totals (location_id, month, provider_id, type, cpt_code, n, minutes, units)
   select location_id, substr(session_date, 1, 7), coalesce(provider_id, 0), type, cpt_code, count(*), sum(minutes), sum(units) from notes
   where ${LIVE}
   group by location_id, substr(session_date, 1, 7), coalesce(provider_id, 0), type, cpt_code`,
  "delete from note_day_totals",
  `insert into note_day_totals (location_id, session_date, n, minutes)
   select location_id, session_date, count(*), sum(minutes) from notes
   where ${LIVE}
   group by location_id, session_date`,
] as const;
