import { Form } from "@remix-run/react";
import { Field } from "~/components/ui/field";
import { CheckboxGroup, FormActions, SelectField } from "~/components/ui/form-controls";
import { COMMON_TIME_ZONES, POS_CODES } from "~/domain/locations";

/** The location form (platform §3 Location), shared by the register and edit screens. Works without JavaScript. */

export type LocationFormValues = Record<string, string | string[] | null | undefined>;

const POS_OPTIONS = POS_CODES.map((p) => ({ value: p.code, label: `${p.code} ${p.label}` }));

/** A stored location's fields as form values (the shape a form re-renders with). */
export function locationFormValues(l: { [K in "title" | "address" | "phone1" | "phone2" | "email" | "city" | "state" | "zip" | "telfax" | "time_zone" | "npi" | "tax_id"]: string | null } & { pos_codes: string[] }): LocationFormValues {
  return {
    title: l.title,
    address: l.address,
    phone1: l.phone1,
    phone2: l.phone2,
    email: l.email,
    city: l.city,
    state: l.state,
    zip: l.zip,
    telfax: l.telfax,
    time_zone: l.time_zone,
    pos_codes: l.pos_codes,
    npi: l.npi,
    tax_id: l.tax_id,
  };
}

function text(v: LocationFormValues[string]): string {
  return typeof v === "string" ? v : Array.isArray(v) ? (v[0] ?? "") : "";
}

function list(v: LocationFormValues[string]): string[] {
  return Array.isArray(v) ? v : typeof v === "string" && v ? [v] : [];
}

/** COMMON_TIME_ZONES, plus the current value when it is some other zone (any IANA zone is valid). */
function timeZoneOptions(current: string) {
  const zones: string[] = [...COMMON_TIME_ZONES];
  if (current && !zones.includes(current)) zones.push(current);
  return zones.map((z) => ({ value: z, label: z }));
}

export function LocationForm({
  values,
  errors,
  version,
  submitLabel,
  busy,
}: {
  values: LocationFormValues;
  errors: Record<string, string>;
  /** The version the edit screen read; sent back so a stale save is refused. */
  version?: number;
  submitLabel: string;
  busy: boolean;
}) {
  const timeZone = text(values.time_zone);
  return (
    <Form method="post" noValidate>
      <input type="hidden" name="intent" value="save" />
      {version !== undefined ? <input type="hidden" name="version" value={version} /> : null}
      <Field label="Title" name="title" required maxLength={120} defaultValue={text(values.title)} error={errors.title} />
      <Field label="Address" name="address" maxLength={255} defaultValue={text(values.address)} error={errors.address} />
      <Field label="City" name="city" maxLength={100} defaultValue={text(values.city)} error={errors.city} />
      <Field label="State" name="state" maxLength={50} defaultValue={text(values.state)} error={errors.state} />
      <Field label="ZIP code" name="zip" hint="ZIP+4, for example 33130-1234: claims need all nine digits." defaultValue={text(values.zip)} error={errors.zip} />
      <Field label="Phone 1" name="phone1" type="tel" defaultValue={text(values.phone1)} error={errors.phone1} />
      <Field label="Phone 2" name="phone2" type="tel" defaultValue={text(values.phone2)} error={errors.phone2} />
      <Field label="Fax" name="telfax" type="tel" defaultValue={text(values.telfax)} error={errors.telfax} />
      <Field label="Email" name="email" type="email" defaultValue={text(values.email)} error={errors.email} />
      <SelectField label="Time zone" name="time_zone" required placeholder="Choose a time zone" options={timeZoneOptions(timeZone)} defaultValue={timeZone} error={errors.time_zone} />
      <Field label="NPI (billing provider)" name="npi" inputMode="numeric" maxLength={12} hint="10 digits; needed to send claims." defaultValue={text(values.npi)} error={errors.npi} />
      <Field label="Tax id (EIN)" name="tax_id" inputMode="numeric" maxLength={11} hint="9 digits; needed to send claims." defaultValue={text(values.tax_id)} error={errors.tax_id} />
      <CheckboxGroup legend="Place-of-service codes" name="pos_codes" options={POS_OPTIONS} selected={list(values.pos_codes)} error={errors.pos_codes} />
      <FormActions>
        <button className="btn btn-primary" type="submit" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </button>
      </FormActions>
    </Form>
  );
}
