import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { GoalFields, ObjectiveFields } from "~/components/goals/goal-fields";
import { ConfirmDelete, ObjectivesTable, type ObjectiveAnswer } from "~/components/goals/objectives-table";
import { FormMessage } from "~/components/ui/field";
import { FormActions, SelectField } from "~/components/ui/form-controls";
import { StaleNotice } from "~/components/ui/stale-notice";
import { objectiveLabels } from "~/domain/objectives";
import { PLAN_CATEGORY_LABELS, PLAN_STATUS_LABELS, PLAN_STATUSES, type PlanCategory } from "~/domain/plans";
import { DELETE_CONFIRMED, pathId } from "~/domain/validation";
import { createObjective, deleteObjective, stepPlanObjective, updateObjective, type ObjectiveJson } from "~/models/objectives.server";
import { deletePlan, getPlan, updatePlan, updatePlanStatus, type PlanJson } from "~/models/plans.server";
import { formResult, formValues, parentInAddress, formVersion, modelContextFor, requireDeleteConfirmed, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";

/**
 * Edit a goal (plan) and manage its objectives: plan fields (versioned), status, delete with a confirm
 * step, and objectives — add, edit, delete (confirm step), move up/down. Plain forms told apart by
 * `intent`; everything works with JavaScript off.
 */
export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data ? `Edit goal ${data.plan.name} · ${data.plan.patient_name} · Baseline` : "Edit goal · Baseline" }];
export const handle = { guard: "manage_bips" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_bips", "view_bips");
  const plan = await getPlan(modelContextFor(context, actor), requireId(params.planId, "Plan"));
  if (!plan) throw notFound("Plan not found.");
  return { plan };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_bips", "view_bips");
  const planId = requireId(params.planId, "Plan");
  const ctx = modelContextFor(context, actor);
  const values = formValues(await request.formData());
  const back = `/bip/goal/${planId}/edit`;
  const objectiveId = pathId(String(values.objective_id ?? "")) ?? 0;
  switch (values.intent) {
    case "save-plan":
      return formResult(await withFormVersion(values.version, (version) => updatePlan(ctx, planId, values, { partial: false, version })), values, () => back);
    case "status":
      return formResult(await updatePlanStatus(ctx, planId, values), values, () => back);
    case "delete-plan":
      // Only from the confirm step (its form sends DELETE_CONFIRMED); otherwise that step.
      requireDeleteConfirmed(values, `${back}?confirm=delete`);
      return formResult(await deletePlan(ctx, planId), values, (r) => `/bip/profile/${r.bip_id}`);
    case "add-objective":
      // The goal is this page's address: one the actor cannot see is the page's 404, not a field error.
      return formResult(parentInAddress(await createObjective(ctx, { ...values, plan_id: planId }), "plan_id", "Goal not found."), values, () => back);
    case "save-objective":
      return formResult(await withFormVersion(values.version, (version) => updateObjective(ctx, objectiveId, values, { partial: false, version, planId })), values, () => back);
    case "delete-objective":
      requireDeleteConfirmed(values, `${back}?delete-objective=${objectiveId}`);
      return formResult(await deleteObjective(ctx, objectiveId, { planId }), values, () => back);
    case "move-objective":
      return formResult(await stepPlanObjective(ctx, planId, objectiveId, values.direction === "up" ? "up" : "down"), values, () => back);
    default:
      return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  }
}

/** The plan's fields as form values. */
function planValues(p: PlanJson): Record<string, unknown> {
  return { ...p, objectives: undefined };
}

