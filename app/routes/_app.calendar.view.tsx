import { data, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { flashParts } from "~/domain/flash";
import { NOTE_TYPE_LABELS, noteHref } from "~/domain/note-list";
import { todayIn } from "~/domain/note-rules";
import type { NoteType } from "~/domain/notes";
import { CalendarQuery, calendarGrid, calendarTodayWindow, entryTimes, WEEKDAY_SHORT, type CalendarView } from "~/domain/schedule";
import { parseWith } from "~/domain/validation";
import { zonePlace } from "~/domain/time";
import { calendarRange, type CalendarEntry } from "~/models/schedule.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requirePermission } from "~/services/guard.server";

/** The title names the grid shown: "November 2026 · Calendar (month) · Baseline". */
export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data ? `${data.grid.title} · Calendar (${data.view}) · Baseline` : "Calendar · Baseline" }];
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
  const parsed = parseWith(CalendarQuery, values);
  const errors = parsed.ok ? {} : parsed.errors;
  const q: CalendarQuery = parsed.ok ? parsed.data : { view: "", date: "", location_id: "", provider_id: "", patient_id: "" };
  const view: CalendarView = q.view || "week";
  // "Today" (the default grid, the Today link, the highlighted date) is today at the chosen location, in its
  // time zone; with no location chosen, at the viewer's own. The one rule for a location's today: todayIn.
  const now = ctx.now();
  const viewerZone = actor.timeZone ?? "UTC";
  // The chosen location's zone comes with the range's batch (a location not in scope is not among the visible
  // ones: the viewer's zone, and the range shows nothing, decision 017).
  const zoneOf = (visible: { id: number; time_zone: string }[]) => (q.location_id !== "" ? visible.find((l) => l.id === q.location_id)?.time_zone : undefined) ?? viewerZone;
  // With no date asked for, the grid is the location's today: the batch reads the dates that hold today's grid in
  // any zone and keeps that one's (no read of the zone before the range).
  const atLocationToday = q.location_id !== "" && !q.date;
  const locationGrid = (visible: { id: number; time_zone: string }[]) => calendarGrid(view, todayIn(now, zoneOf(visible)));
  const asked = atLocationToday ? null : calendarGrid(view, q.date || todayIn(now, viewerZone));
  const read = asked ?? calendarTodayWindow(view, now);
  // At most this many sessions per date in a cell; the rest are counted and linked to the day view.
  const perDay = view === "month" ? 4 : view === "week" ? 30 : 500;
  const result = await calendarRange(ctx, { from: read.from, to: read.to, location_id: q.location_id, provider_id: q.provider_id, patient_id: q.patient_id }, perDay, asked ? undefined : locationGrid);
  if (!result.ok) throw notFound(result.message);
  const entries = result.data.entries;
  const locations = result.data.locations;
  const grid = asked ?? locationGrid(locations);
  const today = todayIn(now, zoneOf(locations));
  // A time zone beside each session when the sessions or the actor's locations are in more than one.
  const zones = new Set(entries.map((e) => e.time_zone)).size > 1 || new Set(locations.map((l) => l.time_zone)).size > 1;
  const answer = {
    values,
    errors,
    view,
    today,
    grid,
    zones,
    cells: cellsOf(entries, view !== "month", zones),
    dayTotals: result.data.day_totals,
    truncated: result.data.truncated && view === "day",
    locations,
    providers: optionsOf(entries, (e) => [e.provider_id, e.provider_name], values.provider_id),
    clients: optionsOf(entries, (e) => [e.patient_id, e.patient_name], values.patient_id),
    flash: flashParts(url.searchParams.get("flash")),
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

/**
 * One session as its cell shows it, its text composed once here: the screen does not hydrate, yet its loader
 * data is serialised on every request (decision 042), so an entry carries only what it shows (up to 210 a week).
 * `lead` is hidden text (the kind and date, heard first), `tail` the provider, CPT, kind and zone (visible when
 * detailed, else only " with" the provider, hidden).
 */
interface CellEntry {
  kind: CalendarEntry["kind"];
  href: string;
  lead: string;
  time: string;
  client: string;
  tail: string;
  /** The month grid names each entry's zone beside its time when the shown locations span several zones (decision 037). */
  zone: string | null;
  /** The month grid's visible note type before the time ("RBT", "BCBA", "Combined"), as every list labels it (NOTE_TYPE_LABELS). */
  type: string | null;
}

function cellsOf(entries: readonly CalendarEntry[], detailed: boolean, zones: boolean): Record<string, CellEntry[]> {
  const cells: Record<string, CellEntry[]> = {};
  for (const e of entries) {
    const type = e.kind === "note" ? (NOTE_TYPE_LABELS[e.note_type as NoteType] ?? e.note_type ?? "") : null;
    const label = type !== null ? `${type} note` : "Scheduled";
    const entry: CellEntry = {
      kind: e.kind,
      href: entryHref(e),
      lead: `${label} on ${e.date}, `,
      time: entryTimes(e),
      client: e.patient_name,
      tail: detailed ? ` · ${e.provider_name} · CPT ${e.cpt_code} · ${label}${zones ? ` · ${e.time_zone}` : ""}` : ` with ${e.provider_name}`,
      zone: !detailed && zones ? zonePlace(e.time_zone) : null,
      type: detailed ? null : type,
    };
    (cells[e.date] ??= []).push(entry);
  }
  return cells;
}

/** A filter's choices: the providers or clients of the shown sessions, by name; a chosen one not among them stays as "#id". */
function optionsOf(entries: readonly CalendarEntry[], pick: (e: CalendarEntry) => [number, string], chosen: string): { value: number; label: string }[] {
  const map = new Map<number, string>();
  for (const e of entries) {
    const [id, name] = pick(e);
    map.set(id, name);
  }
  const id = Number(chosen);
  if (id && !map.has(id)) map.set(id, `#${id}`);
  return [...map].map(([value, label]) => ({ value, label })).sort((a, b) => a.label.localeCompare(b.label));
}

function Entry({ e, detailed }: { e: CellEntry; detailed: boolean }) {
  // The link's name is its text (a screen reader hears the kind and date first, from hidden text). A plain link:
  // the screen is server-rendered without a client router, and up to 210 entries a week render per request.
  return (
    <li className={`cal-entry cal-${e.kind}`}>
      <a href={e.href}>
        <span className="visually-hidden">{e.lead}</span>
        {/* Heard in the lead already; shown for sighted users, so the type is not told by colour alone. */}
        {e.type ? <span className="cal-type" aria-hidden="true">{`${e.type} `}</span> : null}
        <span className="cal-time">{e.time}</span>
        {e.zone ? <span className="cal-zone">{` (${e.zone})`}</span> : null}
        {` ${e.client}`}
        <span className={detailed ? "cal-meta" : "visually-hidden"}>{e.tail}</span>
      </a>
    </li>
  );
}

export default function Calendar() {
  const { values, errors, view, today, grid, zones, cells, dayTotals, truncated, locations, providers, clients, flash } = useLoaderData<typeof loader>();
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
      <FormMessage success={flash.success} warning={flash.warning} />
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
          {providers.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
        {fieldError("provider_id")}
        <label htmlFor="c-patient_id">Client</label>
        <select id="c-patient_id" name="patient_id" defaultValue={values.patient_id}>
          <option value="">All clients</option>
          {clients.map((o) => (
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
      {view === "month" ? (
        // A month entry is short: a note shows its type before the time ("RBT 09:00–10:00"), a scheduled session none,
        // and the key names each chip's look, so the kind is told by text and border as well as colour (WCAG 1.4.1).
        <ul className="cal-legend" aria-label="Key">
          <li className="cal-entry cal-note">
            <span>Written note (its type first: RBT, BCBA or Combined)</span>
          </li>
          <li className="cal-entry cal-scheduled">
            <span>Scheduled session (dashed border)</span>
          </li>
        </ul>
      ) : null}
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
                const list = cells[date] ?? [];
                const more = (dayTotals[date] ?? 0) - list.length;
                const outside = grid.month !== null && !date.startsWith(grid.month);
                return (
                  <td key={date} className={[outside ? "cal-outside" : "", date === today ? "cal-today" : ""].filter(Boolean).join(" ") || undefined}>
                    <a className="cal-day" href={hrefWith(values, { view: "day", date })}>
                      <span className="visually-hidden">Day view of </span>
                      {view === "month" ? (
                        <>
                          <span className="visually-hidden">{date}</span>
                          <span aria-hidden="true">{Number(date.slice(8, 10))}</span>
                        </>
                      ) : (
                        date
                      )}
                    </a>
                    {list.length ? (
                      <ul className="cal-entries">
                        {list.map((e) => (
                          <Entry key={e.href} e={e} detailed={view !== "month"} />
                        ))}
                        {more > 0 && view !== "day" ? (
                          <li>
                            <a href={hrefWith(values, { view: "day", date })}>{`+${more} more`}</a>
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
