import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ConfirmDelete } from "~/components/goals/objectives-table";
import { ListSectionEditor } from "~/components/bip/list-section-editor";
import { TableEditor } from "~/components/bip/table-editor";
import { TabForm } from "~/components/bip/tab-form";
import { FormMessage } from "~/components/ui/field";
import { StaleNotice } from "~/components/ui/stale-notice";
import { BIP_TABS, listItemDeleteStep, listItemToConfirm, tabById, tabOf, tableFromForm, TABLE_FIELDS, typeOfAssessmentLabel, unflatten } from "~/domain/bip-document";
import { DELETE_CONFIRMED } from "~/domain/validation";
import { changeBipList, deleteBip, getBipDetail, getBipEditor, updateBip } from "~/models/bips.server";
import { formResult, formValues, modelContextFor, requireDeleteConfirmed, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `${tabById(data?.tab).label} · Edit plan of ${data?.bip.patient_name ?? "client"} · Baseline` }];
export const handle = { guard: "manage_bips" };

/**
 * The tabbed plan editor. Tabs are links (?tab=), so it works without JavaScript. Each tab saves its text
 * fields in one form; each list section and table has its own small forms (intent + section + index),
 * saved at once; a list item's Delete is a link to its confirm step (?confirm=delete-<section>-<index>). Every form carries the plan's version: a stale save answers 409 and shows what is stored.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_bips", "view_bips");
  const ctx = modelContextFor(context, actor);
  const tab = tabById(new URL(request.url).searchParams.get("tab"));
  // The identity tab's doctor select rides in the batch of the BIP read's audit row.
  const read = await getBipEditor(ctx, requireId(params.id, "BIP"), tab.id === "identity");
  if (!read) throw notFound("BIP not found.");
  const { detail, doctors } = read;
  return { bip: detail.bip, defaulted: detail.defaulted, tab: tab.id, doctors };
}

const LIST_INTENTS: Record<string, "save" | "delete" | "move" | "reorder"> = { "item-save": "save", "item-delete": "delete", "item-move": "move", "item-reorder": "reorder" };

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_bips", "view_bips");
  const id = requireId(params.id, "BIP");
  const ctx = modelContextFor(context, actor);
  const values = formValues(await request.formData());
  const back = (tab: string) => () => `/bip/tabbed/${id}?tab=${tab}`;
  const intent = String(values.intent ?? "");
  if (intent in LIST_INTENTS) {
    const section = String(values.section ?? "");
    // A delete only from its confirm step's 'Yes, delete it' (like every screen delete); otherwise that step.
    if (intent === "item-delete") requireDeleteConfirmed(values, listItemDeleteStep(id, section, values.index));
    return formResult(await withFormVersion(values.version, (version) => changeBipList(ctx, id, { ...values, op: LIST_INTENTS[intent] }, version)), values, back(tabOf(section)));
  }
  switch (intent) {
    case "save-tab": {
      const tab = tabById(String(values.tab ?? ""));
      const posted = unflatten(values);
      const keys: string[] = [...tab.fields, ...(tab.id === "identity" ? ["type_of_assessment", "doctor_id"] : [])];
      const patch = Object.fromEntries(keys.map((k) => [k, posted[k] ?? null]));
      return formResult(await withFormVersion(values.version, (version) => updateBip(ctx, id, patch, { partial: true, version, message: `${tab.label}: saved.` })), values, back(tab.id));
    }
    case "save-table": {
      const section = TABLE_FIELDS.find((t) => t.name === values.section);
      if (!section) return data<FormAnswer>({ errors: {}, message: "Choose a table of the plan.", values }, { status: 400 });
      return formResult(await withFormVersion(values.version, (version) => updateBip(ctx, id, { [section.name]: tableFromForm(values) }, { partial: true, version, message: `${section.label}: saved.` })), values, back(tabOf(section.name)));
    }
    case "attention": {
      const on = values.needs_attention === "true";
      return formResult(await withFormVersion(values.version, (version) => updateBip(ctx, id, { needs_attention: on }, { partial: true, version, message: on ? "Marked as needing attention." : "No longer marked as needing attention." })), values, back("identity"));
    }
    case "delete":
      // Only the confirm step's 'Yes, delete it' deletes.
      requireDeleteConfirmed(values, `/bip/tabbed/${id}?tab=identity&confirm=delete#delete-plan`);
      return formResult(await deleteBip(ctx, id), values, () => "/bip/list");
    default: {
      const detail = await getBipDetail(ctx, id);
      if (!detail) throw notFound("BIP not found.");
      return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
    }
  }
}

export default function BipEditor() {
  const { bip, defaulted, tab, doctors } = useLoaderData<typeof loader>();
  const answer = (useActionData<typeof action>() ?? null) as FormAnswer | null;
  const [params] = useSearchParams();
  const current = BIP_TABS.find((t) => t.id === tab)!;
  const doc = bip as unknown as Record<string, unknown>;
  const stale = answer?.current ? answer : null;
  const confirmItem = listItemToConfirm(params.get("confirm"));
  // A form of this tab shows its own error; anything else (an unknown section, a delete, a malformed hidden
  // version) is shown at the top.
  const section = String(answer?.values.section ?? "");
  const shownBelow =
    !!answer && !answer.errors.version && (answer.values.intent === "save-tab" || (current.lists as readonly string[]).includes(section) || (current.tables as readonly string[]).includes(section));
  return (
    <section className="card">
      <div className="page-head">
        <h1>
          Plan of {bip.patient_name} · {typeOfAssessmentLabel(bip.type_of_assessment)}
        </h1>
        <span>
          <Link to={`/bip/profile/${bip.id}`}>View plan</Link> · <Link to="/bip/list">All plans</Link>
        </span>
      </div>
      <FormMessage success={answer ? null : params.get("flash")} />
      {answer && !stale && !shownBelow ? <FormMessage error={answer.message} /> : null}
      {stale ? <StaleNotice message={stale.message} version={bip.version} shownBy="The forms below show" unsaved={stale.values.intent === "save-tab" ? stale.values : null} hidden={["intent", "tab", "version"]} stored={doc} /> : null}
      {answer && !stale && answer.values.intent === "save-tab" ? <FormMessage error={answer.message} /> : null}

      <nav aria-label="Plan sections" className="tabs">
        <ul style={{ display: "flex", flexWrap: "wrap", gap: ".4rem", listStyle: "none", padding: 0 }}>
          {BIP_TABS.map((t) => (
            <li key={t.id}>
              <Link className={t.id === tab ? "btn btn-primary" : "btn"} to={`?tab=${t.id}`} aria-current={t.id === tab ? "page" : undefined}>
                {t.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>

      <h2>{current.label}</h2>
      {current.id === "identity" ? (
        <Form method="post" className="inline-form">
          <input type="hidden" name="intent" value="attention" />
          <input type="hidden" name="version" value={bip.version} />
          <input type="hidden" name="needs_attention" value={bip.needs_attention ? "false" : "true"} />
          <p>
            {bip.needs_attention ? <span className="badge">Needs attention</span> : <span className="muted">Not flagged.</span>}{" "}
            <button className="btn btn-small" type="submit">
              {bip.needs_attention ? "Clear “needs attention”" : "Mark as needing attention"}
            </button>
          </p>
        </Form>
      ) : null}
      {current.fields.length || current.id === "identity" ? (
        <TabForm tab={current.id} fields={current.fields} current={doc} version={bip.version} answer={stale ? null : answer} defaulted={defaulted} doctors={doctors} />
      ) : null}
      {current.tables.map((t) => (
        <TableEditor key={t} field={t} table={bip[t]} version={bip.version} answer={stale ? null : answer} isDefault={defaulted.includes(t)} />
      ))}
      {current.lists.map((l) => (
        <ListSectionEditor
          key={l}
          bipId={bip.id}
          section={l}
          items={bip[l] as unknown as Record<string, unknown>[]}
          version={bip.version}
          answer={stale ? null : answer}
          isDefault={defaulted.includes(l)}
          confirmIndex={confirmItem?.section === l ? confirmItem.index : null}
        />
      ))}

      {current.id === "identity" ? (
        <section className="danger-zone" aria-labelledby="delete-plan">
          <h2 id="delete-plan">Delete plan</h2>
          {params.get("confirm") === "delete" ? (
            <ConfirmDelete
              question={`Are you sure you want to delete the plan of ${bip.patient_name} (${typeOfAssessmentLabel(bip.type_of_assessment)})?`}
              intent="delete"
              fields={DELETE_CONFIRMED}
              cancelTo={`/bip/tabbed/${bip.id}?tab=identity`}
              busy={false}
            />
          ) : (
            <>
              <p>Deleting this plan removes it and its goals from every list. The record and its audit trail are kept.</p>
              <Link className="btn btn-danger" to="?tab=identity&confirm=delete#delete-plan">
                Delete plan…
              </Link>
            </>
          )}
        </section>
      ) : null}
    </section>
  );
}
