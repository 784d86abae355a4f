/**
 * The screen of a route that only redirects (a short path of the spec, `/roles` → `/roles/list`) or answers its
 * guard's refusal. Being a screen rather than a resource route, a refusal renders the app's error page (Access
 * Denied with its way back, platform §8) instead of bare text (probe 8897, stop 25). It never renders itself.
 */
export default function RedirectOnly() {
  return null;
}
