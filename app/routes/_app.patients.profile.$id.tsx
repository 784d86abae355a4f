import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ConfirmDelete } from "~/components/goals/objectives-table";
import { Fragment } from "react";
import { Field, FormMessage } from "~/components/ui/field";
import { StaleNotice } from "~/components/ui/stale-notice";
import { CheckboxField, FormActions, SelectField } from "~/components/ui/form-controls";
import { deletedInsurerLabel } from "~/domain/insurance";
import { posText } from "~/domain/locations";
import type { PaAssessment } from "~/domain/pa-assessments";
import { DOCUMENT_STATUSES, FIELD_GROUPS, GENDERS, missingOnboarding, paExpiryText, paExpiryWarning, PATIENT_FIELDS, type PatientField, CLIENT_NOT_FOUND } from "~/domain/patients";
import { can, CLIENT_READER } from "~/domain/permissions";
import { DELETE_CONFIRMED } from "~/domain/validation";
import { createPaService, deletePaService, listPaServicesOfPatient, paServiceJson, paServicesOfPatientQuery, patientTimeZoneQuery, unitsElsewhereQuery, updatePaService, type PaServiceJson } from "~/models/pa-services.server";
import { findPatient, getPatientProfile } from "~/models/patients.server";
import { pacingOf, recentUnitsQuery } from "~/models/pa-pacing.server";
import { todayAtLocation, unitsElsewhereText, unitsWindowStart, UNITS_ELSEWHERE_NOTE, type Pacing } from "~/domain/pa-pacing";
import { PacingText } from "~/components/pa-pacing";
import { formResult, formValues, modelContextFor, requireDeleteConfirmed, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { forbidden, notFound, requirePermission, requireId } from "~/services/guard.server";
import { randomToken } from "~/services/crypto.server";
import { DataTable, type Column } from "~/components/ui/data-list";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `${data?.patient.full_name ?? "Client"} · Baseline` }];
export const handle = { guard: CLIENT_READER };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, CLIENT_READER);
  const ctx = modelContextFor(context, actor);
  const id = requireId(params.id, "Patient");
  // The record (with its names and the audit tail) first; its PA services come back in the batch of
  // the read's audit row (session + record + audit: 3 round trips). Nothing is read for a client out of scope.
  // Pacing (decision 031): the live notes' units per day of the last weeks and the location's zone ride along, and
  // the units spent by notes stored at locations the actor cannot see (the client moved), which the table names.
  const profile = await getPatientProfile(ctx, id, () => [paServicesOfPatientQuery(ctx, id), recentUnitsQuery(ctx, id, unitsWindowStart(ctx.now())), patientTimeZoneQuery(ctx, id), unitsElsewhereQuery(ctx, id)]);
  if (!profile) throw notFound(CLIENT_NOT_FOUND);
  const { patient, options } = profile;
  const [paRows, dayRows, zone, elsewhere] = profile.also;
  const localToday = todayAtLocation(ctx.now(), zone[0]?.timeZone ?? "UTC");
  return {
    patient,
    paServices: paRows.map((r) => {
      const pa = paServiceJson(r);
      return { ...pa, pacing: pacingOf(pa, dayRows, localToday).pacing, spentElsewhere: unitsElsewhereText(elsewhere.filter((e) => e.paServiceId === pa.id)) };
    }),
    options,
    missing: missingOnboarding(patient),
    // The PA expiry warning counts days at the client's location, as the pacing above does.
    today: localToday,
    canManage: can(actor, "manage_clients"),
    canSeeLog: can(actor, "manage_notes"),
    canSeeBips: can(actor, "view_bips"),
    canSeeNotes: can(actor, "view_notes"),
    // The add form's one-time token per load: a resend of it (a double click) adds one PA service (decision 024).
    formToken: randomToken(18),
  };
}

