import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useLoaderData } from "@remix-run/react";
import { listOutbox } from "~/services/email.server";
import { notFound } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Outbox · Baseline" }, { name: "robots", content: "noindex" }];
/** Development only: the emails kept locally when no provider is configured. In production the page does not exist. */
export const handle = { guard: "public" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  if (!context.app.isDev) throw notFound();
  const to = new URL(request.url).searchParams.get("to")?.trim() ?? "";
  return { to, emails: await listOutbox(context.app.db, to || undefined) };
}

export default function Outbox() {
  const { to, emails } = useLoaderData<typeof loader>();
  return (
    <main className="content">
      <section className="card">
        <h1>Development outbox</h1>
        <p className="muted">Emails the app would have sent, newest first. This page exists only in development.</p>
        <Form method="get">
          <div className="field">
            <label htmlFor="f-to">To</label>
            <input id="f-to" name="to" type="email" defaultValue={to} placeholder="someone@demo.test" />
          </div>
          <button className="btn" type="submit">
            Filter
          </button>{" "}
          {to ? <a href="/dev/outbox">Show all</a> : null}
        </Form>
      </section>
      {emails.length === 0 ? (
        <p>No emails{to ? ` to ${to}` : ""}.</p>
      ) : (
        emails.map((e) => (
          <article className="card" key={e.id} data-testid="outbox-email">
            <h2>{e.subject}</h2>
            <p className="muted">
              To {e.to} · {e.created_at}
            </p>
            <pre>{e.text}</pre>
          </article>
        ))
      )}
    </main>
  );
}
