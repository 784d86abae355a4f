import { useNonce } from "~/components/nonce";
import { Field } from "~/components/ui/field";
import { SelectField, TextareaField } from "~/components/ui/form-controls";
import { COMPARISON_OPERATOR_LABELS, COMPARISON_OPERATORS } from "~/domain/objectives";
import {
  MALADAPTIVE_DEFAULTS,
  OBJECTIVE_STATUSES,
  OBJECTIVE_TYPES,
  PLAN_CATEGORIES,
  PLAN_CATEGORY_LABELS,
  PLAN_STATUS_LABELS,
  PLAN_STATUSES,
  TIMEFRAME_LABELS,
  TIMEFRAMES,
  UNIT_TYPE_LABELS,
  UNIT_TYPES,
} from "~/domain/plans";

/**
 * The goal (plan) and objective fields, shared by the add-goal and edit-goal screens. Plain form
 * controls: every value is typed into the form and checked on the server; nothing needs JavaScript.
 */

export type Values = Record<string, unknown>;

export const text = (x: unknown): string => (x === null || x === undefined ? "" : String(x));
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export const CATEGORY_OPTIONS = PLAN_CATEGORIES.map((c) => ({ value: c, label: PLAN_CATEGORY_LABELS[c] }));
const STATUS_OPTIONS = PLAN_STATUSES.map((s) => ({ value: s, label: PLAN_STATUS_LABELS[s] }));
const TIMEFRAME_OPTIONS = TIMEFRAMES.map((t) => ({ value: t, label: TIMEFRAME_LABELS[t] }));
const UNIT_OPTIONS = UNIT_TYPES.map((u) => ({ value: u, label: UNIT_TYPE_LABELS[u] }));
const OBJECTIVE_STATUS_OPTIONS = OBJECTIVE_STATUSES.map((s) => ({ value: s, label: cap(s) }));
const TYPE_OPTIONS = OBJECTIVE_TYPES.map((t) => ({ value: t, label: t === "STO" ? "STO (short-term)" : "LTO (long-term)" }));
const OPERATOR_OPTIONS = COMPARISON_OPERATORS.map((o) => ({ value: o, label: COMPARISON_OPERATOR_LABELS[o] }));

/**
 * With JavaScript, the unit type shows only while the category is maladaptive. Without it the field stays
 * visible with its hint, and the server's normalisation drops a unit type sent for another category.
 */
const UNIT_TYPE_TOGGLE = `(function(){var s=document.currentScript,f=s&&s.closest("form");if(!f)return;var c=f.querySelector("[name=category]"),u=f.querySelector("[data-maladaptive-only]");if(!c||!u)return;var t=function(){u.hidden=c.value!=="maladaptive"};c.addEventListener("change",t);t()})();`;

