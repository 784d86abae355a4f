import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };

/** The top-level [vars] table (up to the next table header). */
function topLevelVars(): string {
  const start = toml.indexOf("\n[vars]");
  const rest = toml.slice(start + 7);
  const end = rest.search(/^\[/m);
  return end === -1 ? rest : rest.slice(0, end);
}

describe("a deploy without flags is production", () => {
  it("wrangler.toml's top-level vars say production and turn the demo banner off", () => {
    expect(topLevelVars()).toMatch(/^APP_ENV = "production"$/m);
    expect(topLevelVars()).toMatch(/^DEMO_MODE = "false"$/m);
  });

  it("no environment section switches development back on", () => {
    expect(toml).not.toMatch(/APP_ENV\s*=\s*"development"/);
  });

  it("npm start opts in to development explicitly", () => {
    expect(pkg.scripts.start).toContain("--var APP_ENV:development");
  });
});
