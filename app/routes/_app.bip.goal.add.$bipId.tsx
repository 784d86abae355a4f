import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { GoalFields, ObjectiveFields } from "~/components/goals/goal-fields";
import { FormMessage } from "~/components/ui/field";
import { FormActions } from "~/components/ui/form-controls";
import { errorsOnFormRows, objectiveRowsFromForm } from "~/domain/objectives";
import { PLAN_CATEGORIES, PLAN_CATEGORY_LABELS, type PlanCategory } from "~/domain/plans";
import { findBipInScope } from "~/models/bip-scope.server";
import { createPlan } from "~/models/plans.server";
import { formResult, formValues, parentInAddress, modelContextFor } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";
import { auditRead, auditWho } from "~/services/audit.server";

/** Add a goal to a BIP (platform §2 bip goal/add), optionally with its first objectives. */
export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Add goal · ${data?.bip.patientName ?? "BIP"} · Baseline` }];
export const handle = { guard: "manage_bips" };

/** Objective rows offered on the form (more are added on the goal's edit screen). */
const OBJECTIVE_ROWS = 3;
const ROW_DEFAULT_TYPES = ["STO", "STO", "LTO"] as const;

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_bips", "view_bips");
  const ctx = modelContextFor(context, actor);
  const bip = await findBipInScope(ctx, requireId(params.bipId, "BIP"));
  if (!bip) throw notFound("BIP not found.");
  // The form names the client: a read of the client's BIP, recorded (decision 019).
  await auditRead(ctx.db, auditWho(ctx), { entity: "bip", entityId: bip.bipId, patientId: bip.patientId }, bip.tail);
  const asked = new URL(request.url).searchParams.get("category") ?? "";
  const category = (PLAN_CATEGORIES as readonly string[]).includes(asked) ? (asked as PlanCategory) : null;
  return { bip: { id: bip.bipId, patientName: bip.patientName }, category };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_bips", "view_bips");
  const bipId = requireId(params.bipId, "BIP");
  const values = formValues(await request.formData());
  const { objectives, rowOf } = objectiveRowsFromForm(values, OBJECTIVE_ROWS);
  // The BIP is this page's address: one the actor cannot see is the page's 404, not a field error.
  const result = parentInAddress(await createPlan(modelContextFor(context, actor), { ...values, bip_id: bipId, objectives }), "bip_id", "BIP not found.");
  // Errors of objective k (of the rows filled in) are shown on the form row it came from.
  const shown = !result.ok && result.status === 422 ? { ...result, errors: errorsOnFormRows(result.errors, rowOf) } : result;
  return formResult(shown, values, (plan) => `/bip/goal/${plan.id}/edit`);
}

export default function AddGoal() {
  const { bip, category } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const values: Record<string, unknown> = answer?.values ?? { category: category ?? "" };
  const errors = answer?.errors ?? {};
  const row = (r: number) => Object.fromEntries(Object.entries(values).filter(([k]) => k.startsWith(`objectives.${r}.`)).map(([k, x]) => [k.slice(`objectives.${r}.`.length), x]));
  return (
    <section className="card">
      <div className="page-head">
        <h1>{category ? `Add ${PLAN_CATEGORY_LABELS[category].toLowerCase()} goal` : "Add goal"}</h1>
        <Link to={`/bip/profile/${bip.id}`}>Back to the BIP of {bip.patientName}</Link>
      </div>
      <FormMessage error={answer?.message} />
      <Form method="post" noValidate key={JSON.stringify(values)}>
        <GoalFields values={values} errors={errors} />
        <fieldset className="field">
          <legend>First objectives (optional)</legend>
          <p className="hint">Rows left empty are skipped. A goal has at most one LTO, and it always comes last; more objectives can be added after saving.</p>
          {Array.from({ length: OBJECTIVE_ROWS }, (_, r) => (
            <fieldset key={r} className="field">
              <legend>Objective {r + 1}</legend>
              <ObjectiveFields values={answer ? row(r) : { type: ROW_DEFAULT_TYPES[r] }} errors={errors} prefix={`objectives.${r}.`} idPrefix={`new-objective-${r}`} withPosition={false} />
            </fieldset>
          ))}
        </fieldset>
        <FormActions>
          <button className="btn btn-primary" type="submit" disabled={busy}>
            Add goal
          </button>
          <Link className="btn" to={`/bip/profile/${bip.id}`}>
            Cancel
          </Link>
        </FormActions>
      </Form>
    </section>
  );
}
