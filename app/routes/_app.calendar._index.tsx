import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { requirePermission } from "~/services/guard.server";

/** /calendar (platform §2: calendar, calendar/view) → the calendar view, with the same filters; guarded like it. */
export const handle = { guard: "view_notes" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "view_notes");
  const url = new URL(request.url);
  return redirect(`/calendar/view${url.search}`);
}

export { default } from "~/components/ui/redirect-only";
