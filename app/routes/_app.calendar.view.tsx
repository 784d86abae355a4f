import { data, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { noteHref } from "~/domain/note-list";
import { todayIn } from "~/domain/note-rules";
import type { NoteType } from "~/domain/notes";
import { CalendarQuery, calendarGrid, WEEKDAY_SHORT, type CalendarView } from "~/domain/schedule";
import { parseWith } from "~/domain/validation";
import { calendarRange, type CalendarEntry } from "~/models/schedule.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Calendar · Baseline" }];
/**
 * The calendar (issue 12, decision 037; platform §2 calendar/view, view_notes): month, week and day grids of
 * written notes and scheduled sessions of the actor's locations, server-rendered, each at its location's
 * local time. Filters are a GET form; previous / next / today are links that keep them.
 */
export const handle = { guard: "view_notes" };

const KEYS = ["view", "date", "location_id", "provider_id", "patient_id"] as const;
type Values = Record<(typeof KEYS)[number], string>;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_notes");
  const ctx = modelContextFor(context, actor);
  const url = new URL(request.url);
  const values = Object.fromEntries(KEYS.map((k) => [k, (url.searchParams.get(k) ?? "").slice(0, 40)])) as Values;
  const today = todayIn(ctx.now(), actor.timeZone ?? "UTC");
  const parsed = parseWith(CalendarQuery, values);
  const errors = parsed.ok ? {} : parsed.errors;
  const q: CalendarQuery = parsed.ok ? parsed.data : { view: "", date: "", location_id: "", provider_id: "", patient_id: "" };
  const view: CalendarView = q.view || "week";
  const grid = calendarGrid(view, q.date || today);
  // At most this many sessions per date in a cell; the rest are counted and linked to the day view.
  const perDay = view === "month" ? 4 : view === "week" ? 30 : 500;
  const result = await calendarRange(ctx, { from: grid.from, to: grid.to, location_id: q.location_id, provider_id: q.provider_id, patient_id: q.patient_id }, perDay);
  if (!result.ok) throw notFound(result.message);
  const answer = {
    values,
    errors,
    view,
    today,
    grid,
    entries: result.data.entries,
    dayTotals: result.data.day_totals,
    truncated: result.data.truncated && view === "day",
    locations: result.data.locations,
    flash: url.searchParams.get("flash"),
  };
  // Bad filters: the grid of today (or the valid ones) with each field's message, answered 400.
  return data(answer, { status: parsed.ok ? 200 : 400 });
}

function hrefWith(values: Values, change: Partial<Values>): string {
  const merged = { ...values, ...change };
  const p = new URLSearchParams();
  for (const k of KEYS) if (merged[k]) p.set(k, merged[k]);
  return `/calendar/view?${p}`;
}

function entryHref(e: CalendarEntry): string {
  return e.kind === "note" ? noteHref(e.note_type as NoteType, "view", e.id) : `/calendar/session/${e.id}`;
}

function Entry({ e, detailed, zones }: { e: CalendarEntry; detailed: boolean; zones: boolean }) {
  const time = e.time_in ? `${e.time_in}${e.time_out ? `–${e.time_out}` : ""}` : "";
  const label = e.kind === "note" ? `${(e.note_type ?? "").toUpperCase()} note` : "Scheduled";
  // The link's name is its text (a screen reader hears the kind and date first, from hidden text). A plain link:
  // the screen is server-rendered without a client router, and up to 210 entries a week render per request.
  return (
    <li className={`cal-entry cal-${e.kind}`}>
      <a href={entryHref(e)}>
        <span className="visually-hidden">{`${label} on ${e.date}, `}</span>
        <span className="cal-time">{time}</span> <span className="cal-client">{e.patient_name}</span>
        {detailed ? (
          <span className="cal-meta">{` · ${e.provider_name} · CPT ${e.cpt_code} · ${label}${zones ? ` · ${e.time_zone}` : ""}`}</span>
        ) : (
          <span className="visually-hidden">{` with ${e.provider_name}`}</span>
        )}
      </a>
    </li>
  );
}

