import { data } from "@remix-run/cloudflare";
import type { MetaFunction } from "@remix-run/cloudflare";
import { errorPageTitle } from "~/domain/shell";

export const meta: MetaFunction = () => [{ title: errorPageTitle(404) }];
export const handle = { guard: "public" };

export function loader() {
  return data(null, { status: 404 });
}

export default function Error404() {
  return (
    <main className="error-page">
      <h1>404</h1>
      <p>The page you were looking for could not be found.</p>
      <a className="btn btn-primary" href="/dashboard">
        Go to Dashboard
      </a>
    </main>
  );
}