/** PA services are added, changed and deleted on the profile (intents pa-create, pa-update, pa-delete). */
export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, CLIENT_READER);
  if (!can(actor, "manage_clients")) throw forbidden();
  const id = requireId(params.id, "Patient");
  const ctx = modelContextFor(context, actor);
  if (!(await findPatient(ctx, id))) throw notFound(CLIENT_NOT_FOUND);
  const values = formValues(await request.formData());
  const back = `/patients/profile/${id}`;
  const paId = Number(values.pa_id);
  // A PA service of another client is not found here.
  const own = async () => Number.isSafeInteger(paId) && ((await listPaServicesOfPatient(ctx, id)) ?? []).some((p) => p.id === paId);
  switch (values.intent) {
    case "pa-create":
      return formResult(await createPaService(ctx, { ...values, patient_id: id }, { formToken: typeof values.form_token === "string" ? values.form_token : null }), values, () => back);
    case "pa-update": {
      if (!(await own())) throw notFound("PA service not found.");
      return formResult(await withFormVersion(values.version, (version) => updatePaService(ctx, paId, values, { partial: false, version })), values, () => back);
    }
    case "pa-delete":
      if (!(await own())) throw notFound("PA service not found.");
      // Only the confirm step's 'Yes, delete it' deletes (probe 8972).
      requireDeleteConfirmed(values, `${back}?confirm=delete-pa-${paId}#pa-services`);
      return formResult(await deletePaService(ctx, paId), values, () => back);
    default:
      return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  }
}

function display(field: PatientField, value: unknown, names: { locations: Map<number, string>; parents: Map<number, string>; insurers: Map<number, string>; staff: Map<number, string> }): string {
  if (value === null || value === undefined || value === "") return "—";
  switch (field.type) {
    case "flag":
      return value ? "Yes" : "No";
    case "gender":
      return GENDERS.find((g) => g.value === String(value))?.label ?? String(value);
    case "pos":
      return (value as string[]).length ? (value as string[]).map(posText).join(", ") : "—";
    case "codes":
      return (value as string[]).join(", ") || "—";
    case "location":
      return names.locations.get(Number(value)) ?? `#${value}`;
    case "parent":
      return names.parents.get(Number(value)) ?? `#${value}`;
    case "insurer":
      return names.insurers.get(Number(value)) ?? `#${value}`;
    case "staff":
      return names.staff.get(Number(value)) ?? `#${value}`;
    default:
      return String(value);
  }
}

/** One PA service's fields; `idPrefix` keeps each form's ids apart (the profile has one form per service and an add form). */
function PaFields({ values, errors, insurers, idPrefix }: { values: Record<string, unknown>; errors: Record<string, string>; insurers: { id: number; name: string }[]; idPrefix: string }) {
  const t = (k: string) => (values[k] === null || values[k] === undefined ? "" : String(values[k]));
  const id = (k: string) => `${idPrefix}-${k}`;
  return (
    <>
      <Field id={id("pa_service")} label="Service" name="pa_service" required defaultValue={t("pa_service")} error={errors.pa_service} />
      <Field id={id("cpt")} label="CPT" name="cpt" required defaultValue={t("cpt")} error={errors.cpt} />
      <Field id={id("n_units")} label="Units" name="n_units" type="number" min={0} step={1} required defaultValue={t("n_units")} error={errors.n_units} />
      <Field id={id("start_date")} label="Start date" name="start_date" type="date" required defaultValue={t("start_date")} error={errors.start_date} />
      <Field id={id("end_date")} label="End date" name="end_date" type="date" required defaultValue={t("end_date")} error={errors.end_date} />
      <SelectField id={id("insurance_id")} label="Insurance" name="insurance_id" placeholder="None" options={insurers.map((i) => ({ value: i.id, label: i.name }))} defaultValue={t("insurance_id")} error={errors.insurance_id} />
      <CheckboxField id={id("is_primary")} label="Primary insurance" name="is_primary" defaultChecked={values.is_primary === true || values.is_primary === "true"} error={errors.is_primary} />
    </>
  );
}

/** The insurers a PA service's form offers: every live one, and the service's stored insurer if it was deleted, marked (an untouched save keeps it). */
function insurersFor(insurers: { id: number; name: string }[], s: PaServiceJson): { id: number; name: string }[] {
  if (s.insurance_id === null || insurers.some((i) => i.id === s.insurance_id)) return insurers;
  return [...insurers, { id: s.insurance_id, name: deletedInsurerLabel(s.insurance_name ?? `#${s.insurance_id}`) }];
}

const ASSESSMENT_COLUMNS: Column<PaAssessment["services"][number]>[] = [
  { header: "Service start", cell: (s) => s.start_date },
  { header: "Service end", cell: (s) => s.end_date },
  { header: "CPT", cell: (s) => s.cpt },
  { header: "Units", cell: (s) => s.n_units },
  { header: "Provider", cell: (s) => s.provider ?? "—" },
];

/** PA assessments (clinical §3 Authorizations), read-only: a small table of services per assessment. */
function PaAssessmentsView({ assessments }: { assessments: PaAssessment[] }) {
  return (
    <section aria-labelledby="pa-assessments">
      <h2 id="pa-assessments">PA assessments</h2>
      {assessments.length === 0 ? <p>No PA assessments yet.</p> : null}
      {assessments.map((a, i) => (
        <DataTable key={i} rows={a.services} columns={ASSESSMENT_COLUMNS} empty="No services." keepHeader caption={`${a.assessment}: ${a.start_date} to ${a.end_date}`} showCaption />
      ))}
    </section>
  );
}

