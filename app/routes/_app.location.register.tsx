import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useActionData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { LocationForm } from "~/components/location-form";
import { FormMessage } from "~/components/ui/field";
import { createLocation } from "~/models/locations.server";
import { formResult, formValues, modelContextFor } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Register location · Baseline" }];
export const handle = { guard: "manage_locations" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_locations", "manage_locations_access");
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_locations", "manage_locations_access");
  const values = formValues(await request.formData());
  const result = await createLocation(modelContextFor(context, actor), values);
  return formResult(result, values, (l) => `/location/view/${l.id}`);
}

export default function RegisterLocation() {
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  return (
    <section className="card">
      <div className="page-head">
        <h1>Register location</h1>
        <Link to="/location/list">Back to locations</Link>
      </div>
      <FormMessage error={answer?.message} />
      {/* A new key after each answer so the inputs take the re-rendered values when JavaScript is on. */}
      <LocationForm key={JSON.stringify(answer?.values ?? null)} values={answer?.values ?? { time_zone: "America/New_York" }} errors={answer?.errors ?? {}} submitLabel="Register location" busy={busy} />
    </section>
  );
}
