import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { redirectWithCookies, safeRedirect } from "~/services/flow-cookies.server";
import { dismissVersionCookie, readPrefs, togglePref, type PrefToggle } from "~/services/prefs.server";

/**
 * Display preferences (dark mode, sidebar flags, version-alert dismissal): cookies only, no user data. A form
 * post comes back to its page (303); the enhancement script's in-place post (Accept: application/json) gets the
 * flags that result, and applies them to the page it stays on (docs/decisions/004).
 */
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
    const page = new URL(to, request.url).pathname;
    const { prefs, cookie } = togglePref(readPrefs(request, page), intent as PrefToggle, page, secure);
    if (request.headers.get("Accept")?.includes("application/json")) {
      return Response.json({ dark: prefs.dark, miniSidebar: prefs.miniSidebar, mobileSidebar: prefs.mobileSidebar }, { headers: { "Set-Cookie": cookie, "Cache-Control": "no-store" } });
    }
    return redirectWithCookies(to, [cookie]);
  }
  if (intent === "dismissVersion") {
    const version = String(form.get("version") ?? "").slice(0, 32);
    return redirectWithCookies(to, [dismissVersionCookie(version, secure)]);
  }
  return new Response("Unknown preference.", { status: 400 });
}
