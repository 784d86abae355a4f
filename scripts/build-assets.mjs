/**
 * The static files every page uses, under content-hashed names so browsers may keep them for a year
 * without asking again (public/_headers: /assets/* immutable; docs/decisions/018). Run by `npm run build`
 * before `remix build`; the output is ignored by git and rebuilt by every build.
 *
 * - public/styles/app.css is copied to public/assets/<name>-<hash>.<ext>; public/enhance.js is minified by esbuild
 *   on the way (its comments stay in the source; every screen loads it, beside the goal screen's 26 KiB chart).
 * - The behavior chart's browser module (docs/decisions/008): app/client/behavior-chart.ts with uPlot,
 *   bundled by esbuild into one minified ES module, public/assets/behavior-chart-<hash>.js, with uPlot's
 *   stylesheet inside it (added as a <style> when it draws: no second, sequential request on a slow
 *   connection).
 * - The dashboard's year chart module (docs/decisions/021): app/client/year-chart.ts, built the same way.
 * - The note form's module (docs/decisions/025): app/client/note-form.ts, built the same way (it bundles the AI
 *   summary button, app/client/note-summary.ts).
 * - The note forms' AI summary button standalone (docs/decisions/026): app/client/note-summary-page.ts, built the
 *   same way (no uPlot).
 * - The parent portal's consent signing (docs/decisions/040): app/client/consent-sign.ts, the signature pad alone.
 * - The reports' bar charts (docs/decisions/038): app/client/report-chart.ts with uPlot, built the same way.
 * - app/generated/assets.json maps each file to its URL; the root and the chart read their links from it.
 *
 * Prints the sizes (raw and gzip).
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build, transform } from "esbuild";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "public", "assets");
const manifestFile = path.join(root, "app", "generated", "assets.json");

const hashOf = (bytes) => createHash("sha256").update(bytes).digest("hex").slice(0, 10);
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

/** Writes the bytes as public/assets/<name>-<hash><ext> and returns its URL. */
async function emit(name, ext, bytes) {
  const file = `${name}-${hashOf(bytes)}${ext}`;
  await writeFile(path.join(out, file), bytes);
  console.log(`public/assets/${file}  ${kib(bytes.length)}  (gzip ${kib(gzipSync(bytes, { level: 9 }).length)})`);
  return `/assets/${file}`;
}

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await mkdir(path.dirname(manifestFile), { recursive: true });

const appCss = await emit("app", ".css", await readFile(path.join(root, "public", "styles", "app.css")));
const enhanceSource = await readFile(path.join(root, "public", "enhance.js"), "utf8");
const enhanceJs = await emit("enhance", ".js", Buffer.from((await transform(enhanceSource, { minify: true, target: "es2020", legalComments: "none" })).code));
const uplotCssText = await readFile(path.join(root, "node_modules", "uplot", "dist", "uPlot.min.css"), "utf8");
/** A chart module (app/client/<name>.ts with uPlot) as one minified ES module; a screen loads only its own. */
async function chartModule(name) {
  const result = await build({
    entryPoints: [path.join(root, "app", "client", `${name}.ts`)],
    write: false,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["es2020"],
    minify: true,
    legalComments: "none",
    logLevel: "warning",
    define: { __UPLOT_CSS_TEXT__: JSON.stringify(uplotCssText) },
  });
  return emit(name, ".js", Buffer.from(result.outputFiles[0].contents));
}
const behaviorChartJs = await chartModule("behavior-chart");
const yearChartJs = await chartModule("year-chart");
// The note form's module (docs/decisions/025): drafts, live units, signature pads, the AI summary button.
const noteFormJs = await chartModule("note-form");
const noteSummaryJs = await chartModule("note-summary-page");
// The parent portal's consent signing: the note form's signature pad alone (docs/decisions/040).
const consentSignJs = await chartModule("consent-sign");
// The reports' bar charts (docs/decisions/038): app/client/report-chart.ts with uPlot.
const reportChartJs = await chartModule("report-chart");

await writeFile(manifestFile, `${JSON.stringify({ appCss, enhanceJs, behaviorChartJs, yearChartJs, noteFormJs, noteSummaryJs, consentSignJs, reportChartJs }, null, 2)}
`);
