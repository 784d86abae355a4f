import { Form } from "@remix-run/react";
import { Field } from "~/components/ui/field";
import { CheckboxGroup, FormActions } from "~/components/ui/form-controls";
import type { Permission } from "~/domain/permissions";
import { PERMISSION_OPTIONS, ROLE_NAME_MAX } from "~/domain/roles";

/** The role form (platform §3 Role, §6), shared by the register and edit screens. Works without JavaScript. */

export type RoleFormValues = Record<string, string | string[] | null | undefined>;

/** A stored role's fields as form values. */
export function roleFormValues(r: { name: string; permissions: readonly string[] }): RoleFormValues {
  return { name: r.name, permissions: [...r.permissions] };
}

function text(v: RoleFormValues[string]): string {
  return typeof v === "string" ? v : Array.isArray(v) ? (v[0] ?? "") : "";
}

function list(v: RoleFormValues[string]): string[] {
  return Array.isArray(v) ? v : typeof v === "string" && v ? [v] : [];
}

export function RoleForm({
  values,
  errors,
  version,
  nameLocked,
  offered,
  submitLabel,
  busy,
}: {
  values: RoleFormValues;
  errors: Record<string, string>;
  /** The version the edit screen read; sent back so a stale save is refused. */
  version?: number;
  /** SUPERADMIN and ADMIN keep their names. */
  nameLocked?: boolean;
  /** The permissions the actor may give (decision 015): only these are offered. */
  offered: readonly Permission[];
  submitLabel: string;
  busy: boolean;
}) {
  return (
    <Form method="post" noValidate>
      <input type="hidden" name="intent" value="save" />
      {version !== undefined ? <input type="hidden" name="version" value={version} /> : null}
      <Field
        label="Name"
        name="name"
        required
        maxLength={ROLE_NAME_MAX}
        readOnly={nameLocked}
        hint={nameLocked ? "This role passes every permission check; its name cannot be changed." : "Letters, digits, spaces, _ and -; at most 50 characters."}
        defaultValue={text(values.name)}
        error={errors.name}
      />
      <CheckboxGroup legend="Permissions" name="permissions" options={PERMISSION_OPTIONS.filter((o) => offered.includes(o.value))} selected={list(values.permissions)} error={errors.permissions} />
      <FormActions>
        <button className="btn btn-primary" type="submit" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </button>
      </FormActions>
    </Form>
  );
}
