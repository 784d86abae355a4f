import { data } from "@remix-run/cloudflare";
import type { MetaFunction } from "@remix-run/cloudflare";
import { errorPageTitle } from "~/domain/shell";

export const meta: MetaFunction = () => [{ title: errorPageTitle(500) }];
export const handle = { guard: "public" };

export function loader() {
  return data(null, { status: 500 });
}

export default function Error500() {
  return (
    <main className="error-page">
      <h1>500</h1>
      <p>Algo salió mal, por favor intenta de nuevo más tarde.</p>
      <p>Something went wrong. Please try again later.</p>
      <a className="btn btn-primary" href="/dashboard">
        Go to Dashboard
      </a>
    </main>
  );
}
