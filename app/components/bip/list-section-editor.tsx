import { Form } from "@remix-run/react";
import { ConfirmDelete } from "~/components/goals/objectives-table";
import { Link } from "~/components/ui/link";
import { Field } from "~/components/ui/field";
import { SelectField, TextareaField } from "~/components/ui/form-controls";
import { DOCUMENT_REVIEW_STATUSES, HYPOTHESIZED_FUNCTIONS, itemFields, LIST_SECTIONS, listItemDeleteStep, tabOf, type ListSectionKey } from "~/domain/bip-document";
import { DELETE_CONFIRMED } from "~/domain/validation";
import type { FormAnswer } from "~/services/forms.server";
import { cellText } from "./document-view";

/**
 * One list section of the plan, editable without JavaScript (clinical §4 list-and-form): each item has an
 * Edit form (replace at its index), Move up / Move down and Delete (a link to the item's confirm step, whose
 * 'Yes, delete it' posts the delete); below, an Add form (no index: append). Every form is a small POST with
 * intent, section, index and the plan's version.
 */

type Values = Record<string, unknown>;
const asText = (x: unknown) => (x === null || x === undefined ? "" : Array.isArray(x) ? x.join("\n") : String(x));
const asList = (x: unknown) => (Array.isArray(x) ? x.map(String) : typeof x === "string" && x ? [x] : []);

function ItemFields({ section, idPrefix, values, errors }: { section: ListSectionKey; idPrefix: string; values: Values; errors: Record<string, string> }) {
  return (
    <>
      {itemFields(section).map((f) => {
        const id = `${idPrefix}-${f.name}`;
        const label = f.required ? f.label : `${f.label} (optional)`;
        switch (f.kind) {
          case "longtext":
            return <TextareaField key={f.name} id={id} label={label} name={f.name} rows={3} defaultValue={asText(values[f.name])} error={errors[f.name]} />;
          case "lines":
            return <TextareaField key={f.name} id={id} label={`${label} (one per line)`} name={f.name} rows={3} defaultValue={asText(values[f.name])} error={errors[f.name]} />;
          case "date":
            return <Field key={f.name} id={id} label={label} name={f.name} type="date" defaultValue={asText(values[f.name])} error={errors[f.name]} />;
          case "units":
            return <Field key={f.name} id={id} label={label} name={f.name} type="number" min={0} step={1} defaultValue={asText(values[f.name])} error={errors[f.name]} />;
          case "status":
            return (
              <SelectField
                key={f.name}
                id={id}
                label={label}
                name={f.name}
                options={DOCUMENT_REVIEW_STATUSES.map((s) => ({ value: s, label: s }))}
                defaultValue={asText(values[f.name]) || "no"}
                error={errors[f.name]}
              />
            );
          case "functions":
            return (
              <fieldset key={f.name} style={{ border: "1px solid var(--line)", borderRadius: 6, padding: ".6rem", margin: "0 0 .9rem" }} aria-invalid={errors[f.name] ? true : undefined}>
                <legend>{label}</legend>
                {HYPOTHESIZED_FUNCTIONS.map((o) => (
                  <label key={o.value} className="check-inline">
                    <input type="checkbox" name={f.name} value={o.value} defaultChecked={asList(values[f.name]).includes(o.value)} /> {o.label}
                  </label>
                ))}
                {errors[f.name] ? (
                  <p className="field-error" role="alert">
                    {errors[f.name]}
                  </p>
                ) : null}
              </fieldset>
            );
          default:
            return <Field key={f.name} id={id} label={label} name={f.name} defaultValue={asText(values[f.name])} error={errors[f.name]} />;
        }
      })}
    </>
  );
}

function Hidden({ intent, section, index, version }: { intent: string; section: string; index: number | null; version: number }) {
  return (
    <>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="section" value={section} />
      {index === null ? null : <input type="hidden" name="index" value={index} />}
      <input type="hidden" name="version" value={version} />
    </>
  );
}

function MoveButton({ section, index, version, direction, label, title }: { section: string; index: number; version: number; direction: "up" | "down"; label: string; title: string }) {
  return (
    <Form method="post" className="inline-form">
      <Hidden intent="item-move" section={section} index={index} version={version} />
      <input type="hidden" name="direction" value={direction} />
      <button className="btn btn-small" type="submit" aria-label={`Move ${label} ${direction}: ${title}`}>
        {direction === "up" ? "Up" : "Down"}
      </button>
    </Form>
  );
}