export default function Calendar() {
  const { values, errors, view, today, grid, entries, dayTotals, truncated, locations, flash } = useLoaderData<typeof loader>();
  const byDate = new Map<string, CalendarEntry[]>();
  for (const e of entries) byDate.set(e.date, [...(byDate.get(e.date) ?? []), e]);
  const zones = new Set(entries.map((e) => e.time_zone)).size > 1 || new Set(locations.map((l) => l.time_zone)).size > 1;
  const providers = new Map<number, string>();
  const clients = new Map<number, string>();
  for (const e of entries) {
    providers.set(e.provider_id, e.provider_name);
    clients.set(e.patient_id, e.patient_name);
  }
  const keep = (name: string, map: Map<number, string>) => {
    const id = Number(values[name as keyof Values]);
    if (id && !map.has(id)) map.set(id, `#${id}`);
    return [...map].map(([value, label]) => ({ value, label })).sort((a, b) => a.label.localeCompare(b.label));
  };
  const fieldError = (name: string) =>
    errors[name] ? (
      <p id={`c-${name}-error`} className="field-error" role="alert">
        {errors[name]}
      </p>
    ) : null;
  return (
    <section className="card calendar">
      <div className="page-head">
        <h1>Calendar</h1>
        <Link className="btn btn-primary" to={`/calendar/schedule${values.patient_id ? `?patient_id=${values.patient_id}` : ""}`}>
          Schedule a session
        </Link>
      </div>
      <FormMessage success={flash} />
      <Form method="get" className="search-form" role="search" aria-label="Calendar filters">
        <label htmlFor="c-view">View</label>
        <select id="c-view" name="view" defaultValue={view}>
          <option value="month">Month</option>
          <option value="week">Week</option>
          <option value="day">Day</option>
        </select>
        {fieldError("view")}
        <label htmlFor="c-date">Date</label>
        <input id="c-date" type="date" name="date" defaultValue={values.date || grid.date} aria-invalid={errors.date ? true : undefined} aria-errormessage={errors.date ? "c-date-error" : undefined} />
        {fieldError("date")}
        <label htmlFor="c-location_id">Location</label>
        <select id="c-location_id" name="location_id" defaultValue={values.location_id}>
          <option value="">All my locations</option>
          {locations.map((l) => (
            <option key={l.id} value={l.id}>
              {l.title} ({l.time_zone})
            </option>
          ))}
        </select>
        {fieldError("location_id")}
        <label htmlFor="c-provider_id">Provider</label>
        <select id="c-provider_id" name="provider_id" defaultValue={values.provider_id}>
          <option value="">All providers</option>
          {keep("provider_id", providers).map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
        {fieldError("provider_id")}
        <label htmlFor="c-patient_id">Client</label>
        <select id="c-patient_id" name="patient_id" defaultValue={values.patient_id}>
          <option value="">All clients</option>
          {keep("patient_id", clients).map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
        {fieldError("patient_id")}
        <button type="submit" className="btn">
          Show
        </button>
        <Link className="btn" to="/calendar/view">
          Reset
        </Link>
      </Form>
      <nav className="cal-nav" aria-label="Calendar pages">
        <Link className="btn" to={hrefWith(values, { date: grid.prev, view })} rel="prev">
          ‹ Previous
        </Link>
        <Link className="btn" to={hrefWith(values, { date: today, view })}>
          Today
        </Link>
        <Link className="btn" to={hrefWith(values, { date: grid.next, view })} rel="next">
          Next ›
        </Link>
        <h2 className="cal-title">{grid.title}</h2>
      </nav>
      <p className="hint">Times are the local time of each session's location{zones ? " (its time zone is shown beside each session)" : ""}.</p>
      {truncated ? <FormMessage error="More sessions on this day than a page shows: choose a location, provider or client." /> : null}
      <table className={`cal-grid cal-${view}`}>
        <caption className="visually-hidden">{grid.title}</caption>
        {view !== "day" ? (
          <thead>
            <tr>
              {WEEKDAY_SHORT.map((d) => (
                <th key={d} scope="col">
                  {d}
                </th>
              ))}
            </tr>
          </thead>
        ) : null}
        <tbody>
          {grid.weeks.map((week) => (
            <tr key={week[0]}>
              {week.map((date) => {
                const list = byDate.get(date) ?? [];
                const more = (dayTotals[date] ?? 0) - list.length;
                const outside = grid.month !== null && !date.startsWith(grid.month);
                return (
                  <td key={date} className={[outside ? "cal-outside" : "", date === today ? "cal-today" : ""].filter(Boolean).join(" ") || undefined}>
                    <Link className="cal-day" to={hrefWith(values, { view: "day", date })}>
                      <span className="visually-hidden">Day view of </span>
                      {view === "month" ? (
                        <>
                          <span className="visually-hidden">{date}</span>
                          <span aria-hidden="true">{Number(date.slice(8, 10))}</span>
                        </>
                      ) : (
                        date
                      )}
                    </Link>
                    {list.length ? (
                      <ul className="cal-entries">
                        {list.map((e) => (
                          <Entry key={`${e.kind}-${e.id}`} e={e} detailed={view !== "month"} zones={zones} />
                        ))}
                        {more > 0 && view !== "day" ? (
                          <li>
                            <Link to={hrefWith(values, { view: "day", date })}>{`+${more} more`}</Link>
                          </li>
                        ) : null}
                      </ul>
                    ) : view === "day" ? (
                      <p className="hint">No sessions.</p>
                    ) : null}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
