import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Field, FormMessage, NewPasswordFields } from "~/components/ui/field";
import { AUTH_MESSAGES } from "~/domain/auth-rules";
import { ChangePasswordInput } from "~/domain/auth-schemas";
import { formFields, parseWith } from "~/domain/validation";
import { checkPassword, selfWho, setPassword } from "~/models/auth.server";
import { redirectWithCookies } from "~/services/flow-cookies.server";
import { requirePrincipal } from "~/services/guard.server";
import { sessionAfterOwnChange } from "~/services/session.server";

export const meta: MetaFunction = () => [{ title: "Change password · Baseline" }];
export const handle = { guard: "principal" };

const CHANGED = "Your password has been changed. Other devices have been signed out.";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePrincipal(request, context);
  return { changed: new URL(request.url).searchParams.get("changed") === "1" };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requirePrincipal(request, context);
  const app = context.app;
  const parsed = parseWith(ChangePasswordInput, formFields(await request.formData()));
  if (!parsed.ok) return data({ errors: parsed.errors }, { status: 422 });
  const principal = { type: actor.kind, id: actor.id };
  const checked = await checkPassword(app, principal.type, principal.id, parsed.data.current_password, "change_password");
  if (checked.kind === "throttled") {
    return data({ errors: { current_password: checked.message } as Record<string, string> }, { status: 429 });
  }
  if (checked.kind === "wrong") {
    return data({ errors: { current_password: AUTH_MESSAGES.currentPasswordWrong } as Record<string, string> }, { status: 422 });
  }
  // Every session ends, this one included; this browser alone gets a fresh one, stored in the change's batch.
  const fresh = await sessionAfterOwnChange(app.db, principal, app.now(), app.secure);
  await setPassword(app, principal, parsed.data.password, { who: selfWho(principal, app.ip), action: "password", keep: fresh.insert });
  return redirectWithCookies("/change-password?changed=1", [fresh.cookie]);
}

export default function ChangePassword() {
  const { changed } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  const errors: Record<string, string> = answer?.errors ?? {};
  return (
    <section className="card">
      <h1>Change password</h1>
      {changed && !answer ? <FormMessage success={CHANGED} /> : null}
      <p className="muted">Changing your password signs you out everywhere else; you stay signed in here.</p>
      <Form method="post" noValidate>
        <Field label="Current password" name="current_password" type="password" autoComplete="current-password" required error={errors.current_password} />
        <NewPasswordFields errors={errors} />
        <button className="btn btn-primary" type="submit" disabled={busy}>
          Change password
        </button>
      </Form>
    </section>
  );
}
