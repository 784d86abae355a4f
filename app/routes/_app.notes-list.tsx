import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { Form, useLoaderData, useSearchParams } from "@remix-run/react";
import { ASSET_URLS } from "~/assets";
import { Link } from "~/components/ui/link";
import { useActorTimeZone } from "~/components/shell/actor-time-zone";
import { localDate } from "~/domain/time";
import { actionsColumn, DataList, type Column } from "~/components/ui/data-list";
import { DateRangeFilter, FilterButtons, FilterSelect } from "~/components/ui/list";
import { FormMessage } from "~/components/ui/field";
import { NOTE_FILTER_KEYS, NOTE_TYPE_LABELS, noteHref, noteListAddress, noteTimesText } from "~/domain/note-list";
import { NOTE_STATUSES, NOTE_TYPES } from "~/domain/notes";
import { can } from "~/domain/permissions";
import { listNoteItems } from "~/models/notes.server";
import { listQueryFrom, modelContextFor } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Notes · Baseline" }];
/** The sidebar's Notes entry (platform §2): every note in the actor's locations, RBT, BCBA and combined. */
export const handle = { guard: "view_notes" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_notes");
  // Empty filter values are left out of the query (clinical §5) and of the address: a GET form sends
  // them without JavaScript, so the first answer is a redirect to the same list without them.
  const url = new URL(request.url);
  const clean = noteListAddress(url.searchParams);
  if (clean !== `${url.pathname}${url.search}`) throw redirect(clean);

  const { query, queryError, params } = listQueryFrom(request, NOTE_FILTER_KEYS);
  const filters = Object.fromEntries(NOTE_FILTER_KEYS.filter((k) => k in params).map((k) => [k, params[k]]));
  const ctx = modelContextFor(context, actor);
  let result = await listNoteItems(ctx, query, filters);
  let filterError: string | null = null;
  // The filters refused: the list is then read without any (no chip may say otherwise). A filter given twice is
  // left out of `params` by listQueryFrom.
  let refused: string[] = NOTE_FILTER_KEYS.filter((k) => url.searchParams.has(k) && !(k in params));
  if (!result.ok) {
    // A hand-edited filter that does not parse: its message, and the list without the filters.
    filterError = result.message;
    refused = "errors" in result ? Object.keys(result.errors) : ["filters"];
    result = await listNoteItems(ctx, query, {});
  }
  const page = result.ok ? result.data : { data: [], total: 0, page: query.page, per_page: query.per_page, last_page: 1 };
  return { page, actorId: actor.id, canManage: can(actor, "manage_notes"), queryError: queryError ?? filterError, refused };
}

const TYPE_OPTIONS = NOTE_TYPES.map((t) => ({ value: t, label: NOTE_TYPE_LABELS[t] }));

