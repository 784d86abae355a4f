import { Form } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { Field } from "~/components/ui/field";
import { CheckboxField, CheckboxGroup, FormActions, SelectField, TextareaField } from "~/components/ui/form-controls";
import type { Column } from "~/components/ui/data-list";
import { MODIFIERS, PROVIDERS, serviceTwins, serviceTwinText, splitModifiers } from "~/domain/insurance";
import { POS_CODES } from "~/domain/locations";

/** The insurer form and the service form (clinical §3), shared by the register, edit and view screens. Work without JavaScript. */

export type FormValues = Record<string, string | string[] | number | boolean | null | undefined>;

const POS_OPTIONS = POS_CODES.map((p) => ({ value: p.code, label: `${p.code} ${p.label}` }));
export const PROVIDER_OPTIONS = PROVIDERS.map((p) => ({ value: p, label: p === "bcaba" ? "BCaBA" : p.toUpperCase() }));

/**
 * The insurer's service tables' "Billing uses" column, only when twins stored before the rule exist (probe 8974 §1):
 * which of them prices notes (the oldest, as billing's lookup picks) and which to delete.
 */
export function twinColumns<S extends { id: number; insurance_id: number; cpt_code: string; modifiers: string; provider: string; location_id: number | null }>(services: readonly S[]): Column<S>[] {
  const twins = serviceTwins(services.map((s) => ({ id: s.id, insuranceId: s.insurance_id, cptCode: s.cpt_code, modifiers: splitModifiers(s.modifiers), provider: s.provider, locationId: s.location_id })));
  return twins.size ? [{ header: "Billing uses", cell: (s) => serviceTwinText(s.id, twins) }] : [];
}

function text(v: FormValues[string]): string {
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  if (Array.isArray(v)) return v[0] ?? "";
  return "";
}

function list(v: FormValues[string]): string[] {
  return Array.isArray(v) ? v : typeof v === "string" && v ? [v] : [];
}

function checked(v: FormValues[string]): boolean {
  return v === true || v === "true" || v === "on" || v === "1";
}

type InsurerFields = {
  [K in "name" | "street" | "street2" | "city" | "state" | "zip" | "payer_id" | "notes"]: string | null;
} & {
  uses_supervisor_as_provider: boolean;
  uses_is_telehealth: boolean;
  pos_allowed_to_cg: string[];
  pos_allowed_to_tt: string[];
  extra_pos_for_bcba: string[];
};

/** A stored insurer's fields as form values. */
export function insurerFormValues(i: InsurerFields): FormValues {
  return {
    name: i.name,
    street: i.street,
    street2: i.street2,
    city: i.city,
    state: i.state,
    zip: i.zip,
    payer_id: i.payer_id,
    notes: i.notes,
    uses_supervisor_as_provider: i.uses_supervisor_as_provider,
    uses_is_telehealth: i.uses_is_telehealth,
    pos_allowed_to_cg: i.pos_allowed_to_cg,
    pos_allowed_to_tt: i.pos_allowed_to_tt,
    extra_pos_for_bcba: i.extra_pos_for_bcba,
  };
}

export function InsurerForm({
  values,
  errors,
  version,
  intent,
  submitLabel,
  busy,
}: {
  values: FormValues;
  errors: Record<string, string>;
  /** The version the edit screen read; sent back so a stale save is refused. */
  version?: number;
  intent: string;
  submitLabel: string;
  busy: boolean;
}) {
  return (
    <Form method="post" noValidate className="form-grid">
      <input type="hidden" name="intent" value={intent} />
      {version !== undefined ? <input type="hidden" name="version" value={version} /> : null}
      <Field label="Name" name="name" required maxLength={150} defaultValue={text(values.name)} error={errors.name} />
      <Field label="Payer ID" name="payer_id" maxLength={50} defaultValue={text(values.payer_id)} error={errors.payer_id} />
      <Field label="Street" name="street" maxLength={255} defaultValue={text(values.street)} error={errors.street} />
      <Field label="Street 2" name="street2" maxLength={255} defaultValue={text(values.street2)} error={errors.street2} />
      <Field label="City" name="city" maxLength={100} defaultValue={text(values.city)} error={errors.city} />
      <Field label="State" name="state" maxLength={50} defaultValue={text(values.state)} error={errors.state} />
      <Field label="ZIP code" name="zip" inputMode="numeric" defaultValue={text(values.zip)} error={errors.zip} />
      <TextareaField label="Notes" name="notes" maxLength={2000} defaultValue={text(values.notes)} error={errors.notes} />
      <CheckboxField
        label="Uses the supervisor as provider"
        name="uses_supervisor_as_provider"
        defaultChecked={checked(values.uses_supervisor_as_provider)}
        error={errors.uses_supervisor_as_provider}
        hint="Claims to this insurer name an RBT's supervising BCBA as the rendering provider (a note needs a supervisor with an NPI)."
      />
      <CheckboxField label="Uses the telehealth flag" name="uses_is_telehealth" defaultChecked={checked(values.uses_is_telehealth)} error={errors.uses_is_telehealth} />
      <CheckboxGroup legend="POS allowed to CG" name="pos_allowed_to_cg" options={POS_OPTIONS} selected={list(values.pos_allowed_to_cg)} error={errors.pos_allowed_to_cg} />
      <CheckboxGroup legend="POS allowed to TT" name="pos_allowed_to_tt" options={POS_OPTIONS} selected={list(values.pos_allowed_to_tt)} error={errors.pos_allowed_to_tt} />
      <CheckboxGroup legend="Extra POS for BCBA" name="extra_pos_for_bcba" options={POS_OPTIONS} selected={list(values.extra_pos_for_bcba)} error={errors.extra_pos_for_bcba} />
      <FormActions>
        <button className="btn btn-primary" type="submit" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </button>
      </FormActions>
    </Form>
  );
}

