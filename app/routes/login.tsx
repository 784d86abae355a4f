import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ASSET_URLS } from "~/assets";
import { AuthLayout } from "~/components/auth-layout";
import { Field, FormMessage } from "~/components/ui/field";
import { LoginInput } from "~/domain/auth-schemas";
import { formFields, parseWith } from "~/domain/validation";
import { signIn } from "~/models/auth.server";
import { challengeCookie, redirectWithCookies, safeRedirect } from "~/services/flow-cookies.server";
import { getSigned } from "~/services/guard.server";
import { createSession, destroySession } from "~/services/session.server";

export const NOTE_DRAFT_NOTICES = {
  kept: "Your session ended before your note was saved. It has been kept: sign in and it will be back in the form.",
  lost: "Your session had ended, so the note you sent could not be kept on the server. If JavaScript was on, this browser kept a copy: sign in and the form will offer to restore it.",
};

export const meta: MetaFunction = () => [{ title: "Sign in · Baseline" }];
export const handle = { guard: "public" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  if (await getSigned(request, context)) throw redirect(safeRedirect(new URL(request.url).searchParams.get("redirectTo")));
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  const app = context.app;
  const form = formFields(await request.formData());
  const values = { email: form.email ?? "", parent: form.parent === "on" || form.parent === "true" };
  const parsed = parseWith(LoginInput, form);
  if (!parsed.ok) return data({ errors: parsed.errors, message: null, values }, { status: 422 });
  const result = await signIn(app, parsed.data);
  const to = safeRedirect(form.redirectTo);
  switch (result.kind) {
    case "signed_in":
      // Rotate: any session this browser had ends, and a new id is issued.
      await destroySession(app.db, request);
      return redirectWithCookies(to, [await createSession(app.db, result.principal, app.now(), app.secure)]);
    case "two_factor":
      return redirectWithCookies(`/two-factor-verify?redirectTo=${encodeURIComponent(to)}`, [challengeCookie(result.challengeId, app.secure)]);
    case "throttled":
      return data({ errors: {}, message: result.message, values }, { status: 429, headers: { "Retry-After": String(result.retryAfter) } });
    case "send_failed":
      return data({ errors: {}, message: result.message, values }, { status: 502 });
    case "invalid":
      return data({ errors: {}, message: result.message, values }, { status: 401 });
  }
}

export default function Login() {
  const actionData = useActionData<typeof action>();
  const [params] = useSearchParams();
  const busy = useNavigation().state !== "idle";
  const errors: Record<string, string> = actionData?.errors ?? {};
  return (
    <AuthLayout title="Sign in" subtitle="Welcome back. Sign in to continue.">
      {params.get("reset") === "1" ? <FormMessage success="Your password has been changed. Please sign in." /> : null}
      {params.get("loggedOut") === "1" ? <FormMessage success="You have been signed out." /> : null}
      {/* A note form posted after the session ended (decision 025). */}
      {params.get("draft") === "kept" ? <p className="alert alert-info" role="status">{NOTE_DRAFT_NOTICES.kept}</p> : null}
      {params.get("draft") === "lost" ? <FormMessage error={NOTE_DRAFT_NOTICES.lost} /> : null}
      <FormMessage error={actionData?.message} />
      {/* data-prefetch: the dashboard's chart module, fetched by enhance.js while the user signs in (decision 021). */}
      <Form method="post" noValidate data-prefetch={ASSET_URLS.yearChartJs}>
        <input type="hidden" name="redirectTo" value={params.get("redirectTo") ?? "/dashboard"} />
        <Field label="Email" name="email" type="email" autoComplete="username" required defaultValue={actionData?.values.email} error={errors.email} />
        <Field label="Password" name="password" type="password" autoComplete="current-password" required error={errors.password} />
        <div className="field-check">
          <input id="f-parent" type="checkbox" name="parent" defaultChecked={actionData?.values.parent} />
          <label htmlFor="f-parent">Sign in as a parent or guardian</label>
        </div>
        <button className="btn btn-primary btn-block" type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </Form>
      <p className="auth-links">
        <Link to="/forgot-password">Forgot your password?</Link>
      </p>
    </AuthLayout>
  );
}
