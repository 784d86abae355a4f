import * as v from "valibot";
import { choiceOr, MESSAGES, notTextMessage, optionalDate, optionalLine, optionalNumber, optionalText, requiredLine } from "./fields";
import { plainText, type SetElsewhere } from "./validation";

/**
 * Plans (goals) of a BIP and their objectives (clinical §3 plan, objective; §4; §5 plan normalisation;
 * §9 enumerations). The vocabularies live here once; charts, forms and the API read them.
 */
export const PLAN_CATEGORIES = ["maladaptive", "replacement", "caregiver_training", "rbt_training", "teacher_training"] as const;
export type PlanCategory = (typeof PLAN_CATEGORIES)[number];

export const PLAN_CATEGORY_LABELS: Record<PlanCategory, string> = {
  maladaptive: "Maladaptive behaviors",
  replacement: "Replacement behaviors",
  caregiver_training: "Caregiver training",
  rbt_training: "RBT training",
  teacher_training: "Teacher training",
};

/** Training categories: their charts are not gap-filled (clinical §9). */
export const TRAINING_CATEGORIES: readonly PlanCategory[] = ["caregiver_training", "rbt_training", "teacher_training"];

export const PLAN_STATUSES = ["active", "inactive", "discontinued"] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export const TIMEFRAMES = ["per_week", "per_hour"] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];

export const UNIT_TYPES = ["occurrences", "seconds", "minutes"] as const;
export type UnitType = (typeof UNIT_TYPES)[number];

export const OBJECTIVE_TYPES = ["STO", "LTO"] as const;
export type ObjectiveType = (typeof OBJECTIVE_TYPES)[number];

export const OBJECTIVE_STATUSES = ["not started", "in progress", "mastered", "initiated", "on hold", "discontinued", "maintenance"] as const;
export type ObjectiveStatus = (typeof OBJECTIVE_STATUSES)[number];

// ---------------------------------------------------------------------------------------------------
// Labels, normalisation (clinical §5) and the input schemas shared by the goal screens and the API.

export const PLAN_STATUS_LABELS: Record<PlanStatus, string> = { active: "Active", inactive: "Inactive", discontinued: "Discontinued" };
export const TIMEFRAME_LABELS: Record<Timeframe, string> = { per_week: "Per week", per_hour: "Per hour" };
export const UNIT_TYPE_LABELS: Record<UnitType, string> = { occurrences: "Occurrences", seconds: "Seconds", minutes: "Minutes" };

/** The defaults a maladaptive plan takes when a measurement field is missing or not one of the listed values (clinical §5). */
export const MALADAPTIVE_DEFAULTS = { timeframe: "per_week", baseline_timeframe: "per_hour", unit_type: "occurrences" } as const satisfies {
  timeframe: Timeframe;
  baseline_timeframe: Timeframe;
  unit_type: UnitType;
};

/** Only maladaptive plans measure in a unit type (clinical §5: the others have none). */
export function usesUnitType(category: string): boolean {
  return category === "maladaptive";
}

function listed<T extends readonly string[]>(values: T, x: unknown): T[number] | null {
  const s = typeof x === "string" ? x.trim() : x;
  return typeof s === "string" && (values as readonly string[]).includes(s) ? (s as T[number]) : null;
}

export interface PlanMeasurement {
  timeframe: Timeframe | null;
  baseline_timeframe: Timeframe | null;
  unit_type: UnitType | null;
}

/**
 * Plan normalisation, exactly as clinical §5: timeframe and baseline_timeframe keep only per_week or
 * per_hour (else null); unit_type keeps only occurrences, seconds or minutes; a maladaptive plan fills a
 * missing or unlisted value with per_week / per_hour / occurrences; every other category has no unit_type,
 * whatever was sent. Never fails: it decides what is stored.
 */
export function normalisePlan<T extends { category: string; timeframe?: unknown; baseline_timeframe?: unknown; unit_type?: unknown }>(plan: T): Omit<T, keyof PlanMeasurement> & PlanMeasurement {
  const timeframe = listed(TIMEFRAMES, plan.timeframe);
  const baseline = listed(TIMEFRAMES, plan.baseline_timeframe);
  const unit = listed(UNIT_TYPES, plan.unit_type);
  const measurement: PlanMeasurement = usesUnitType(plan.category)
    ? { timeframe: timeframe ?? MALADAPTIVE_DEFAULTS.timeframe, baseline_timeframe: baseline ?? MALADAPTIVE_DEFAULTS.baseline_timeframe, unit_type: unit ?? MALADAPTIVE_DEFAULTS.unit_type }
    : { timeframe, baseline_timeframe: baseline, unit_type: null };
  return { ...plan, ...measurement };
}

export const PLAN_MESSAGES = {
  category: "Choose a category from the list.",
  status: "Choose a status from the list.",
} as const;

/**
 * Measurement fields: text (or nothing), decided by normalisePlan (an unlisted word is not an error, clinical §5). A
 * value that is not text (a number, list, object, true/false) or broken text (a control character, a lone surrogate)
 * is refused at the field, as every text field is (decision 017, stop 42): it was turned into the default silently.
 */
const measured = (label: string) => v.optional(v.nullable(v.pipe(v.string(notTextMessage(label)), plainText(label))), null);

/** A goal (clinical §3 Plan) as the add/edit form and the API send it; the output is normalised. */
export const PlanInput = v.pipe(
  v.object({
    name: requiredLine("Name", 255),
    category: v.pipe(v.string(MESSAGES.required("Category")), v.trim(), v.nonEmpty(MESSAGES.required("Category")), v.picklist(PLAN_CATEGORIES, PLAN_MESSAGES.category)),
    status: choiceOr(PLAN_STATUSES, "active", PLAN_MESSAGES.status),
    description: optionalText("Description", 5000),
    current_progress: optionalLine("Current progress", 255),
    baseline_level: optionalNumber("Baseline level", 0),
    baseline_date: optionalDate,
    baseline_timeframe: measured("Baseline timeframe"),
    initial_intensity: optionalLine("Initial intensity", 255),
    current_intensity: optionalLine("Current intensity", 255),
    intensity_key: optionalLine("Intensity key", 255),
    timeframe: measured("Timeframe"),
    unit_type: measured("Unit type"),
  }),
  v.transform(normalisePlan),
);
export type PlanInput = v.InferOutput<typeof PlanInput>;

/** The spec's Plan field the plan calls do not write (decision 044; fieldsSetElsewhere): 422 at the field. */
export const PLAN_SET_ELSEWHERE: SetElsewhere = {
  chartComments: "Chart comments have their own calls: POST /api/v2/chart-comments with plan_id.",
};

/** A required choice from a list: a missing, empty or unlisted value gets `message`. */
export function requiredChoice<const T extends readonly string[]>(values: T, message: string) {
  return v.pipe(v.optional(v.string(message), ""), v.trim(), v.picklist(values, message));
}

export const PlanStatusInput = v.object({ status: requiredChoice(PLAN_STATUSES, PLAN_MESSAGES.status) });

/** The objective statuses (clinical §3) with their defaults, for the objective schema in ./objectives. */
export const DEFAULT_OBJECTIVE_TYPE: ObjectiveType = "STO";
export const DEFAULT_OBJECTIVE_STATUS: ObjectiveStatus = "not started";
