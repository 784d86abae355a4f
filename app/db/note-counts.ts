/**
 * note_counts from scratch (decision 035): the live notes (deleted_at null) of live clients per location
 * and type — what migration 0010's triggers keep from then on. For bulk loads that bypass the triggers
 * (scripts/bench-data.ts) and for checking the counts against the notes.
 */
export const RECOUNT_NOTES_SQL = [
  "delete from note_counts",
  `insert into note_counts (location_id, type, n)
   select location_id, type, count(*) from notes
   where deleted_at is null and patient_id not in (select id from patients where deleted_at is not null)
   group by location_id, type`,
] as const;
