import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ConfirmDelete } from "~/components/goals/objectives-table";
import { AvatarForm } from "~/components/avatar-form";
import { LocationForm, locationFormValues } from "~/components/location-form";
import { FormMessage } from "~/components/ui/field";
import { StaleNotice } from "~/components/ui/stale-notice";
import { DELETE_CONFIRMED } from "~/domain/validation";
import { removeLocationAvatar, setLocationAvatar } from "~/models/avatars.server";
import { deleteLocation, getLocation, updateLocation, type LocationJson } from "~/models/locations.server";
import { avatarFormAction, isAvatarIntent } from "~/services/avatar-forms.server";
import { formResult, formValues, formVersion, modelContextFor, requireDeleteConfirmed, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { notFound, requirePermission, requireId } from "~/services/guard.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Edit ${data?.location.title ?? "location"} · Baseline` }];
export const handle = { guard: "manage_locations" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_locations", "manage_locations_access");
  const location = await getLocation(modelContextFor(context, actor), requireId(params.id, "Location"));
  if (!location) throw notFound("Location not found.");
  return { location };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_locations", "manage_locations_access");
  const id = requireId(params.id, "Location");
  const ctx = modelContextFor(context, actor);
  const form = await request.formData();
  const values = formValues(form);
  if (isAvatarIntent(values.intent)) {
    return avatarFormAction(form, values.intent, { set: (file) => setLocationAvatar(ctx, id, file), remove: () => removeLocationAvatar(ctx, id) }, `/location/list/edit/${id}`);
  }
  switch (values.intent) {
    case "delete":
      // Only the confirm step's 'Yes, delete it' deletes.
      requireDeleteConfirmed(values, `/location/list/edit/${id}?confirm=delete#delete-location`);
      return formResult(await deleteLocation(ctx, id), values, () => "/location/list");
    case "save":
      return formResult(await withFormVersion(values.version, (version) => updateLocation(ctx, id, values, { partial: false, version })), values, (l) => `/location/view/${l.id}`);
    default:
      if (!(await getLocation(ctx, id))) throw notFound("Location not found.");
      return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  }
}

/** Labels that a field's name in words would not give, for the list of what a stale save did not save. */
const LOCATION_LABELS = { zip: "ZIP code", phone1: "Phone 1", phone2: "Phone 2", telfax: "Fax", npi: "NPI (billing provider)", tax_id: "Tax id (EIN)", pos_codes: "Place-of-service codes" };

export default function EditLocation() {
  const { location } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const current = (answer?.current ?? null) as LocationJson | null;
  // After a stale save the form shows what is stored now, with its version, so saving again is deliberate.
  // A refused delete answers too; the form then keeps the stored values.
  const typed = answer && answer.values.intent === "save" ? answer.values : null;
  const avatarAnswer = answer && answer.values.intent === "avatar" ? answer : null;
  const values = current ? locationFormValues(current) : (typed ?? locationFormValues(location));
  const version = current ? current.version : (formVersion(typed?.version) ?? location.version);
  return (
    <section className="card">
      <div className="page-head">
        <h1>Edit location</h1>
        <Link to={`/location/view/${location.id}`}>Back to {location.title}</Link>
      </div>
      {current && typed ? (
        <StaleNotice message={answer!.message} version={current.version} unsaved={typed} hidden={["intent", "version"]} stored={values} labels={LOCATION_LABELS} />
      ) : (
        <FormMessage error={avatarAnswer ? null : answer?.message} />
      )}
      <LocationForm key={JSON.stringify([values, version])} values={values} errors={typed ? answer!.errors : {}} version={version} submitLabel="Save changes" busy={busy} />
      <AvatarForm avatar={location.avatar} label={location.title} error={avatarAnswer?.errors.avatar} busy={busy} />
      <section className="danger-zone" aria-labelledby="delete-location">
        <h2 id="delete-location">Delete location</h2>
        {params.get("confirm") === "delete" ? (
          <ConfirmDelete question={`Are you sure you want to delete the location “${location.title}”?`} intent="delete" fields={DELETE_CONFIRMED} cancelTo={`/location/list/edit/${location.id}`} busy={busy} />
        ) : (
          <>
            <p>Deleting {location.title} removes it from lists and selects. A location that clients, employees or parents still belong to cannot be deleted: move them first.</p>
            <Link className="btn btn-danger" to="?confirm=delete#delete-location">
              Delete location…
            </Link>
          </>
        )}
      </section>
    </section>
  );
}
