import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { Fragment } from "react";
import { ParentFields } from "~/components/parent-form";
import { FormMessage, NewPasswordFields } from "~/components/ui/field";
import { StaleNotice } from "~/components/ui/stale-notice";
import { FormActions } from "~/components/ui/form-controls";
import { GENDERS } from "~/domain/patients";
import { can } from "~/domain/permissions";
import { CHANGE_MESSAGES } from "~/domain/who-may-change";
import { findParent, getParentProfile, parentAsInput, setParentPassword, updateParent, type ParentJson } from "~/models/parents.server";
import { formResult, formValues, formVersion, modelContextFor, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { forbidden, notFound, requirePermission, requireId } from "~/services/guard.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `${data?.parent.full_name ?? "Parent"} · Baseline` }];
export const handle = { guard: "view_parents" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_parents");
  const ctx = modelContextFor(context, actor);
  const profile = await getParentProfile(ctx, requireId(params.id, "Parent"));
  if (!profile) throw notFound("Parent not found.");
  return { ...profile, canManage: can(actor, "manage_parents"), canSeeClients: can(actor, "view_clients") };
}

/** Edit the parent on the profile (intent save) or set their password (intent password), with manage_parents. */
export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_parents");
  if (!can(actor, "manage_parents")) throw forbidden();
  const id = requireId(params.id, "Parent");
  const ctx = modelContextFor(context, actor);
  const values = formValues(await request.formData());
  if (values.intent === "password") {
    // The typed passwords are never sent back: the re-rendered form starts empty.
    return formResult(await setParentPassword(ctx, context.app, id, values), { intent: "password" }, () => `/parents/profile/${id}`);
  }
  if (values.intent !== "save") {
    if (!(await findParent(ctx, id))) throw notFound("Parent not found.");
    return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  }
  return formResult(await withFormVersion(values.version, (version) => updateParent(ctx, id, values, { partial: false, version, app: context.app, profileForm: true })), values, (p) => `/parents/profile/${p.id}`);
}

const LABELS: [keyof ParentJson, string][] = [
  ["name", "Name"],
  ["surname", "Surname"],
  ["email", "Email"],
  ["phone", "Phone"],
  ["work_phone", "Work phone"],
  ["home_phone", "Home phone"],
  ["birth_date", "Birth date"],
  ["gender", "Gender"],
  ["address", "Address"],
  ["city", "City"],
  ["state", "State"],
  ["zip_code", "ZIP code"],
  ["status", "Status"],
];

/** The form's labels by field name, for the list of what a stale save did not save. */
const PARENT_LABELS: Record<string, string> = { ...Object.fromEntries(LABELS), location_id: "Location" };

export default function ParentProfile() {
  const { parent, children, childrenElsewhere, locations, canManage, canSeeClients, maySetSignIn, locationRequired } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const [params] = useSearchParams();
  const saved = answer?.values.intent === "password" ? null : answer;
  const passwordAnswer = answer?.values.intent === "password" ? answer : null;
  const current = (saved?.current ?? null) as ParentJson | null;
  const values: Record<string, unknown> = current ? parentAsInput(current) : (saved?.values ?? parentAsInput(parent));
  const version = current ? current.version : (formVersion(saved?.values.version) ?? parent.version);
  const errors = saved?.errors ?? {};
  return (
    <section className="card">
      <div className="page-head">
        <h1>{parent.full_name}</h1>
        <Link to="/parents/list">Back to parents</Link>
      </div>
      <FormMessage success={params.get("flash")} />
      {current && saved ? (
        <StaleNotice message={saved.message} version={current.version} unsaved={saved.values} hidden={["intent", "version"]} stored={values} labels={PARENT_LABELS} />
      ) : (
        <FormMessage error={saved?.message} />
      )}
      <dl className="details">
        {LABELS.map(([k, label]) => (
          <Fragment key={k}>
            <dt>{label}</dt>
            <dd>{k === "gender" ? (GENDERS.find((g) => g.value === parent.gender)?.label ?? "—") : String(parent[k] ?? "—")}</dd>
          </Fragment>
        ))}
        <dt>Location</dt>
        <dd>{parent.location?.title ?? "—"}</dd>
      </dl>
      <h2>Children</h2>
      {children.length === 0 ? (
        <p>{childrenElsewhere ? CHILDREN_ELSEWHERE : "No linked clients."}</p>
      ) : (
        <ul>
          {children.map((c) => (
            <li key={c.id}>
              {canSeeClients ? <Link to={`/patients/profile/${c.id}`}>{`${c.first_name} ${c.last_name}`}</Link> : `${c.first_name} ${c.last_name}`} <span className="badge">{c.status}</span>
            </li>
          ))}
        </ul>
      )}
      {children.length > 0 && childrenElsewhere ? <p className="muted">{CHILDREN_ELSEWHERE}</p> : null}
      {canManage && !maySetSignIn ? (
        <p className="muted">
          {CHANGE_MESSAGES.parentNotCovered} You can still change their name, phone numbers and address here.
        </p>
      ) : null}
      {canManage ? (
        <details open={!!saved}>
          <summary>Edit parent</summary>
          <Form method="post" noValidate key={JSON.stringify([values, version])}>
            <input type="hidden" name="intent" value="save" />
            <input type="hidden" name="version" value={version} />
            <ParentFields values={values} errors={errors} locations={locations} signInFixed={!maySetSignIn} locationRequired={locationRequired} />
            <FormActions>
              <button className="btn btn-primary" type="submit" disabled={busy}>
                Save parent
              </button>
            </FormActions>
          </Form>
        </details>
      ) : null}
      {canManage && maySetSignIn ? (
        <details open={!!passwordAnswer}>
          <summary>Set password</summary>
          <p className="muted">Sets the password {parent.full_name} signs in with (tick “Sign in as a parent or guardian”). Their open sessions end.</p>
          <FormMessage error={passwordAnswer?.message} />
          <Form method="post" noValidate key={JSON.stringify(passwordAnswer ?? null)}>
            <input type="hidden" name="intent" value="password" />
            <NewPasswordFields errors={passwordAnswer?.errors ?? {}} />
            <FormActions>
              <button className="btn btn-primary" type="submit" disabled={busy}>
                Set password
              </button>
            </FormActions>
          </Form>
        </details>
      ) : null}
    </section>
  );
}

const CHILDREN_ELSEWHERE = "Linked clients at locations you do not work at are not listed.";
