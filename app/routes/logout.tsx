import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { redirectWithCookies } from "~/services/flow-cookies.server";
import { clearSessionCookie, destroySession } from "~/services/session.server";

/** Logout destroys the server session and clears the cookie; it is a POST so a link cannot sign anyone out. */
export const handle = { guard: "public" };

export function loader() {
  return redirect("/dashboard");
}

export async function action({ request, context }: ActionFunctionArgs) {
  await destroySession(context.app.db, request);
  return redirectWithCookies("/login?loggedOut=1", [clearSessionCookie(context.app.secure)]);
}