type ServiceFields = {
  code: string;
  provider: string;
  description: string | null;
  unit_price: number;
  hourly_fee: number | null;
  max_allowed: number | null;
  max_per_day: number | null;
  multiplier: number;
  location_id: number | null;
  auto_on_pos: boolean;
  auto_on_provider: boolean;
  auto_on_same_day: boolean;
  auto_on_overlapping: boolean;
};

/** A stored service's fields as form values. */
export function serviceFormValues(s: ServiceFields): FormValues {
  return {
    code: s.code,
    provider: s.provider,
    description: s.description,
    unit_price: s.unit_price,
    hourly_fee: s.hourly_fee,
    max_allowed: s.max_allowed,
    max_per_day: s.max_per_day,
    multiplier: s.multiplier,
    location_id: s.location_id === null ? "" : String(s.location_id),
    auto_on_pos: s.auto_on_pos,
    auto_on_provider: s.auto_on_provider,
    auto_on_same_day: s.auto_on_same_day,
    auto_on_overlapping: s.auto_on_overlapping,
  };
}

const MODIFIER_HINT = `CPT then up to two modifiers, e.g. 97153 HM GT. Modifiers: ${MODIFIERS.map((m) => `${m.code} ${m.meaning}`).join("; ")}.`;

/** Adds a service (no serviceId) or edits one (with its id and version). */
export function ServiceForm({
  values,
  errors,
  serviceId,
  version,
  locations,
  busy,
  cancelTo,
}: {
  values: FormValues;
  errors: Record<string, string>;
  serviceId?: number;
  version?: number;
  locations: readonly { id: number; title: string }[];
  busy: boolean;
  cancelTo?: string;
}) {
  const editing = serviceId !== undefined;
  const id = (name: string) => `f-service-${name}`;
  return (
    <Form method="post" noValidate className="form-grid" aria-label={editing ? "Edit service" : "Add service"}>
      <input type="hidden" name="intent" value={editing ? "update-service" : "add-service"} />
      {editing ? <input type="hidden" name="service_id" value={serviceId} /> : null}
      {version !== undefined ? <input type="hidden" name="version" value={version} /> : null}
      <Field id={id("code")} label="Code" name="code" required maxLength={30} hint={MODIFIER_HINT} defaultValue={text(values.code)} error={errors.code} />
      <SelectField id={id("provider")} label="Provider" name="provider" placeholder="All providers" options={PROVIDER_OPTIONS} defaultValue={text(values.provider)} error={errors.provider} />
      <Field id={id("description")} label="Description" name="description" maxLength={255} defaultValue={text(values.description)} error={errors.description} />
      <Field id={id("unit_price")} label="Unit price" name="unit_price" required inputMode="decimal" defaultValue={text(values.unit_price)} error={errors.unit_price} />
      <Field id={id("hourly_fee")} label="Hourly fee" name="hourly_fee" inputMode="decimal" defaultValue={text(values.hourly_fee)} error={errors.hourly_fee} />
      <Field id={id("max_allowed")} label="Max allowed" name="max_allowed" inputMode="decimal" defaultValue={text(values.max_allowed)} error={errors.max_allowed} />
      <Field id={id("max_per_day")} label="Max units per day" name="max_per_day" inputMode="numeric" defaultValue={text(values.max_per_day)} error={errors.max_per_day} />
      <Field id={id("multiplier")} label="Multiplier" name="multiplier" inputMode="decimal" hint="Defaults to 1; at most 4 decimals (for example 1.15)." defaultValue={text(values.multiplier)} error={errors.multiplier} />
      <SelectField
        id={id("location_id")}
        label="Location"
        name="location_id"
        placeholder="All locations"
        options={locations.map((l) => ({ value: String(l.id), label: l.title }))}
        defaultValue={text(values.location_id)}
        error={errors.location_id}
      />
      <fieldset className="field">
        <legend>Add automatically</legend>
        {(
          [
            ["auto_on_pos", "On place of service"],
            ["auto_on_provider", "On provider"],
            ["auto_on_same_day", "On same day"],
            ["auto_on_overlapping", "On overlapping sessions"],
          ] as const
        ).map(([name, label]) => (
          <label key={name} className="check-inline">
            <input type="checkbox" name={name} value="true" defaultChecked={checked(values[name])} /> {label}
          </label>
        ))}
      </fieldset>
      <FormActions>
        <button className="btn btn-primary" type="submit" disabled={busy}>
          {editing ? "Save service" : "Add service"}
        </button>
        {editing && cancelTo ? (
          <Link className="btn" to={cancelTo}>
            Cancel
          </Link>
        ) : null}
      </FormActions>
    </Form>
  );
}
