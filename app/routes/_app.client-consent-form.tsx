import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { CONSENT_MESSAGES } from "~/domain/consents";
import { pathId } from "~/domain/validation";
import { requirePermission } from "~/services/guard.server";

/**
 * /client-consent-form (clinical §2 consents; platform §2 route list): the consent screen is a client's
 * (/patients/consents/:patientId, decision 040). With `patient_id` (or `id`) it goes to that client's consents
 * (which checks the client's location: another's answers 404 there); without one, to the clients list, where
 * the client is chosen (their page links Consents). Guarded like the consent screen (view_clients).
 */
export const handle = { guard: "view_clients" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "view_clients");
  const params = new URL(request.url).searchParams;
  const raw = params.get("patient_id") || params.get("id");
  const patientId = raw === null ? null : pathId(raw);
  if (patientId !== null) return redirect(`/patients/consents/${patientId}`);
  return redirect(`/patients/list?flash=${encodeURIComponent(CONSENT_MESSAGES.chooseClient)}`);
}

export { default } from "~/components/ui/redirect-only";
