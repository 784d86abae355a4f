import { Hono } from "hono";
import { YearQuery } from "~/domain/dashboard";
import { parseWith } from "~/domain/validation";
import { getAdminDashboard, getAdminYear } from "~/models/dashboard.server";
import { getNotificationSummary } from "~/models/notifications.server";
import { jsonError, requireApiPermission, requireApiStaff, type AppEnv } from "./env";
import { refuseOtherMethods } from "./rest";

/**
 * Dashboard counts (platform §3 dashboard data) and the ticket notification summary; any staff user, scoped to
 * their locations. Each count and list only with the view permission of what it counts (null otherwise); the year
 * answer counts clients, so it needs view_clients (decision 007, 2026-11-27).
 */
export const dashboardApi = new Hono<AppEnv>()
  .get("/dashboard/admin", requireApiStaff, async (c) => c.json(await getAdminDashboard(c.var.app.db, c.var.actor, c.var.app.now(), c.var.app.ip)))
  .get("/dashboard/admin-year", requireApiPermission("view_clients"), async (c) => {
    const parsed = parseWith(YearQuery, c.req.query());
    if (!parsed.ok) return jsonError(c, 422, Object.values(parsed.errors)[0]!, { errors: parsed.errors });
    return c.json(await getAdminYear(c.var.app.db, c.var.actor, c.var.app.now(), parsed.data.year));
  })
  .get("/v2/tickets/notifications/summary", requireApiStaff, async (c) => c.json(await getNotificationSummary(c.var.app.db, c.var.actor)));

refuseOtherMethods(dashboardApi, ["/dashboard/admin", "/dashboard/admin-year", "/v2/tickets/notifications/summary"]);
