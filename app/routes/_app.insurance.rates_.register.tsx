import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { RateRecordForm, rateRecordInput } from "~/components/rate-record-form";
import { FormMessage } from "~/components/ui/field";
import { locationOptions } from "~/models/locations.server";
import { createRateRecord } from "~/models/rate-records.server";
import { formResult, formValues, modelContextFor } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Register rate record · Baseline" }];
export const handle = { guard: "manage_insurances" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_insurances");
  return { locations: await locationOptions(modelContextFor(context, actor)) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_insurances");
  const values = formValues(await request.formData());
  return formResult(await createRateRecord(modelContextFor(context, actor), rateRecordInput(values)), values, () => "/insurance/rates");
}

export default function RegisterRateRecord() {
  const { locations } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  // A single location is chosen for the user.
  const values = answer?.values ?? (locations.length === 1 ? { location_id: String(locations[0]!.id) } : {});
  return (
    <section className="card">
      <div className="page-head">
        <h1>Register rate record</h1>
        <Link to="/insurance/rates">Back to rate records</Link>
      </div>
      <FormMessage error={answer?.message} />
      {/* A new key after each answer so the inputs take the re-rendered values when JavaScript is on. */}
      <RateRecordForm key={JSON.stringify(values)} values={values} errors={answer?.errors ?? {}} locations={locations} submitLabel="Register rate record" busy={busy} />
    </section>
  );
}
