import { Hono } from "hono";
import { RangeQuery } from "~/domain/schedule";
import { parseWith } from "~/domain/validation";
import { API_PER_DAY, bookSessions, calendarRange, cancelRestOfSeries, cancelSession, getScheduledSession } from "~/models/schedule.server";
import { idempotencyKey, idempotencyToken } from "~/services/idempotency.server";
import { jsonError, readBody, requireApiPermission, type AppEnv } from "./env";
import { answer, modelContext, pathId, refuseOtherMethods, refuseUnknownParams } from "./rest";

/**
 * Scheduled sessions (issue 12, decision 037), mounted at /api/v2/scheduled-sessions. view_notes for every
 * call; booking or cancelling for another provider needs manage_notes (403), as notes do (decision 023).
 * Another location's session answers 404; booking for another location's client, or one that does not exist, answers
 * 422 at `patient_id` (a body reference); a filter of another location (its location, client or provider) shows
 * nothing (decision 017); bad input 422 with `errors` by field. A booking takes `Idempotency-Key` (decision 024).
 * The range takes from, to, location_id, provider_id, patient_id and per_day (RangeQuery); any other query parameter
 * (the generic list's page or date_from among them: the range has neither) answers 422 naming it (decision 017, stop 45).
 */
const viewNotes = requireApiPermission("view_notes");
const NOT_FOUND = "Scheduled session not found.";

export const scheduledSessionsV2 = new Hono<AppEnv>()
  .get("/", viewNotes, async (c) => {
    const refused = refuseUnknownParams(c, Object.keys(RangeQuery.entries));
    if (refused) return refused;
    const parsed = parseWith(RangeQuery, c.req.query());
    if (!parsed.ok) return jsonError(c, 422, Object.values(parsed.errors)[0] ?? "The query is not valid.", { errors: parsed.errors });
    return answer(c, await calendarRange(modelContext(c), parsed.data, parsed.data.per_day === "" ? API_PER_DAY : parsed.data.per_day));
  })
  .get("/:id", viewNotes, async (c) => {
    const id = pathId(c.req.param("id"));
    const data = id === null ? null : await getScheduledSession(modelContext(c), id);
    return data ? c.json({ data }) : jsonError(c, 404, NOT_FOUND);
  })
  .post("/", viewNotes, async (c) => {
    const body = await readBody(c);
    const ctx = modelContext(c);
    // Idempotency-Key (decision 024), scoped to the actor: a resend answers the first booking (200), the
    // same key with another body 422.
    const result = await bookSessions(ctx, body, { formToken: await idempotencyToken(ctx.actor, ["booking"], idempotencyKey(c.req.raw.headers), body) });
    if (result.ok) return c.json({ data: result.data, message: result.message, warning: result.data.warning }, result.replayed ? 200 : 201);
    return answer(c, result);
  })
  .post("/:id/cancel", viewNotes, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, NOT_FOUND);
    return answer(c, await cancelSession(modelContext(c), id));
  })
  .post("/:id/cancel-rest", viewNotes, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, NOT_FOUND);
    const body = await readBody(c);
    return answer(c, await cancelRestOfSeries(modelContext(c), id, body.from));
  });

refuseOtherMethods(scheduledSessionsV2, ["/", "/:id", "/:id/cancel", "/:id/cancel-rest"]);
