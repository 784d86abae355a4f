import type { BipDocument, ListItem, ListSectionKey, NarrativeField, Table } from "./bip-document";
import { HYPOTHESIZED_FUNCTIONS } from "./bip-document";
import { renumber } from "./list-sections";

/**
 * The default clinical content of a behavior intervention plan (clinical §3 "Default clinical content",
 * §9 "Clinical text constants"). Defaults fill the sections of a document that are empty when the plan is
 * shown, edited or exported; the stored document is never changed by them. "Empty" means: a list with no
 * items, a narrative that is missing or blank, a table with no rows, a crisis-plan or consent text that is
 * blank (docs/decisions/010). Texts use the placeholders of app/domain/placeholders.ts. Pure.
 */

/** Clinical text constants (clinical §9). The wording below is built from these numbers. */
export const CLINICAL = {
  responseBlockMaxSeconds: 15,
  calmBeforeRedirectSeconds: 3,
  attentionIntervalMinutes: 10,
  breakMaxMinutes: 5,
  escapeExtinctionGuidanceMaxMinutes: 2,
  fadingPhaseMonths: 3,
  fadingReductionsPercent: [25, 50, 75] as const,
  phase1MaxIncidentsPerWeek: 1,
  phase1MaxMaladaptiveDomainScore: 17,
  phase2SkillGoalPercent: 80,
  phase2MinSocialCommunicationScore: 80,
  caregiverParticipationPercent: 85,
  analystCallbackHours: 24,
  dischargeLeadMonths: [3, 6] as const,
  dischargeTypicalMonths: 6,
  fidelityDataPoints: 4,
  unitsPerHour: 4,
  authorizationWeeks: 26,
} as const;

export const PROCEDURE_CODES = { assessment: "97151", rbtDirect: "97153", protocolModification: "97155", caregiverTraining: "97156" } as const;

const C = CLINICAL;
const calm = `${C.calmBeforeRedirectSeconds} seconds`;

// ------------------------------------------------------------------------------------------ interventions

type Intervention = Omit<ListItem<"interventions">, "index">;

export const DEFAULT_INTERVENTIONS: readonly Intervention[] = [
  {
    title: "Differential Reinforcement of Alternative Behaviors (DRA)",
    description:
      "{name} receives reinforcement (behavior-specific praise and the preferred items or activities identified through preference assessment) immediately after engaging in the replacement behavior targeted in this plan, while the maladaptive behavior no longer produces that reinforcer. Reinforcement is delivered on a continuous schedule while the alternative behavior is being taught and is thinned systematically to an intermittent schedule as the behavior becomes stable across sessions, settings and people.",
    added_date: null,
  },
  {
    title: "Redirection",
    description: `When {name} shows precursors of a maladaptive behavior, or once an episode has ended, the adult calmly directs {him|her|them} to an appropriate activity or to the replacement behavior, using the least intrusive prompt needed (gestural, verbal, model, then physical). Redirection is given after {name} has been calm for ${calm}, so that it does not follow the maladaptive behavior and reinforce it; following the redirection is praised at once.`,
    added_date: null,
  },
  {
    title: "Response Block",
    description: `When {name} attempts a response that could injure {himself|herself|themselves} or others (for example self-injury, aggression or mouthing unsafe objects), the adult places a hand, cushion or object between {name} and the target for the shortest time needed to prevent the response, never over ${C.responseBlockMaxSeconds} seconds. A response block is not a restraint: {name}'s movement is never held, pinned or restricted, and the block ends as soon as the attempt stops. Every block is recorded in the session data.`,
    added_date: null,
  },
  {
    title: "Premack Principle",
    description:
      "A less-preferred activity (for example a work task, a hygiene routine or a transition) is presented before access to a more-preferred activity, stated as a first/then contingency (\"First finish the puzzle, then tablet\"), with a visual first/then board when helpful. The preferred activity is delivered every time the less-preferred activity is completed, so that the contingency stays reliable.",
    added_date: null,
  },
  {
    title: "Extinction / Shaping / Escape Extinction",
    description: `Extinction: the reinforcer that has maintained a maladaptive behavior is withheld (for example, attention is not given for attention-maintained behavior); caregivers are prepared for a temporary extinction burst and respond consistently. Shaping: successive approximations of the target skill are reinforced while earlier approximations are gradually no longer reinforced. Escape extinction: when a behavior is maintained by escape from demands, the demand is not removed because of the behavior; the instruction is kept in place with prompting, and physical guidance, when used, is the least intrusive needed and lasts at most ${C.escapeExtinctionGuidanceMaxMinutes} minutes per instance. Escape extinction is stopped if {name} or others are at risk.`,
    added_date: null,
  },
  {
    title: "Functional Communication Training (FCT)",
    description:
      "{name} is taught a communication response (vocal request, sign, picture exchange or speech-generating device) that produces the same reinforcer as the maladaptive behavior: asking for a break, for help, for attention or for a preferred item. The response is prompted before the maladaptive behavior is likely, reinforced immediately and every time at first, and then thinned with delays and tolerance training as it becomes fluent.",
    added_date: null,
  },
];