/** The PA service form's labels by field name, for the list of what a stale save did not save. */
const PA_LABELS = { pa_service: "Service", cpt: "CPT", n_units: "Units", insurance_id: "Insurance", is_primary: "Primary insurance" };

export default function PatientProfile() {
  const { patient, paServices, options, missing, today, canManage, canSeeLog, canSeeBips, canSeeNotes, formToken } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const [params] = useSearchParams();
  const names = {
    locations: new Map(options.locations.map((l) => [l.id, l.title])),
    parents: new Map(options.parents.map((p) => [p.id, p.name])),
    insurers: new Map([...options.insurers, ...options.deletedInsurers].map((i) => [i.id, i.name])),
    staff: new Map(options.staff.flatMap((g) => g.options).map((s) => [s.id, s.name])),
  };
  const p = patient as Record<string, unknown>;
  const formFor = (intent: string, paId?: number) => (answer && answer.values.intent === intent && (paId === undefined || Number(answer.values.pa_id) === paId) ? answer : null);
  const created = formFor("pa-create");
  // A row's Delete asks first: `?confirm=delete-pa-<id>` shows the step above the table (probe 8972).
  const confirm = /^delete-pa-(\d{1,15})$/.exec(params.get("confirm") ?? "");
  const toDelete = canManage && confirm ? paServices.find((s) => s.id === Number(confirm[1])) : undefined;
  const paColumns: Column<PaServiceJson & { pacing: Pacing; spentElsewhere: string }>[] = [
    { header: "Service", cell: (s) => s.pa_service },
    { header: "CPT", cell: (s) => s.cpt },
    { header: "Units", cell: (s) => s.n_units },
    {
      header: "Spent",
      cell: (s) => (
        <>
          {s.spent_units}
          {s.spentElsewhere ? <span className="muted">{` (${s.spentElsewhere})`}</span> : null}
        </>
      ),
    },
    { header: "Available", cell: (s) => s.available_units },
    { header: "Start", cell: (s) => s.start_date },
    { header: "End", cell: (s) => s.end_date },
    {
      header: "Insurance",
      cell: (s) => (
        <>
          {s.insurance_name ?? "—"}
          {s.is_primary ? " (primary)" : ""}
        </>
      ),
    },
    {
      header: "Expiry",
      cell: (s) => {
        const warning = paExpiryText(paExpiryWarning(s.end_date, today));
        return warning ? <span className="badge warning">{warning}</span> : "—";
      },
    },
    { header: "Pacing", cell: (s) => <PacingText pacing={s.pacing} /> },
    {
      header: "Actions",
      hideHeader: true,
      className: "actions",
      when: canManage,
      cell: (s) => {
        const edit = formFor("pa-update", s.id);
        // After a stale save the row's form shows what is stored now, with its version, so saving again is
        // deliberate; what was typed is listed beside it.
        const stale = (edit?.current ?? null) as PaServiceJson | null;
        const shown: Record<string, unknown> = stale ?? (edit ? edit.values : s);
        const version = stale ? stale.version : edit?.values.version ? String(edit.values.version) : s.version;
        return (
          <>
            <details open={!!edit}>
              <summary>Edit</summary>
              <Form method="post" key={JSON.stringify([shown, version])}>
                {stale ? <StaleNotice message={edit!.message} version={stale.version} unsaved={edit!.values} hidden={["intent", "pa_id", "version"]} stored={shown} labels={PA_LABELS} /> : null}
                <input type="hidden" name="intent" value="pa-update" />
                <input type="hidden" name="pa_id" value={s.id} />
                <input type="hidden" name="version" value={version} />
                <PaFields idPrefix={`pa-${s.id}`} values={shown} errors={stale ? {} : (edit?.errors ?? {})} insurers={insurersFor(options.insurers, s)} />
                <button className="btn btn-primary" type="submit" disabled={busy}>
                  Save PA service
                </button>
              </Form>
            </details>
            <Link to={`?confirm=delete-pa-${s.id}#pa-services`} aria-label={`Delete ${s.pa_service} ${s.cpt}`}>
              Delete
            </Link>
          </>
        );
      },
    },
  ];
  return (
    <section className="card">
      <div className="page-head">
        <h1>
          {patient.full_name} <span className="badge">{patient.status}</span>
        </h1>
        <span>
          <Link to="/patients/list">Back to clients</Link> <Link to={`/patients/consents/${patient.id}`}>Consents</Link>
          {canSeeBips ? (
            <>
              {" "}
              <Link to={`/bip/show/patient/${patient.id}`}>Behavior plans</Link>{" "}
              <Link to={`/medical/initial-assessment?patient_id=${patient.id}`}>Intake assessments</Link>
            </>
          ) : null}
          {canSeeNotes ? (
            <>
              {" "}
              <Link to={`/note-rbt/listbyclient/${patient.id}`}>RBT notes</Link> <Link to={`/note-bcba/listbyclient/${patient.id}`}>BCBA notes</Link>{" "}
              <Link to={`/note-combined/listbyclient/${patient.id}`}>Combined notes</Link>
            </>
          ) : null}
          {canSeeLog ? (
            <>
              {" "}
              <Link to={`/patients/ws/${patient.id}`}>Log report</Link>
            </>
          ) : null}
          {canManage ? (
            <>
              {" "}
              <Link to={`/patients/setting/${patient.id}`}>Settings</Link>{" "}
              <Link className="btn btn-primary" to={`/patients/list/edit/${patient.id}`}>
                Edit client
              </Link>
            </>
          ) : null}
        </span>
      </div>
      <FormMessage success={params.get("flash")} />
      {answer && !answer.values.intent?.toString().startsWith("pa-") ? <FormMessage error={answer.message} /> : null}

      <section aria-labelledby="onboarding-missing">
        <h2 id="onboarding-missing">Onboarding checklist</h2>
        {missing.length === 0 ? (
          <p>All onboarding documents are complete.</p>
        ) : (
          <ul className="checklist">
            {missing.map((label) => {
              const field = PATIENT_FIELDS.find((f) => f.group === "onboarding" && f.label === label);
              const status = field ? p[field.name] : null;
              return (
                <li key={label}>
                  {label}: <span className="muted">{status ? String(status) : "not started"}</span>
                </li>
              );
            })}
          </ul>
        )}
        <p className="muted">Documents are complete when their status is “{DOCUMENT_STATUSES.at(-1)}”; the interview when it is received.</p>
      </section>

      <section aria-labelledby="pa-services">
        <h2 id="pa-services">Prior-authorization services</h2>
        <FormMessage error={answer && answer.values.intent?.toString().startsWith("pa-") && !(answer.values.intent === "pa-update" && answer.current) ? answer.message : null} />
        {toDelete ? (
          <ConfirmDelete
            question={`Are you sure you want to delete the PA service “${toDelete.pa_service} (${toDelete.cpt})”?`}
            intent="pa-delete"
            fields={{ pa_id: toDelete.id, ...DELETE_CONFIRMED }}
            cancelTo={`/patients/profile/${patient.id}`}
            busy={busy}
          />
        ) : null}
        <DataTable rows={paServices} columns={paColumns} empty="No PA services yet." caption="Prior-authorization services" />
        {paServices.some((s) => s.spentElsewhere) ? <p className="muted">{UNITS_ELSEWHERE_NOTE}</p> : null}
        {canManage ? (
          <details open={!!created}>
            <summary>Add PA service</summary>
            <Form method="post" key={JSON.stringify(created?.values ?? null)}>
              <input type="hidden" name="intent" value="pa-create" />
              {/* Kept when the form is shown again after a refusal: the resend of that form still saves once. */}
              <input type="hidden" name="form_token" value={typeof created?.values.form_token === "string" && created.values.form_token ? created.values.form_token : formToken} />
              <PaFields idPrefix="pa-new" values={created?.values ?? {}} errors={created?.errors ?? {}} insurers={options.insurers} />
              <FormActions>
                <button className="btn btn-primary" type="submit" disabled={busy}>
                  Add PA service
                </button>
              </FormActions>
            </Form>
          </details>
        ) : null}
      </section>

      <PaAssessmentsView assessments={patient.pa_assessments} />

      {FIELD_GROUPS.map((g) => (
        <section key={g.id} aria-labelledby={`group-${g.id}`}>
          <h2 id={`group-${g.id}`}>{g.label}</h2>
          <dl className="details">
            {PATIENT_FIELDS.filter((f) => f.group === g.id).map((f) => (
              <Fragment key={f.name}>
                <dt>{f.label}</dt>
                <dd>{display(f, p[f.name], names)}</dd>
              </Fragment>
            ))}
          </dl>
        </section>
      ))}
    </section>
  );
}
