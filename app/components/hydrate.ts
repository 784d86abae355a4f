/**
 * Whether a document hydrates: only when one of its matched routes asks for it with `handle.hydrate`
 * (docs/decisions/006). The root layout reads it to choose React's scripts or the small enhancement
 * script; the server entry reads it to render a document that does not hydrate as one string, without
 * encoding the loader data hand-off nothing would read (decision 042).
 */
export function routesHydrate(handles: readonly unknown[]): boolean {
  return handles.some((handle) => (handle as { hydrate?: unknown } | null | undefined)?.hydrate === true);
}
