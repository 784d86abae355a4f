import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { AvatarForm } from "~/components/avatar-form";
import { Field, FormMessage } from "~/components/ui/field";
import { AUTH_MESSAGES } from "~/domain/auth-rules";
import { BackupCodesInput, OwnEmailInput, TwoFactorSwitchInput } from "~/domain/auth-schemas";
import { formFields, parseWith } from "~/domain/validation";
import { checkPassword, countUnusedBackupCodes, generateBackupCodes, selfWho, setTwoFactor } from "~/models/auth.server";
import { removeUserAvatar, setUserAvatar } from "~/models/avatars.server";
import { changeOwnEmail } from "~/models/employees.server";
import { changeOwnParentEmail } from "~/models/parents.server";
import { redirectWithCookies } from "~/services/flow-cookies.server";
import { modelContextFor } from "~/services/forms.server";
import { movedToSession, requirePrincipal } from "~/services/guard.server";
import { sessionAfterOwnChange } from "~/services/session.server";

export const meta: MetaFunction = () => [{ title: "Profile · Baseline" }];
export const handle = { guard: "principal" };

type Intent = "two-factor" | "backup-codes" | "avatar" | "avatar-remove" | "email";
interface Answer {
  intent: Intent | null;
  errors: Record<string, string>;
  message: string | null;
  /** New backup codes, shown on this one response and never again. */
  codes: string[] | null;
  /** The new email as typed, shown again after a refusal (never a password). */
  email?: string;
}

const CODES_ONCE = "Save these backup codes somewhere safe. Each works once, and they will not be shown again.";
const NO_STORE = { "Cache-Control": "no-store" };

