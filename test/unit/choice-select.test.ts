import { createElement as h } from "react";
import { renderToStaticMarkup, renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ChoiceSelect, optionsMarkup, type Choice } from "~/components/ui/choice-select";
import { MODIFIER_CHOICES } from "~/domain/client-reports";
import { NOTE_STATUSES } from "~/domain/notes";

/** What React writes for the same select with option elements (the reference). */
function reactSelect(choices: readonly Choice[], value: string, attrs: Record<string, string>) {
  return h("select", { ...attrs, defaultValue: value }, ...choices.map((c) => h("option", { key: c.value, value: c.value }, c.label)));
}

const MODIFIERS: readonly Choice[] = [{ value: "", label: "—" }, ...MODIFIER_CHOICES.map((m) => ({ value: m, label: m }))];
const STATUSES: readonly Choice[] = NOTE_STATUSES.map((s) => ({ value: s, label: s }));
const ODD: readonly Choice[] = [
  { value: "a&b", label: "A & B <c>" },
  { value: `"quoted" 'single'`, label: `"q" 'q'` },
  { value: "", label: "" },
];

describe("a select with prebuilt options writes what React writes (decision 042, billing)", () => {
  const cases: [string, readonly Choice[], string][] = [
    ...["", ...MODIFIER_CHOICES, "ZZ", "<x>"].map((v): [string, readonly Choice[], string] => ["modifiers", MODIFIERS, v]),
    ...[...NOTE_STATUSES, "draft"].map((v): [string, readonly Choice[], string] => ["statuses", STATUSES, v]),
    ...["a&b", `"quoted" 'single'`, "", "none"].map((v): [string, readonly Choice[], string] => ["odd texts", ODD, v]),
  ];
  it.each(cases)("%s with %j selected", (_, choices, value) => {
    const attrs = { name: "md", form: "row-12", "aria-label": "Modifier 1 of the RBT note of 2026-02-26", "data-row": "12" };
    for (const render of [renderToString, renderToStaticMarkup]) {
      const mine = render(h(ChoiceSelect, { ...attrs, choices, value }));
      expect(mine).toBe(render(reactSelect(choices, value, attrs)));
    }
  });

  it("selects at most one option, and none for a value outside the list", () => {
    expect(optionsMarkup(MODIFIERS, "XP").match(/selected/g)).toHaveLength(1);
    expect(optionsMarkup(MODIFIERS, "nope")).not.toContain("selected");
    expect(optionsMarkup(MODIFIERS, "nope")).toBe(optionsMarkup(MODIFIERS, "still not"));
  });
});
