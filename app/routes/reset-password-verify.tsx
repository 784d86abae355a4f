import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { AuthLayout } from "~/components/auth-layout";
import { Field, FormMessage } from "~/components/ui/field";
import { attemptsLeftText, AUTH_MESSAGES, maskEmail } from "~/domain/auth-rules";
import { ResetVerifyInput } from "~/domain/auth-schemas";
import { formFields, parseWith } from "~/domain/validation";
import { requestPasswordReset, verifyPasswordResetCode } from "~/models/auth.server";
import { readResetChallenge, readResetEmail, readResetKind, redirectWithCookies, resetChallengeCookie, resetTokenCookie } from "~/services/flow-cookies.server";

export const meta: MetaFunction = () => [{ title: "Verify reset code · Baseline" }];
/** Public, but only after a reset request (the email is in a short-lived cookie). */
export const handle = { guard: "public" };

interface Answer {
  errors: Record<string, string>;
  message: string | null;
  attemptsRemaining?: number;
}

export async function loader({ request }: LoaderFunctionArgs) {
  const email = readResetEmail(request);
  if (!email) throw redirect("/forgot-password");
  return { sentTo: maskEmail(email), justSent: new URL(request.url).searchParams.get("sent") === "1" };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const app = context.app;
  const email = readResetEmail(request);
  if (!email) return redirect("/forgot-password", 303);
  const form = formFields(await request.formData());

  if (form.intent === "resend") {
    const asked = await requestPasswordReset(app, email, readResetKind(request), "screen");
    // Past the address's hourly allowance (decision 016, stop 45): the pending reset's cookie stays as it was.
    if (asked.kind === "throttled") return data<Answer>({ errors: {}, message: asked.message }, { status: 429, headers: { "Retry-After": String(asked.retryAfter) } });
    return redirectWithCookies("/reset-password-verify?sent=1", [resetChallengeCookie(asked.challengeId, app.secure)]);
  }

  const parsed = parseWith(ResetVerifyInput, { email, code: form.code });
  if (!parsed.ok) {
    if (parsed.errors.email) return redirect("/forgot-password", 303);
    return data<Answer>({ errors: parsed.errors, message: null }, { status: 422 });
  }
  const result = await verifyPasswordResetCode(app, readResetChallenge(request) ?? "", parsed.data.email, parsed.data.code, "screen");
  switch (result.kind) {
    case "ok":
      return redirectWithCookies("/reset-password-change", [resetTokenCookie(result.resetToken, app.secure)]);
    case "throttled":
      return data<Answer>({ errors: {}, message: result.message }, { status: 429 });
    case "no_challenge":
      // No pending reset (unknown email, or a used or voided code): the same words as a wrong code.
      return data<Answer>({ errors: { code: AUTH_MESSAGES.wrongCode }, message: AUTH_MESSAGES.verificationFailed }, { status: 422 });
    case "expired":
      return data<Answer>({ errors: {}, message: result.message, attemptsRemaining: result.attemptsRemaining }, { status: 422 });
    case "wrong":
      return data<Answer>(
        { errors: result.voided ? {} : { code: AUTH_MESSAGES.wrongCode }, message: result.voided ? AUTH_MESSAGES.resetAttemptsExhausted : result.message, attemptsRemaining: result.attemptsRemaining },
        { status: 422 },
      );
  }
}

export default function ResetPasswordVerify() {
  const { sentTo, justSent } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  const attempts = answer?.attemptsRemaining;
  return (
    <AuthLayout title="Check your email" subtitle={`Enter the 6-digit code sent to ${sentTo}.`}>
      <p className={justSent && !answer ? "alert alert-success" : "alert alert-info"} role="status">
        {AUTH_MESSAGES.resetSent}
      </p>
      <FormMessage error={answer?.message} />
      {attempts !== undefined && attempts > 0 ? (
        <p className="muted" data-testid="attempts">
          {attemptsLeftText(attempts)}
        </p>
      ) : null}
      <Form method="post" noValidate>
        <input type="hidden" name="intent" value="verify" />
        <Field label="Verification code" name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" maxLength={6} required error={answer?.errors.code} />
        <button className="btn btn-primary btn-block" type="submit" disabled={busy}>
          Verify code
        </button>
      </Form>
      <Form method="post" className="auth-links">
        <input type="hidden" name="intent" value="resend" />
        <button className="link-button" type="submit" disabled={busy}>
          Send a new code
        </button>
      </Form>
      <p className="auth-links">
        <Link to="/forgot-password">Use a different email</Link>
        <Link to="/login">Back to sign in</Link>
      </p>
    </AuthLayout>
  );
}
