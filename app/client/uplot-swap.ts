import type uPlot from "uplot";

/**
 * What the chart modules share (behavior charts, decision 008; the dashboard's year chart, 021): uPlot's
 * stylesheet, a hidden host beside the server SVG, a hover tooltip, and the swap — the SVG is hidden only
 * after uPlot has drawn without an error; on any error the canvas goes and the SVG stays
 * (`figure[data-enhanced]` reads `uplot`, or `failed`). Resizes follow the host's width.
 */

/** uPlot's stylesheet text (node_modules/uplot/dist/uPlot.min.css), set by scripts/build-assets.mjs. */
declare const __UPLOT_CSS_TEXT__: string;

export const FONT = "system-ui, sans-serif";

/**
 * Adds uPlot's styles once per page, for whichever chart module draws first. They travel inside the
 * module (under 1 KiB gzip) rather than as a stylesheet the module links after it has loaded: on a slow
 * connection that second, sequential request cost a full round trip on the first chart page (decision 018).
 * An inline <style> is allowed by the Content-Security-Policy (style-src 'unsafe-inline').
 */
function ensureStylesheet(): void {
  if (document.querySelector("style[data-uplot-css]")) return;
  const style = document.createElement("style");
  style.textContent = __UPLOT_CSS_TEXT__;
  style.dataset.uplotCss = "";
  document.head.appendChild(style);
}

export interface UplotSwap {
  host: HTMLDivElement;
  tip: HTMLDivElement;
  /** Runs a hook unless the chart failed; an error in it fails the chart (after uPlot's own call returns). */
  guarded: (f: (u: uPlot) => void) => (u: uPlot) => void;
  /** Call from a draw hook: the first successful draw swaps the SVG for the canvas. */
  drawn: () => void;
  /** Creates the chart in the host and follows its width; `sized` runs after the first size and every resize. */
  mount: (make: (host: HTMLElement) => uPlot, height: number, sized?: (u: uPlot) => void) => void;
}

/** Prepares the swap for one figure (marks it pending); `name` is for the console message. */
export function uplotSwap(figure: HTMLElement, svg: HTMLElement, hostClass: string, name: string): UplotSwap {
  figure.dataset.enhanced = "pending";
  ensureStylesheet();
  const host = document.createElement("div");
  host.className = hostClass;
  host.hidden = true;
  // The canvas says what the SVG it replaces says (WCAG 1.1.1): an image named by the SVG's title and <desc>
  // summary, both from the one chart model (decision 021); they stay in the page with the hidden SVG.
  const labelledBy = svg.querySelector("svg[aria-labelledby]")?.getAttribute("aria-labelledby");
  if (labelledBy) {
    host.setAttribute("role", "img");
    host.setAttribute("aria-labelledby", labelledBy);
  }
  svg.parentNode?.insertBefore(host, svg.nextSibling); // (append/after clash with the Workers types)
  const tip = document.createElement("div");
  tip.hidden = true;
  tip.setAttribute("role", "status");
  Object.assign(tip.style, { position: "absolute", pointerEvents: "none", background: "#fff", border: "1px solid #cbd5e1", borderRadius: "4px", padding: "2px 6px", font: `12px ${FONT}`, whiteSpace: "nowrap", color: "#111827", zIndex: "2" });

  let chart: uPlot | null = null;
  let observer: ResizeObserver | null = null;
  let failed = false;
  const fail = (e: unknown) => {
    if (failed) return;
    failed = true;
    console.error(`${name}: uPlot could not draw, keeping the SVG`, e);
    observer?.disconnect();
    chart?.destroy();
    host.remove();
    svg.hidden = false;
    figure.dataset.enhanced = "failed";
  };
  return {
    host,
    tip,
    guarded: (f) => (u) => {
      if (failed) return;
      try {
        f(u);
      } catch (e) {
        queueMicrotask(() => fail(e));
      }
    },
    drawn: () => {
      if (!failed && figure.dataset.enhanced === "pending") {
        svg.hidden = true;
        host.hidden = false;
        figure.dataset.enhanced = "uplot";
      }
    },
    mount: (make, height, sized) => {
      try {
        const u = make(host);
        chart = u;
        u.over.appendChild(tip);
        sized?.(u);
        observer = new ResizeObserver(() => {
          const w = host.clientWidth;
          if (!failed && w > 0 && w !== u.width) {
            u.setSize({ width: w, height });
            sized?.(u);
          }
        });
        observer.observe(host);
      } catch (e) {
        fail(e);
      }
    },
  };
}
