import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { useActorTimeZone } from "~/components/shell/actor-time-zone";
import { localDate } from "~/domain/time";
import { actionsColumn, DataList, FILTERS_REFUSED_TEXT, type Column } from "~/components/ui/data-list";
import { FormMessage } from "~/components/ui/field";
import { ErrorText } from "~/components/ui/form-controls";
import { DateRangeFilter, FilterButtons, FilterSelect, unshownFilterError } from "~/components/ui/list";
import { money } from "~/domain/billing";
import { CLAIM_STATUSES, STATUS_LABELS } from "~/domain/claims";
import { buildClaims, claimsScreen, generateClaims, parsePickFilters } from "~/models/claims.server";
import { formResult, formValues, listQueryFrom, modelContextFor, type FormAnswer } from "~/services/forms.server";
import { notFound, requirePermission } from "~/services/guard.server";
import { randomToken } from "~/services/crypto.server";

export const meta: MetaFunction = () => [{ title: "Claims · Baseline" }];
/** Claims (platform §2 claims; decision 032): the list, and building claims from billed notes. */
export const handle = { guard: "manage_claims" };

/** The list filters the filter form shows (a refused one shows its error beside it). */
const SHOWN_FILTERS = ["status", "location_id", "date_from", "date_to"];
const FILTERS = ["status", "location_id", "patient_id", "insurer_id", "date_from", "date_to", "pick", "b_location_id", "b_patient_id", "b_from", "b_to"] as const;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_claims");
  const { query, queryError, params } = listQueryFrom(request, FILTERS);
  const ctx = modelContextFor(context, actor);
  // The build form's notes only once the person asked for them (by location, client, period).
  const picked = params.pick ? parsePickFilters({ location_id: params.b_location_id ?? "", patient_id: params.b_patient_id ?? "", from: params.b_from ?? "", to: params.b_to ?? "" }) : null;
  const pickFilters = picked?.ok ? picked.data : null;
  let result = await claimsScreen(ctx, query, params, pickFilters, true);
  // Refused list filters (To before From, a date that is not real): each error beside its field, the typed values
  // kept (the URL's) and no claim listed, as the billing screens do (decision 030, probe 8901).
  let filterErrors: Record<string, string> | null = null;
  if (!result.ok && result.status === 422) {
    filterErrors = result.errors;
    result = await claimsScreen(ctx, query, {}, pickFilters, true, false);
  }
  if (!result.ok) throw notFound(result.message);
  const { page, locations } = result.data;
  // Each refused build filter is shown at its field, by the field's name (b_patient_id, b_from …; probe 8981 §8).
  const pick = picked ? { notes: result.data.pick ?? [], errors: picked.ok ? {} : Object.fromEntries(Object.entries(picked.errors).map(([k, message]) => [`b_${k}`, message])) } : null;
  // The build form's one-time token per load: a resend of it answers the claims the first build made (decision 032).
  return { page, locations, pick, queryError, filterErrors, formToken: randomToken(18) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_claims");
  const form = await request.formData();
  const values = formValues(form);
  const ctx = modelContextFor(context, actor);
  const ids = form.getAll("note_ids").map(String);
  switch (values.intent) {
    case "build":
      return formResult(await buildClaims(ctx, { note_ids: ids.length ? ids : [] }, { formToken: typeof values.form_token === "string" ? values.form_token : null }), values, (built) => (built.length === 1 ? `/claims/edit-viewer/${built[0]!.id}` : "/claims?status=draft"));
    case "generate": {
      const claimIds = form.getAll("claim_ids").map(String);
      return formResult(await generateClaims(ctx, { claim_ids: claimIds }), values, (file) => (file.claims.length === 1 ? `/claims/edit-viewer/${file.claims[0]!.id}` : "/claims?status=generated"));
    }
    default:
      return formResult({ ok: false, status: 422, message: "Unknown action.", errors: { intent: "Unknown action." } }, values, () => "/claims");
  }
}

