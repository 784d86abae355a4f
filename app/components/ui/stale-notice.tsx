const text = (x: unknown) => (x === null || x === undefined ? "" : Array.isArray(x) ? x.map(String).join(", ") : String(x).trim());
/**
 * A field's key as words ("current_progress" → "Current progress"), as the forms' labels read; a nested field's
 * key names its row from 1 ("pa_assessments[0][name]" → "Pa assessments 1 name", "content.summary_note" → "Summary note").
 */
const words = (key: string) =>
  key
    .replace(/^content\./, "")
    .replace(/\[(\d+)\]|\.(\d+)(?=\.|$)/g, (_, a: string | undefined, b: string | undefined) => ` ${Number(a ?? b) + 1} `)
    .replace(/[[\].]+/g, " ")
    .replace(/_/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\w/, (c) => c.toUpperCase());

/** Fields never listed, whatever a form hides: a password, a secret, a one-time token, a drawn signature. */
const NEVER_SHOWN = /password|secret|token|signature/i;

/** The stored value a form field shows: by its own name, or along its path ("a[0][b]", "content.a[0].b"). */
function storedAt(stored: Record<string, unknown>, key: string): unknown {
  if (key in stored) return stored[key];
  let node: unknown = stored;
  for (const part of key.split(/[[\].]+/).filter(Boolean)) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** A typed value equals the stored one: a ticked checkbox ("on") is a stored true, an unticked one a false; numbers by value. */
function same(typed: unknown, stored: unknown): boolean {
  if (typeof stored === "boolean") return stored === ["on", "true", "1"].includes(text(typed));
  if (Array.isArray(typed) && Array.isArray(stored)) return [...typed].map(String).sort().join("\n") === [...stored].map(String).sort().join("\n");
  const [a, b] = [text(typed), text(stored)];
  // A number typed as it is stored, written otherwise ("12.50" for 12.5), was not lost.
  const decimal = /^-?\d+(\.\d+)?$/;
  return a === b || (decimal.test(a) && decimal.test(b) && Number(a) === Number(b));
}

/**
 * The answer to a stale save (409; decision 010): the message, a line saying the form now shows what is
 * stored (with the version it carries, so a second save is deliberate) and, in a disclosure, what the user typed
 * that was not saved, so a long text need not be typed again. `hidden` names the form's own fields (intent,
 * version, ids, tokens, passwords: never listed); with `stored`, a value equal to the stored one is left out, as
 * nothing of it was lost. `labels` names fields as the form's labels do, where its key in words would not.
 */
export function StaleNotice({
  message,
  version,
  shownBy = "The form below shows",
  unsaved,
  hidden = [],
  stored,
  labels = {},
}: {
  message: string | null;
  version: number;
  shownBy?: string;
  unsaved: Record<string, unknown> | null;
  hidden?: readonly string[];
  stored?: Record<string, unknown>;
  labels?: Readonly<Record<string, string>>;
}) {
  const lost = Object.entries(unsaved ?? {}).filter(([k, v]) => !hidden.includes(k) && !NEVER_SHOWN.test(k) && text(v) !== "" && (!stored || !same(v, storedAt(stored, k))));
  return (
    <div className="alert alert-danger" role="alert">
      <p>{message}</p>
      <p>
        {shownBy} what is stored now (version {version}).
      </p>
      {lost.length ? (
        <details>
          <summary>Your changes that were not saved</summary>
          <dl className="details">
            {lost.map(([k, v]) => (
              <div key={k}>
                <dt>{labels[k] ?? words(k)}</dt>
                <dd style={{ whiteSpace: "pre-line" }}>{Array.isArray(v) ? text(v) : String(v)}</dd>
              </div>
            ))}
          </dl>
        </details>
      ) : null}
    </div>
  );
}