export default function EditGoal() {
  const { plan } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>() as FormAnswer | undefined;
  const busy = useNavigation().state === "submitting";
  const [params] = useSearchParams();
  const intent = answer ? String(answer.values.intent ?? "") : "";
  const here = `/bip/goal/${plan.id}/edit`;

  // The plan form: after a stale save it shows what is stored now, with its version, so saving again is deliberate,
  // and the notice above it keeps what was typed and not saved.
  const planAnswer = intent === "save-plan" ? answer! : null;
  const current = (planAnswer?.current ?? null) as PlanJson | null;
  const shownPlan = current ? planValues(current) : (planAnswer?.values ?? planValues(plan));
  const planVersion = current ? current.version : (formVersion(planAnswer?.values.version) ?? plan.version);

  const objectiveAnswer: ObjectiveAnswer | null = answer
    ? { intent, objectiveId: pathId(String(answer.values.objective_id ?? "")), errors: answer.errors, values: answer.values, current: (answer.current ?? null) as ObjectiveJson | null }
    : null;
  const added = intent === "add-objective" ? answer! : null;

  const confirmPlan = params.get("confirm") === "delete";
  const confirmObjective = plan.objectives.find((o) => String(o.id) === params.get("delete-objective"));
  const category = PLAN_CATEGORY_LABELS[plan.category as PlanCategory] ?? plan.category;

  return (
    <section className="card">
      <div className="page-head">
        <h1>
          Edit goal: {plan.name} <span className="muted">· {plan.patient_name}</span> <span className="badge">{PLAN_STATUS_LABELS[plan.status as keyof typeof PLAN_STATUS_LABELS] ?? plan.status}</span>
        </h1>
        <span>
          <Link to={`/bip/goal/${plan.id}`}>Goal screen</Link> · <Link to={`/bip/profile/${plan.bip_id}`}>BIP of {plan.patient_name}</Link>
        </span>
      </div>
      <p className="muted">
        {category} · position {plan.position}
      </p>
      <FormMessage success={answer ? null : params.get("flash")} />
      {answer && ["status", "delete-plan", "move-objective", "delete-objective"].includes(intent) ? <FormMessage error={answer.message} /> : null}

      <section aria-labelledby="goal-fields">
        <h2 id="goal-fields">Goal</h2>
        {current ? (
          <StaleNotice message={planAnswer!.message} version={current.version} unsaved={planAnswer!.values} hidden={["intent", "version"]} stored={shownPlan} />
        ) : (
          <FormMessage error={planAnswer?.message} />
        )}
        <Form method="post" noValidate key={JSON.stringify([shownPlan, planVersion])}>
          <input type="hidden" name="intent" value="save-plan" />
          <input type="hidden" name="version" value={planVersion} />
          <GoalFields values={shownPlan} errors={planAnswer && !current ? planAnswer.errors : {}} />
          <FormActions>
            <button className="btn btn-primary" type="submit" disabled={busy}>
              Save goal
            </button>
          </FormActions>
        </Form>
        <Form method="post" className="search-form" aria-label="Change status">
          <input type="hidden" name="intent" value="status" />
          <SelectField
            id="status-only"
            label="Change status"
            name="status"
            options={PLAN_STATUSES.map((s) => ({ value: s, label: PLAN_STATUS_LABELS[s] }))}
            defaultValue={plan.status}
            error={intent === "status" ? answer!.errors.status : undefined}
          />
          <button className="btn" type="submit" disabled={busy}>
            Change status
          </button>
        </Form>
      </section>

      <section aria-labelledby="objectives">
        <h2 id="objectives">Objectives</h2>
        <p className="hint">STOs are listed in their order; the LTO always comes last.</p>
        {confirmObjective ? (
          <ConfirmDelete
            question={`Are you sure you want to delete ${objectiveLabels(plan.objectives).get(confirmObjective.id)!.label}${confirmObjective.name ? ` (${confirmObjective.name})` : ""}?`}
            intent="delete-objective"
            fields={{ objective_id: confirmObjective.id, ...DELETE_CONFIRMED }}
            cancelTo={here}
            busy={busy}
          />
        ) : null}
        <ObjectivesTable goalName={plan.name} objectives={plan.objectives} answer={objectiveAnswer} busy={busy} />
        <details open={!!added}>
          <summary>Add objective</summary>
          <FormMessage error={added?.message} />
          <Form method="post" noValidate key={JSON.stringify(added?.values ?? null)}>
            <input type="hidden" name="intent" value="add-objective" />
            <ObjectiveFields values={added?.values ?? {}} errors={added?.errors ?? {}} idPrefix="add-objective" />
            <FormActions>
              <button className="btn btn-primary" type="submit" disabled={busy}>
                Add objective
              </button>
            </FormActions>
          </Form>
        </details>
      </section>

      <section className="danger-zone" aria-labelledby="delete-goal">
        <h2 id="delete-goal">Delete goal</h2>
        {confirmPlan ? (
          <ConfirmDelete question={`Are you sure you want to delete the goal “${plan.name}”?`} intent="delete-plan" fields={DELETE_CONFIRMED} cancelTo={here} busy={busy} />
        ) : (
          <>
            <p>Deleting the goal removes it and its objectives from the BIP and its charts. The record and its audit trail are kept.</p>
            <Link className="btn btn-danger" to="?confirm=delete">
              Delete goal…
            </Link>
          </>
        )}
      </section>
    </section>
  );
}