// ------------------------------------------------------------------------------------------ functions

/** What each hypothesized function means, for the hypothesis-based intervention text. */
export const FUNCTION_DEFINITIONS: Readonly<Record<(typeof HYPOTHESIZED_FUNCTIONS)[number]["value"], string>> = {
  attention: "the behavior produces social attention from adults or peers (reprimands, comfort, eye contact, conversation).",
  escape: "the behavior removes, delays or reduces non-preferred demands, activities, people or settings.",
  tangible: "the behavior produces access to preferred items, activities or food, or delays their removal.",
  automatic: "the behavior produces its own reinforcement, independent of other people (sensory stimulation, or relief from pain or discomfort).",
};

const HYPOTHESIS_BASED_INTERVENTION = [
  "The interventions in this plan are chosen according to the hypothesized function of each target behavior, identified through the functional behavior assessment (caregiver and teacher interviews, record review and direct ABC observation across settings). Four functions are considered:",
  ...HYPOTHESIZED_FUNCTIONS.map((f) => `- ${f.label}: ${FUNCTION_DEFINITIONS[f.value]}`),
  "For each function, the plan combines preventive (antecedent) strategies that make the behavior unnecessary, replacement skills that give {name} an appropriate way to obtain the same outcome, and manager (consequence) strategies that stop the maladaptive behavior from producing it. When a behavior serves more than one function, the strategies for each function are used together.",
].join("\n");

// ------------------------------------------------------------------------------------------ strategies

type Strategy = Omit<ListItem<"sensory">, "index">;

export const DEFAULT_STRATEGIES: Readonly<Record<"sensory" | "tangibles" | "attention" | "escape", readonly Strategy[]>> = {
  sensory: [
    {
      preventive_strategies:
        "Provide scheduled access to matched sensory stimulation (textured or fidget items, movement breaks, music, chewy items when safe) throughout the day; keep the environment engaging and reduce unstructured down-time, when automatically maintained behavior is most likely.",
      replacement_skills: "Teach {name} to ask for sensory items or a movement break with {his|her|their} communication system, and to use appropriate alternatives that give similar sensory input.",
      manager_strategies: `Interrupt or block the response when it is unsafe (a response block never over ${C.responseBlockMaxSeconds} seconds, no restraint). Once {name} has been calm for ${calm}, redirect {him|her|them} to the matched sensory alternative and reinforce its use.`,
    },
  ],
  tangibles: [
    {
      preventive_strategies:
        "Give advance notice, with visual or timer warnings, before a preferred item is removed or an activity ends; use first/then boards (Premack principle); keep preferred items visible only when they are available; offer choices between acceptable items.",
      replacement_skills: "Teach {name} to request preferred items appropriately (words, sign or picture), to accept \"wait\" and \"no\" for gradually longer delays, and to take turns and share.",
      manager_strategies: `Do not give the item because of the maladaptive behavior (extinction). Once {name} has been calm for ${calm}, prompt the appropriate request, then give the item, an alternative, or a clear statement of when it will be available.`,
    },
  ],
  attention: [
    {
      preventive_strategies: `Deliver time-contingent attention at least every ${C.attentionIntervalMinutes} minutes (brief praise, conversation or play, independent of behavior) and frequent behavior-specific praise for appropriate behavior; seat {name} near the adult during group activities.`,
      replacement_skills: "Teach {name} to gain attention appropriately (tapping a shoulder, saying the person's name, raising a hand) and to wait briefly when the adult is busy.",
      manager_strategies: `Keep attention to the maladaptive behavior to the minimum needed for safety (neutral expression, no reprimands or long explanations). Give attention immediately when {name} uses the appropriate response, or once {he|she|they} {has|have} been calm for ${calm}.`,
    },
  ],
  escape: [
    {
      preventive_strategies:
        "Present demands at a level {name} can succeed with; mix easy, mastered tasks with new ones (behavioral momentum); break tasks into smaller steps; offer choices of task order or materials; use visual schedules; schedule breaks before behavior is likely.",
      replacement_skills: `Teach {name} to ask for a break or for help (words, sign or break card). Breaks last up to ${C.breakMaxMinutes} minutes and end with a return to the task; the work period before a break is lengthened gradually.`,
      manager_strategies: `Do not remove the demand because of the maladaptive behavior (escape extinction; physical guidance, when used, at most ${C.escapeExtinctionGuidanceMaxMinutes} minutes). Prompt the task with the least intrusive prompt needed, and honour an appropriate request for a break.`,
    },
  ],
};

