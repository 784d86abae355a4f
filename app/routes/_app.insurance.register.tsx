import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useActionData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { InsurerForm } from "~/components/insurance-form";
import { FormMessage } from "~/components/ui/field";
import { createInsurance } from "~/models/insurances.server";
import { formResult, formValues, modelContextFor } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Register insurance · Baseline" }];
export const handle = { guard: "manage_insurances" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_insurances");
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_insurances");
  const values = formValues(await request.formData());
  const result = await createInsurance(modelContextFor(context, actor), values);
  // Services are added on the edit screen, so a new insurer lands there.
  return formResult(result, values, (i) => `/insurance/list/edit/${i.id}`);
}

export default function RegisterInsurance() {
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  return (
    <section className="card">
      <div className="page-head">
        <h1>Register insurance</h1>
        <Link to="/insurance/list">Back to insurance</Link>
      </div>
      <FormMessage error={answer?.message} />
      {/* A new key after each answer so the inputs take the re-rendered values when JavaScript is on. */}
      <InsurerForm key={JSON.stringify(answer?.values ?? null)} intent="save" values={answer?.values ?? {}} errors={answer?.errors ?? {}} submitLabel="Register insurance" busy={busy} />
    </section>
  );
}
