import { Hono, type Context } from "hono";
import { LIST_QUERY_KEYS, listQuerySchema } from "~/domain/paging";
import type { NoteJson, NoteType } from "~/domain/notes";
import { parseWith, pathId } from "~/domain/validation";
import {
  createNote,
  deleteNote,
  getNote,
  listNotes,
  NOTE_ALREADY_SAVED,
  noteConfig,
  NOTES,
  notesByClient,
  notesByProvider,
  notesPage,
  replacementsByPatient,
  setNoteModifiers,
  setNoteStatus,
  storeReplacements,
  updateNote,
  type NoteWithHistory,
} from "~/models/notes.server";
import { idempotencyKey, idempotencyToken } from "~/services/idempotency.server";
import { jsonError, readBody, requireApiPermission, type AppEnv } from "./env";
import { answer, answerChange, emptyChange, isEmptyChange, modelContext, otherRecordId, refuseUnknownFilters, refuseUnknownParams, requestVersion, v2Router, type RestResource, refuseOtherMethods, unsupported } from "./rest";
import { CLIENT_NOT_FOUND } from "~/domain/patients";

/**
 * Session notes (clinical §7 notes calls; issue 10; decision 023).
 *
 * Legacy: /note_rbt and /note_bcba with every path of the spec's table (list, show, store, update,
 * destroy, byprofile, showReplacementBypatient, byclient, config, update/status, update/modifier, and
 * storeReplacemts on RBT). generate-summary and the v2 PDFs are other modules' routers at their paths.
 * v2: /v2/notes-rbt, /v2/notes-bcba, /v2/notes-combined (RestResource: list with filters, show,
 * create, PUT/PATCH with version, update-status, delete).
 *
 * Permissions: view_notes reads, and writes or edits the actor's own notes (the model checks whose);
 * manage_notes deletes and changes status and modifiers (and writes for another provider). A create takes
 * the `Idempotency-Key` header, scoped to the actor and note type, as its one-time token: a resend answers the
 * first note (200), the same key with another body 422 (idempotencyToken).
 */
const view = requireApiPermission("view_notes");
const manage = requireApiPermission("manage_notes");
/** Status and modifiers answer the note, so they need view_notes as well (decision 007, 2026-11-27). */
const manageShown = requireApiPermission("manage_notes", "view_notes");

/** A signed note changes only with a reason: `amendment_reason` in the body. */
function amendmentReason(body: Record<string, unknown>): string | null {
  return typeof body.amendment_reason === "string" ? body.amendment_reason : null;
}

/** How the API records a read of notes (lists, and a change's 409 with the note as stored). */
const noteAudit: Pick<RestResource<NoteWithHistory | NoteJson>, "audit"> = { audit: { entity: "note", patientOf: (n) => n.patient_id, showAudited: true } };

/** The notes lists' filters, v2 and v1 alike (NoteFilters; `type` is the spec's, "null" for all). */
const NOTE_ID_FILTERS = ["patient_id", "provider_id", "location_id"] as const;
const NOTE_FILTERS = ["status", "billed", "type"] as const;

function noteResource(type: NoteType, label: string): RestResource<NoteWithHistory | NoteJson> {
  return {
    name: NOTES,
    idFilters: NOTE_ID_FILTERS,
    filters: NOTE_FILTERS,
    label,
    view: "view_notes",
    manage: "manage_notes",
    permissions: { create: "view_notes", update: "view_notes", status: "manage_notes", remove: "manage_notes" },
    list: (ctx, query, filters) => notesPage(ctx, query, filters, type),
    get: async (ctx, id) => {
      const found = await getNote(ctx, type, id);
      return found ? { ...found.note, history: found.history } : null;
    },
    create: async (ctx, body, headers) => createNote(ctx, { ...body, type }, { formToken: await idempotencyToken(ctx.actor, [type], idempotencyKey(headers), body) }),
    replayed: (result) => result.message === NOTE_ALREADY_SAVED,
    update: (ctx, id, body, opts) => updateNote(ctx, type, id, body, { ...opts, amendmentReason: amendmentReason(body) }),
    updateStatus: (ctx, id, body) => setNoteStatus(ctx, type, id, body),
    remove: (ctx, id) => deleteNote(ctx, type, id),
    // Every page names its clients in one audit row; a show records its own read with the note's history.
    audit: noteAudit.audit,
  };
}

export const noteRbtResource = noteResource("rbt", "Note");
export const noteBcbaResource = noteResource("bcba", "Note");
export const noteCombinedResource = noteResource("combined", "Note");
export const notesRbtV2 = v2Router(noteRbtResource);
export const notesBcbaV2 = v2Router(noteBcbaResource);
export const notesCombinedV2 = v2Router(noteCombinedResource);

const NOT_FOUND = "Note not found.";

function listQuery(c: Context<AppEnv>) {
  return parseWith(listQuerySchema(), c.req.query());
}

/**
 * A client's or a provider's notes (byclient, byprofile): the list query's parameters only (the address names the
 * client or provider); any other answers 422 naming it, as a malformed one does (decision 017, stop 45).
 */