// ------------------------------------------------------------------------------------------ de-escalation

export const DEFAULT_DE_ESCALATION_TECHNIQUES: readonly string[] = [
  "Stay calm: use a neutral tone and a low, slow voice; avoid arguing, shouting or power struggles.",
  "Reduce demands for the moment and give {name} physical space, while keeping {him|her|them} in sight.",
  "Remove or reduce triggers in the environment (noise, crowding, bright lights) and move other people away when needed.",
  "Use few words: short, clear, positive instructions that say what to do rather than what not to do.",
  "Offer a limited choice between two acceptable options so that {name} keeps a sense of control.",
  "Acknowledge and name the emotion (\"You are upset because the game ended\") without giving in to the behavior.",
  "Prompt a calming strategy {name} has been taught: deep breathing, counting, squeezing a ball, or the calm-down area.",
  "Prompt the functional communication response: ask for a break, for help, or for the item.",
  `Once {name} has been calm for ${calm}, redirect {him|her|them} to a preferred, calming activity.`,
  "Keep a safe distance and a non-threatening posture: stand to the side, at eye level, with relaxed hands.",
  `Remove dangerous objects and block unsafe responses for no more than ${C.responseBlockMaxSeconds} seconds; never restrain.`,
  "Praise and reinforce every sign of calming and every appropriate response.",
  "After the episode, return gradually to the routine and the task, record the incident (antecedent, behavior, consequence, duration) and inform the behavior analyst.",
];

// ------------------------------------------------------------------------------------------ services

const hours = (units: number) => units / C.unitsPerHour;
const service = (cpt: string, weeklyUnits: number, location: string, description: string) => ({
  cpt,
  num_units: weeklyUnits * C.authorizationWeeks,
  breakdown_per_week: `${hours(weeklyUnits)} hour${hours(weeklyUnits) === 1 ? "" : "s"} per week (${weeklyUnits} units)`,
  location,
  description_service: description,
});

export const DEFAULT_RECOMMENDATIONS: readonly Omit<ListItem<"recommendations">, "index">[] = [
  {
    cpt: PROCEDURE_CODES.assessment,
    num_units: 32,
    breakdown_per_week: "Up to 8 hours (32 units) per 6-month authorization, for the reassessment",
    location: "Home and clinic",
    description_service:
      "Behavior identification assessment and reassessment by the BCBA: record review, caregiver and teacher interviews, direct observation, standardized and skills assessments, functional behavior assessment, and the treatment plan and progress report.",
  },
  service(
    PROCEDURE_CODES.rbtDirect,
    80,
    "Home, school and community",
    "Adaptive behavior treatment by protocol, delivered by a Registered Behavior Technician under the supervision of the BCBA: implementation of the behavior reduction and skill acquisition programs of this plan, with data collected every session.",
  ),
  service(
    PROCEDURE_CODES.protocolModification,
    16,
    "Home, school and community",
    "Adaptive behavior treatment with protocol modification by the BCBA or BCaBA: direct observation of {name} with the technician, analysis of the data, modification of programs and procedures, and supervision of the technician.",
  ),
  service(
    PROCEDURE_CODES.caregiverTraining,
    C.unitsPerHour,
    "Home",
    `Family adaptive behavior treatment guidance by the BCBA or BCaBA: weekly caregiver training in the procedures of this plan, with caregiver competency checked monthly. Caregivers are expected to take part in at least ${C.caregiverParticipationPercent}% of planned sessions.`,
  ),
];

// ------------------------------------------------------------------------------------------ schedules

export const WORK_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;
export const WEEK_DAYS = [...WORK_DAYS, "Sunday"] as const;

export const DEFAULT_WORK_SCHEDULE: Table = {
  table_headers: ["Schedule", ...WORK_DAYS],
  table_rows: [
    ["Time", ...WORK_DAYS.map(() => "")],
    ["Setting", ...WORK_DAYS.map(() => "")],
  ],
};

