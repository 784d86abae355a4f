import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Adjustments, LINE_STATUS_TEXT } from "~/components/billing/remittance-report";
import { Link } from "~/components/ui/link";
import { useActorTimeZone } from "~/components/shell/actor-time-zone";
import { localDateTime } from "~/domain/time";
import { DataTable, type Column } from "~/components/ui/data-list";
import { FormMessage } from "~/components/ui/field";
import { money, unitPriceText } from "~/domain/billing";
import { CLAIM_MESSAGES, claimsNamed, STATUS_LABELS, TRANSITIONS } from "~/domain/claims";
import { posText } from "~/domain/locations";
import { RELATED_CAUSE_LABELS } from "~/domain/x12-837p";
import { generateClaims, getClaim, removeClaimLine, sendClaim, setClaimStatus } from "~/models/claims.server";
import { formResult, formValues, modelContextFor, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Claim ${data?.claim.claim_number ?? ""} · Baseline` }];
/** A claim (platform §2 claims/edit-viewer): its data, lines, validation errors, the readable 837P, actions. */
export const handle = { guard: "manage_claims" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_claims");
  const id = requireId(params.id, "Claim");
  const claim = await getClaim(modelContextFor(context, actor), id);
  if (!claim) throw notFound("Claim not found.");
  return { claim };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_claims");
  const id = requireId(params.id, "Claim");
  const values = formValues(await request.formData());
  const ctx = modelContextFor(context, actor);
  const here = `/claims/edit-viewer/${id}`;
  switch (values.intent) {
    case "generate":
      return formResult(await generateClaims(ctx, { claim_ids: [id] }), values, () => here);
    case "send":
      return formResult(await sendClaim(ctx, id), values, () => here);
    case "status":
      return formResult(await setClaimStatus(ctx, id, { status: values.status, version: values.version }), values, () => here);
    case "remove-line": {
      const lineId = requireId(String(values.line_id ?? ""), "Claim line");
      return formResult(await withFormVersion(values.version, (version) => removeClaimLine(ctx, id, lineId, version)), values, () => here);
    }
    default:
      return formResult({ ok: false, status: 422, message: "Unknown action.", errors: { intent: "Unknown action." } }, values, () => here);
  }
}

/** A kept refusal (field `notes.<id>`) named by the line that carries its note: "Line 2 (97153 on 2026-10-05): …". */
function refusalText(e: { field: string; message: string }, lines: readonly { line_number: number; cpt_code: string; service_date: string; note_ids: number[] }[]): string {
  const noteId = Number(e.field.slice("notes.".length));
  const line = lines.find((l) => l.note_ids.includes(noteId));
  return `${line ? `Line ${line.line_number} (${line.cpt_code} on ${line.service_date}), note ${noteId}` : `Note ${noteId}`}: ${e.message}`;
}

export default function ClaimViewer() {
  const { claim: c } = useLoaderData<typeof loader>();
  const timeZone = useActorTimeZone();
  const answer = useActionData<FormAnswer>();
  const [params] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  const d = c.data;
  type Line = (typeof c.lines)[number];
  const lineColumns: Column<Line>[] = [
    { header: "Line", cell: (l) => l.line_number },
    { header: "Date of service", cell: (l) => l.service_date },
    { header: "CPT", cell: (l) => l.cpt_code },
    { header: "Modifiers", cell: (l) => l.modifiers || "—" },
    { header: "Units", cell: (l) => l.units },
    { header: "Unit price", cell: (l) => unitPriceText(l.unit_price_cents, l.multiplier) },
    { header: "Charge", cell: (l) => money(l.charge_cents) },
    { header: "POS", cell: (l) => posText(l.pos) },
    { header: "Authorization", cell: (l) => l.pa_number || "—" },
    // SV107: the line's own diagnosis first, by its number in Diagnoses above (decision 032, stop 31).
    { header: "Diagnosis pointers", cell: (l) => l.diagnosis_pointers.map((p) => `${p} (${c.diagnosis_codes[p - 1]})`).join(", ") || "—" },
    { header: "Notes", cell: (l) => l.note_ids.map((n) => `#${n}`).join(", ") },
  ];
  // Once a remittance answered the claim: what it recorded per line (decision 033), the latest remittance's.
  const answered = c.remittances.length > 0;
  if (answered)
    lineColumns.push(
      { header: "Paid", cell: (l) => money(l.paid_cents) },
      { header: "Payment status", cell: (l) => (l.status === "open" ? "Not answered yet" : <span className={`line-status line-status-${l.status}`}>{LINE_STATUS_TEXT[l.status as keyof typeof LINE_STATUS_TEXT]}</span>) },
      { header: "Adjustments and remarks", cell: (l) => <Adjustments adjustments={l.adjustments} remarks={l.remarks} /> },
    );
  // A draft of several lines: each line can be taken off it (its notes become build candidates again).
  if (c.status === "draft" && c.lines.length > 1)
    lineColumns.push({
      header: "Remove",
      cell: (l) => (
        <Form method="post" className="inline-form">
          <input type="hidden" name="intent" value="remove-line" />
          <input type="hidden" name="line_id" value={l.id} />
          <input type="hidden" name="version" value={c.version} />
          <button className="btn" type="submit" disabled={busy} aria-label={`Remove line ${l.line_number} (${l.cpt_code} on ${l.service_date}) from this draft`}>
            Remove from draft
          </button>
        </Form>
      ),
    });
  type Segment = (typeof c.readable)[number];
  const segmentColumns: Column<Segment>[] = [
    { header: "Loop", cell: (s) => s.loop },
    {
      header: "Segment",
      cell: (s) => (
        <>
          <code>{s.id}</code> {s.label}
        </>
      ),
    },
    { header: "Values", cell: (s) => s.parts.map((p) => `${p.name}: ${p.value}`).join(" · ") },
  ];
  // A draft voided (rejected) before it was generated has no file: nothing was written or sent, and the problems its
  // build found no longer need fixing.
  const voidedUngenerated = c.status === "rejected" && !c.file;
  const problems = c.status === "draft" ? c.current_errors : voidedUngenerated ? [] : c.errors;
  const answerErrors = answer ? Object.values(answer.errors) : [];
  // Its file also holds claims of locations the actor does not manage: neither downloaded nor sent by them (decision 032, stop 33).
  const hiddenMates = c.file?.other_locations ?? 0;
  const sendable = c.status === "generated" && !c.regenerable;
  const rows: [string, string][] = [
    ["Status", STATUS_LABELS[c.status]],
    ["Client", `${d.patient ? `${d.patient.firstName} ${d.patient.lastName}` : `${d.subscriber.firstName} ${d.subscriber.lastName}`}`],
    ["Subscriber", `${d.subscriber.firstName} ${d.subscriber.lastName}${d.subscriber.selfSubscriber ? " (self)" : ""} · member id ${d.subscriber.memberId ?? "—"}${d.subscriber.groupNumber ? ` · group ${d.subscriber.groupNumber}` : ""}`],
    ["Payer", `${d.payer.name || "—"} (payer id ${d.payer.payerId ?? "—"})`],
    ["Billing provider", `${d.billingProvider.name} · NPI ${d.billingProvider.npi ?? "—"} · tax id ${d.billingProvider.taxId ?? "—"}`],
    ["Rendering provider", `${`${d.renderingProvider.firstName} ${d.renderingProvider.lastName}`.trim() || "—"} · NPI ${d.renderingProvider.npi ?? "—"}`],
    ...(d.referringProvider ? ([["Referring provider", `${`${d.referringProvider.firstName} ${d.referringProvider.lastName}`.trim() || "—"} · NPI ${d.referringProvider.npi ?? "—"}`]] as [string, string][]) : []),
    ...(d.relatedCauses?.length ? ([["Related to", d.relatedCauses.map((cause) => RELATED_CAUSE_LABELS[cause]).join(", ")]] as [string, string][]) : []),
    ["Diagnoses", c.diagnosis_codes.map((code, i) => `${i + 1} ${code}`).join(", ") || "—"],
    ["Total", money(c.total_cents)],
    ...(answered ? ([["Paid", `${money(c.paid_cents)} · adjusted ${money(c.adjusted_cents)}`]] as [string, string][]) : []),
    ["File", c.file ? `${c.file.file_name} (set ${c.set_control})${c.file.sent_at ? ` · sent ${localDateTime(c.file.sent_at, timeZone)} via ${c.file.sender}` : ""}` : "not generated"],
  ];
  return (
    <section className="card">
      <div className="page-head">
        <h1>Claim {c.claim_number}</h1>
        <Link to="/claims">All claims</Link>
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={answer ? [answer.message, ...answerErrors.filter((e) => e !== answer.message)].join(" ") : null} />
      <dl className="details">
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      {c.status === "draft" ? null : (
        <p className="hint">
          {voidedUngenerated
            ? "Voided before any 837P file was generated: nothing was written or sent for this claim. The client, payer and providers above are today's records."
            : c.data_source === "sent"
              ? "As sent in the 837P: later changes to the client, payer or providers do not change this claim."
              : "From today's records: this claim was generated before the viewer kept what was sent. The file below is what was sent."}
        </p>
      )}
      {problems.length ? (
        <div role="alert" className="form-message error">
          <h2>To fix before the 837P can be written</h2>
          <ul>
            {problems.map((e, i) => (
              <li key={i}>{e.message}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {c.regenerable ? (
        <p className="hint">
          Its 837P {c.file?.file_name} was not sent and holds {c.file?.voided_claims.length ? claimsNamed(c.file.voided_claims, 0) : "a claim of another location"}, voided (rejected) after the file was generated, so that file is never sent. Generate a new 837P for this claim: the new file leaves the voided claim out.
        </p>
      ) : null}
      {hiddenMates ? <p className="hint">{CLAIM_MESSAGES.fileOfOtherLocations(c.file!.file_name, hiddenMates, sendable ? "download or send" : "download")}</p> : null}
      {c.kept_refusals.length ? (
        <div role="alert" className="form-message error">
          <h2>Notes refused when the 837P was last generated</h2>
          <p>Generate 837P checks them again. Fix each note, or take its line off the draft.</p>
          <ul>
            {c.kept_refusals.map((e, i) => (
              <li key={i}>{refusalText(e, c.lines)}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="form-actions">
        {c.status === "draft" || c.regenerable ? (
          <Form method="post">
            <input type="hidden" name="intent" value="generate" />
            <button className="btn btn-primary" type="submit" disabled={busy}>
              {c.regenerable ? "Generate a new 837P" : "Generate 837P"}
            </button>
          </Form>
        ) : null}
        {sendable && !hiddenMates ? (
          <Form method="post">
            <input type="hidden" name="intent" value="send" />
            <button className="btn btn-primary" type="submit" disabled={busy}>
              Send
            </button>
          </Form>
        ) : null}
        {c.file && !hiddenMates ? (
          <a className="btn" href={`/claims/edit-viewer/${c.id}/download`}>
            Download 837P
          </a>
        ) : null}
        {TRANSITIONS[c.status]
          .filter((s) => s === "accepted" || s === "rejected")
          .map((s) => (
            <Form method="post" key={s}>
              <input type="hidden" name="intent" value="status" />
              <input type="hidden" name="status" value={s} />
              <input type="hidden" name="version" value={c.version} />
              <button className="btn" type="submit" disabled={busy}>
                {s === "accepted" ? "Mark accepted" : c.status === "sent" ? "Mark rejected" : "Void (reject)"}
              </button>
            </Form>
          ))}
      </div>
      <h2>Service lines</h2>
      {c.status === "draft" ? <p className="hint">A draft's prices are the ones it was built with. Generating its 837P prices it again from the payer's services as they are then (what the billing screen shows), and the file, these lines and the total say those prices.</p> : null}
      {c.status === "draft" ? (
        <p className="hint">
          {c.lines.length > 1
            ? "Remove from draft takes a line off this claim: its notes go back to the billed notes you can build into a claim, and the other lines stay as they are (the total and diagnoses follow). Nothing is sent until the 837P is generated."
            : "This draft has one line. To take it off, void the claim (reject): its notes can then be built into another claim."}
        </p>
      ) : null}
      <DataTable rows={c.lines} columns={lineColumns} caption="Service lines" />
      {c.lines.some((l) => l.note_ids.length > 1) ? (
        <p className="hint">
          A line that bills several notes is charged once for its units (units × unit price × multiplier, rounded once), as a payer reprices it. Each note's billing row is rounded on its own, so the rows of such a line may add up to a cent or so more or less than its charge, and the claim's total than theirs.
        </p>
      ) : null}
      {answered ? (
        <>
          <h2>Remittances</h2>
          <ul>
            {c.remittances.map((r) => (
              <li key={r.id}>
                <Link to={`/claims/remittances/${r.id}`}>
                  {r.payment_date ?? "No payment date"} · {r.payer_name || "Payer"} · trace {r.trace_number}
                </Link>{" "}
                — paid {money(r.paid_cents)} on {r.lines === 1 ? "1 line" : `${r.lines} lines`} of this claim
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h2>837P, segment by segment</h2>
      {c.readable.length === 0 ? (
        <p>{voidedUngenerated ? "No 837P was written: the claim was voided before it was generated." : "The 837P is written when the claim is generated."}</p>
      ) : (
        <DataTable rows={c.readable} columns={segmentColumns} rowKey={(s) => c.readable.indexOf(s)} caption="The claim's transaction set in its interchange" />
      )}
    </section>
  );
}
