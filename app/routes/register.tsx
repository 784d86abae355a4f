import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { AuthLayout } from "~/components/auth-layout";
import { Field, FormMessage, NewPasswordFields } from "~/components/ui/field";
import { AUTH_MESSAGES } from "~/domain/auth-rules";
import { RegisterInput } from "~/domain/auth-schemas";
import { formFields, parseWith } from "~/domain/validation";
import { registerFirstSuperadmin, registrationOpen } from "~/models/auth.server";
import { redirectWithCookies } from "~/services/flow-cookies.server";
import { createSession } from "~/services/session.server";

export const meta: MetaFunction = () => [{ title: "Create the first account · Baseline" }];
/** First-run registration: open only while there are no users; it creates the first SUPERADMIN. */
export const handle = { guard: "public" };

export async function loader({ context }: LoaderFunctionArgs) {
  return { open: await registrationOpen(context.app.db) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const app = context.app;
  const form = formFields(await request.formData());
  const values = { name: form.name ?? "", surname: form.surname ?? "", email: form.email ?? "" };
  const closed = () => data({ closed: true, message: AUTH_MESSAGES.registrationClosed, errors: {} as Record<string, string>, values }, { status: 403 });
  if (!(await registrationOpen(app.db))) return closed();
  const parsed = parseWith(RegisterInput, form);
  if (!parsed.ok) return data({ closed: false, message: null, errors: parsed.errors, values }, { status: 422 });
  // Closed in the same statement when another first account won a race.
  const principal = await registerFirstSuperadmin(app, parsed.data);
  if (!principal) return closed();
  return redirectWithCookies("/dashboard", [await createSession(app.db, principal, app.now(), app.secure)]);
}

export default function Register() {
  const { open } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  if (!open || answer?.closed) {
    return (
      <AuthLayout title="Create an account">
        <FormMessage error={AUTH_MESSAGES.registrationClosed} />
        <p className="auth-links">
          <Link to="/login">Sign in</Link>
        </p>
      </AuthLayout>
    );
  }
  const errors = answer?.errors ?? {};
  return (
    <AuthLayout title="Create the first account" subtitle="This account becomes the SUPERADMIN of this Baseline installation.">
      <Form method="post" noValidate>
        <Field label="Name" name="name" autoComplete="given-name" required maxLength={100} defaultValue={answer?.values.name} error={errors.name} />
        <Field label="Surname" name="surname" autoComplete="family-name" maxLength={100} defaultValue={answer?.values.surname} error={errors.surname} />
        <Field label="Email" name="email" type="email" autoComplete="username" required defaultValue={answer?.values.email} error={errors.email} />
        <NewPasswordFields errors={errors} label="Password" confirmLabel="Confirm password" />
        <button className="btn btn-primary btn-block" type="submit" disabled={busy}>
          Create account
        </button>
      </Form>
      <p className="auth-links">
        <Link to="/login">Already have an account? Sign in</Link>
      </p>
    </AuthLayout>
  );
}
