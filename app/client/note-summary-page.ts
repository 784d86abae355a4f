/**
 * The AI summary button standalone (public/assets/note-summary-page-<hash>.js, `ASSET_URLS.noteSummaryJs`): attaches
 * `attachAiSummary` to every form on the page that has a `button[data-ai-summary]`. A note screen that bundles
 * app/client/note-summary.ts into its own script calls `attachAiSummary` itself instead.
 */
import { attachAll } from "./note-summary";

attachAll();
