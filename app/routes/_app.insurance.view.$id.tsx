import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { PROVIDER_OPTIONS } from "~/components/insurance-form";
import { Field, FormMessage } from "~/components/ui/field";
import { SelectField } from "~/components/ui/form-controls";
import { providerType } from "~/domain/insurance";
import { posLabel } from "~/domain/locations";
import { findUnitPrice, getInsurance, type InsuranceServiceJson } from "~/models/insurances.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requirePermission } from "~/services/guard.server";
import { DataTable, type Column } from "~/components/ui/data-list";
import { dollarPrice } from "~/domain/billing";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `${data?.insurance.name ?? "Insurance"} · Baseline` }];
export const handle = { guard: "manage_insurances" };

const NO_PRICE = "No price for that CPT and provider.";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_insurances");
  const id = Number(params.id);
  if (!Number.isSafeInteger(id) || id < 1) throw notFound("Insurance not found.");
  const ctx = modelContextFor(context, actor);
  const insurance = await getInsurance(ctx, id);
  if (!insurance) throw notFound("Insurance not found.");
  const url = new URL(request.url);
  const cpt = (url.searchParams.get("cpt") ?? "").trim().slice(0, 10);
  const provider = (url.searchParams.get("provider") ?? "").trim().slice(0, 30);
  const lookup = cpt ? { cpt, provider, type: providerType(provider), service: await findUnitPrice(ctx, id, cpt, provider) } : null;
  return { insurance, lookup };
}

function posList(codes: string[]): string {
  return codes.length ? codes.map((c) => `${c} ${posLabel(c)}`).join(", ") : "None";
}

const SERVICE_COLUMNS: Column<InsuranceServiceJson>[] = [
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
  { header: "Description", cell: (s) => s.description },
  { header: "Unit price", cell: (s) => dollarPrice(s.unit_price) },
  { header: "Hourly fee", cell: (s) => dollarPrice(s.hourly_fee) },
  { header: "Max per day", cell: (s) => s.max_per_day ?? "—" },
  { header: "Multiplier", cell: (s) => s.multiplier },
];

export default function ViewInsurance() {
  const { insurance, lookup } = useLoaderData<typeof loader>();
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
        <DataTable rows={insurance.services} columns={SERVICE_COLUMNS} empty="No services yet." caption="CPT services" />
      </section>

      <section className="card" aria-labelledby="lookup-title">
        <h2 id="lookup-title">Price lookup</h2>
        <Form method="get" className="search-form">
          <Field label="CPT" name="cpt" required maxLength={10} defaultValue={lookup?.cpt ?? ""} />
          <SelectField label="Provider" name="provider" placeholder="Any provider" options={PROVIDER_OPTIONS} defaultValue={lookup?.provider ?? ""} />
          <button className="btn" type="submit">
            Look up price
          </button>
        </Form>
        {lookup ? (
          <p role="status" data-testid="price-lookup">
            {lookup.service
              ? `Unit price for ${lookup.cpt}${lookup.provider ? ` (${lookup.provider})` : ""}: ${dollarPrice(lookup.service.unit_price)} — service ${lookup.service.code}, ${lookup.service.type === "all" ? "all providers" : `${lookup.service.type} providers`}.`
              : NO_PRICE}
          </p>
        ) : null}
      </section>
    </>
  );
}
