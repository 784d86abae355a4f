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
