import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { AuthLayout } from "~/components/auth-layout";
import { FormMessage, NewPasswordFields } from "~/components/ui/field";
import { ResetChangeInput } from "~/domain/auth-schemas";
import { formFields, parseWith } from "~/domain/validation";
import { completePasswordReset } from "~/models/auth.server";
import { clearResetCookies, readResetEmail, readResetToken, redirectWithCookies } from "~/services/flow-cookies.server";

export const meta: MetaFunction = () => [{ title: "Choose a new password · Baseline" }];
/** Public, but only with a verified reset code (the email and the one-time reset token are in cookies). */
export const handle = { guard: "public" };

/** Where to send a browser that has not reached this step; null when it may stay. */
function missingStep(request: Request): string | null {
  if (!readResetEmail(request)) return "/forgot-password";
  if (!readResetToken(request)) return "/reset-password-verify";
  return null;
}

export async function loader({ request }: LoaderFunctionArgs) {
  const back = missingStep(request);
  if (back) throw redirect(back);
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  const app = context.app;
  const back = missingStep(request);
  if (back) return redirect(back, 303);
  const form = formFields(await request.formData());
  const parsed = parseWith(ResetChangeInput, { ...form, email: readResetEmail(request), reset_token: readResetToken(request) });
  if (!parsed.ok) {
    if (parsed.errors.email || parsed.errors.reset_token) return redirectWithCookies("/forgot-password", clearResetCookies(app.secure));
    return data({ errors: parsed.errors, message: null, expired: false }, { status: 422 });
  }
  const result = await completePasswordReset(app, parsed.data.email, parsed.data.reset_token, parsed.data.password);
  if (result.kind !== "ok") {
    // The token is used up or too old: drop the flow and offer a new code.
    return data({ errors: {}, message: result.message, expired: true }, { status: 422, headers: clearResetCookies(app.secure).map((c): [string, string] => ["Set-Cookie", c]) });
  }
  return redirectWithCookies("/login?reset=1", clearResetCookies(app.secure));
}

export default function ResetPasswordChange() {
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  const errors: Record<string, string> = answer?.errors ?? {};
  if (answer?.expired) {
    return (
      <AuthLayout title="Choose a new password">
        <FormMessage error={answer.message} />
        <p className="auth-links">
          <Link to="/forgot-password">Request a new code</Link>
          <Link to="/login">Back to sign in</Link>
        </p>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title="Choose a new password" subtitle="Your new password ends every session signed in to your account.">
      <FormMessage error={answer?.message} />
      <Form method="post" noValidate>
        <NewPasswordFields errors={errors} />
        <button className="btn btn-primary btn-block" type="submit" disabled={busy}>
          Change password
        </button>
      </Form>
      <p className="auth-links">
        <Link to="/login">Back to sign in</Link>
      </p>
    </AuthLayout>
  );
}
