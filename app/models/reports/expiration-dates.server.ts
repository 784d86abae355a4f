import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { locations, userLocations, users } from "~/db/schema";
import { EXPIRY_WITHIN_DAYS, type ExpirationFilters, type ExpirationRow } from "~/domain/report-defs/expiration-dates";
import { COMPLIANCE_KEYS } from "~/domain/employees";
import { locationScope } from "~/domain/permissions";
import { windowed, type ReportRunner } from "~/services/report-screens.server";
import { actorTodayText, readAtLocalToday, type LocalToday } from "../local-today.server";
import { inLocationScope } from "../scope.server";

/**
 * expiration-dates' reads (decision 038): each location entry of each live employee in the actor's locations
 * (user_locations_location_idx), its compliance map expanded with json_each, one row per known compliance
 * item that has a date, filtered by state in SQL with the same boundaries as `expiryState`, on today at the
 * entry's location (app/models/local-today.server.ts, decision 038 stop 32). Staff records
 * only: not audited as a client read.
 */

export const runExpirationDatesReport: ReportRunner<ExpirationFilters, ExpirationRow> = async (rc, q) => {
  const f = q.filters;
  const scope = locationScope(rc.actor);
  const item = sql`je.key`;
  const date = sql`substr(je.value, 1, 10)`;
  const state = (t: LocalToday): Record<ExpirationFilters["state"], SQL | undefined> => {
    const today = t.at(locations.timeZone);
    const soon = t.at(locations.timeZone, EXPIRY_WITHIN_DAYS);
    return {
      attention: sql`${date} <= ${soon}`,
      expired: sql`${date} < ${today}`,
      within_30: sql`${date} between ${today} and ${soon}`,
      ok: sql`${date} > ${soon}`,
      all: undefined,
    };
  };
  const keys = sql.join(
    COMPLIANCE_KEYS.map((k) => sql`${k}`),
    sql`, `
  );
  const where = (t: LocalToday) =>
    and(
      isNull(users.deletedAt),
      inLocationScope(userLocations.locationId, scope),
      f.location_id === null ? undefined : eq(userLocations.locationId, f.location_id),
      f.user_id === null ? undefined : eq(userLocations.userId, f.user_id),
      sql`json_valid(${userLocations.compliance})`,
      sql`je.type = 'text' and je.value glob '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'`,
      sql`${item} in (${keys})`,
      state(t)[f.state]
    );
  const from = (t: LocalToday) =>
    rc.db
      .select({
        user_id: userLocations.userId,
        employee: sql<string>`trim(${users.name} || ' ' || ${users.surname})`.as("employee"),
        location: sql<string>`${locations.title}`.as("location"),
        item: sql<string>`${item}`.as("item"),
        date: sql<string>`${date}`.as("date"),
        days_left: sql<number>`cast(julianday(${date}) - julianday(${t.at(locations.timeZone)}) as integer)`.mapWith(Number).as("days_left"),
      })
      .from(userLocations)
      .innerJoin(users, eq(users.id, userLocations.userId))
      .innerJoin(locations, eq(locations.id, userLocations.locationId))
      .innerJoin(sql`json_each(${userLocations.compliance}) je`, sql`1 = 1`)
      .where(where(t));
  const {
    results: [rows],
  } = await readAtLocalToday(rc, (t) => [from(t).orderBy(sql`date`, sql`employee`, sql`item`).limit(q.limit).offset(q.offset)]);
  return {
    ...windowed(
      rows.map((r) => ({ ...r, days_left: Number(r.days_left) })),
      q,
    ),
    patientIds: [],
    notes: [`Today is the date at each employee's location (it is ${actorTodayText(rc)}).`],
  };
};
