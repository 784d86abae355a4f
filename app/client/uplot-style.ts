/** uPlot's stylesheet under its content-hashed name, set by scripts/build-assets.mjs (docs/decisions/018). */
declare const __UPLOT_CSS__: string;

/** Adds uPlot's stylesheet once per page, for whichever chart module draws first. */
export function ensureStylesheet(): void {
  if (document.querySelector("link[data-uplot-css]")) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = __UPLOT_CSS__;
  link.dataset.uplotCss = "";
  document.head.appendChild(link);
}
