import { redirect } from "@remix-run/cloudflare";

/** Any unknown path goes to error/error404 (platform §2). */
export const handle = { guard: "public" };

export function loader() {
  return redirect("/error/error404");
}

export function action() {
  return redirect("/error/error404", 303);
}
