import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, apiToken, createBip, createLocation, createPatient, createUser, request, signInCookie } from "./helpers";
import { appFetch } from "./app-fetch";

/** Security and caching headers (issue 9 item 11; docs/decisions/018). */

const NO_STORE = "no-store";
const HSTS = "max-age=31536000; includeSubDomains";

function scriptSrc(res: Response): string {
  const csp = res.headers.get("Content-Security-Policy") ?? "";
  return /(?:^|;\s*)script-src ([^;]*)/.exec(csp)?.[1] ?? "";
}

function nonceOf(res: Response): string {
  const nonce = /'nonce-([^']+)'/.exec(scriptSrc(res))?.[1];
  expect(nonce, "the CSP names a nonce").toBeTruthy();
  return nonce!;
}

/** Scripts the page writes inline (not data blocks, not files). */
function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script\b([^>]*)>/gi)].map((m) => m[1]!).filter((attrs) => !/\bsrc=/.test(attrs) && !/type="application\/json"/.test(attrs));
}

async function signedInStaff() {
  const location = await createLocation();
  const user = await createUser({ permissions: ["view_clients", "manage_bips", "view_bips"], locations: [location.id] });
  return { location, user, cookie: await signInCookie(user) };
}

describe("pages", () => {
  it("a signed-in page is never stored, and carries the CSP, nosniff, referrer and framing headers", async () => {
    const { cookie } = await signedInStaff();
    const res = await request("/dashboard", { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("text/html");
    expect(res.headers.get("Cache-Control")).toBe(NO_STORE);
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Referrer-Policy")).toBe("same-origin");
    const csp = res.headers.get("Content-Security-Policy")!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'self'");
    expect(scriptSrc(res)).not.toContain("'unsafe-inline'");
    expect(scriptSrc(res)).not.toContain("*");
  });

  it("the sign-in page and a redirect to it are not stored either", async () => {
    const login = await request("/login");
    expect(login.headers.get("Cache-Control")).toBe(NO_STORE);
    const redirect = await request("/patients/list");
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("Cache-Control")).toBe(NO_STORE);
  });

  it("each response has its own nonce, and every inline script carries it", async () => {
    const { location, cookie } = await signedInStaff();
    const patient = await createPatient({ locationId: location.id });
    const bip = await createBip(patient);
    // The add-goal form writes an inline script (the unit-type toggle).
    const res = await request(`/bip/goal/add/${bip.id}`, { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    const nonce = nonceOf(res);
    const inline = inlineScripts(html);
    expect(inline.length).toBeGreaterThan(0);
    for (const attrs of inline) expect(attrs).toContain(`nonce="${nonce}"`);

    const again = await request(`/bip/goal/add/${bip.id}`, { cookie });
    expect(nonceOf(again)).not.toBe(nonce);
  });

  it("HSTS is sent outside localhost only", async () => {
    const deployed = await appFetch("https://baseline.example/login", { redirect: "manual" });
    expect(deployed.status).toBe(200);
    expect(deployed.headers.get("Strict-Transport-Security")).toBe(HSTS);
    for (const url of ["http://localhost/login", "http://127.0.0.1:8787/login"]) {
      const local = await appFetch(url, { redirect: "manual" });
      expect(local.status).toBe(200);
      expect(local.headers.get("Strict-Transport-Security"), url).toBeNull();
    }
  });
});

describe("single-fetch data and the API", () => {
  it("a .data loader answer is never stored", async () => {
    const { cookie } = await signedInStaff();
    const res = await request("/dashboard.data", { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe(NO_STORE);
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  });

  it("every API answer is never stored: data, errors and the public version", async () => {
    const token = await apiToken(await createUser({ permissions: ["view_clients"] }));
    const answers = [await api("/version"), await api("/dashboard/admin", { token }), await api("/dashboard/admin"), await api("/auth/login", { method: "POST", body: {} })];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 401, expect.any(Number)]);
    for (const res of answers) {
      expect(res.headers.get("Cache-Control")).toBe(NO_STORE);
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(res.headers.get("Referrer-Policy")).toBe("same-origin");
    }
  });
});

/** Static files are answered by the assets layer before the Worker (wrangler.toml [assets]), with public/_headers. */
const asset = (path: string) => env.ASSETS!.fetch(`http://localhost${path}`);

describe("static files", () => {
  it("pages link the stylesheet and scripts under content-hashed names, which browsers keep a year", async () => {
    const html = await (await request("/login")).text();
    const css = /<link rel="stylesheet" href="(\/assets\/app-[0-9a-f]{10}\.css)"/.exec(html)?.[1];
    const js = /<script src="(\/assets\/enhance-[0-9a-f]{10}\.js)"/.exec(html)?.[1];
    expect(css).toBeTruthy();
    expect(js).toBeTruthy();
    for (const file of [css!, js!]) {
      const res = await asset(file);
      expect(res.status, file).toBe(200);
      expect(res.headers.get("Cache-Control"), file).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("X-Content-Type-Options"), file).toBe("nosniff");
      await res.arrayBuffer();
    }
  });

  it("static files without a hashed name are not kept a year, nor given the pages' no-store", async () => {
    const icon = await asset("/favicon.ico");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("Cache-Control")).toBe("public, max-age=86400");
    await icon.arrayBuffer();
    const source = await asset("/styles/app.css");
    expect(source.status).toBe(200);
    expect(source.headers.get("Cache-Control")).toBe("public, max-age=0, must-revalidate");
    await source.arrayBuffer();
  });
});
