import manifest from "./generated/assets.json";

/**
 * The URLs of the static files every page uses, under content-hashed names that browsers keep for a year
 * (written by scripts/build-assets.mjs, which `npm run build` runs first; docs/decisions/018).
 */
export const ASSET_URLS: { appCss: string; enhanceJs: string; behaviorChartJs: string; yearChartJs: string; noteFormJs: string; noteSummaryJs: string; consentSignJs: string; reportChartJs: string } = manifest;
