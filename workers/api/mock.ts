import { Hono, type Context } from "hono";
import { MONTHS_NAME, patientsByGender, percentChange } from "~/domain/dashboard";
import { PERMISSIONS } from "~/domain/permissions";
import { isDevelopment } from "~/services/context.server";
import { ENDPOINT_NOT_FOUND } from "./env";

/**
 * Mock mode (platform §7, §9): with `MOCK_MODE=true` a built-in fake backend answers login, register,
 * logout, me, GET dashboard/admin and GET dashboard/admin-year with the spec's shapes, and every other API
 * call with "Endpoint not found". It reads nothing and stores nothing: no D1, no secret, no email. It runs
 * only in development; a production deployment with MOCK_MODE=true refuses every request (docs/decisions/020).
 */

export type MockMode = "off" | "on" | "refused";

/** Only the exact string "true" turns it on; outside development it is refused, never silently on. */
export function mockMode(env: Pick<Env, "MOCK_MODE" | "APP_ENV">): MockMode {
  if (env.MOCK_MODE !== "true") return "off";
  return isDevelopment(env) ? "on" : "refused";
}

export const MOCK_REFUSED_MESSAGE = "Mock mode is not allowed outside development. Unset MOCK_MODE.";
export const MOCK_NOT_FOUND_MESSAGE = ENDPOINT_NOT_FOUND;
/** The spec's sample token lifetime (platform §9). */
export const MOCK_TOKEN_SECONDS = 32400;
/** Not a JWT: the real API never accepts it. */
export const MOCK_TOKEN = "mock-access-token";

export const MOCK_USER = {
  id: 1,
  name: "Mock",
  surname: "User",
  avatar: null,
  roles: ["SUPERADMIN"],
  email: "mock.user@demo.test",
  location_id: 1,
  permissions: [...PERMISSIONS],
  two_factor_enabled: false,
};

async function body(c: Context): Promise<Record<string, unknown>> {
  try {
    const type = c.req.header("Content-Type") ?? "";
    if (type.includes("form")) return Object.fromEntries(await c.req.formData());
    const json: unknown = await c.req.json();
    return json && typeof json === "object" && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const filled = (x: unknown) => typeof x === "string" && x.trim() !== "";

function loginAnswer(message: string) {
  const token = { access_token: MOCK_TOKEN, token_type: "bearer", expires_in: MOCK_TOKEN_SECONDS, user: MOCK_USER };
  return {
    message,
    // The spec's access_token carries token_type, expires_in and user; the token string sits where its
    // client looks for a nested token (platform §5: "nested in an original object").
    access_token: { token_type: token.token_type, expires_in: token.expires_in, user: MOCK_USER, original: token },
    token_type: "bearer",
    user: MOCK_USER,
  };
}

const mockDashboard = () => {
  const c = { bipsCurrent: 4, bipsBefore: 3, attentionCurrent: 1, attentionBefore: 2, patientsCurrent: 5, patientsBefore: 4 };
  return {
    bips: [],
    locations: [{ id: 1, title: "Mock Clinic" }],
    total_bips: 12,
    total_patients: 24,
    total_noteRbts: 180,
    total_noteBcbas: 45,
    total_employees: 9,
    recent_patients: [],
    num_bips_current: c.bipsCurrent,
    num_bips_before: c.bipsBefore,
    porcentaje_d: percentChange(c.bipsCurrent, c.bipsBefore),
    total_bips_attention: 3,
    num_bips_attention_current: c.attentionCurrent,
    num_bips_attention_before: c.attentionBefore,
    porcentaje_da: percentChange(c.attentionCurrent, c.attentionBefore),
    num_patients_current: c.patientsCurrent,
    num_patients_before: c.patientsBefore,
    porcentajeDP: percentChange(c.patientsCurrent, c.patientsBefore),
  };
};

/** The fake backend; its paths are the real API's (under /api). */
export const mockApi = new Hono<{ Bindings: Env }>()
  .basePath("/api")
  .post("/auth/login", async (c) => {
    const b = await body(c);
    if (!filled(b.email) || !filled(b.password)) return c.json({ message: "The email and password are required." }, 422);
    return c.json(loginAnswer("Login successful (mock mode)."));
  })
  .post("/auth/register", async (c) => c.json(loginAnswer("User registered (mock mode): nothing was stored."), 201))
  .post("/auth/logout", (c) => c.json({ message: "Successfully logged out" }))
  .post("/auth/me", (c) => c.json(MOCK_USER))
  .get("/dashboard/admin", (c) => c.json(mockDashboard()))
  .get("/dashboard/admin-year", (c) => {
    const raw = c.req.query("year");
    const year = raw && /^\d{4}$/.test(raw) ? Number(raw) : new Date().getUTCFullYear();
    const perMonth = [3, 5, 8].map((month, i) => ({ month, gender: (i % 2) + 1, n: i + 1 }));
    return c.json({ months_name: MONTHS_NAME, query_patients_by_gender: patientsByGender(year, perMonth) });
  });

mockApi.notFound((c) => c.json({ message: MOCK_NOT_FOUND_MESSAGE, endpoint: `${c.req.method} ${c.req.path}` }, 404));
