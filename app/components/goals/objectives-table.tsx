import { Form } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { COMPARISON_OPERATOR_LABELS, objectiveLabels, type ComparisonOperator } from "~/domain/objectives";
import { parseVersion } from "~/domain/validation";
import type { ObjectiveJson } from "~/models/objectives.server";
import { ObjectiveFields, text } from "./goal-fields";
import { DataTable, type Column } from "~/components/ui/data-list";
import { StaleNotice } from "~/components/ui/stale-notice";

/**
 * A goal's objectives in position order (the LTO last), each with plain forms: edit (a disclosure),
 * move up/down (STOs only), and delete (a link to the confirm step). Works without JavaScript.
 */
export interface ObjectiveAnswer {
  intent: string;
  objectiveId: number | null;
  errors: Record<string, string>;
  values: Record<string, unknown>;
  /** After a stale save: what is stored now. */
  current: ObjectiveJson | null;
}

function Move({ o, label, direction, disabled, busy }: { o: ObjectiveJson; label: string; direction: "up" | "down"; disabled: boolean; busy: boolean }) {
  return (
    <Form method="post" className="inline-form">
      <input type="hidden" name="intent" value="move-objective" />
      <input type="hidden" name="objective_id" value={o.id} />
      <input type="hidden" name="direction" value={direction} />
      <button className="link-button" type="submit" disabled={busy || disabled} aria-label={`Move ${label} ${direction}`}>
        {direction === "up" ? "Up" : "Down"}
      </button>
    </Form>
  );
}

export function ObjectivesTable({ goalName, objectives, answer, busy }: { goalName: string; objectives: ObjectiveJson[]; answer: ObjectiveAnswer | null; busy: boolean }) {
  const stoCount = objectives.filter((o) => o.type !== "LTO").length;
  const labels = objectiveLabels(objectives);
  const label = (o: ObjectiveJson) => labels.get(o.id)!.label;
  const columns: Column<ObjectiveJson>[] = [
    { header: "Objective", rowHeader: true, cell: label },
    { header: "Name", cell: (o) => o.name ?? "—" },
    { header: "Status", cell: (o) => o.status },
    { header: "Start point", cell: (o) => text(o.start_point) || "—" },
    { header: "Target", cell: (o) => text(o.target) || "—" },
    { header: "Dates", cell: (o) => (o.initial_date || o.end_date ? `${o.initial_date ?? "…"} – ${o.end_date ?? "…"}` : "—") },
    { header: "Weeks", cell: (o) => text(o.weeks_to_complete) || "—" },
    { header: "Comparison", cell: (o) => (o.comparison_operator ? (COMPARISON_OPERATOR_LABELS[o.comparison_operator as ComparisonOperator] ?? o.comparison_operator) : "—") },
    { header: "Actions", hideHeader: true, className: "actions", cell: (o) => <ObjectiveActions o={o} label={label(o)} stoCount={stoCount} answer={answer} busy={busy} /> },
  ];
  return <DataTable rows={objectives} columns={columns} empty="No objectives yet." caption={`Objectives of ${goalName}`} rowData={(o) => ({ "data-testid": `objective-${o.id}` })} />;
}

/** An objective's forms: move up/down (STOs only), edit (a disclosure, open after a refused save of it) and delete. */
function ObjectiveActions({ o, label, stoCount, answer, busy }: { o: ObjectiveJson; label: string; stoCount: number; answer: ObjectiveAnswer | null; busy: boolean }) {
  const mine = answer && answer.intent === "save-objective" && answer.objectiveId === o.id ? answer : null;
  const shown = mine?.current ?? (mine ? mine.values : o);
  // The version re-shown after a refusal: the stored one when the typed one is not a whole number (a 422 for it, decision 017).
  const typed = parseVersion(mine?.values.version);
  const version = mine?.current ? mine.current.version : typed.ok && typed.version !== null ? typed.version : o.version;
  return (
    <>
      {o.type !== "LTO" ? (
        <>
          <Move o={o} label={label} direction="up" disabled={o.position <= 1} busy={busy} /> <Move o={o} label={label} direction="down" disabled={o.position >= stoCount} busy={busy} />{" "}
        </>
      ) : null}
      <details open={!!mine}>
        <summary>{`Edit ${label}`}</summary>
        {mine?.current ? (
          <StaleNotice message="Someone else saved a newer version of this objective. Review the current values and save again." version={version} unsaved={mine.values} hidden={["intent", "objective_id", "version"]} stored={mine.current} />
        ) : mine ? (
          <p className="alert alert-danger" role="alert">
            Check the fields below.
          </p>
        ) : null}
        <Form method="post" noValidate key={JSON.stringify([shown, version])}>
          <input type="hidden" name="intent" value="save-objective" />
          <input type="hidden" name="objective_id" value={o.id} />
          <input type="hidden" name="version" value={version} />
          <ObjectiveFields values={shown} errors={mine && !mine.current ? mine.errors : {}} idPrefix={`objective-${o.id}`} />
          <button className="btn btn-primary" type="submit" disabled={busy}>
            {`Save ${label}`}
          </button>
        </Form>
      </details>
      <Link to={`?delete-objective=${o.id}`} aria-label={`Delete ${label}`}>
        Delete
      </Link>
    </>
  );
}

/**
 * The no-JavaScript confirm step of a delete (the spec's wording, clinical §8); `detail`: what else the delete does.
 * The way back takes the focus when the step shows (decision 021): the dialog's question is read, and Enter does
 * not delete.
 */
export function ConfirmDelete({
  question,
  detail,
  intent,
  fields,
  cancelTo,
  busy,
  confirmLabel = "Yes, delete it",
  backLabel = "Cancel",
}: {
  question: string;
  detail?: string | null;
  intent: string;
  fields: Record<string, string | number>;
  cancelTo: string;
  busy: boolean;
  /** The button's and the way back's words where "delete" and "Cancel" would mislead (cancelling a session). */
  confirmLabel?: string;
  backLabel?: string;
}) {
  return (
    <div className="alert alert-danger" role="alertdialog" aria-labelledby="confirm-delete-question">
      <p id="confirm-delete-question">
        <strong>{question}</strong>
      </p>
      {detail ? <p>{detail}</p> : null}
      <p>This action cannot be undone.</p>
      {/* The way back comes first, in the focus order too: a page opened at a #fragment does not autofocus (a browser
          rule), so its first Tab from the fragment must not land on the delete (probe 9043 §5); enhance.js focuses it. */}
      <Link className="btn" to={cancelTo} autoFocus>
        {backLabel}
      </Link>{" "}
      <Form method="post" className="inline-form">
        <input type="hidden" name="intent" value={intent} />
        {Object.entries(fields).map(([k, x]) => (
          <input key={k} type="hidden" name={k} value={x} />
        ))}
        <button className="btn btn-danger" type="submit" disabled={busy}>
          {confirmLabel}
        </button>
      </Form>
    </div>
  );
}