/** The plan's own fields (clinical §3 Plan). */
export function GoalFields({ values, errors }: { values: Values; errors: Record<string, string> }) {
  const nonce = useNonce();
  const t = (k: string) => text(values[k]);
  return (
    <>
      <div className="form-grid">
        <SelectField label="Category" name="category" required placeholder="Choose a category" options={CATEGORY_OPTIONS} defaultValue={t("category")} error={errors.category} />
        <Field label="Name" name="name" required maxLength={255} defaultValue={t("name")} error={errors.name} />
        <SelectField label="Status" name="status" options={STATUS_OPTIONS} defaultValue={t("status") || "active"} error={errors.status} />
        <Field label="Current progress" name="current_progress" maxLength={255} defaultValue={t("current_progress")} error={errors.current_progress} />
      </div>
      <TextareaField label="Description" name="description" maxLength={5000} defaultValue={t("description")} error={errors.description} />
      <fieldset className="field">
        <legend>Baseline</legend>
        <div className="form-grid">
          <Field label="Baseline level" name="baseline_level" type="number" min={0} step="any" defaultValue={t("baseline_level")} error={errors.baseline_level} />
          <Field label="Baseline date" name="baseline_date" type="date" defaultValue={t("baseline_date")} error={errors.baseline_date} />
          <SelectField
            label="Baseline timeframe"
            name="baseline_timeframe"
            placeholder="None"
            options={TIMEFRAME_OPTIONS}
            defaultValue={t("baseline_timeframe")}
            error={errors.baseline_timeframe}
            aria-describedby="baseline-timeframe-hint"
          />
        </div>
        <small id="baseline-timeframe-hint" className="hint">
          Maladaptive goals without one use {TIMEFRAME_LABELS[MALADAPTIVE_DEFAULTS.baseline_timeframe].toLowerCase()}.
        </small>
      </fieldset>
      <fieldset className="field">
        <legend>Intensity</legend>
        <div className="form-grid">
          <Field label="Initial intensity" name="initial_intensity" maxLength={255} defaultValue={t("initial_intensity")} error={errors.initial_intensity} />
          <Field label="Current intensity" name="current_intensity" maxLength={255} defaultValue={t("current_intensity")} error={errors.current_intensity} />
          <Field label="Intensity key" name="intensity_key" maxLength={255} defaultValue={t("intensity_key")} error={errors.intensity_key} />
        </div>
      </fieldset>
      <fieldset className="field">
        <legend>Measurement</legend>
        <div className="form-grid">
          <SelectField label="Timeframe" name="timeframe" placeholder="None" options={TIMEFRAME_OPTIONS} defaultValue={t("timeframe")} error={errors.timeframe} />
          <div data-maladaptive-only="">
            <SelectField label="Unit type" name="unit_type" placeholder="None" options={UNIT_OPTIONS} defaultValue={t("unit_type")} error={errors.unit_type} aria-describedby="unit-type-hint" />
            <small id="unit-type-hint" className="hint">
              Maladaptive goals only; other categories are saved without a unit type.
            </small>
          </div>
        </div>
        <small className="hint">
          Maladaptive goals left without a choice are measured {TIMEFRAME_LABELS[MALADAPTIVE_DEFAULTS.timeframe].toLowerCase()} in {MALADAPTIVE_DEFAULTS.unit_type}.
        </small>
      </fieldset>
      <script nonce={nonce} dangerouslySetInnerHTML={{ __html: UNIT_TYPE_TOGGLE }} />
    </>
  );
}

/**
 * An objective's fields (clinical §3 Objective). `prefix` names them (objectives.0.name on the add-goal
 * form's rows) and `idPrefix` keeps the ids unique when several objective forms share a page.
 */
export function ObjectiveFields({ values, errors, prefix = "", idPrefix, withPosition = true }: { values: Values; errors: Record<string, string>; prefix?: string; idPrefix: string; withPosition?: boolean }) {
  const n = (k: string) => `${prefix}${k}`;
  const id = (k: string) => `${idPrefix}-${k}`;
  const t = (k: string) => text(values[k]);
  const e = (k: string) => errors[n(k)];
  return (
    <div className="form-grid">
      <SelectField id={id("type")} label="Type" name={n("type")} options={TYPE_OPTIONS} defaultValue={t("type") || "STO"} error={e("type")} />
      <SelectField id={id("status")} label="Status" name={n("status")} options={OBJECTIVE_STATUS_OPTIONS} defaultValue={t("status") || "not started"} error={e("status")} />
      <Field id={id("name")} label="Name" name={n("name")} maxLength={255} defaultValue={t("name")} error={e("name")} />
      <TextareaField id={id("description")} label="Description" name={n("description")} rows={2} maxLength={5000} defaultValue={t("description")} error={e("description")} />
      <Field id={id("target")} label="Target" name={n("target")} type="number" min={0} step="any" defaultValue={t("target")} error={e("target")} />
      <Field id={id("start_point")} label="Start point" name={n("start_point")} type="number" min={0} step="any" defaultValue={t("start_point")} error={e("start_point")} />
      <Field id={id("initial_date")} label="Initial date" name={n("initial_date")} type="date" defaultValue={t("initial_date")} error={e("initial_date")} />
      <Field id={id("end_date")} label="End date" name={n("end_date")} type="date" defaultValue={t("end_date")} error={e("end_date")} />
      <Field id={id("weeks_to_complete")} label="Weeks to complete" name={n("weeks_to_complete")} type="number" min={0} step={1} defaultValue={t("weeks_to_complete")} error={e("weeks_to_complete")} />
      <SelectField id={id("comparison_operator")} label="Comparison operator" name={n("comparison_operator")} placeholder="None" options={OPERATOR_OPTIONS} defaultValue={t("comparison_operator")} error={e("comparison_operator")} />
      {withPosition ? (
        <Field
          id={id("position")}
          label="Position"
          name={n("position")}
          type="number"
          min={1}
          step={1}
          defaultValue={t("position")}
          error={e("position")}
          hint="STOs only. Empty: after the other STOs. The LTO always stays last."
        />
      ) : null}
    </div>
  );
}
