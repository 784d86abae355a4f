import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Field, FormMessage } from "~/components/ui/field";
import { CheckboxField, FormActions } from "~/components/ui/form-controls";
import { SETTING_BOUNDS, type BoundedSetting } from "~/domain/settings";
import { getSettingsForm, updateSettings } from "~/models/settings.server";
import { formValues, modelContextFor, type FormAnswer } from "~/services/forms.server";
import { forbidden, requireSuperadmin } from "~/services/guard.server";

/**
 * /settings: the settings the product reads (platform §9) — two-factor code expiry, the idle and absolute
 * session limits, the demo banner. SUPERADMIN only; every change is audited (docs/decisions/020).
 */
export const meta: MetaFunction = () => [{ title: "Settings · Baseline" }];
export const handle = { guard: "superadmin" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requireSuperadmin(request, context);
  const result = await getSettingsForm(modelContextFor(context, actor), context.app.env.DEMO_MODE);
  if (!result.ok) throw forbidden(result.message);
  return result.data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requireSuperadmin(request, context);
  const values = formValues(await request.formData());
  if (values.intent !== "save") return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  const runner = { env: context.app.env, waitUntil: context.app.waitUntil };
  const result = await updateSettings(modelContextFor(context, actor), runner, context.app.env.DEMO_MODE, values);
  if (result.ok) return redirect(`/settings?flash=${encodeURIComponent(result.message ?? "Saved.")}`, 303);
  if (result.status === 403) throw forbidden(result.message);
  return data<FormAnswer>({ errors: result.status === 422 ? result.errors : {}, message: result.message, values }, { status: result.status === 422 ? 422 : 400 });
}

const FIELDS: BoundedSetting[] = ["code_expiry_minutes", "idle_minutes", "absolute_hours"];

export default function Settings() {
  const current = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const [params] = useSearchParams();
  const errors = answer?.errors ?? {};
  const typed = (k: string) => (answer ? String(answer.values[k] ?? "") : String(current[k as keyof typeof current]));
  const demoChecked = answer ? answer.values.demo_mode === "true" || answer.values.demo_mode === "on" : current.demo_mode;
  const narrativeChecked = answer ? answer.values.portal_show_narrative === "true" || answer.values.portal_show_narrative === "on" : current.portal_show_narrative;
  return (
    <section className="card">
      <div className="page-head">
        <h1>Settings</h1>
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={answer?.message} />
      <p className="muted">Changes apply to new codes and to every session at once on this server, and everywhere within 30 seconds. Each change is recorded in the audit trail.</p>
      <Form method="post" noValidate key={JSON.stringify(answer?.values ?? null)}>
        <input type="hidden" name="intent" value="save" />
        {FIELDS.map((k) => {
          const b = SETTING_BOUNDS[k];
          return (
            <Field
              key={k}
              label={`${b.label} (${b.unit})`}
              name={k}
              type="number"
              inputMode="numeric"
              min={b.min}
              max={b.max}
              step={1}
              required
              hint={`${b.min} to ${b.max} ${b.unit}.`}
              defaultValue={typed(k)}
              error={errors[k]}
            />
          );
        })}
        <CheckboxField label={`Demo mode: show the demo banner (this deployment's default: ${current.deployment_demo_mode ? "on" : "off"})`} name="demo_mode" defaultChecked={demoChecked} error={errors.demo_mode} />
        <CheckboxField label="Parent portal: show parents the summary of each session note (off: dates and session types only)" name="portal_show_narrative" defaultChecked={narrativeChecked} error={errors.portal_show_narrative} />
        <FormActions>
          <button className="btn btn-primary" type="submit" disabled={busy}>
            Save settings
          </button>
        </FormActions>
      </Form>
    </section>
  );
}
