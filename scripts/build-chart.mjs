/**
 * Builds the chart browser modules (docs/decisions/008, 021): app/client/behavior-chart.ts (behavior
 * charts) and app/client/year-chart.ts (the dashboard's year chart), each with uPlot, bundled by
 * esbuild into one minified ES module apiece (public/assets/behavior-chart.js, year-chart.js; a screen
 * loads only its own), and uPlot's stylesheet copied to public/assets/uplot.css. Run by `npm run build` after `remix build`; the output
 * is ignored by git and rebuilt by every build. Prints the sizes (raw and gzip).
 */
import { copyFile, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "public", "assets");
const modules = ["behavior-chart", "year-chart"];
const css = path.join(out, "uplot.css");

await mkdir(out, { recursive: true });
await build({
  entryPoints: modules.map((m) => path.join(root, "app", "client", `${m}.ts`)),
  outdir: out,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2020"],
  minify: true,
  legalComments: "none",
  logLevel: "warning",
});
await copyFile(path.join(root, "node_modules", "uplot", "dist", "uPlot.min.css"), css);

for (const file of [...modules.map((m) => path.join(out, `${m}.js`)), css]) {
  const bytes = await readFile(file);
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(`${path.relative(root, file)}  ${kib(bytes.length)}  (gzip ${kib(gzipSync(bytes, { level: 9 }).length)})`);
}