/** A response that shows backup codes must not be kept by the browser or a proxy. */
export const headers: HeadersFunction = ({ actionHeaders }) => {
  const out = new Headers();
  const cacheControl = actionHeaders.get("Cache-Control");
  if (cacheControl) out.set("Cache-Control", cacheControl);
  return out;
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePrincipal(request, context);
  return {
    name: `${actor.name} ${actor.surname}`.trim(),
    email: actor.email,
    roles: actor.roles,
    /** Staff users have an avatar; parents do not. */
    staff: actor.kind === "user",
    avatar: actor.avatar,
    twoFactorEnabled: actor.twoFactorEnabled,
    backupCodesRemaining: actor.twoFactorEnabled ? await countUnusedBackupCodes(context.app.db, { type: actor.kind, id: actor.id }) : 0,
    turnedOff: new URL(request.url).searchParams.get("twoFactor") === "off",
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requirePrincipal(request, context);
  const app = context.app;
  const formData = await request.formData();
  const form = formFields(formData);
  const principal = { type: actor.kind, id: actor.id };
  const intents: Intent[] = ["two-factor", "backup-codes", "avatar", "avatar-remove", "email"];
  const intent = intents.find((i) => i === form.intent) ?? null;
  const typedEmail = intent === "email" && typeof form.email === "string" ? form.email.slice(0, 254) : undefined;
  const refuse = (status: number, errors: Record<string, string>, message: string | null = null) => data<Answer>({ intent, errors, message, codes: null, email: typedEmail }, { status });
  if (!intent) return refuse(400, {}, "Unknown action.");

  if (intent === "avatar" || intent === "avatar-remove") {
    const ctx = modelContextFor(context, actor);
    const result = intent === "avatar" ? await setUserAvatar(ctx, actor.id, formData.get("avatar")) : await removeUserAvatar(ctx, actor.id);
    if (result.ok) return redirect(`/profile?flash=${encodeURIComponent(result.message ?? "Saved.")}`, 303);
    return refuse(result.status, result.status === 422 ? result.errors : {}, result.message);
  }

  // The other actions need the current password again.
  const wrongPassword = async (password: string) => {
    const checked = await checkPassword(app, principal.type, principal.id, password, "profile");
    if (checked.kind === "throttled") return refuse(429, { current_password: checked.message });
    return checked.kind === "wrong" ? refuse(422, { current_password: AUTH_MESSAGES.currentPasswordWrong }) : null;
  };

  if (intent === "two-factor") {
    const parsed = parseWith(TwoFactorSwitchInput, form);
    if (!parsed.ok) return refuse(422, parsed.errors);
    const refused = await wrongPassword(parsed.data.current_password);
    if (refused) return refused;
    // As on change-password: every session and token of the account ends, this one included; this browser alone gets a fresh one.
    const fresh = await sessionAfterOwnChange(app.db, principal, app.now(), app.secure);
    const switched = await setTwoFactor(app.db, principal, parsed.data.enabled, { who: selfWho(principal, app.ip), keep: fresh.insert });
    if (!switched.ok) return refuse(422, {}, switched.message);
    // Already off: nothing was written, so this browser keeps its session (the fresh one was never stored).
    if (!switched.changed) return data<Answer>({ intent, errors: {}, message: AUTH_MESSAGES.twoFactorAlreadyOff, codes: null });
    const cookie = fresh.cookie;
    if (!switched.codes) return redirectWithCookies("/profile?twoFactor=off", [cookie]);
    // The page answered here shows two-factor on: its loaders read through this browser's fresh session.
    movedToSession(context, fresh);
    return data<Answer>({ intent, errors: {}, message: "Two-factor verification by email is on. Other devices have been signed out.", codes: switched.codes }, { headers: { ...NO_STORE, "Set-Cookie": cookie } });
  }

  if (intent === "email") {
    // One's own email (staff, and a parent since stop 37): the employee screen and API refuse it (decision 015, stop
    // 35), since whoever holds the address can reset the password. As on change-password, every session ends and this
    // browser gets a fresh one.
    const parsed = parseWith(OwnEmailInput, form);
    if (!parsed.ok) return refuse(422, parsed.errors);
    const refused = await wrongPassword(parsed.data.current_password);
    if (refused) return refused;
    const fresh = await sessionAfterOwnChange(app.db, principal, app.now(), app.secure);
    const ctx = modelContextFor(context, actor);
    const changed = actor.kind === "parent" ? await changeOwnParentEmail(ctx, app, parsed.data.email, fresh.insert) : await changeOwnEmail(ctx, app, parsed.data.email, fresh.insert);
    if (!changed.ok) return changed.status === 422 ? refuse(422, changed.errors) : refuse(changed.status, {}, changed.message);
    return redirectWithCookies(`/profile?flash=${encodeURIComponent(changed.message ?? "Saved.")}`, [fresh.cookie]);
  }

  const parsed = parseWith(BackupCodesInput, form);
  if (!parsed.ok) return refuse(422, parsed.errors);
  const refused = await wrongPassword(parsed.data.current_password);
  if (refused) return refused;
  if (!actor.twoFactorEnabled) return refuse(422, {}, AUTH_MESSAGES.twoFactorOffFirst);
  const codes = await generateBackupCodes(app.db, principal, selfWho(principal, app.ip));
  return data<Answer>({ intent, errors: {}, message: "New backup codes were issued; the old ones no longer work.", codes }, { headers: NO_STORE });
}

export default function Profile() {
  const me = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  const errorsFor = (intent: Intent) => (answer?.intent === intent ? answer.errors : {});
  return (
    <>
      <section className="card">
        <h1>Profile</h1>
        <dl>
          <dt>Name</dt>
          <dd data-testid="profile-name">{me.name}</dd>
          <dt>Email</dt>
          <dd>{me.email}</dd>
          <dt>Roles</dt>
          <dd>{me.roles.join(", ") || "none"}</dd>
        </dl>
        <Link to="/change-password">Change password</Link>
        <Form method="post" noValidate>
          <h2>Change email</h2>
          <input type="hidden" name="intent" value="email" />
          <p className="muted">Your email is where sign-in and password reset codes go. Changing it signs you out everywhere else; you stay signed in here.</p>
          <Field id="f-email" label="New email" name="email" type="email" autoComplete="email" required defaultValue={answer?.intent === "email" ? answer.email : undefined} error={errorsFor("email").email} />
          <Field id="f-email-password" label="Current password" name="current_password" type="password" autoComplete="current-password" required error={errorsFor("email").current_password} />
          <FormMessage error={answer?.intent === "email" ? answer.message : null} />
          <button className="btn" type="submit" disabled={busy}>
            Change email
          </button>
        </Form>
        {me.staff ? <AvatarForm avatar={me.avatar} label={me.name} error={errorsFor("avatar").avatar} busy={busy} /> : null}
      </section>

      <section className="card" aria-labelledby="security-title">
        <h2 id="security-title">Security</h2>
        {me.turnedOff && !answer ? <FormMessage success="Two-factor verification is off. Your backup codes were deleted. Other devices have been signed out." /> : null}
        {answer?.codes ? (
          <div data-testid="new-backup-codes">
            <FormMessage success={answer.message} />
            <p>
              <strong>{CODES_ONCE}</strong>
            </p>
            <ul className="codes">
              {answer.codes.map((c) => (
                <li key={c}>{c}</li>
              ))}
            </ul>
          </div>
        ) : (
          <FormMessage error={answer?.intent === "avatar" || answer?.intent === "avatar-remove" || answer?.intent === "email" ? null : answer?.message} />
        )}

        <h3>Two-factor verification by email</h3>
        <p data-testid="two-factor-state">
          {me.twoFactorEnabled ? "On: signing in asks for a code sent to your email." : "Off: signing in asks only for your password."}
        </p>
        <p className="muted">Turning it on or off signs you out everywhere else; you stay signed in here.</p>
        <Form method="post" noValidate>
          <input type="hidden" name="intent" value="two-factor" />
          <input type="hidden" name="enabled" value={me.twoFactorEnabled ? "false" : "true"} />
          <Field id="f-2fa-password" label="Current password" name="current_password" type="password" autoComplete="current-password" required error={errorsFor("two-factor").current_password} />
          <button className={me.twoFactorEnabled ? "btn" : "btn btn-primary"} type="submit" disabled={busy}>
            {me.twoFactorEnabled ? "Turn off two-factor verification" : "Turn on two-factor verification"}
          </button>
        </Form>

        {me.twoFactorEnabled ? (
          <>
            <h3>Backup codes</h3>
            <p data-testid="backup-codes-remaining">
              {`${me.backupCodesRemaining} unused backup ${me.backupCodesRemaining === 1 ? "code" : "codes"} left. Use one when you cannot reach your email.`}
            </p>
            <Form method="post" noValidate>
              <input type="hidden" name="intent" value="backup-codes" />
              <Field id="f-codes-password" label="Current password" name="current_password" type="password" autoComplete="current-password" required error={errorsFor("backup-codes").current_password} />
              <button className="btn" type="submit" disabled={busy}>
                Generate new backup codes
              </button>
            </Form>
          </>
        ) : null}
      </section>
    </>
  );
}
