import type { SelectHTMLAttributes } from "react";
import { esc } from "~/components/charts/chart-markup";

/**
 * A `<select>` of a fixed list of choices whose `<option>`s are written once per isolate for each selected
 * value, instead of as React elements on every render (decision 042, 2026-11-26 (stop 19)): a table
 * with two modifier selectors a row renders some 800 options, most of a billing page's React work. The HTML
 * is the same React writes for `<select defaultValue={value}>` with one `<option value>{label}</option>` per
 * choice (test/unit/choice-select.test.ts checks it byte for byte), so the page, the form it submits and the
 * JavaScript-off behaviour do not change. The screens do not hydrate (decision 006); one that hydrates
 * should use a plain select.
 */

export interface Choice {
  value: string;
  label: string;
}

/** The options' HTML per list and selected value; lists are module constants, so both maps stay small. */
const written = new WeakMap<readonly Choice[], Map<string, string>>();

/** The `<option>`s of `choices` with `value` selected, as React renders them inside `<select defaultValue={value}>`. */
export function optionsMarkup(choices: readonly Choice[], value: string): string {
  let byValue = written.get(choices);
  if (!byValue) {
    byValue = new Map();
    written.set(choices, byValue);
  }
  let html = byValue.get(value);
  if (html === undefined) {
    html = choices.map((c) => `<option value="${esc(c.value)}"${c.value === value ? ' selected=""' : ""}>${esc(c.label)}</option>`).join("");
    // A value outside the list selects nothing; it is not kept, so a hand-made address cannot grow the map.
    if (choices.some((c) => c.value === value)) byValue.set(value, html);
  }
  return html;
}

/** One select of `choices` (a module-level constant list) with `value` selected. */
export function ChoiceSelect({ choices, value, ...select }: { choices: readonly Choice[]; value: string } & Omit<SelectHTMLAttributes<HTMLSelectElement>, "children" | "defaultValue" | "value" | "dangerouslySetInnerHTML">) {
  return <select {...select} dangerouslySetInnerHTML={{ __html: optionsMarkup(choices, value) }} />;
}
