import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { redirectWithCookies, safeRedirect } from "~/services/flow-cookies.server";
import { dismissVersionCookie, readPrefs, togglePrefCookie, type PrefToggle } from "~/services/prefs.server";

/** Display preferences (dark mode, sidebar flags, version-alert dismissal): cookies only, no user data. */
export const handle = { guard: "public" };

const TOGGLES: readonly PrefToggle[] = ["dark", "miniSidebar", "mobileSidebar"];

export function loader() {
  return redirect("/dashboard");
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const to = safeRedirect(form.get("redirectTo"));
  const { secure } = context.app;
  if ((TOGGLES as readonly string[]).includes(intent)) {
    return redirectWithCookies(to, [togglePrefCookie(readPrefs(request), intent as PrefToggle, secure)]);
  }
  if (intent === "dismissVersion") {
    const version = String(form.get("version") ?? "").slice(0, 32);
    return redirectWithCookies(to, [dismissVersionCookie(version, secure)]);
  }
  return new Response("Unknown preference.", { status: 400 });
}
