import { Hono, type Context } from "hono";
import { LIST_QUERY_KEYS, listQuerySchema } from "~/domain/paging";
import { parseWith } from "~/domain/validation";
import { MAX_835_BYTES } from "~/domain/x12-835";
import { getRemittance, importRemittance, listRemittances } from "~/models/remittances.server";
import { jsonError, requireApiPermission, type AppEnv } from "./env";
import { modelContext, pathId, refuseUnknownParams, unsupported } from "./rest";

/**
 * Remittances (decision 033), manage_claims:
 * - POST /v2/remittances: the 835 as the body (text/plain, application/edi-x12, application/x12) or JSON
 *   `{ content, file_name? }`; `?dry_run=1` checks without applying. 201 with the report; 422 (cannot be read,
 *   does not balance, a claim or line that does not match), 409 (imported before), 413 (too large): `message`
 *   and the `report`, and nothing changed. No content (a blank `content`, an empty body), or a `file_name` that
 *   decision 017's text rule refuses: 422 `{ message, errors }`.
 * - GET /v2/remittances (paged, `search` by trace or payer; the v2 list query's parameters only, any other answers
 *   422 naming it: decision 017, stop 45), GET /v2/remittances/{id}.
 */
const manage = requireApiPermission("manage_claims");
const TEXT_TYPES = new Set(["text/plain", "application/edi-x12", "application/x12", "application/octet-stream"]);

/** The 835's text from the body; a missing or blank `content` (or an empty text body) is a missing field: 422. */
async function fileOf(c: Context<AppEnv>): Promise<{ content: string; fileName?: string } | { error: string; status: 400 | 413 | 415 | 422 }> {
  if (Number(c.req.header("Content-Length") ?? 0) > MAX_835_BYTES * 2) return { error: `The file is too large: at most ${MAX_835_BYTES / 1_000_000} MB.`, status: 413 };
  const type = (c.req.header("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/json") {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return { error: "The request body must be JSON.", status: 400 };
    }
    const content = (body as { content?: unknown } | null)?.content;
    const fileName = (body as { file_name?: unknown } | null)?.file_name;
    if (typeof content !== "string" || !content.trim()) return { error: "Send the 835 file's text as `content`.", status: 422 };
    return { content, fileName: typeof fileName === "string" ? fileName : undefined };
  }
  if (!TEXT_TYPES.has(type)) return { error: "Send the 835 as text/plain (or application/edi-x12), or JSON { content }.", status: 415 };
  const content = await c.req.text();
  if (!content.trim()) return { error: "The request body is empty: send the 835 file's text.", status: 422 };
  return { content };
}

export const remittancesV2 = new Hono<AppEnv>()
  .get("/", manage, async (c) => {
    const refused = refuseUnknownParams(c, LIST_QUERY_KEYS);
    if (refused) return refused;
    const parsed = parseWith(listQuerySchema(), c.req.query());
    if (!parsed.ok) return jsonError(c, 422, Object.values(parsed.errors)[0]!, { errors: parsed.errors });
    return c.json(await listRemittances(modelContext(c), parsed.data));
  })
  .post("/", manage, async (c) => {
    const file = await fileOf(c);
    if ("error" in file) return c.json({ message: file.error, errors: { content: file.error } }, file.status);
    const dry = c.req.query("dry_run");
    const dryRun = dry === "1" || dry === "true";
    const result = await importRemittance(modelContext(c), file.content, { dryRun, fileName: file.fileName, tail: c.var.auditTail });
    if (!result.ok) return c.json({ message: result.message, report: result.report, ...(result.errors ? { errors: result.errors } : {}) }, result.status);
    return c.json({ message: result.message, data: result.report }, dryRun ? 200 : 201);
  })
  .get("/:id", manage, async (c) => {
    const id = pathId(c.req.param("id"));
    const detail = id === null ? null : await getRemittance(modelContext(c), id, c.var.auditTail);
    if (!detail) return jsonError(c, 404, "Remittance not found.");
    return c.json({ data: detail });
  })
  .all("/", unsupported)
  .all("/:id", unsupported);
