import { Form } from "@remix-run/react";
import { Field } from "~/components/ui/field";
import { CheckboxField, FormActions, SelectField, TextareaField } from "~/components/ui/form-controls";
import { CRISIS_PLAN_FIELDS, NARRATIVE_FIELDS, SCHOOL_SERVICES_FIELDS, SHORT_NARRATIVES, SIGNERS, TYPES_OF_ASSESSMENT, type BipDocumentKey, type BipTabId } from "~/domain/bip-document";
import type { FormAnswer } from "~/services/forms.server";

/**
 * A tab's text fields (narratives, school services justification, crisis plan, consent and signatures;
 * on the identity tab also the type of assessment and the doctor) as one form saved at once.
 */

type Current = Record<string, unknown>;
/** A group box; not ".field", whose rule stretches every input (checkboxes too) to full width. */
const GROUP = { border: "1px solid var(--line)", borderRadius: 6, padding: ".6rem", margin: "0 0 .9rem" } as const;

function at(obj: Current, path: string): unknown {
  return path.split(".").reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), obj);
}

export function TabForm({
  tab,
  fields,
  current,
  version,
  answer,
  defaulted,
  doctors,
}: {
  tab: BipTabId;
  fields: readonly BipDocumentKey[];
  current: Current;
  version: number;
  answer: FormAnswer | null;
  defaulted: readonly string[];
  doctors: readonly { id: number; name: string }[];
}) {
  const typed = answer && answer.values.intent === "save-tab" && answer.values.tab === tab && !answer.current ? answer : null;
  const errors = typed?.errors ?? {};
  const value = (name: string) => {
    const x = typed ? typed.values[name] : at(current, name);
    return x === null || x === undefined ? "" : String(x);
  };
  const checked = (name: string) => {
    const x = typed ? typed.values[name] : at(current, name);
    return x === true || x === "true";
  };
  const note = (key: string) => (defaulted.includes(key) ? "Default wording; saving this tab stores it as this plan's own." : undefined);
  const texts = (group: string, list: readonly { name: string; label: string }[]) =>
    list.map((f) => <TextareaField key={f.name} id={`f-${group}-${f.name}`} label={f.label} name={`${group}.${f.name}`} rows={4} defaultValue={value(`${group}.${f.name}`)} error={errors[`${group}.${f.name}`]} />);
  return (
    <Form method="post" key={JSON.stringify([typed?.values ?? null, version])} className="card">
      <input type="hidden" name="intent" value="save-tab" />
      <input type="hidden" name="tab" value={tab} />
      <input type="hidden" name="version" value={version} />
      {tab === "identity" ? (
        <>
          <SelectField label="Type of assessment" name="type_of_assessment" options={TYPES_OF_ASSESSMENT} defaultValue={value("type_of_assessment")} error={errors.type_of_assessment} />
          <SelectField label="Doctor" name="doctor_id" placeholder="None" options={doctors.map((d) => ({ value: d.id, label: d.name }))} defaultValue={value("doctor_id")} error={errors.doctor_id} />
        </>
      ) : null}
      {fields.map((key) => {
        switch (key) {
          case "school_services_justification":
            return (
              <fieldset key={key} style={GROUP}>
                <legend>School services justification</legend>
                {texts(key, SCHOOL_SERVICES_FIELDS)}
              </fieldset>
            );
          case "crisis_plan":
            return (
              <fieldset key={key} style={GROUP}>
                <legend>Crisis plan</legend>
                {note(key) ? <p className="hint">{note(key)}</p> : null}
                {texts(key, CRISIS_PLAN_FIELDS)}
              </fieldset>
            );
          case "consent_to_treatment":
            return (
              <fieldset key={key} style={GROUP}>
                <legend>Consent to treatment</legend>
                {note(key) ? <p className="hint">{note(key)}</p> : null}
                {texts(key, [{ name: "statement", label: "Consent statement" }])}
                {SIGNERS.map((s) => (
                  <fieldset key={s.key} style={GROUP}>
                    <legend>{s.label}</legend>
                    <Field id={`f-${s.key}-signature`} label="Signature (typed full name)" name={`${key}.${s.key}.signature`} maxLength={200} defaultValue={value(`${key}.${s.key}.signature`)} error={errors[`${key}.${s.key}.signature`]} />
                    <Field id={`f-${s.key}-signature_date`} label="Signature date" name={`${key}.${s.key}.signature_date`} type="date" defaultValue={value(`${key}.${s.key}.signature_date`)} error={errors[`${key}.${s.key}.signature_date`]} />
                    <CheckboxField label="Leave a blank line to sign on paper" name={`${key}.${s.key}.signature_placeholder`} defaultChecked={checked(`${key}.${s.key}.signature_placeholder`)} error={errors[`${key}.${s.key}.signature_placeholder`]} />
                  </fieldset>
                ))}
              </fieldset>
            );
          default: {
            const f = NARRATIVE_FIELDS.find((n) => n.name === key);
            if (!f) return null;
            return SHORT_NARRATIVES.includes(f.name) ? (
              <Field key={key} label={f.label} name={key} maxLength={255} defaultValue={value(key)} error={errors[key]} />
            ) : (
              <div key={key}>
                <TextareaField label={f.label} name={key} rows={6} defaultValue={value(key)} error={errors[key]} />
                {note(key) ? <p className="hint">{note(key)}</p> : null}
              </div>
            );
          }
        }
      })}
      <FormActions>
        <button className="btn btn-primary" type="submit" data-pending="Saving…">
          Save this tab
        </button>
      </FormActions>
    </Form>
  );
}
