import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ClaimAdjustments, RemittanceLines } from "~/components/billing/remittance-report";
import { FormMessage } from "~/components/ui/field";
import { money } from "~/domain/billing";
import { getRemittance } from "~/models/remittances.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";

/**
 * One remittance (decision 033): per claim of the actor's locations, what the payer paid, adjusted (CARC/RARC
 * with their meaning) or denied. manage_claims; a remittance of no claim in the actor's locations answers 404.
 * The read names clients and is recorded (one audit row) before it is answered.
 */
export const meta: MetaFunction = () => [{ title: "Remittance · Baseline" }];
export const handle = { guard: "manage_claims" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor, auditTail } = await requirePermission(request, context, "manage_claims");
  const id = requireId(params.id, "Remittance");
  const remittance = await getRemittance(modelContextFor(context, actor), id, auditTail);
  if (!remittance) throw notFound("Remittance not found.");
  return { remittance };
}

const CLAIM_STATUS: Record<string, string> = { draft: "Draft", generated: "Generated", sent: "Sent", accepted: "Accepted", rejected: "Rejected" };

export default function RemittanceView() {
  const { remittance: r } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const t = r.totals;
  return (
    <section className="card">
      <div className="page-head">
        <h1>
          Remittance {r.trace_number}
        </h1>
        <span>
          <Link to="/claims/remittances">Remittances</Link> <Link to="/claims">Claims</Link>
        </span>
      </div>
      <FormMessage success={params.get("flash")} />
      <dl className="details">
        <dt>Payer</dt>
        <dd>{r.payer_name || "—"}</dd>
        <dt>Trace number</dt>
        <dd>{r.trace_number}</dd>
        <dt>Payment date</dt>
        <dd>{r.payment_date ?? "—"}</dd>
        <dt>Payment</dt>
        <dd>{money(r.total_paid_cents)}</dd>
        <dt>File</dt>
        <dd>{r.file_name}</dd>
        <dt>Service lines</dt>
        <dd>
          {t.lines}: {t.paid} paid, {t.partial} partly paid, {t.patient ? `${t.patient} patient responsibility, ` : ""}{t.denied} denied — charged {money(t.charge_cents)}, paid {money(t.paid_cents)}, adjusted {money(t.adjusted_cents)}
        </dd>
      </dl>
      {r.claims.map((c) => (
        <section key={c.claim_id} aria-labelledby={`claim-${c.claim_id}`}>
          <h2 id={`claim-${c.claim_id}`}>
            Claim {c.claim_number} · {c.patient_name} · {CLAIM_STATUS[c.claim_status] ?? c.claim_status}
          </h2>
          <p>
            Charged {money(c.charge_cents)}, paid {money(c.paid_cents)}, adjusted {money(c.adjusted_cents)}.
          </p>
          <ClaimAdjustments adjustments={c.adjustments} />
          <RemittanceLines lines={c.lines} caption={`Service lines of claim ${c.claim_number}`} />
        </section>
      ))}
    </section>
  );
}
