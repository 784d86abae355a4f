import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Fragment } from "react";
import { Field, FormMessage, NewPasswordFields } from "~/components/ui/field";
import { FormActions, SelectField } from "~/components/ui/form-controls";
import { PARENT_STATUSES } from "~/domain/parents";
import { GENDERS } from "~/domain/patients";
import { can } from "~/domain/permissions";
import { locationOptions } from "~/models/locations.server";
import { findParent, getParent, listChildren, parentAsInput, setParentPassword, updateParent, type ParentJson } from "~/models/parents.server";
import { formResult, formValues, modelContextFor, type FormAnswer } from "~/services/forms.server";
import { forbidden, notFound, requirePermission, requireId } from "~/services/guard.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `${data?.parent.full_name ?? "Parent"} · Baseline` }];
export const handle = { guard: "view_parents" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_parents");
  const ctx = modelContextFor(context, actor);
  const parent = await getParent(ctx, requireId(params.id, "Parent"));
  if (!parent) throw notFound("Parent not found.");
  const [children, locations] = await Promise.all([listChildren(ctx, parent.id), locationOptions(ctx)]);
  return { parent, children, locations, canManage: can(actor, "manage_parents"), canSeeClients: can(actor, "view_clients") };
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
  const version = Number(values.version);
  return formResult(await updateParent(ctx, id, values, { partial: false, version: Number.isSafeInteger(version) ? version : null }), values, (p) => `/parents/profile/${p.id}`);
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

export default function ParentProfile() {
  const { parent, children, locations, canManage, canSeeClients } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const [params] = useSearchParams();
  const saved = answer?.values.intent === "password" ? null : answer;
  const passwordAnswer = answer?.values.intent === "password" ? answer : null;
  const current = (saved?.current ?? null) as ParentJson | null;
  const values: Record<string, unknown> = current ? parentAsInput(current) : (saved?.values ?? parentAsInput(parent));
  const version = current ? current.version : saved?.values.version ? Number(saved.values.version) : parent.version;
  const errors = saved?.errors ?? {};
  const t = (k: string) => (values[k] === null || values[k] === undefined ? "" : String(values[k]));
  return (
    <section className="card">
      <div className="page-head">
        <h1>{parent.full_name}</h1>
        <Link to="/parents/list">Back to parents</Link>
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={saved?.message} />
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
        <p>No linked clients.</p>
      ) : (
        <ul>
          {children.map((c) => (
            <li key={c.id}>
              {canSeeClients ? <Link to={`/patients/profile/${c.id}`}>{`${c.first_name} ${c.last_name}`}</Link> : `${c.first_name} ${c.last_name}`} <span className="badge">{c.status}</span>
            </li>
          ))}
        </ul>
      )}
      {canManage ? (
        <details open={!!saved}>
          <summary>Edit parent</summary>
          <Form method="post" noValidate key={JSON.stringify([values, version])}>
            <input type="hidden" name="intent" value="save" />
            <input type="hidden" name="version" value={version} />
            <Field label="Name" name="name" required defaultValue={t("name")} error={errors.name} />
            <Field label="Surname" name="surname" required defaultValue={t("surname")} error={errors.surname} />
            <Field label="Email" name="email" type="email" required defaultValue={t("email")} error={errors.email} />
            <Field label="Phone" name="phone" type="tel" defaultValue={t("phone")} error={errors.phone} />
            <Field label="Work phone" name="work_phone" type="tel" defaultValue={t("work_phone")} error={errors.work_phone} />
            <Field label="Home phone" name="home_phone" type="tel" defaultValue={t("home_phone")} error={errors.home_phone} />
            <Field label="Birth date" name="birth_date" type="date" defaultValue={t("birth_date")} error={errors.birth_date} />
            <SelectField label="Gender" name="gender" placeholder="Not given" options={GENDERS} defaultValue={t("gender")} error={errors.gender} />
            <Field label="Address" name="address" defaultValue={t("address")} error={errors.address} />
            <Field label="City" name="city" defaultValue={t("city")} error={errors.city} />
            <Field label="State" name="state" defaultValue={t("state")} error={errors.state} />
            <Field label="ZIP code" name="zip_code" inputMode="numeric" defaultValue={t("zip_code")} error={errors.zip_code} />
            <SelectField label="Location" name="location_id" placeholder="None" options={locations.map((l) => ({ value: l.id, label: l.title }))} defaultValue={t("location_id")} error={errors.location_id} />
            <SelectField label="Status" name="status" options={PARENT_STATUSES.map((s) => ({ value: s, label: s }))} defaultValue={t("status") || "active"} error={errors.status} />
            <FormActions>
              <button className="btn btn-primary" type="submit" disabled={busy}>
                Save parent
              </button>
            </FormActions>
          </Form>
        </details>
      ) : null}
      {canManage ? (
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