export const DEFAULT_SCHEDULE_OF_SERVICES: Table = {
  table_headers: ["Setting", ...WEEK_DAYS],
  table_rows: [
    ["School", ...WEEK_DAYS.map(() => "")],
    ["Home", ...WEEK_DAYS.map(() => "")],
  ],
};

// ------------------------------------------------------------------------------------------ crisis, consent

export const DEFAULT_CRISIS_PLAN = {
  description:
    "A crisis is any situation in which {name}'s behavior puts {himself|herself|themselves} or others at immediate risk of serious injury, or causes serious property destruction, and cannot be managed safely with the de-escalation techniques and procedures of this plan (for example severe aggression, severe self-injury, elopement into an unsafe area, or a medical emergency). The adult present first secures the safety of {name} and of others: moves other people away, removes dangerous objects, and uses only the procedures of this plan. ABA staff never use restraint.",
  prevention: `Caregivers use the preventive strategies of this plan every day, supervise {name} closely in the settings where crisis behavior has occurred, keep dangerous items secured and emergency numbers at hand. In an emergency, caregivers may call 911 at any time. Caregivers tell the behavior analyst about any crisis as soon as possible; the analyst returns calls within ${C.analystCallbackHours} hours, reviews the incident with the family and the team, and changes the plan when needed.`,
} as const;

export const DEFAULT_CONSENT_STATEMENT =
  "I, the undersigned parent or legal guardian, consent to the assessment and applied behavior analysis treatment of {name} described in this behavior intervention plan. The goals of the plan, the procedures it uses (including reinforcement, extinction, response blocking and physical guidance within the limits stated), and their possible risks and benefits have been explained to me, and my questions have been answered. I understand that I may ask questions at any time and may withdraw this consent in writing at any time. I agree to take part in caregiver training as described in this plan. I understand that the information in this plan is confidential and is shared only with my authorization or as the law permits.";

// ------------------------------------------------------------------------------------------ fading, discharge

export const DEFAULT_FADING_PHASES: readonly Omit<ListItem<"fading_plan_phases">, "index">[] = [
  {
    phase: `Phase 1: ${C.fadingReductionsPercent[0]}% reduction of services`,
    description: `Entry goals: ${C.phase1MaxIncidentsPerWeek} or fewer incidents of each target behavior per week, and a maladaptive domain score of ${C.phase1MaxMaladaptiveDomainScore} or less, both maintained for ${C.fadingPhaseMonths} consecutive months. Direct services are then reduced by ${C.fadingReductionsPercent[0]}%.`,
  },
  {
    phase: `Phase 2: ${C.fadingReductionsPercent[1]}% reduction of services`,
    description: `Entry goals: Phase 1 goals maintained, skill acquisition goals at ${C.phase2SkillGoalPercent}% or more, and socialization and communication scores of ${C.phase2MinSocialCommunicationScore} or more, for ${C.fadingPhaseMonths} consecutive months. Direct services are then reduced by ${C.fadingReductionsPercent[1]}%.`,
  },
  {
    phase: `Phase 3: ${C.fadingReductionsPercent[2]}% reduction of services`,
    description: `Entry goals: Phase 2 goals maintained with reduced services, and caregivers implementing the plan with competency, for ${C.fadingPhaseMonths} consecutive months. Direct services are then reduced by ${C.fadingReductionsPercent[2]}%.`,
  },
  {
    phase: "Phase 4: consultation only, 1 hour per week",
    description: `Entry goals: all previous goals maintained for ${C.fadingPhaseMonths} consecutive months at ${C.fadingReductionsPercent[2]}% reduction. Direct services end; the behavior analyst consults with caregivers and school staff 1 hour per week only.`,
  },
  {
    phase: "Phase 5: consultation 1 hour per month",
    description: `Entry goals: goals maintained for ${C.fadingPhaseMonths} consecutive months with weekly consultation. Consultation continues 1 hour per month to monitor maintenance and generalization.`,
  },
  {
    phase: "Phase 6: discharge",
    description: `Entry goals: goals maintained for ${C.fadingPhaseMonths} consecutive months with monthly consultation. {name} is discharged, with referrals and recommendations given to the family.`,
  },
];

