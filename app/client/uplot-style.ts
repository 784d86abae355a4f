/** uPlot's stylesheet text (node_modules/uplot/dist/uPlot.min.css), set by scripts/build-assets.mjs. */
declare const __UPLOT_CSS_TEXT__: string;

/**
 * Adds uPlot's styles once per page, for whichever chart module draws first. They travel inside the
 * module (under 1 KiB gzip) rather than as a stylesheet the module links after it has loaded: on a slow
 * connection that second, sequential request cost a full round trip on the first chart page (decision 018).
 * An inline <style> is allowed by the Content-Security-Policy (style-src 'unsafe-inline').
 */
export function ensureStylesheet(): void {
  if (document.querySelector("style[data-uplot-css]")) return;
  const style = document.createElement("style");
  style.textContent = __UPLOT_CSS_TEXT__;
  style.dataset.uplotCss = "";
  document.head.appendChild(style);
}