export function ListSectionEditor({
  bipId,
  section,
  items,
  version,
  answer,
  isDefault,
  confirmIndex,
}: {
  bipId: number;
  section: ListSectionKey;
  items: readonly Values[];
  version: number;
  answer: FormAnswer | null;
  isDefault: boolean;
  /** The item whose delete is being confirmed (?confirm=delete-<section>-<index>), or null. */
  confirmIndex: number | null;
}) {
  const spec = LIST_SECTIONS[section];
  const fields = itemFields(section);
  const mine = (intent: string, index: number | null) =>
    answer && answer.values.intent === intent && answer.values.section === section && String(answer.values.index ?? "") === (index === null ? "" : String(index)) ? answer : null;
  const added = mine("item-save", null);
  // Errors of a delete, move or reorder (and of an edit whose item is gone) are shown above the list.
  const forSection = answer && answer.values.section === section ? answer : null;
  const sectionError =
    forSection && (forSection.values.intent !== "item-save" || (forSection.values.index && !items.some((i) => String(i.index) === String(forSection.values.index)))) ? forSection.message : null;
  const summary = (item: Values) => fields.map((f) => cellText(item[f.name], f.kind)).filter((x) => x !== "—")[0] ?? "";
  return (
    <section className="card" aria-labelledby={`list-${section}`} id={section}>
      <h3 id={`list-${section}`}>{spec.label}</h3>
      {isDefault ? <p className="muted">Default content. Any change to this list saves it as this plan's own.</p> : null}
      {sectionError ? (
        <p className="alert alert-danger" role="alert">
          {sectionError}
        </p>
      ) : null}
      {items.length === 0 ? (
        <p>No data found</p>
      ) : (
        <ol className="list-section">
          {items.map((item) => {
            const index = Number(item.index);
            const edit = mine("item-save", index);
            const title = summary(item);
            return (
              <li key={index} id={`${section}-item-${index}`}>
                <p style={{ whiteSpace: "pre-line", margin: ".2rem 0" }}>
                  {fields.map((f) => (
                    <span key={f.name}>
                      <strong>{f.label}:</strong> {cellText(item[f.name], f.kind)}
                      <br />
                    </span>
                  ))}
                </p>
                <details open={!!edit}>
                  <summary>Edit {spec.itemLabel} {index}</summary>
                  <Form method="post" key={JSON.stringify(edit?.values ?? item)}>
                    <Hidden intent="item-save" section={section} index={index} version={version} />
                    {edit ? <p className="alert alert-danger" role="alert">{edit.message}</p> : null}
                    <ItemFields section={section} idPrefix={`${section}-${index}`} values={edit ? edit.values : item} errors={edit?.errors ?? {}} />
                    <button className="btn btn-primary" type="submit" data-pending="Saving…">
                      Save {spec.itemLabel}
                    </button>
                  </Form>
                </details>
                {confirmIndex === index ? (
                  <ConfirmDelete
                    question={`Are you sure you want to delete ${spec.itemLabel} ${index}${title ? ` (“${title}”)` : ""}?`}
                    detail={isDefault ? "This list shows the default content: deleting an item saves the other items as this plan's own." : null}
                    intent="item-delete"
                    fields={{ section, index, version, ...DELETE_CONFIRMED }}
                    cancelTo={`/bip/tabbed/${bipId}?tab=${tabOf(section)}#${section}-item-${index}`}
                    busy={false}
                  />
                ) : null}
                <span className="item-actions">
                  {index > 1 ? <MoveButton section={section} index={index} version={version} direction="up" label={`${spec.itemLabel} ${index}`} title={title} /> : null}{" "}
                  {index < items.length ? <MoveButton section={section} index={index} version={version} direction="down" label={`${spec.itemLabel} ${index}`} title={title} /> : null}{" "}
                  <Link className="btn btn-small btn-danger" to={listItemDeleteStep(bipId, section, index)} aria-label={`Delete ${spec.itemLabel} ${index}: ${title}`}>
                    Delete
                  </Link>
                </span>
              </li>
            );
          })}
        </ol>
      )}
      <details open={!!added}>
        <summary>Add {spec.itemLabel}</summary>
        <Form method="post" key={JSON.stringify(added?.values ?? null)}>
          <Hidden intent="item-save" section={section} index={null} version={version} />
          {added ? (
            <p className="alert alert-danger" role="alert">
              {added.message}
            </p>
          ) : null}
          <ItemFields section={section} idPrefix={`${section}-new`} values={added?.values ?? {}} errors={added?.errors ?? {}} />
          <button className="btn btn-primary" type="submit" data-pending="Adding…">
            Add {spec.itemLabel}
          </button>
        </Form>
      </details>
    </section>
  );
}