const FADING_PLAN = `Services are faded gradually as {name} meets the goals of each phase, so that the progress made in treatment is maintained by natural supports at home, at school and in the community. Each of the six phases requires its goals to be met for ${C.fadingPhaseMonths} consecutive months before the next phase begins. If goals are not maintained, services return to the level of the previous phase until they are met again. Fading decisions are made by the behavior analyst with the family.`;

const DISCHARGE_PLAN = `Discharge planning begins ${C.dischargeLeadMonths[0]} to ${C.dischargeLeadMonths[1]} months before the expected discharge date, and the transition often takes ${C.dischargeTypicalMonths} months or longer. Discharge is considered when {name} has met the goals of this plan and the fading plan, when caregivers can implement the procedures on their own, when services are no longer medically necessary, or when the family asks for it. Before discharge, the behavior analyst reviews progress with the family, trains caregivers and school staff to maintain the gains, and gives written recommendations and referrals to school and community services.`;

const FAMILY_INVOLVEMENT = `Caregiver participation is essential to {name}'s progress. Caregivers are expected to take part in at least ${C.caregiverParticipationPercent}% of planned sessions. The BCBA provides caregiver training every week, teaching the procedures of this plan through instruction, modeling, rehearsal and feedback, and checks caregiver competency monthly with a treatment-fidelity checklist over ${C.fidelityDataPoints} data points. The caregiver training goals of this plan are measured in the same way.`;

const GENERALIZATION_TRAINING =
  "Skills are taught with multiple examples, materials, people and settings from the start, and are practised in the natural environment (home, school and community) with the natural reinforcers found there. Caregivers and teachers are trained to prompt and reinforce the skills during daily routines. Maintenance is checked with periodic probes after mastery; a skill counts as generalized when {name} uses it with untrained people, in untrained settings and with untrained materials.";

const RISK_ASSESSMENT = `The procedures of this plan are the least restrictive that are expected to be effective. Possible risks include a temporary increase in the frequency or intensity of behavior when reinforcement is withheld (an extinction burst), frustration during demands, and minor physical contact during response blocking or guidance. These risks are reduced by training every implementer, by the limits of this plan (response blocks never over ${C.responseBlockMaxSeconds} seconds, physical guidance at most ${C.escapeExtinctionGuidanceMaxMinutes} minutes, no restraint), and by close supervision by the behavior analyst. The expected benefits (safer behavior, new communication and daily-living skills, and greater independence) outweigh these risks.`;

export const DEFAULT_NARRATIVES: Readonly<Partial<Record<NarrativeField, string>>> = {
  hypothesis_based_intervention: HYPOTHESIS_BASED_INTERVENTION,
  generalization_training: GENERALIZATION_TRAINING,
  risk_assessment: RISK_ASSESSMENT,
  fading_plan: FADING_PLAN,
  family_involvement: FAMILY_INVOLVEMENT,
  discharge_plan: DISCHARGE_PLAN,
};

// ------------------------------------------------------------------------------------------ caregiver goals

const fidelity = (skill: string) =>
  `Fidelity check: once a month the BCBA observes the caregiver ${skill} over ${C.fidelityDataPoints} data points (opportunities) and records the percentage carried out correctly; the goal is met at 80% or more.`;

/** The thirteen default caregiver-training goals, created as plans of category caregiver_training with each new BIP. */
export const DEFAULT_CAREGIVER_GOALS: readonly { name: string; description: string }[] = [
  {
    name: "Functions of behavior",
    description: `Caregivers will explain the four functions of behavior (attention, escape, tangible/access, automatic) and identify the likely function of {name}'s behavior in real examples. ${fidelity("identifying the function of behavior")}`,
  },
  { name: "Reinforcement", description: `Caregivers will deliver reinforcement immediately and contingently after {name}'s appropriate behavior. ${fidelity("delivering reinforcement")}` },
  { name: "Extinction", description: `Caregivers will withhold the reinforcer that maintains {name}'s maladaptive behavior, consistently and safely. ${fidelity("implementing extinction")}` },
  { name: "Differential reinforcement", description: `Caregivers will reinforce the replacement behavior while withholding reinforcement for the maladaptive behavior. ${fidelity("implementing differential reinforcement")}` },
  { name: "Motivating operations", description: `Caregivers will identify and arrange motivating operations (deprivation and satiation) to increase the value of reinforcers during teaching. ${fidelity("arranging motivating operations")}` },
  { name: "Prompting", description: `Caregivers will use the least intrusive prompt needed and follow the prompt hierarchy of the programs. ${fidelity("prompting")}` },
  { name: "Fading", description: `Caregivers will fade prompts systematically so that {name} responds independently. ${fidelity("fading prompts")}` },
  { name: "Shaping", description: `Caregivers will reinforce successive approximations of a target skill. ${fidelity("shaping")}` },
  { name: "Antecedents", description: `Caregivers will put the preventive (antecedent) strategies of this plan in place before behavior is likely. ${fidelity("implementing antecedent strategies")}` },
  { name: "Consequences", description: `Caregivers will respond to appropriate and maladaptive behavior with the consequences written in this plan. ${fidelity("delivering the planned consequences")}` },
  { name: "Task analysis", description: `Caregivers will break a daily-living skill into teachable steps and teach from the task analysis. ${fidelity("teaching from a task analysis")}` },
  { name: "Chaining", description: `Caregivers will teach multi-step skills with forward, backward or total-task chaining as the program states. ${fidelity("chaining")}` },
  { name: "Generalization of skills", description: `Caregivers will practise {name}'s mastered skills across people, settings and materials in daily routines. ${fidelity("promoting generalization")}` },
];

