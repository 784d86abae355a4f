/** uPlot's stylesheet, next to the chart module that imports this, with the same ?v= cache key. */
export function ensureStylesheet(moduleUrl: string): void {
  if (document.querySelector("link[data-uplot-css]")) return;
  const here = new URL(moduleUrl);
  const href = new URL("./uplot.css", here);
  href.search = here.search;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href.href;
  link.dataset.uplotCss = "";
  document.head.appendChild(link);
}