export default function NotesList() {
  const { page, actorId, canManage, queryError, refused } = useLoaderData<typeof loader>();
  const timeZone = useActorTimeZone();
  const [params] = useSearchParams();
  type Row = (typeof page.data)[number];
  // A refused filter is not kept by the search form; a chip names a filter only when the list was read with it.
  const patientId = refused.includes("patient_id") ? null : params.get("patient_id");
  const providerId = refused.includes("provider_id") ? null : params.get("provider_id");
  const filtered = refused.length === 0;
  const chosenClient = filtered && patientId ? page.data.find((n) => String(n.patient_id) === patientId)?.patient_name ?? `client #${patientId}` : null;
  const chosenProvider = filtered && providerId ? page.data.find((n) => String(n.provider_id) === providerId)?.provider_name || `provider #${providerId}` : null;
  /** This list's address with one filter set (or removed), the others kept, back on the first page. */
  const withFilter = (key: string, value: string | null) => {
    const next = new URLSearchParams(params);
    next.delete("page");
    if (value === null) next.delete(key);
    else next.set(key, value);
    return noteListAddress(next);
  };
  const columns: Column<Row>[] = [
    { header: "Date", cell: (n) => n.session_date },
    {
      header: "Client",
      cell: (n) => (
        <Link to={withFilter("patient_id", String(n.patient_id))} aria-label={`Only the notes of the client ${n.patient_name}`}>
          {n.patient_name}
        </Link>
      ),
    },
    {
      header: "Provider",
      cell: (n) =>
        n.provider_id ? (
          <Link to={withFilter("provider_id", String(n.provider_id))} aria-label={`Only the notes written by ${n.provider_name || `provider #${n.provider_id}`}`}>
            {n.provider_name || `#${n.provider_id}`}
          </Link>
        ) : (
          "—"
        ),
    },
    { header: "Type", cell: (n) => NOTE_TYPE_LABELS[n.type] },
    { header: "CPT", cell: (n) => n.cpt_code || "—" },
    { header: "Times", cell: (n) => noteTimesText(n) || "—" },
    { header: "Units", cell: (n) => n.total_units },
    { header: "Status", cell: (n) => <span className={`badge badge-${n.status}`}>{n.status}</span> },
    { header: "Signed", cell: (n) => (n.signed_at ? n.provider_signed_on ?? localDate(n.signed_at, timeZone) : "—") },
    actionsColumn((n) => [
      <Link key="view" to={noteHref(n.type, "view", n.id)} aria-label={`View the note of ${n.patient_name} on ${n.session_date}`}>
        View
      </Link>,
      canManage || n.provider_id === actorId ? (
        <Link key="edit" to={noteHref(n.type, "edit", n.id)} aria-label={`${n.signed_at ? "Amend" : "Edit"} the note of ${n.patient_name} on ${n.session_date}`}>
          {n.signed_at ? "Amend" : "Edit"}
        </Link>
      ) : null,
      <a key="pdf" href={noteHref(n.type, "pdf", n.id)} target="_blank" rel="noopener" aria-label={`PDF of the note of ${n.patient_name} on ${n.session_date} (opens in a new tab)`}>
        PDF
      </a>,
    ]),
  ];

  return (
    <section className="card">
      <div className="page-head">
        <h1>Notes</h1>
        {/* data-prefetch: the note form's module, fetched by enhance.js after this page loads (JavaScript on only),
            so on a slow connection the form opened from here needs no round trip of its own for it. A prefetch
            outlives the navigation to the client chooser, where the chooser's module preload would be cut off
            (decision 035). */}
        <span data-prefetch={ASSET_URLS.noteFormJs}>
          <Link to={withFilter("provider_id", String(actorId))}>My notes</Link>{" "}
          <Link className="btn btn-primary" to="/note-rbt">
            New RBT note
          </Link>{" "}
          <Link className="btn" to="/note-bcba">
            New BCBA note
          </Link>
        </span>
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError} />
      <DataList
        page={page}
        columns={columns}
        caption="Session notes"
        filters={
          <>
            <Form method="get" className="search-form" role="search" aria-label="Filter notes">
              {patientId ? <input type="hidden" name="patient_id" value={patientId} /> : null}
              {providerId ? <input type="hidden" name="provider_id" value={providerId} /> : null}
              <label htmlFor="f-search">Client or provider</label>
              <input id="f-search" type="search" name="search" defaultValue={params.get("search") ?? ""} placeholder="Name or CPT" />
              <FilterSelect visible name="type" label="Type" any="All" options={TYPE_OPTIONS} />
              <FilterSelect visible name="status" label="Status" any="Any" options={NOTE_STATUSES.map((s) => ({ value: s, label: s }))} />
              <DateRangeFilter />
              <FilterButtons reset="/notes-list" />
            </Form>
            {chosenClient || chosenProvider ? (
              <p className="filters-chosen">
                {chosenClient ? (
                  <>
                    Client: <strong>{chosenClient}</strong> <Link to={withFilter("patient_id", null)}>Show every client</Link>{" "}
                  </>
                ) : null}
                {chosenProvider ? (
                  <>
                    Provider: <strong>{chosenProvider}</strong> <Link to={withFilter("provider_id", null)}>Show every provider</Link>
                  </>
                ) : null}
              </p>
            ) : null}
          </>
        }
      />
    </section>
  );
}
