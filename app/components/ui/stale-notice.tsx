const text = (x: unknown) => (x === null || x === undefined ? "" : String(x).trim());
/** A field's key as words ("current_progress" → "Current progress"), as the forms' labels read. */
const words = (key: string) => key.replace(/_/g, " ").replace(/^\w/, (c) => c.toUpperCase());

/**
 * The answer to a stale save (409; decision 010): the message, a line saying the form now shows what is
 * stored (with the version it carries, so a second save is deliberate) and, in a disclosure, what the user typed
 * that was not saved, so a long text need not be typed again. `hidden` names the form's own fields (intent,
 * version, ids); with `stored`, a value equal to the stored one is left out, as nothing of it was lost.
 */
export function StaleNotice({
  message,
  version,
  shownBy = "The form below shows",
  unsaved,
  hidden = [],
  stored,
}: {
  message: string | null;
  version: number;
  shownBy?: string;
  unsaved: Record<string, unknown> | null;
  hidden?: readonly string[];
  stored?: Record<string, unknown>;
}) {
  const lost = Object.entries(unsaved ?? {}).filter(([k, v]) => !hidden.includes(k) && text(v) !== "" && (!stored || text(stored[k]) !== text(v)));
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
                <dt>{words(k)}</dt>
                <dd style={{ whiteSpace: "pre-line" }}>{String(v)}</dd>
              </div>
            ))}
          </dl>
        </details>
      ) : null}
    </div>
  );
}
