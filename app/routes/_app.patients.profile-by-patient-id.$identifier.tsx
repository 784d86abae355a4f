import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { findPatientIdByIdentifier } from "~/models/patients.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requirePermission } from "~/services/guard.server";
import { CLIENT_NOT_FOUND } from "~/domain/patients";

/**
 * /patients/profile-by-patient-id/:identifier (platform §2): the client profile found by its patient
 * identifier. Resolves the identifier in the user's locations and sends the browser to the profile, which
 * records the read; an unknown identifier, or one of another location, answers 404.
 */
export const handle = { guard: "view_clients" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_clients");
  const identifier = (params.identifier ?? "").trim();
  const id = identifier && identifier.length <= 120 ? await findPatientIdByIdentifier(modelContextFor(context, actor), identifier) : null;
  if (id === null) throw notFound(CLIENT_NOT_FOUND);
  return redirect(`/patients/profile/${id}`, 302);
}

export { default } from "~/components/ui/redirect-only";
