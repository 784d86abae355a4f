import * as v from "valibot";

/** Turns valibot issues into one message per field (the first one wins). */
export function fieldErrors(issues: readonly v.BaseIssue<unknown>[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of issues) {
    // Array positions are dropped: a bad item is reported on its list field ("pos_codes", not "pos_codes.0").
    const key = issue.path?.filter((p) => p.type !== "array").map((p) => String(p.key)).join(".") || "form";
    out[key] ??= issue.message;
  }
  return out;
}

export type Parsed<T> = { ok: true; data: T } | { ok: false; errors: Record<string, string> };

/** Validates plain input (a JSON body or a form's fields) with a schema. */
export function parseWith<S extends v.GenericSchema>(schema: S, input: unknown): Parsed<v.InferOutput<S>> {
  const r = v.safeParse(schema, input);
  return r.success ? { ok: true, data: r.output } : { ok: false, errors: fieldErrors(r.issues) };
}

/** A form's fields as a plain object (the last value of a repeated name wins; files are left out). */
export function formFields(form: FormData): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of form.entries()) if (typeof val === "string") out[k] = val;
  return out;
}

/** Accepts true/"true"/"1"/"on"/"yes" as true (checkboxes and JSON booleans alike). */
export const looseBoolean = v.pipe(
  v.optional(v.union([v.boolean(), v.string(), v.number()]), false),
  v.transform((x) => x === true || x === 1 || (typeof x === "string" && ["true", "1", "on", "yes"].includes(x.toLowerCase()))),
);

/** A record id from a path: a positive whole number, else null (the record does not exist). */
export function pathId(raw: string | undefined): number | null {
  return raw && /^\d{1,15}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}