export default function Claims() {
  const { page, locations, pick, queryError, filterErrors, formToken } = useLoaderData<typeof loader>();
  const timeZone = useActorTimeZone();
  const errors = filterErrors ?? {};
  const answer = useActionData<FormAnswer>();
  const [params] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  type Row = (typeof page.data)[number];
  const columns: Column<Row>[] = [
    {
      header: "Select",
      cell: (c) =>
        // A draft, or a generated claim whose unsent file holds a voided claim (decision 032, stop 33).
        c.status === "draft" || c.regenerable ? <input type="checkbox" name="claim_ids" value={c.id} form="generate-form" aria-label={`Select ${c.regenerable ? "generated" : "draft"} claim ${c.claim_number} to generate${c.regenerable ? " again" : ""}`} /> : null,
    },
    { header: "Claim", cell: (c) => c.claim_number },
    { header: "Status", cell: (c) => <span className={`badge badge-${c.status}`}>{STATUS_LABELS[c.status]}</span> },
    { header: "Client", cell: (c) => c.patient_name },
    { header: "Location", cell: (c) => c.location },
    { header: "Provider", cell: (c) => c.provider_name || "—" },
    { header: "Payer", cell: (c) => c.payer || "—" },
    { header: "Total", cell: (c) => money(c.total_cents) },
    // A draft voided before any file was written has nothing left to fix.
    { header: "Problems", cell: (c) => (c.errors && !(c.status === "rejected" && !c.file_id) ? `${c.errors} to fix` : "—") },
    { header: "Created", cell: (c) => localDate(c.created_at, timeZone) },
    actionsColumn((c) => [
      <Link key="view" to={`/claims/edit-viewer/${c.id}`} aria-label={`Open claim ${c.claim_number}`}>
        Open
      </Link>,
      // Not a file that also holds claims of locations the actor does not manage (decision 032, stop 33).
      c.file_id && !c.file_other_locations ? (
        <a key="dl" href={`/claims/edit-viewer/${c.id}/download`} aria-label={`Download the 837P of claim ${c.claim_number}`}>
          837P
        </a>
      ) : null,
    ]),
  ];
  const picked = new Set([answer?.values.note_ids ?? []].flat().map(String));
  const pickErrors: Record<string, string> = pick?.errors ?? {};
  return (
    <section className="card">
      <div className="page-head">
        <h1>Claims</h1>
        {/* The payer's answers (decision 033): the remittances and the 835 import, under the same manage_claims. */}
        <span>
          {/* The scrubber's report (decision 034), under the same manage_claims. */}
          <Link to="/billing/scrubber">Pre-billing check</Link> <Link to="/claims/remittances">Remittances</Link>{" "}
          <Link className="btn" to="/claims/remittances/import">
            Import an 835
          </Link>
        </span>
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError ?? unshownFilterError(filterErrors, SHOWN_FILTERS) ?? (answer && !answer.errors.note_ids ? answer.message : null)} />
      <DataList
        page={page}
        columns={columns}
        caption="Claims"
        empty={filterErrors ? FILTERS_REFUSED_TEXT : undefined}
        filters={
          <Form method="get" className="search-form" role="search" aria-label="Filter claims">
            <FilterSelect visible name="status" label="Status" any="Any" options={CLAIM_STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s] }))} error={errors.status} />
            <FilterSelect visible name="location_id" label="Location" any="All" options={locations.map((l) => ({ value: l.id, label: l.title }))} error={errors.location_id} />
            <DateRangeFilter errors={errors} />
            <FilterButtons reset="/claims" />
          </Form>
        }
      />
      <Form method="post" id="generate-form">
        <input type="hidden" name="intent" value="generate" />
        <button type="submit" className="btn" disabled={busy}>
          Generate one 837P for the selected claims
        </button>
      </Form>

      <h2>Build claims from billed notes</h2>
      <Form method="get" className="search-form" aria-label="Choose billed notes">
        <input type="hidden" name="pick" value="1" />
        <FilterSelect visible name="b_location_id" label="Location" any="All" options={locations.map((l) => ({ value: l.id, label: l.title }))} error={pickErrors.b_location_id} />
        <label htmlFor="f-b_patient_id">Client id</label>
        <input
          id="f-b_patient_id"
          name="b_patient_id"
          inputMode="numeric"
          defaultValue={params.get("b_patient_id") ?? ""}
          aria-invalid={pickErrors.b_patient_id ? true : undefined}
          aria-errormessage={pickErrors.b_patient_id ? "f-b_patient_id-error" : undefined}
        />
        <ErrorText id="f-b_patient_id" error={pickErrors.b_patient_id} />
        <DateRangeFilter names={["b_from", "b_to"]} errors={pickErrors} />
        <button type="submit" className="btn">
          Show billed notes
        </button>
      </Form>
      {pick ? (
        <Form method="post" aria-label="Build claims">
          <input type="hidden" name="intent" value="build" />
          <input type="hidden" name="form_token" value={typeof answer?.values.form_token === "string" && answer.values.form_token ? answer.values.form_token : formToken} />
          <FormMessage error={answer?.errors.note_ids ?? null} />
          {Object.keys(pickErrors).length ? (
            <p>No billed notes are shown until the build filters marked above are corrected.</p>
          ) : pick.notes.length === 0 ? (
            <p>No billed notes waiting for a claim here.</p>
          ) : (
            <fieldset>
              <legend>Billed notes not on a claim ({pick.notes.length})</legend>
              {pick.notes.map((n) => (
                <div key={n.id}>
                  <label>
                    {/* A note the scrubber refuses cannot be claimed (decision 034): not offered, its reasons shown. */}
                    <input
                      type="checkbox"
                      name="note_ids"
                      value={n.id}
                      disabled={n.reasons.length > 0}
                      aria-describedby={n.reasons.length ? `pick-reasons-${n.id}` : undefined}
                      defaultChecked={n.reasons.length === 0 && (picked.size === 0 || picked.has(String(n.id)))}
                    />{" "}
                    {n.session_date} · {n.patient_name} · {n.type.toUpperCase()} {n.cpt_code} · {n.units} units
                    {n.md ? ` · ${[n.md, n.md2].filter(Boolean).join(", ")}` : ""} · {n.provider_name || "no provider"} (note {n.id})
                  </label>
                  {n.reasons.length ? (
                    <p className="field-error" id={`pick-reasons-${n.id}`}>
                      Cannot be claimed: {n.reasons.join(" ")}
                    </p>
                  ) : null}
                </div>
              ))}
            </fieldset>
          )}
          <button type="submit" className="btn btn-primary" disabled={busy || pick.notes.length === 0}>
            {busy ? "Building…" : "Build claims"}
          </button>
        </Form>
      ) : null}
    </section>
  );
}