// ------------------------------------------------------------------------------------------ filling

const LIST_DEFAULTS: Readonly<Partial<Record<ListSectionKey, readonly object[]>>> = {
  interventions: DEFAULT_INTERVENTIONS,
  sensory: DEFAULT_STRATEGIES.sensory,
  tangibles: DEFAULT_STRATEGIES.tangibles,
  attention: DEFAULT_STRATEGIES.attention,
  escape: DEFAULT_STRATEGIES.escape,
  de_escalation_techniques: DEFAULT_DE_ESCALATION_TECHNIQUES.map((description) => ({ description })),
  recommendations: DEFAULT_RECOMMENDATIONS,
  fading_plan_phases: DEFAULT_FADING_PHASES,
};

const blank = (x: string | null | undefined) => x === null || x === undefined || x.trim() === "";

/** The list's default items (indexed), or null when the section has no default. */
export function defaultItems(key: ListSectionKey): BipDocument[ListSectionKey] | null {
  const items = LIST_DEFAULTS[key];
  return items ? (renumber(items) as unknown as BipDocument[ListSectionKey]) : null;
}

/** The sections of a document that defaults would fill (their keys; crisis plan and consent by part). */
export function defaultedSections(doc: BipDocument): string[] {
  const out: string[] = [];
  for (const key of Object.keys(LIST_DEFAULTS) as ListSectionKey[]) if (!doc[key].length) out.push(key);
  for (const key of Object.keys(DEFAULT_NARRATIVES) as NarrativeField[]) if (blank(doc[key])) out.push(key);
  if (!doc.behavior_assistant_rationale_work_schedule.table_rows.length) out.push("behavior_assistant_rationale_work_schedule");
  if (!doc.schedule_of_services_breakdown.table_rows.length) out.push("schedule_of_services_breakdown");
  if (blank(doc.crisis_plan.description) || blank(doc.crisis_plan.prevention)) out.push("crisis_plan");
  if (blank(doc.consent_to_treatment.statement)) out.push("consent_to_treatment");
  return out;
}

/** The document as shown, edited and exported: every empty section that has a default is filled. */
export function withDefaults(doc: BipDocument): BipDocument {
  const out = { ...doc } as Record<string, unknown>;
  for (const key of Object.keys(LIST_DEFAULTS) as ListSectionKey[]) if (!doc[key].length) out[key] = defaultItems(key);
  for (const [key, text] of Object.entries(DEFAULT_NARRATIVES)) if (blank(doc[key as NarrativeField])) out[key] = text;
  if (!doc.behavior_assistant_rationale_work_schedule.table_rows.length) out.behavior_assistant_rationale_work_schedule = structuredClone(DEFAULT_WORK_SCHEDULE);
  if (!doc.schedule_of_services_breakdown.table_rows.length) out.schedule_of_services_breakdown = structuredClone(DEFAULT_SCHEDULE_OF_SERVICES);
  out.crisis_plan = {
    description: blank(doc.crisis_plan.description) ? DEFAULT_CRISIS_PLAN.description : doc.crisis_plan.description,
    prevention: blank(doc.crisis_plan.prevention) ? DEFAULT_CRISIS_PLAN.prevention : doc.crisis_plan.prevention,
  };
  out.consent_to_treatment = { ...doc.consent_to_treatment, statement: blank(doc.consent_to_treatment.statement) ? DEFAULT_CONSENT_STATEMENT : doc.consent_to_treatment.statement };
  return out as BipDocument;
}
