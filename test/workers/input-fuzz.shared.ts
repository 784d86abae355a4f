import { expect } from "vitest";
import { api as apiApp } from "../../workers/api";
import {
  api,
  apiToken,
  createBip,
  createLocation,
  createPatient,
  createPlan,
  createUser,
} from "./helpers";

/**
 * Hostile query parameters on every list (input-fuzz-*.test.ts): the API answers 2xx or a 4xx JSON with a
 * message, the screens render (or redirect) — never a 500. D1 refuses LIKE patterns over 50 bytes, so a long
 * search used to fail every list (issue 9). Split over several files: in the Workers test pool each request a
 * file makes slows the next ones down (cloudflare/workers-sdk#15446), and a fresh file starts fast.
 */

/** Hostile text for a search: past D1's LIKE limit, wildcards that grow when escaped, NUL. */
export const TEXT = ["x".repeat(49), "%".repeat(25), "a\u0000b"];
/** Hostile values for the numbers, dates and filters. */
export const OTHER = [
  "-1",
  "99999999999999999999999",
  "2026-02-30",
  "' OR 1=1 --",
  "\u202Eevil",
  "a\u0000b",
];

/** Every query parameter a list reads (the v2 list query, the screens' filters and the resource filters). */
export const PARAMS = [
  "search",
  "page",
  "per_page",
  "date_from",
  "date_to",
  "date_start",
  "date_end",
  "cache",
  "location_id",
  "insurer_id",
  "staff_id",
  "parent_id",
  "patient_id",
  "client_id",
  "plan_id",
  "bip_id",
  "status",
  "insurer_name",
  "category",
  "from",
  "to",
  "q",
] as const;

/** The list screens and the screens that read their URL's query. */
export const SCREENS = [
  "/patients/list",
  "/parents/list",
  "/doctors/list",
  "/location/list",
  "/insurance/list",
  "/insurance/rates",
  "/roles/list",
  "/bip/list",
  "/bip/attention",
  "/bip/register",
  "/bip/goal/1",
  "/bip/goal/add/1",
  "/bip/tabbed/1",
  "/medical/initial-assessment",
  "/medical/initial-assessment/create",
  "/patients/ws/1",
  "/insurance/view/1",
  "/patients/add",
];

/** The API's lists: every GET route but sign-in, development and single-record reads (show, profile, config). */
export const listRoutes = [
  ...new Set(
    apiApp.routes.filter((r) => r.method === "GET").map((r) => r.path)
  ),
]
  .filter(
    (p) =>
      !/^\/(auth|two-factor|password-reset|version|dev)\b/.test(p) &&
      !p.includes("pdf")
  )
  .filter(
    (p) =>
      !/\/(:id|show\/:id|profile\/:id|configlocation\/:id|by-identifier\/:identifier|showInsuranceCpt\/.*)$/.test(
        p
      )
  )
  .map((p) => p.replace(/:[^/]+/g, "1"));

/** Runs `each` over the items, a few at a time. */
export async function inParallel<T>(
  items: readonly T[],
  each: (item: T) => Promise<void>,
  width = 8
) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await each(items[next++]!);
    })
  );
}

export async function fixture() {
  const location = await createLocation();
  const patient = await createPatient({ locationId: location.id });
  const bip = await createBip(patient);
  await createPlan(bip);
  const admin = await createUser({
    role: "SUPERADMIN",
    locations: [location.id],
  });
  return { admin };
}

/**
 * Every API list answers a non-500 to every hostile value of every parameter: the lists whose index is `part`
 * modulo `parts` (one part per test file).
 */
export async function fuzzApiLists(part: number, parts: number) {
  const { admin } = await fixture();
  const token = await apiToken(admin);
  expect(listRoutes.length).toBeGreaterThan(15);
  const failures: string[] = [];
  // The search alone with hostile text; the numbers and dates together; then every filter at once with a
  // valid list query (a bad list parameter answers before the filters are read).
  const numeric = ["page", "per_page", "date_from", "date_to", "cache"];
  const filterParams = PARAMS.filter(
    (n) => n !== "search" && !numeric.includes(n)
  );
  const urls: string[] = [];
  const add = (path: string, params: Record<string, string>) =>
    urls.push(
      `${path}?${new URLSearchParams({
        cache: "true",
        per_page: "2",
        ...params,
      })}`
    );
  for (const path of listRoutes.filter((_, i) => i % parts === part)) {
    for (const value of TEXT) add(path, { search: value });
    add(path, Object.fromEntries(numeric.map((n) => [n, "-1"])));
    add(
      path,
      Object.fromEntries(numeric.map((n) => [n, "99999999999999999999999"]))
    );
    add(path, { date_from: "2026-02-30", date_to: "9999-99-99" });
    for (const value of OTHER)
      add(path, Object.fromEntries(filterParams.map((n) => [n, value])));
  }
  await inParallel(urls, async (url) => {
    const res = await api(url, { token });
    if (res.status >= 500) failures.push(`${res.status} GET ${url}`);
    else if (
      res.status >= 400 &&
      res.headers.get("Content-Type")?.includes("json")
    ) {
      const body = (await res.json()) as { message?: string };
      if (!body.message)
        failures.push(`${res.status} without a message: GET ${url}`);
    } else await res.body?.cancel();
  });
  expect(failures).toEqual([]);
}
