import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { redirectWithCookies } from "~/services/flow-cookies.server";
import { clearSessionCookie, signOutSession } from "~/services/session.server";

/** Logout destroys the server session (with its `sign_out` audit row) and clears the cookie; it is a POST so a link cannot sign anyone out. */
export const handle = { guard: "public" };

export function loader() {
  return redirect("/dashboard");
}

export async function action({ request, context }: ActionFunctionArgs) {
  await signOutSession(context.app.db, request, context.app.ip);
  return redirectWithCookies("/login?loggedOut=1", [clearSessionCookie(context.app.secure)]);
}
