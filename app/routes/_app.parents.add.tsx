import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ParentFields } from "~/components/parent-form";
import { FormMessage } from "~/components/ui/field";
import { FormActions } from "~/components/ui/form-controls";
import { locationOptions } from "~/models/locations.server";
import { createParent, parentNeedsLocation } from "~/models/parents.server";
import { formResult, formValues, modelContextFor } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

/**
 * /parents/add: a new parent or guardian, with manage_parents. The same use case as POST /api/v2/parents
 * (audited; a location-limited user links the parent to one of their locations). On success the list
 * opens filtered to the new parent.
 */
export const meta: MetaFunction = () => [{ title: "Add parent · Baseline" }];
export const handle = { guard: "manage_parents" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_parents", "view_parents");
  const locations = await locationOptions(modelContextFor(context, actor));
  // One location to choose from: it is chosen already. "None" only for those who may save it (decision 015).
  return { locations, locationId: locations.length === 1 ? locations[0]!.id : null, locationRequired: parentNeedsLocation(actor, null) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_parents", "view_parents");
  const values = formValues(await request.formData());
  const result = await createParent(modelContextFor(context, actor), values);
  return formResult(result, values, (p) => `/parents/list?search=${encodeURIComponent(p.email)}`);
}

export default function AddParent() {
  const { locations, locationId, locationRequired } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const values = answer?.values ?? { status: "active", location_id: locationId === null ? "" : String(locationId) };
  return (
    <section className="card">
      <div className="page-head">
        <h1>Add parent</h1>
        <Link to="/parents/list">Back to parents</Link>
      </div>
      <FormMessage error={answer?.message} />
      {/* A new key after each answer so the inputs take the re-rendered values when JavaScript is on. */}
      <Form method="post" noValidate key={JSON.stringify(answer?.values ?? null)}>
        <ParentFields values={values} errors={answer?.errors ?? {}} locations={locations} locationRequired={locationRequired} />
        <FormActions>
          <button className="btn btn-primary" type="submit" disabled={busy}>
            Add parent
          </button>
        </FormActions>
      </Form>
    </section>
  );
}
