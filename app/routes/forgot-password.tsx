import type { ActionFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { Form, useActionData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { AuthLayout } from "~/components/auth-layout";
import { Field, FormMessage } from "~/components/ui/field";
import { ResetRequestInput } from "~/domain/auth-schemas";
import { formFields, parseWith } from "~/domain/validation";
import { requestPasswordReset } from "~/models/auth.server";
import { clearResetCookies, redirectWithCookies, resetChallengeCookie, resetEmailCookie, resetKindCookie } from "~/services/flow-cookies.server";

export const meta: MetaFunction = () => [{ title: "Forgot password · Baseline" }];
export const handle = { guard: "public" };

export async function action({ request, context }: ActionFunctionArgs) {
  const app = context.app;
  const form = formFields(await request.formData());
  const parsed = parseWith(ResetRequestInput, form);
  const values = { email: form.email ?? "", parent: form.parent === "on" || form.parent === "true" };
  if (!parsed.ok) return data({ errors: parsed.errors, message: null, values }, { status: 422 });
  // The same answer whether or not the account exists: the next screen never says which. The parent tick resets the
  // parent account of the email, as on sign-in; without it, the staff account (decision 016, stop 35).
  const kind = parsed.data.parent ? "parent" : "user";
  const asked = await requestPasswordReset(app, parsed.data.email, kind, "screen");
  // Past the address's hourly allowance: refused for every email alike, the form kept as typed (decision 016, stop 45).
  if (asked.kind === "throttled") return data({ errors: {} as Record<string, string>, message: asked.message, values }, { status: 429, headers: { "Retry-After": String(asked.retryAfter) } });
  // A new request starts over: a reset token left from an earlier attempt is dropped.
  const [, clearToken] = clearResetCookies(app.secure);
  return redirectWithCookies("/reset-password-verify", [resetEmailCookie(parsed.data.email, app.secure), resetKindCookie(kind, app.secure), resetChallengeCookie(asked.challengeId, app.secure), clearToken!]);
}

export default function ForgotPassword() {
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  return (
    <AuthLayout title="Forgot your password?" subtitle="Enter your email and we will send you a verification code.">
      <FormMessage error={answer?.message} />
      <Form method="post" noValidate>
        <Field label="Email" name="email" type="email" autoComplete="username" required defaultValue={answer?.values.email} error={answer?.errors.email} />
        <div className="field-check">
          <input id="f-parent" type="checkbox" name="parent" defaultChecked={answer?.values.parent} />
          <label htmlFor="f-parent">I sign in as a parent or guardian</label>
        </div>
        <button className="btn btn-primary btn-block" type="submit" disabled={busy}>
          Send code
        </button>
      </Form>
      <p className="auth-links">
        <Link to="/login">Back to sign in</Link>
      </p>
    </AuthLayout>
  );
}
