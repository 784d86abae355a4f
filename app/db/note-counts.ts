/**
 * The trigger-kept note tables from scratch, counting the live notes (deleted_at null) of live clients (and, in
 * note_month_totals' and note_day_totals' all_ columns, every live note whatever became of its client):
 * note_counts per location and type (decision 035, migration 0010); for the operations reports (decision 039,
 * migration 0015) note_month_totals per location, month, provider and CPT code, note_month_client_totals per
 * location, month, client and type (with the pending, billed and paid counts of the billing list, migration 0019), and note_day_totals per location and day; for location-cpt (migration 0016)
 * note_day_cpt_totals per location, day and price inputs. The migrations' triggers keep
 * them from then on. Used by bulk loads that bypass the triggers (scripts/bench-data.ts), as migration 0015's
 * initial fill (the same statements) and by the tests that hold the tables against the notes.
 */
const LIVE_CLIENT = "patient_id not in (select id from patients where deleted_at is not null)";
const LIVE = `deleted_at is null and ${LIVE_CLIENT}`;

export const RECOUNT_NOTES_SQL = [
  "delete from note_counts",
  `insert into note_counts (location_id, type, n)
   select location_id, type, count(*) from notes
   where ${LIVE}
   group by location_id, type`,
  "delete from note_month_totals",
  // all_n, all_minutes, all_units: every live note, whatever became of its client (migration 0030).
  `insert into note_month_totals (location_id, month, provider_id, type, cpt_code, n, minutes, units, all_n, all_minutes, all_units)
   select location_id, substr(session_date, 1, 7), coalesce(provider_id, 0), type, cpt_code,
     sum(${LIVE_CLIENT}), sum((${LIVE_CLIENT}) * minutes), sum((${LIVE_CLIENT}) * units), count(*), sum(minutes), sum(units) from notes
   where deleted_at is null
   group by location_id, substr(session_date, 1, 7), coalesce(provider_id, 0), type, cpt_code`,
  "delete from note_month_client_totals",
  `insert into note_month_client_totals (location_id, month, patient_id, type, n, minutes, units, pending, billed, paid)
   select location_id, substr(session_date, 1, 7), patient_id, type, count(*), sum(minutes), sum(units), sum(status = 'pending'), sum(billed), sum(paid) from notes
   where ${LIVE}
   group by location_id, substr(session_date, 1, 7), patient_id, type`,
  "delete from note_day_cpt_totals",
  // The payer (PA service's insurer, else the client's) is looked up per note here; the triggers of migration 0016
  // move the sums when either insurer changes.
  `insert into note_day_cpt_totals (location_id, session_date, cpt_code, type, md, md2, unit_price_cents, payer_id, n, minutes, units)
   select o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0),
     coalesce(pa.insurance_id, p.insurer_id, 0), count(*), sum(o.minutes), sum(o.units)
   from notes o left join patients p on p.id = o.patient_id left join pa_services pa on pa.id = o.pa_service_id
   where o.deleted_at is null and p.deleted_at is null
   group by o.location_id, o.session_date, o.cpt_code, o.type, coalesce(o.md, ''), coalesce(o.md2, ''), coalesce(o.unit_price_cents, 0),
     coalesce(pa.insurance_id, p.insurer_id, 0)`,
  "delete from note_day_totals",
  `insert into note_day_totals (location_id, session_date, n, minutes, all_n, all_minutes)
   select location_id, session_date, sum(${LIVE_CLIENT}), sum((${LIVE_CLIENT}) * minutes), count(*), sum(minutes) from notes
   where deleted_at is null
   group by location_id, session_date`,
] as const;