function listQueryOrRefusal(c: Context<AppEnv>) {
  const refused = refuseUnknownParams(c, LIST_QUERY_KEYS);
  if (refused) return refused;
  const q = listQuery(c);
  return q.ok ? q.data : jsonError(c, 422, Object.values(q.errors)[0]!, { errors: q.errors });
}

/** The legacy router of one note type (clinical §7 "Notes (BCBA and RBT, same shapes)"). */
function legacyRouter(type: NoteType) {
  const router = new Hono<AppEnv>()
    .get("/", view, async (c) => {
      const refused = refuseUnknownFilters(c, { idFilters: NOTE_ID_FILTERS, filters: NOTE_FILTERS });
      if (refused) return refused;
      const q = listQuery(c);
      if (!q.ok) return jsonError(c, 422, Object.values(q.errors)[0]!, { errors: q.errors });
      const result = await listNotes(modelContext(c), q.data, c.req.query(), type);
      return result.ok ? c.json(result.data) : answer(c, result);
    })
    .get("/config", view, async (c) => answer(c, await noteConfig(modelContext(c), type, c.req.query())))
    .get("/show/:id", view, async (c) => {
      const id = pathId(c.req.param("id"));
      const found = id === null ? null : await getNote(modelContext(c), type, id);
      return found ? c.json({ data: { ...found.note, history: found.history } }) : jsonError(c, 404, NOT_FOUND);
    })
    .get("/byclient/:id", view, async (c) => {
      const id = pathId(c.req.param("id"));
      const q = listQueryOrRefusal(c);
      if (q instanceof Response) return q;
      const page = id === null ? null : await notesByClient(modelContext(c), type, id, q);
      return page ? c.json(page) : jsonError(c, 404, CLIENT_NOT_FOUND);
    })
    .get("/byprofile/:id", view, async (c) => {
      const id = pathId(c.req.param("id"));
      const q = listQueryOrRefusal(c);
      if (q instanceof Response) return q;
      const page = id === null ? null : await notesByProvider(modelContext(c), type, id, q);
      return page ? c.json(page) : jsonError(c, 404, "Employee not found.");
    })
    .get("/showReplacementBypatient/:id", view, async (c) => {
      const id = pathId(c.req.param("id"));
      const rows = id === null ? null : await replacementsByPatient(modelContext(c), id);
      return rows ? c.json({ data: rows }) : jsonError(c, 404, CLIENT_NOT_FOUND);
    })
    .post("/store", view, async (c) => {
      const b = await readBody(c);
      const ctx = modelContext(c);
      const result = await createNote(ctx, { ...b, type }, { formToken: await idempotencyToken(ctx.actor, [type], idempotencyKey(c.req.raw.headers), b) });
      return answer(c, result, result.ok && result.message === NOTE_ALREADY_SAVED ? 200 : 201);
    })
    .put("/update/status/:id", manageShown, async (c) => {
      const id = pathId(c.req.param("id"));
      if (id === null) return jsonError(c, 404, NOT_FOUND);
      const b = await readBody(c);
      return otherRecordId(c, id, b) ?? answerChange(c, noteAudit, id, await setNoteStatus(modelContext(c), type, id, b));
    })
    .put("/update/modifier/:id", manageShown, async (c) => {
      const id = pathId(c.req.param("id"));
      if (id === null) return jsonError(c, 404, NOT_FOUND);
      const b = await readBody(c);
      return otherRecordId(c, id, b) ?? answerChange(c, noteAudit, id, await setNoteModifiers(modelContext(c), type, id, b));
    })
    .put("/update/:id", view, async (c) => {
      const id = pathId(c.req.param("id"));
      if (id === null) return jsonError(c, 404, NOT_FOUND);
      const b = await readBody(c);
      const refused = otherRecordId(c, id, b);
      if (refused) return refused;
      if (isEmptyChange(b)) return emptyChange(c);
      return answerChange(c, noteAudit, id, await updateNote(modelContext(c), type, id, b, { partial: false, version: requestVersion(c, b), amendmentReason: amendmentReason(b) }));
    })
    .delete("/destroy/:id", manage, async (c) => {
      const id = pathId(c.req.param("id"));
      if (id === null) return jsonError(c, 404, NOT_FOUND);
      const result = await deleteNote(modelContext(c), type, id);
      return result.ok ? c.json({ message: result.message }) : answer(c, result);
    });
  // Any other method on these paths: 405 (decision 017).
  refuseOtherMethods(router, ["/", "/config", "/show/:id", "/byclient/:id", "/byprofile/:id", "/showReplacementBypatient/:id", "/store", "/update/status/:id", "/update/modifier/:id", "/update/:id", "/destroy/:id"]);
  return router;
}

export const noteRbtV1 = new Hono<AppEnv>()
  .post("/storeReplacemts", view, async (c) => {
    const b = await readBody(c);
    return answer(c, await storeReplacements(modelContext(c), b, { version: requestVersion(c, b) }));
  })
  .all("/storeReplacemts", unsupported)
  .route("/", legacyRouter("rbt"));
export const noteBcbaV1 = legacyRouter("bcba");
