import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ConfirmDelete } from "~/components/goals/objectives-table";
import { RateRecordForm, rateRecordFormValues, rateRecordInput, RATE_RECORD_LABELS } from "~/components/rate-record-form";
import { FormMessage } from "~/components/ui/field";
import { StaleNotice } from "~/components/ui/stale-notice";
import { locationOptions } from "~/models/locations.server";
import { deleteRateRecord, getRateRecord, getRateRecordWithHistory, updateRateRecord, type RateAmountsJson, type RateRecordJson } from "~/models/rate-records.server";
import { ScrollTable } from "~/components/ui/scroll-table";
import { money } from "~/domain/billing";
import { FROM_THE_START } from "~/domain/rates";
import { formResult, formValues, formVersion, modelContextFor, requireDeleteConfirmed, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { DELETE_CONFIRMED } from "~/domain/validation";
import { notFound, requireId, requirePermission } from "~/services/guard.server";

/** Edit a rate/pay record (versioned: a stale save shows the current values) and delete it after a confirm step. */

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Edit ${data?.record.name ?? "rate record"} · Baseline` }];
export const handle = { guard: "manage_insurances" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_insurances");
  const ctx = modelContextFor(context, actor);
  const found = await getRateRecordWithHistory(ctx, requireId(params.id, "Rate record"));
  if (!found) throw notFound("Rate record not found.");
  return { record: found.record, history: found.history, locations: await locationOptions(ctx) };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_insurances");
  const id = requireId(params.id, "Rate record");
  const ctx = modelContextFor(context, actor);
  const values = formValues(await request.formData());
  switch (values.intent) {
    case "save":
      return formResult(await withFormVersion(values.version, (version) => updateRateRecord(ctx, id, rateRecordInput(values), { partial: false, version })), values, (r) => `/insurance/rates/edit/${r.id}`);
    case "delete":
      // Only from the confirm step (its form sends DELETE_CONFIRMED); otherwise that step.
      requireDeleteConfirmed(values, `/insurance/rates/edit/${id}?confirm=delete`);
      return formResult(await deleteRateRecord(ctx, id), values, () => "/insurance/rates");
    default:
      if (!(await getRateRecord(ctx, id))) throw notFound("Rate record not found.");
      return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  }
}

export default function EditRateRecord() {
  const { record, history, locations } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const [params] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  // After a stale save the form shows what is stored now, with its version, so saving again is deliberate.
  const current = answer?.values.intent === "save" ? ((answer.current ?? null) as RateRecordJson | null) : null;
  const typed = answer?.values.intent === "save" && !current ? answer.values : null;
  const values = current ? rateRecordFormValues(current) : (typed ?? rateRecordFormValues(record));
  const version = current ? current.version : typed ? (formVersion(typed.version) ?? record.version) : record.version;
  const here = `/insurance/rates/edit/${record.id}`;
  return (
    <>
      <section className="card">
        <div className="page-head">
          <h1>Edit rate record</h1>
          <Link to="/insurance/rates">Back to rate records</Link>
        </div>
        <FormMessage success={answer ? null : params.get("flash")} />
        {current ? (
          <StaleNotice message={answer!.message} version={current.version} unsaved={answer!.values} hidden={["intent", "version"]} stored={values} labels={RATE_RECORD_LABELS} />
        ) : (
          <FormMessage error={answer?.message} />
        )}
        <RateRecordForm
          key={JSON.stringify([values, version])}
          values={values}
          errors={typed ? answer!.errors : {}}
          version={version}
          locations={locations}
          submitLabel="Save changes"
          busy={busy}
        />
      </section>
      <AmountsHistory history={history} />
      <section className="card danger-zone" aria-labelledby="delete-rate-record">
        <h2 id="delete-rate-record">Delete rate record</h2>
        {params.get("confirm") === "delete" ? (
          <ConfirmDelete question={`Are you sure you want to delete the rate record “${record.name}”?`} intent="delete" fields={DELETE_CONFIRMED} cancelTo={here} busy={busy} />
        ) : (
          <>
            <p>Deleting {record.name} removes it from the rate records list.</p>
            <Link className="btn btn-danger" to="?confirm=delete">
              Delete rate record…
            </Link>
          </>
        )}
      </section>
    </>
  );
}

/** The record's amounts over time, newest first (decision 039, stop 40): payroll pays each session at the row in effect on its date. */
function AmountsHistory({ history }: { history: RateAmountsJson[] }) {
  const amount = (n: number | null) => (n === null ? "—" : money(Math.round(n * 100)));
  return (
    <section className="card" aria-labelledby="rate-amounts-history">
      <h2 id="rate-amounts-history">Amounts history</h2>
      {history.length ? (
        <ScrollTable caption="Amounts by the date they apply from">
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">RBT</th>
              <th scope="col">BCBA</th>
              <th scope="col">Manager</th>
              <th scope="col">Client</th>
            </tr>
          </thead>
          <tbody>
            {history.map((h) => (
              <tr key={h.effective_from}>
                <td>{h.effective_from === FROM_THE_START ? "The start" : h.effective_from}</td>
                <td className="num">{amount(h.rbt)}</td>
                <td className="num">{amount(h.bcba)}</td>
                <td className="num">{amount(h.manager)}</td>
                <td className="num">{amount(h.client)}</td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      ) : (
        <p>No amounts recorded.</p>
      )}
    </section>
  );
}
