import { Form } from "@remix-run/react";
import { Field } from "~/components/ui/field";
import { FormActions, SelectField, TextareaField } from "~/components/ui/form-controls";
import { RATE_ROLES, type RateInfo } from "~/domain/rates";

/** The rate/pay record form (platform §3), shared by the register and edit screens. Works without JavaScript. */

export type RateFormValues = Record<string, string | string[] | undefined>;

const ROLE_LABELS: Record<(typeof RATE_ROLES)[number], string> = { rbt: "RBT", bcba: "BCBA", manager: "Manager" };
const AMOUNTS = [
  ["rbt", "RBT amount"],
  ["bcba", "BCBA amount"],
  ["manager", "Manager amount"],
  ["client", "Client amount"],
] as const;

/** The textarea holding one role's info list, one item a line. */
const infoField = (role: (typeof RATE_ROLES)[number]) => `info_${role}`;

/** The form's labels by field name (the list of what a stale save did not save names fields so). */
export const RATE_RECORD_LABELS: Record<string, string> = {
  location_id: "Location",
  ...Object.fromEntries(AMOUNTS),
  effective_from: "Amounts effective from",
  ...Object.fromEntries(RATE_ROLES.map((role) => [infoField(role), `${ROLE_LABELS[role]} info`])),
};

function text(x: RateFormValues[string]): string {
  return Array.isArray(x) ? (x[0] ?? "") : (x ?? "");
}

/** A stored record as form values (the info lists one item a line). */
export function rateRecordFormValues(r: { name: string; location_id: number | null; rbt: number | null; bcba: number | null; manager: number | null; client: number | null; info: RateInfo }): RateFormValues {
  const amount = (n: number | null) => (n === null ? "" : String(n));
  return {
    name: r.name,
    location_id: r.location_id === null ? "" : String(r.location_id),
    rbt: amount(r.rbt),
    bcba: amount(r.bcba),
    manager: amount(r.manager),
    client: amount(r.client),
    ...Object.fromEntries(RATE_ROLES.map((role) => [infoField(role), r.info[role].join("\n")])),
  };
}

/** The posted form as the model's input: the info textareas become the `info` object (the schema splits the lines). */
export function rateRecordInput(values: RateFormValues): Record<string, unknown> {
  const { name, location_id, rbt, bcba, manager, client, effective_from } = values;
  return { name, location_id, rbt, bcba, manager, client, effective_from, info: Object.fromEntries(RATE_ROLES.map((role) => [role, text(values[infoField(role)])])) };
}

export function RateRecordForm({
  values,
  errors,
  version,
  locations,
  submitLabel,
  busy,
}: {
  values: RateFormValues;
  errors: Record<string, string>;
  /** The version the edit screen read; sent back so a stale save is refused. */
  version?: number;
  locations: readonly { id: number; title: string }[];
  submitLabel: string;
  busy: boolean;
}) {
  return (
    <Form method="post" noValidate className="form-grid">
      <input type="hidden" name="intent" value="save" />
      {version !== undefined ? <input type="hidden" name="version" value={version} /> : null}
      <Field label="Name" name="name" required maxLength={120} defaultValue={text(values.name)} error={errors.name} />
      <SelectField
        label="Location"
        name="location_id"
        required
        placeholder="Choose a location"
        options={locations.map((l) => ({ value: String(l.id), label: l.title }))}
        defaultValue={text(values.location_id)}
        error={errors.location_id}
      />
      {AMOUNTS.map(([name, label]) => (
        <Field key={name} label={label} name={name} inputMode="decimal" defaultValue={text(values[name])} error={errors[name]} />
      ))}
      <Field
        label="Amounts effective from"
        name="effective_from"
        type="date"
        defaultValue={text(values.effective_from)}
        hint="The date a change of the amounts applies from (payroll pays each session at the amounts in effect on its date). Empty: today at the location. Not after today, nor before the last change."
        error={errors.effective_from}
      />
      {RATE_ROLES.map((role) => (
        <TextareaField
          key={role}
          label={`${ROLE_LABELS[role]} info (one item a line)`}
          name={infoField(role)}
          rows={4}
          defaultValue={text(values[infoField(role)])}
          error={errors[`info.${role}`] ?? (role === "rbt" ? errors.info : undefined)}
        />
      ))}
      <FormActions>
        <button className="btn btn-primary" type="submit" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </button>
      </FormActions>
    </Form>
  );
}
