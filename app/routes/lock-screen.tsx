import type { ActionFunctionArgs, AppLoadContext, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { AuthLayout } from "~/components/auth-layout";
import { Field } from "~/components/ui/field";
import { AUTH_MESSAGES } from "~/domain/auth-rules";
import { noteDraftPrefix } from "~/domain/note-drafts";
import { UnlockInput } from "~/domain/auth-schemas";
import { formFields, parseWith } from "~/domain/validation";
import { getActor } from "~/models/actors.server";
import { checkPassword } from "~/models/auth.server";
import { redirectWithCookies, safeRedirect } from "~/services/flow-cookies.server";
import { clearSessionCookie, destroySession, readSession, unlockSession } from "~/services/session.server";

export const meta: MetaFunction = () => [{ title: "Session locked · Baseline" }];
/** Public, but only meaningful for a session locked after the idle limit: no session → sign-in, an active one → the app. */
export const handle = { guard: "public" };

/** The locked session and its owner, or the redirect that applies instead. */
async function requireLocked(request: Request, context: AppLoadContext, to: string, status: number) {
  const { db, now, secure } = context.app;
  const session = await readSession(db, request, now());
  if (!session) throw redirect("/login", status);
  if (session.state === "active") throw redirect(to, status);
  const actor = await getActor(db, session.principalType, session.principalId);
  if (!actor) {
    await destroySession(db, request);
    throw redirectWithCookies("/login", [clearSessionCookie(secure)], status);
  }
  return { session, actor };
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const redirectTo = safeRedirect(new URL(request.url).searchParams.get("redirectTo"));
  const { actor } = await requireLocked(request, context, redirectTo, 302);
  return { name: `${actor.name} ${actor.surname}`.trim(), email: actor.email, redirectTo, drafts: actor.kind === "user" ? noteDraftPrefix(actor.id) : null };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = formFields(await request.formData());
  const to = safeRedirect(form.redirectTo);
  const { session } = await requireLocked(request, context, to, 303);
  const parsed = parseWith(UnlockInput, form);
  if (!parsed.ok) return data({ errors: parsed.errors }, { status: 422 });
  const app = context.app;
  // The session resumes in the batch that records the unlock (decision 019).
  const checked = await checkPassword(app, session.principalType, session.principalId, parsed.data.password, "unlock", {
    entry: { action: "session_unlocked", entity: session.principalType, entityId: session.principalId },
    writes: () => [unlockSession(app.db, session.idHash, app.now())],
  });
  if (checked.kind === "throttled") {
    // Past the sign-in throttle the locked session ends: whoever is guessing must sign in again (and is throttled there).
    await destroySession(app.db, request);
    return redirectWithCookies("/login", [clearSessionCookie(app.secure)]);
  }
  if (checked.kind === "wrong") {
    return data({ errors: { password: AUTH_MESSAGES.unlockPasswordWrong } as Record<string, string> }, { status: 401 });
  }
  // The same session resumed (its cookie stays as it is).
  return redirect(to, 303);
}

export default function LockScreen() {
  const { name, email, redirectTo, drafts } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  return (
    <AuthLayout title="Session locked" subtitle={AUTH_MESSAGES.locked}>
      <p>
        <strong data-testid="locked-name">{name}</strong>
        <br />
        <span className="muted">{email}</span>
      </p>
      <Form method="post" noValidate>
        <input type="hidden" name="redirectTo" value={redirectTo} />
        <input type="text" name="username" autoComplete="username" value={email} readOnly hidden />
        <Field label="Password" name="password" type="password" autoComplete="current-password" required error={answer?.errors.password} />
        <button className="btn btn-primary btn-block" type="submit" disabled={busy}>
          Unlock
        </button>
      </Form>
      <Form method="post" action="/logout" className="auth-links" data-clear-drafts={drafts ?? undefined}>
        <button className="link-button" type="submit">
          Not you? Sign out
        </button>
      </Form>
    </AuthLayout>
  );
}
