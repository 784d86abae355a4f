import type { ActionFunctionArgs, AppLoadContext, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { AuthLayout } from "~/components/auth-layout";
import { Field, FormMessage } from "~/components/ui/field";
import { attemptsLeftText, AUTH_MESSAGES, expiryText, maskEmail, minutesLeft } from "~/domain/auth-rules";
import { BackupCodeInput, TwoFactorVerifyInput } from "~/domain/auth-schemas";
import { formFields, parseWith } from "~/domain/validation";
import { getPendingLoginChallenge, loginChallengeExhausted, resendLoginCode, verifyBackupCode, verifyLoginCode, type CodeResult } from "~/models/auth.server";
import { clearChallengeCookie, readChallengeId, redirectWithCookies, safeRedirect } from "~/services/flow-cookies.server";
import { getSigned } from "~/services/guard.server";
import { createSession, destroySession } from "~/services/session.server";

export const meta: MetaFunction = () => [{ title: "Two-factor verification · Baseline" }];
/** Public, but only with a pending sign-in challenge (platform §2 route guard); a signed-in user goes on to the app. */
export const handle = { guard: "public" };

type Intent = "verify" | "backup" | "resend" | "send";
interface Answer {
  intent: Intent;
  errors: Record<string, string>;
  message: string | null;
  attemptsRemaining?: number;
  ended?: boolean;
}

const toLogin = (secure: boolean, status = 303) => redirectWithCookies("/login", [clearChallengeCookie(secure)], status);

export async function loader({ request, context }: LoaderFunctionArgs) {
  const app = context.app;
  const url = new URL(request.url);
  const redirectTo = safeRedirect(url.searchParams.get("redirectTo"));
  if (await getSigned(request, context)) throw redirect(redirectTo);
  const id = readChallengeId(request);
  const pending = id ? await getPendingLoginChallenge(app.db, id, app.now()) : null;
  if (!pending) {
    // A challenge voided by too many wrong codes says so once, then the cookie is gone.
    if (id && (await loginChallengeExhausted(app.db, id))) {
      return data({ ended: true as const }, { headers: { "Set-Cookie": clearChallengeCookie(app.secure) } });
    }
    throw id ? toLogin(app.secure, 302) : redirect("/login");
  }
  return {
    ended: false as const,
    sentTo: maskEmail(pending.email),
    attemptsRemaining: pending.attemptsRemaining,
    minutesLeft: minutesLeft(pending.expiresAt, app.now()),
    justSent: url.searchParams.get("sent") === "1",
    redirectTo,
  };
}

/** What the screen does with a checked code: sign in, explain, or send the user back to sign-in. */
async function afterCheck(request: Request, context: AppLoadContext, intent: Intent, result: CodeResult, to: string) {
  const app = context.app;
  switch (result.kind) {
    case "ok":
      await destroySession(app.db, request);
      return redirectWithCookies(to, [await createSession(app.db, result.principal, app.now(), app.secure), clearChallengeCookie(app.secure)]);
    case "no_challenge":
      return toLogin(app.secure);
    case "throttled":
      return data<Answer>({ intent, errors: {}, message: result.message }, { status: 429 });
    case "expired":
      return data<Answer>({ intent, errors: {}, message: result.message, attemptsRemaining: result.attemptsRemaining }, { status: 422 });
    case "wrong":
      if (result.voided) {
        return data<Answer>(
          { intent, errors: {}, message: result.message, attemptsRemaining: 0, ended: true },
          { status: 422, headers: { "Set-Cookie": clearChallengeCookie(app.secure) } },
        );
      }
      // A wrong verification code: the field is marked and takes the focus, and says what to do next.
      return data<Answer>({ intent, errors: intent === "verify" ? { code: AUTH_MESSAGES.wrongCode } : intent === "backup" ? { backup_code: AUTH_MESSAGES.wrongBackupCode } : {}, message: result.message, attemptsRemaining: result.attemptsRemaining }, { status: 422 });
  }
}

export async function action({ request, context }: ActionFunctionArgs) {
  const app = context.app;
  const form = formFields(await request.formData());
  const to = safeRedirect(form.redirectTo);
  const id = readChallengeId(request);
  if (!id) return redirect("/login", 303);
  const intent: Intent = form.intent === "backup" || form.intent === "resend" || form.intent === "send" ? form.intent : "verify";

  if (intent === "resend" || intent === "send") {
    const failMessage = intent === "send" ? AUTH_MESSAGES.sendFailed : AUTH_MESSAGES.resendFailed;
    const result = await resendLoginCode(app, { id }, form.method || "email", failMessage);
    if (result.kind === "sent") return redirect(`/two-factor-verify?redirectTo=${encodeURIComponent(to)}&sent=1`, 303);
    if (result.kind === "no_challenge") return toLogin(app.secure);
    return data<Answer>({ intent, errors: {}, message: result.message }, { status: result.kind === "send_failed" ? 502 : result.kind === "limited" ? 429 : 422 });
  }

  if (intent === "backup") {
    const parsed = parseWith(BackupCodeInput, form);
    if (!parsed.ok) return data<Answer>({ intent, errors: parsed.errors, message: null }, { status: 422 });
    return afterCheck(request, context, intent, await verifyBackupCode(app, { id }, parsed.data.backup_code), to);
  }

  const parsed = parseWith(TwoFactorVerifyInput, form);
  if (!parsed.ok) return data<Answer>({ intent, errors: parsed.errors, message: null }, { status: 422 });
  return afterCheck(request, context, intent, await verifyLoginCode(app, { id }, parsed.data.code), to);
}

export default function TwoFactorVerify() {
  const loaded = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";

  if (loaded.ended || answer?.ended) {
    return (
      <AuthLayout title="Two-factor verification">
        <FormMessage error={AUTH_MESSAGES.attemptsExhausted} />
        <p className="auth-links">
          <Link to="/login">Back to sign in</Link>
        </p>
      </AuthLayout>
    );
  }

  const errors = answer?.errors ?? {};
  const attempts = answer?.attemptsRemaining ?? loaded.attemptsRemaining;
  return (
    <AuthLayout title="Two-factor verification" subtitle="Enter the 6-digit code we sent to your email.">
      {loaded.justSent && !answer ? <FormMessage success={AUTH_MESSAGES.codeResent} /> : null}
      <FormMessage error={answer?.message} />
      <p>
        We sent a code to <strong data-testid="sent-to">{loaded.sentTo}</strong>.{" "}
        {expiryText(loaded.minutesLeft)}
      </p>
      <p className="muted" data-testid="attempts">
        {attemptsLeftText(attempts)}
      </p>

      <Form method="post" noValidate>
        <input type="hidden" name="intent" value="verify" />
        <input type="hidden" name="redirectTo" value={loaded.redirectTo} />
        <Field label="Verification code" name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" maxLength={6} required error={errors.code} />
        <button className="btn btn-primary btn-block" type="submit" disabled={busy}>
          Verify
        </button>
      </Form>
      <Form method="post" className="auth-links">
        <input type="hidden" name="intent" value="resend" />
        <input type="hidden" name="redirectTo" value={loaded.redirectTo} />
        <button className="link-button" type="submit" disabled={busy}>
          Resend code
        </button>
      </Form>

      <section aria-labelledby="method-title">
        <h2 id="method-title">How to receive your code</h2>
        <Form method="post">
          <input type="hidden" name="intent" value="send" />
          <input type="hidden" name="method" value="email" />
          <input type="hidden" name="redirectTo" value={loaded.redirectTo} />
          <button className="btn btn-block" type="submit" disabled={busy}>
            Send code by email
          </button>
        </Form>
      </section>

      <section aria-labelledby="backup-title">
        <h2 id="backup-title">Use a backup code</h2>
        <Form method="post" noValidate>
          <input type="hidden" name="intent" value="backup" />
          <input type="hidden" name="redirectTo" value={loaded.redirectTo} />
          <Field label="Backup code" name="backup_code" autoComplete="off" maxLength={32} required error={errors.backup_code} hint="Each backup code works once." />
          <button className="btn btn-block" type="submit" disabled={busy}>
            Verify backup code
          </button>
        </Form>
      </section>

      <p className="auth-links">
        <Link to="/login">Back to sign in</Link>
      </p>
    </AuthLayout>
  );
}
