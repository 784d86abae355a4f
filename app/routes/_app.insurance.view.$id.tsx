import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { PROVIDER_OPTIONS, twinColumns } from "~/components/insurance-form";
import { Field, FormMessage } from "~/components/ui/field";
import { SelectField } from "~/components/ui/form-controls";
import { PriceLookupQuery, providerType, serviceLocationText } from "~/domain/insurance";
import { posText } from "~/domain/locations";
import { parseWith } from "~/domain/validation";
import { findUnitPrice, getInsurance, type InsuranceServiceJson, type PriceLookup } from "~/models/insurances.server";
import { locationOptions } from "~/models/locations.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requirePermission } from "~/services/guard.server";
import { DataTable, type Column } from "~/components/ui/data-list";
import { dollarPrice, PRICE_LOOKUP_MESSAGES } from "~/domain/billing";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `${data?.insurance.name ?? "Insurance"} · Baseline` }];
export const handle = { guard: "manage_insurances" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_insurances");
  const id = Number(params.id);
  if (!Number.isSafeInteger(id) || id < 1) throw notFound("Insurance not found.");
  const ctx = modelContextFor(context, actor);
  const [insurance, locations] = await Promise.all([getInsurance(ctx, id), locationOptions(ctx)]);
  if (!insurance) throw notFound("Insurance not found.");
  const url = new URL(request.url);
  const cpt = (url.searchParams.get("cpt") ?? "").trim().slice(0, 10);
  const provider = (url.searchParams.get("provider") ?? "").trim().slice(0, 30);
  // The price billing uses: for a location and the note's modifiers when given (decision 030, probe 8933 §3).
  const typed = { location_id: url.searchParams.get("location_id") ?? "", modifiers: (url.searchParams.get("modifiers") ?? "").slice(0, 30) };
  const query = parseWith(PriceLookupQuery, typed);
  const found = cpt && query.ok ? await findUnitPrice(ctx, id, cpt, provider, query.data) : null;
  const lookup = cpt ? { cpt, provider, type: providerType(provider), ...typed, errors: query.ok ? {} : query.errors, text: lookupText(cpt, provider, query.ok ? query.data : null, found, locations) } : null;
  return { insurance, locations, lookup };
}

/** The lookup's answer in words: the price and the service (and where it applies), each location's own price, or why none. */
function lookupText(cpt: string, provider: string, query: PriceLookupQuery | null, found: PriceLookup | null, locations: { id: number; title: string }[]): string | null {
  if (!query) return null;
  if (!found) return PRICE_LOOKUP_MESSAGES.locationNotFound;
  const perLocation = found.by_location.length ? PRICE_LOOKUP_MESSAGES.perLocation(found.by_location.map((p) => ({ location: p.location, unitPrice: p.service.unit_price, code: p.service.code }))) : "";
  const s = found.service;
  if (!s) return perLocation || PRICE_LOOKUP_MESSAGES.none;
  const what = [cpt, ...query.modifiers].join(" ");
  const where = query.location_id !== null ? ` at ${serviceLocationText(query.location_id, locations)}` : "";
  const price = `Unit price for ${what}${provider ? ` (${provider})` : ""}${where}: ${dollarPrice(s.unit_price)} — service ${s.code}, ${s.type === "all" ? "all providers" : `${s.type} providers`}, ${s.location_id === null ? "all locations" : `${serviceLocationText(s.location_id, locations)} only`}.`;
  return perLocation ? `${price} ${perLocation}` : price;
}

function posList(codes: string[]): string {
  return codes.length ? codes.map(posText).join(", ") : "None";
}

function serviceColumns(locations: readonly { id: number; title: string }[]): Column<InsuranceServiceJson>[] {
  return [
  { header: "CPT", cell: (s) => s.cpt_code },
  {
    header: "Modifiers",
    cell: (s) =>
      s.modifier_details.length === 0
        ? "—"
        : s.modifier_details.map((m, i) => (
            <span key={m.code}>
              {i > 0 ? ", " : null}
              <abbr title={m.meaning}>{m.code}</abbr> ({m.meaning})
            </span>
          )),
  },
  { header: "Provider", cell: (s) => s.provider || "All" },
  { header: "Provider type", cell: (s) => s.type },
  { header: "Location", cell: (s) => serviceLocationText(s.location_id, locations) },
  { header: "Description", cell: (s) => s.description },
  { header: "Unit price", cell: (s) => dollarPrice(s.unit_price) },
  { header: "Hourly fee", cell: (s) => dollarPrice(s.hourly_fee) },
  { header: "Max per day", cell: (s) => s.max_per_day ?? "—" },
  { header: "Multiplier", cell: (s) => s.multiplier },
  ];
}

export default function ViewInsurance() {
  const { insurance, locations, lookup } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const address = [insurance.street, insurance.street2, [insurance.city, insurance.state, insurance.zip].filter(Boolean).join(" ")].filter(Boolean).join(", ");
  return (
    <>
      <section className="card">
        <div className="page-head">
          <h1>{insurance.name}</h1>
          <span>
            <Link to="/insurance/list">Back to insurance</Link>
            {" · "}
            <Link className="btn" to={`/insurance/list/edit/${insurance.id}`}>
              Edit
            </Link>
          </span>
        </div>
        <FormMessage success={params.get("flash")} />
        <dl>
          <dt>Payer ID</dt>
          <dd>{insurance.payer_id ?? "—"}</dd>
          <dt>Address</dt>
          <dd>{address || "—"}</dd>
          <dt>Uses the supervisor as provider</dt>
          <dd>{insurance.uses_supervisor_as_provider ? "Yes" : "No"}</dd>
          <dt>Uses the telehealth flag</dt>
          <dd>{insurance.uses_is_telehealth ? "Yes" : "No"}</dd>
          <dt>POS allowed to CG</dt>
          <dd>{posList(insurance.pos_allowed_to_cg)}</dd>
          <dt>POS allowed to TT</dt>
          <dd>{posList(insurance.pos_allowed_to_tt)}</dd>
          <dt>Extra POS for BCBA</dt>
          <dd>{posList(insurance.extra_pos_for_bcba)}</dd>
          <dt>Notes</dt>
          <dd>{insurance.notes ?? "—"}</dd>
        </dl>
      </section>

      <section className="card" aria-labelledby="services-title">
        <h2 id="services-title">CPT services</h2>
        <DataTable rows={insurance.services} columns={[...serviceColumns(locations), ...twinColumns(insurance.services)]} empty="No services yet." caption="CPT services" />
      </section>

      <section className="card" aria-labelledby="lookup-title">
        <h2 id="lookup-title">Price lookup</h2>
        <Form method="get" className="search-form">
          <Field label="CPT" name="cpt" required maxLength={10} defaultValue={lookup?.cpt ?? ""} />
          <SelectField label="Provider" name="provider" placeholder="Any provider" options={PROVIDER_OPTIONS} defaultValue={lookup?.provider ?? ""} />
          <SelectField label="Location" name="location_id" placeholder="All locations" options={locations.map((l) => ({ value: l.id, label: l.title }))} defaultValue={lookup?.location_id ?? ""} error={lookup?.errors.location_id} />
          <Field label="Modifiers" name="modifiers" maxLength={30} hint="Up to two, e.g. HM GT" defaultValue={lookup?.modifiers ?? ""} error={lookup?.errors.modifiers} />
          <button className="btn" type="submit">
            Look up price
          </button>
        </Form>
        {lookup?.text ? (
          <p role="status" data-testid="price-lookup">
            {lookup.text}
          </p>
        ) : null}
      </section>
    </>
  );
}
