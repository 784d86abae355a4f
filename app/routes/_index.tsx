import { redirect } from "@remix-run/cloudflare";

export const handle = { guard: "public" };

export function loader() {
  return redirect("/dashboard");
}
