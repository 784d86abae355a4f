import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { Form, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { DataList, type Column } from "~/components/ui/data-list";
import { FormMessage } from "~/components/ui/field";
import { NOTE_TYPE_LABELS, noteHref } from "~/domain/note-list";
import { addDays } from "~/domain/weeks";
import { actorToday } from "~/models/local-today.server";
import { locationOptions } from "~/models/locations.server";
import { SCRUB_MAX_DAYS } from "~/domain/scrubber";
import { scrubReport, type ScrubbedNote } from "~/models/scrubber.server";
import { modelContextFor } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Pre-billing scrubber · Baseline" }];
/** The pre-billing scrubber's report (issue 11, decision 034): manage_claims, a location and a period. */
export const handle = { guard: "manage_claims" };

const KEYS = ["location_id", "date_from", "date_to", "page"] as const;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_claims");
  const ctx = modelContextFor(context, actor);
  const url = new URL(request.url);
  const values = Object.fromEntries(KEYS.map((k) => [k, url.searchParams.get(k) ?? ""])) as Record<(typeof KEYS)[number], string>;
  // The first visit: the actor's location and the last 31 days, in the address so the page can be shared.
  if (!url.searchParams.has("location_id") && !url.searchParams.has("date_from") && !url.searchParams.has("date_to")) {
    const location = actor.locationId ?? actor.locationIds[0] ?? null;
    if (location === null) return { report: null, locations: await locationOptions(ctx), values, errors: {} as Record<string, string> };
    const today = actorToday(ctx);
    throw redirect(`/billing/scrubber?${new URLSearchParams({ location_id: String(location), date_from: addDays(today, 1 - SCRUB_MAX_DAYS), date_to: today })}`);
  }
  const raw: Record<string, string> = { location_id: values.location_id, date_from: values.date_from, date_to: values.date_to };
  if (values.page) raw.page = values.page;
  const result = await scrubReport(ctx, raw, { locationOptions: true });
  if (result.ok) return { report: result.data, locations: result.data.locations ?? [], values, errors: {} as Record<string, string> };
  // Bad filters: the form again with the typed values and each field's message.
  return { report: null, locations: await locationOptions(ctx), values, errors: result.status === 422 ? result.errors : { location_id: result.message } };
}

export default function Scrubber() {
  const { report, locations, values, errors } = useLoaderData<typeof loader>();
  const columns: Column<ScrubbedNote>[] = [
    {
      header: "Date",
      cell: (n) => (
        <Link to={noteHref(n.type, "view", n.id)} aria-label={`The ${NOTE_TYPE_LABELS[n.type]} note of ${n.client_name} on ${n.session_date}`}>
          {n.session_date}
        </Link>
      ),
    },
    { header: "Client", cell: (n) => n.client_name },
    { header: "Provider", cell: (n) => n.provider_name || (n.provider_id ? `#${n.provider_id}` : "—") },
    { header: "Type", cell: (n) => NOTE_TYPE_LABELS[n.type] },
    { header: "CPT", cell: (n) => n.cpt_code || "—" },
    { header: "Units", cell: (n) => n.units },
    {
      header: "What to fix before billing",
      className: "scrub-reasons",
      cell: (n) => (
        <ul>
          {n.reasons.map((r, i) => (
            <li key={i} data-code={r.code}>
              {r.message}
            </li>
          ))}
        </ul>
      ),
    },
  ];
  const fieldError = (name: string) =>
    errors[name] ? (
      <p id={`s-${name}-error`} className="field-error" role="alert">
        {errors[name]}
      </p>
    ) : null;
  const invalid = (name: string) => (errors[name] ? { "aria-invalid": true, "aria-errormessage": `s-${name}-error` } : {});
  const filters = (
    <Form method="get" className="search-form" role="search" aria-label="Scrub the notes of a location and period">
      <label htmlFor="s-location_id">Location</label>
      <select id="s-location_id" name="location_id" defaultValue={values.location_id} {...invalid("location_id")}>
        <option value="">Choose a location</option>
        {locations.map((l) => (
          <option key={l.id} value={l.id}>
            {l.title}
          </option>
        ))}
        {/* A location the actor cannot see stays chosen (as the calendar's filters do), with an empty report. */}
        {values.location_id && !locations.some((l) => String(l.id) === values.location_id) ? <option value={values.location_id}>{`#${values.location_id}`}</option> : null}
      </select>
      {fieldError("location_id")}
      <label htmlFor="s-date_from">From</label>
      <input id="s-date_from" type="date" name="date_from" defaultValue={values.date_from} {...invalid("date_from")} />
      {fieldError("date_from")}
      <label htmlFor="s-date_to">To</label>
      <input id="s-date_to" type="date" name="date_to" defaultValue={values.date_to} {...invalid("date_to")} />
      {fieldError("date_to")}
      <button type="submit" className="btn">
        Scrub
      </button>
    </Form>
  );

  return (
    <section className="card">
      <div className="page-head">
        <h1>Pre-billing scrubber</h1>
      </div>
      <p className="hint">
        Notes that would make a claim fail, and why. A note listed here cannot be marked billed or put on a claim until its reasons are fixed. At most {SCRUB_MAX_DAYS} days at a time.
      </p>
      {errors.page ? <FormMessage error={errors.page} /> : null}
      {report ? (
        <>
          <p>
            {`${report.location?.title ?? `#${values.location_id}`}, ${report.date_from} to ${report.date_to}: ${report.total} of ${report.scrubbed} notes need attention.`}
          </p>
          <DataList page={report} columns={columns} caption="Notes that cannot be billed yet" empty="Every note of this period can be billed." filters={filters} />
        </>
      ) : (
        filters
      )}
    </section>
  );
}
