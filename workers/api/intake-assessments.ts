import {
  createIntakeAssessment,
  deleteIntakeAssessment,
  getIntakeAssessment,
  INTAKE_ASSESSMENTS,
  listIntakeAssessments,
  updateIntakeAssessment,
  type IntakeJson,
} from "~/models/intake-assessments.server";
import { v2Router, type RestResource } from "./rest";

/**
 * Intake assessments (clinical §3; platform medical/initial-assessment): viewed with view_bips, changed
 * with manage_bips (docs/decisions/011). List filter: patient_id; search by client. Every show is audited
 * by the model; DELETE is soft.
 */
export const intakeAssessmentResource: RestResource<IntakeJson> = {
  name: INTAKE_ASSESSMENTS,
  idFilters: ["patient_id"],
  label: "Intake assessment",
  view: "view_bips",
  manage: "manage_bips",
  list: (ctx, query, filters) => listIntakeAssessments(ctx, query, filters),
  get: getIntakeAssessment,
  create: createIntakeAssessment,
  update: updateIntakeAssessment,
  remove: deleteIntakeAssessment,
  audit: { entity: "intake_assessment", patientOf: (r) => r.patient_id, showAudited: true },
};

export const intakeAssessmentsV2 = v2Router(intakeAssessmentResource);
