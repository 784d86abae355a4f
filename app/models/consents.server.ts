import { and, desc, eq, isNull, ne, sql } from "drizzle-orm";
import { clientConsents, locations, patients } from "~/db/schema";
import { asksNoCoveredSection, CONSENT_MESSAGES, ConsentDraftInput, ConsentPdfInput, ConsentSignInput, isConsentEditable, parseStoredSections, readOnlyMessage, sectionsByIds, withdrawRefusal, type ConsentStatus } from "~/domain/consents";
import { REFERENCE_MESSAGES } from "~/domain/references";
import { can } from "~/domain/permissions";
import { parseWith } from "~/domain/validation";
import { leavesAsStored } from "~/domain/audit-changes";
import { refuseInklessDrawing } from "~/domain/signature-ink.server";
import { auditedRead, auditTail, withConditionalAudit } from "~/services/audit.server";
import { idempotencyKeyReused, isTokenRace, keyScopeFree, oneTimeToken, rowCells, tokenMatch } from "~/services/idempotency.server";
import { primaryOf, type Db } from "~/db/client.server";
import { bumpListVersion } from "~/services/list-cache.server";
import type { ModelContext } from "./context";
import { isKeyRace, patientScope, who } from "./patients.server";
import { conflict, denied, invalid, notFound, nothingToChange, ok, replayedOk, type ModelResult } from "./results";
import { nextIdOf } from "./ids.server";

/** The list-version row consent writes bump (every cached list depends on every write: decision 017). */
const CONSENTS = "client_consents";

/**
 * Client consents (docs/decisions/040). Staff with manage_clients write drafts for clients of their
 * locations; the parent linked to the client signs (typed name, drawn signature with JavaScript); a signed
 * consent never changes. Every read is audited (entity "consent", the client named), every write goes in
 * one batch with its audit row and is conditional on the draft's status and version, so a signed consent
 * cannot be edited or signed twice even by a racing request.
 */

type Row = typeof clientConsents.$inferSelect;

export function consentJson(r: Row) {
  const ids = parseStoredSections(r.sections);
  return {
    id: r.id,
    patient_id: r.patientId,
    sections: ids,
    section_labels: sectionsByIds(ids).map((s) => s.label),
    section_texts: sectionsByIds(ids).map((s) => ({ label: s.label, text: s.text })),
    notes: r.notes,
    status: r.status as ConsentStatus,
    signer_type: r.signerType as "parent" | "user" | null,
    signer_name: r.signerName,
    signature: r.signature,
    signed_at: r.signedAt,
    withdrawn_at: r.withdrawnAt,
    editable: isConsentEditable({ status: r.status, deleted_at: r.deletedAt }),
    version: r.version,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
export type ConsentJson = ReturnType<typeof consentJson>;

const live = isNull(clientConsents.deletedAt);

/** The client in the actor's scope with the audit tail (one statement), or nothing. */
function patientInScope(ctx: ModelContext, patientId: number) {
  return ctx.db
    .select({ id: patients.id, firstName: patients.firstName, lastName: patients.lastName, parentId: patients.parentId, tail: auditTail })
    .from(patients)
    .where(and(eq(patients.id, patientId), patientScope(ctx)));
}

/** A client's consents, newest first, as a statement (for a batch already scoped to the client). */
export function consentsOfPatientQuery(ctx: ModelContext, patientId: number) {
  return ctx.db
    .select()
    .from(clientConsents)
    .where(and(eq(clientConsents.patientId, patientId), live))
    .orderBy(desc(clientConsents.createdAt), desc(clientConsents.id));
}

export interface PatientConsents {
  patient: { id: number; name: string; has_parent: boolean };
  consents: ConsentJson[];
}

/** A client's consents (the consent screen and GET get-client-consents/{id}): scope first, then one audited read. */
export async function listPatientConsents(ctx: ModelContext, patientId: number): Promise<PatientConsents | null> {
  const [p] = await patientInScope(ctx, patientId);
  if (!p) return null;
  const [rows] = await auditedRead(ctx.db, who(ctx), { entity: "consent", entityId: null, patientId }, () => [consentsOfPatientQuery(ctx, patientId)], p.tail);
  return { patient: { id: p.id, name: `${p.firstName} ${p.lastName}`.trim(), has_parent: p.parentId !== null }, consents: rows.map(consentJson) };
}

/**
 * The client's name as a consent's document shows it: one SQL expression, so what the signing statement stores is
 * exactly what the draft printed (decision 040, stop 45).
 */
const clientNameShown = sql<string>`trim(${patients.firstName} || ' ' || ${patients.lastName})`;

/**
 * What a signed consent's document shows that can change later, read inside the signing statement itself (no extra
 * round trip, and no move of the client between a read and the write): the client's location, its title and the
 * client's name as they stand when the parent signs (decision 040, stop 45).
 */
function documentAsSigned(patientId: number) {
  return {
    signedLocationId: sql<number | null>`(select ${patients.locationId} from ${patients} where ${patients.id} = ${patientId})`,
    signedLocationTitle: sql<string | null>`(select ${locations.title} from ${patients} join ${locations} on ${locations.id} = ${patients.locationId} where ${patients.id} = ${patientId})`,
    signedClientName: sql<string | null>`(select ${clientNameShown} from ${patients} where ${patients.id} = ${patientId})`,
  };
}

/** A consent whose client is in the actor's scope, with the client's name and location (no audit row: for checks). */
function consentInScope(ctx: ModelContext, id: number) {
  return ctx.db
    .select({ c: clientConsents, patientName: clientNameShown, locationTitle: locations.title, tail: auditTail })
    .from(clientConsents)
    .innerJoin(patients, eq(patients.id, clientConsents.patientId))
    .leftJoin(locations, eq(locations.id, patients.locationId))
    .where(and(eq(clientConsents.id, id), live, patientScope(ctx)));
}

export interface ConsentDocument {
  consent: ConsentJson;
  patientName: string;
  locationTitle: string | null;
  /** A parent's copy of a consent another parent signed: no signer's name or drawing (decision 040, stop 45). */
  otherSigner?: boolean;
}

/**
 * The PDF's document from a consent row read with its client and location. A signed consent never changes: it shows
 * the clinic and the client's name stored when it was signed; a draft (or a withdrawn one) shows them as they are now.
 */
function documentOf(row: { c: Row; patientName: string; locationTitle: string | null }, consent: ConsentJson): ConsentDocument {
  if (row.c.status === "signed") return { consent, patientName: row.c.signedClientName ?? "", locationTitle: row.c.signedLocationTitle };
  return { consent, patientName: row.patientName, locationTitle: row.locationTitle };
}

/** A staff request for a consent's PDF: the consent, the sections asked for, inline or download. */
export interface ConsentPdfRequest {
  doc: ConsentDocument;
  sections: number[];
  isPrint: boolean;
}

/**
 * The one rule of a staff consent PDF request, for the screen's link and the API alike (decision 040): the
 * consent in the actor's scope first (another location's or an unknown one: 404, whatever the options), then
 * the options (`sections`, `isPrint`: 422 with the field's message), then at least one section the consent
 * covers (422). The read is recorded only when the PDF is served.
 */
export async function openConsentPdf(ctx: ModelContext, id: number | null, raw: Record<string, unknown>): Promise<ModelResult<ConsentPdfRequest>> {
  const [row] = id === null ? [] : await consentInScope(ctx, id);
  if (!row) return notFound("Consent");
  const parsed = parseWith(ConsentPdfInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const consent = consentJson(row.c);
  if (asksNoCoveredSection(consent.sections, parsed.data.sections)) return invalid({ sections: CONSENT_MESSAGES.noCoveredSection });
  await auditedRead(ctx.db, who(ctx), { entity: "consent", entityId: row.c.id, patientId: row.c.patientId, detail: { pdf: true } }, () => [] as [], row.tail);
  return ok({ doc: documentOf(row, consent), sections: parsed.data.sections, isPrint: parsed.data.isPrint });
}

/**
 * Creates a draft, or changes one (`id`), for a client in scope (manage_clients). The client id of the
 * body is a reference (decision 017): another location's client, or none, answers 422 at `patient_id`. A signed consent
 * answers 422 and is left as it was; a stale version answers 409 with the current values. A create's `formToken` (the
 * form's one-time token, or the API's Idempotency-Key as idempotencyToken made it) makes a resend answer the first
 * draft instead of writing a second one for the parent to sign (decision 024, stop 39): read beside the next id, the
 * insert conditional (an Idempotency-Key's scope still free), a racing resend settled by the UNIQUE index.
 */
export async function saveConsentDraft(ctx: ModelContext, raw: Record<string, unknown>, opts: { id?: number | null; version?: number | null; formToken?: string | null } = {}): Promise<ModelResult<ConsentJson>> {
  if (!can(ctx.actor, "manage_clients")) return denied();
  const id = opts.id ?? null;
  const existing = id === null ? null : ((await consentInScope(ctx, id))[0] ?? null);
  if (id !== null && !existing) return notFound("Consent");
  const body = existing && raw.patient_id === undefined ? { ...raw, patient_id: existing.c.patientId } : raw;
  const parsed = parseWith(ConsentDraftInput, body);
  if (!parsed.ok) return invalid(parsed.errors);
  const input = parsed.data;
  const [p] = await patientInScope(ctx, input.patient_id);
  if (!p) return invalid({ patient_id: REFERENCE_MESSAGES.client });
  const values = { sections: JSON.stringify(input.sections), notes: input.notes };

  if (existing) {
    const current = consentJson(existing.c);
    if (input.patient_id !== existing.c.patientId) return invalid({ patient_id: "A consent stays with its client." });
    if (!current.editable) return invalid({ form: readOnlyMessage(current.status) });
    const version = opts.version ?? null;
    if (version !== null && version !== current.version) return conflict(current);
    // The stored draft sent back writes nothing (decision 017, stop 44): a no-op save must not move the version the
    // parent opened. Sections are a set: both lists come in the clinic's order (parseStoredSections, the draft's schema).
    if (leavesAsStored({ sections: current.sections, notes: current.notes }, { sections: input.sections, notes: input.notes })) return nothingToChange(current);
    // The audit row only if the draft changed: an edit that loses the race to a signature (or a withdrawal,
    // or another edit) records nothing against the consent.
    const [rows] = await withConditionalAudit(ctx.db, who(ctx), { action: "update", entity: "consent", entityId: id, patientId: input.patient_id }, (audit) => [
      ctx.db
        .update(clientConsents)
        .set({ ...values, version: sql`${clientConsents.version} + 1`, updatedAt: ctx.now().toISOString() })
        .where(and(eq(clientConsents.id, id!), live, eq(clientConsents.status, "draft"), version === null ? undefined : eq(clientConsents.version, version)))
        .returning(),
      audit(sql`changes() = 1`),
      bumpListVersion(ctx.db, CONSENTS),
    ]);
    if (!rows[0]) {
      const [again] = await consentInScope(ctx, id!);
      if (!again) return notFound("Consent");
      const now = consentJson(again.c);
      // Changed since this edit read it (its pre-check passed): 409 with the consent as it now is, nothing saved.
      if (now.editable) return conflict(now);
      return { ok: false, status: 409, message: now.status === "withdrawn" ? CONSENT_MESSAGES.withdrawnWhileEditing : CONSENT_MESSAGES.signedWhileEditing, current: now };
    }
    return ok(consentJson(rows[0]), CONSENT_MESSAGES.updated);
  }

  const formToken = oneTimeToken(opts.formToken);
  const db = primaryOf(ctx.db);
  for (let attempt = 0; ; attempt++) {
    const [[max], sent] = await db.batch([db.select({ n: nextIdOf(clientConsents) }).from(clientConsents), tokenRead(db, formToken)]);
    if (sent.length) return replayDraft(ctx, formToken!, sent[0], input.patient_id);
    const newId = Number(max?.n ?? 1);
    const at = ctx.now().toISOString();
    try {
      const [rows] = await withConditionalAudit(ctx.db, who(ctx), { action: "create", entity: "consent", entityId: newId, patientId: input.patient_id }, (audit) => [
        ctx.db
          .insert(clientConsents)
          .select(
            sql`select ${rowCells(clientConsents, { id: newId, patientId: input.patient_id, ...values, status: "draft", signerType: null, signerId: null, signerName: null, signature: null, signedAt: null, signedIp: null, createdBy: ctx.actor.id, version: 1, deletedAt: null, withdrawnAt: null, withdrawnBy: null, formToken, signedLocationId: null, signedLocationTitle: null, signedClientName: null, createdAt: at, updatedAt: at })}
              where 1${keyScopeFree(clientConsents, clientConsents.formToken, formToken)}`,
          )
          .returning(),
        audit(sql`changes() = 1`),
        bumpListVersion(ctx.db, CONSENTS),
      ]);
      // Only an Idempotency-Key's scope keeps the insert from landing: the next turn reads what it made.
      if (rows[0]) return ok(consentJson(rows[0]), CONSENT_MESSAGES.created);
    } catch (e) {
      if (formToken && isTokenRace(e, "client_consents.form_token")) return replayDraft(ctx, formToken, (await tokenRead(db, formToken))[0], input.patient_id);
      if (!(attempt < 5 && isKeyRace(e))) throw e;
    }
    if (attempt >= 5) throw new Error("Consent create: no id after 6 attempts");
  }
}

/** The draft a one-time token (or, for an Idempotency-Key, any token of its scope) made: for a batch. */
function tokenRead(db: Db, token: string | null) {
  return db
    .select({ id: clientConsents.id, patientId: clientConsents.patientId, formToken: clientConsents.formToken })
    .from(clientConsents)
    .where(token ? tokenMatch(clientConsents.formToken, token) : sql`1 = 0`);
}

/**
 * A resend of a create: the draft the token made, as it is now (signed or withdrawn since, it is still the answer),
 * with the first answer's message. The same Idempotency-Key with another body answers 422 keyReused; a token of
 * another client's consent, or of one no longer in scope, 422 formUsed. Nothing is written.
 */
async function replayDraft(ctx: ModelContext, token: string, sent: { id: number; patientId: number; formToken: string | null } | undefined, patientId: number): Promise<ModelResult<ConsentJson>> {
  if (sent && sent.formToken !== token) return invalid({ form: CONSENT_REPLAY_MESSAGES.keyReused });
  const [found] = sent && sent.patientId === patientId ? await consentInScope({ ...ctx, db: primaryOf(ctx.db) }, sent.id) : [];
  return found ? replayedOk(consentJson(found.c), CONSENT_MESSAGES.created) : invalid({ form: CONSENT_REPLAY_MESSAGES.formUsed });
}

/** What a resend of a create answers besides the first draft (decision 024, stop 39). */
export const CONSENT_REPLAY_MESSAGES = {
  formUsed: "This form was already used. Open the client's consents again to write another.",
  keyReused: idempotencyKeyReused("consent"),
} as const;

/** A consent of one of the signed-in parent's own children (a parent actor only), with the audit tail. */
function consentOfParent(ctx: ModelContext, id: number) {
  return ctx.db
    .select({ c: clientConsents, tail: auditTail })
    .from(clientConsents)
    .innerJoin(patients, eq(patients.id, clientConsents.patientId))
    .where(and(eq(clientConsents.id, id), live, ne(clientConsents.status, "withdrawn"), eq(patients.parentId, ctx.actor.id), isNull(patients.deletedAt)));
}

/** What a parent signing a changed draft is answered with: the text as it now stands, to read before signing. */
function textToRead(r: Row) {
  const c = consentJson(r);
  return { id: c.id, version: c.version, section_labels: c.section_labels, section_texts: c.section_texts, notes: c.notes };
}

/** A parent's signature of a draft changed since they read it (or with no version to show what they read): 409, nothing signed. */
function staleSignature(r: Row): ModelResult<never> {
  return { ok: false, status: 409, message: CONSENT_MESSAGES.changedBeforeSigning, current: textToRead(r) };
}

/**
 * The parent signs a consent of their own child: typed name, optional drawn signature. Another family's
 * consent (or a staff actor) answers 404; a consent already signed answers 422 and keeps its first
 * signature. The signature names the version of the text the parent read (`version`, required): a draft
 * the clinic changed since answers 409 with the current text and nothing is signed. The update is
 * conditional on status draft AND that version, and its audit row is written only if it happened.
 */
export async function signConsent(ctx: ModelContext, id: number, raw: Record<string, unknown>, opts: { version: number | null }): Promise<ModelResult<ConsentJson>> {
  if (ctx.actor.kind !== "parent") return notFound("Consent");
  const [row] = await consentOfParent(ctx, id);
  if (!row) return notFound("Consent");
  const parsed = parseWith(ConsentSignInput, raw);
  if (!parsed.ok) return invalid({ ...parsed.errors, ...refuseInklessDrawing(raw, ["signature"], parsed.errors) });
  // A drawing must show ink (decision 040): the server's half of the signature rule.
  const inkless = refuseInklessDrawing(parsed.data, ["signature"]);
  if (inkless) return invalid(inkless);
  if (!isConsentEditable({ status: row.c.status, deleted_at: row.c.deletedAt })) return invalid({ form: CONSENT_MESSAGES.signedReadOnly });
  const version = opts.version;
  if (version === null || version !== row.c.version) return staleSignature(row.c);
  const at = ctx.now().toISOString();
  const results = await withConditionalAudit(
    ctx.db,
    who(ctx),
    { action: "sign", entity: "consent", entityId: id, patientId: row.c.patientId, detail: { drawn: parsed.data.signature !== null } },
    (audit) => [
      ctx.db
        .update(clientConsents)
        .set({
          status: "signed",
          signerType: "parent",
          signerId: ctx.actor.id,
          signerName: parsed.data.signer_name,
          signature: parsed.data.signature,
          signedAt: at,
          signedIp: ctx.ip,
          ...documentAsSigned(row.c.patientId),
          version: sql`${clientConsents.version} + 1`,
          updatedAt: at,
        })
        .where(and(eq(clientConsents.id, id), live, eq(clientConsents.status, "draft"), eq(clientConsents.version, version)))
        .returning(),
      audit(sql`changes() = 1`),
      bumpListVersion(ctx.db, CONSENTS),
    ],
    row.tail,
  );
  const updated = (results[0] as Row[])[0];
  if (!updated) {
    // Lost a race: signed meanwhile (the first signature stays), withdrawn by the clinic meanwhile, or the
    // draft was edited after the parent read it (they sign the current text, or nothing).
    const [now] = await ctx.db.select().from(clientConsents).where(eq(clientConsents.id, id));
    if (now && isConsentEditable({ status: now.status, deleted_at: now.deletedAt })) return staleSignature(now);
    return invalid({ form: now?.status === "withdrawn" ? CONSENT_MESSAGES.withdrawnNotSignable : CONSENT_MESSAGES.signedReadOnly });
  }
  return ok(consentJson(updated), CONSENT_MESSAGES.signed);
}

/**
 * Staff withdraw a draft (manage_clients, the client in their locations): status withdrawn, with who and
 * when; the row stays on record and the parent no longer sees it. A signed consent answers 422 and is left
 * as it was. The update is conditional on status draft (and the version when given), with its audit row
 * only if it happened: a parent signing at the same moment either signs first (the withdrawal answers 422)
 * or finds it withdrawn (the signature answers 422), never both.
 */
export async function withdrawConsent(ctx: ModelContext, id: number, opts: { version?: number | null; patientId?: number } = {}): Promise<ModelResult<ConsentJson>> {
  if (!can(ctx.actor, "manage_clients")) return denied();
  const [row] = await consentInScope(ctx, id);
  if (!row || (opts.patientId !== undefined && row.c.patientId !== opts.patientId)) return notFound("Consent");
  const refusal = withdrawRefusal({ status: row.c.status, deleted_at: row.c.deletedAt });
  if (refusal) return invalid({ form: refusal });
  const version = opts.version ?? null;
  if (version !== null && version !== row.c.version) return conflict(consentJson(row.c));
  const at = ctx.now().toISOString();
  const results = await withConditionalAudit(
    ctx.db,
    who(ctx),
    { action: "withdraw", entity: "consent", entityId: id, patientId: row.c.patientId },
    (audit) => [
      ctx.db
        .update(clientConsents)
        .set({ status: "withdrawn", withdrawnAt: at, withdrawnBy: ctx.actor.id, version: sql`${clientConsents.version} + 1`, updatedAt: at })
        .where(and(eq(clientConsents.id, id), live, eq(clientConsents.status, "draft"), version === null ? undefined : eq(clientConsents.version, version)))
        .returning(),
      audit(sql`changes() = 1`),
      bumpListVersion(ctx.db, CONSENTS),
    ],
    row.tail,
  );
  const updated = (results[0] as Row[])[0];
  if (updated) return ok(consentJson(updated), CONSENT_MESSAGES.withdrawn);
  const [again] = await consentInScope(ctx, id);
  if (!again) return notFound("Consent");
  const now = consentJson(again.c);
  const why = withdrawRefusal({ status: again.c.status, deleted_at: again.c.deletedAt });
  return why ? invalid({ form: why }) : conflict(now);
}

/**
 * A signed consent of one of the signed-in parent's own children, for its PDF (the same document staff
 * get): the read is audited with the parent as actor. Another family's consent, a draft (the parent signs
 * it on the child's page; its PDF would show an unsigned form as if it were on record) or a withdrawn one
 * answers null (404), as does a staff actor. A consent another parent signed (the client re-linked since) leaves
 * out the signer's name and drawing (`signedByOther`, decision 040 stop 45); staff's PDF keeps both.
 */
export async function getParentConsentDocument(ctx: ModelContext, id: number): Promise<ConsentDocument | null> {
  if (ctx.actor.kind !== "parent") return null;
  const [row] = await ctx.db
    .select({ c: clientConsents, patientName: clientNameShown, locationTitle: locations.title, tail: auditTail })
    .from(clientConsents)
    .innerJoin(patients, eq(patients.id, clientConsents.patientId))
    .leftJoin(locations, eq(locations.id, patients.locationId))
    .where(and(eq(clientConsents.id, id), live, eq(clientConsents.status, "signed"), eq(patients.parentId, ctx.actor.id), isNull(patients.deletedAt)));
  if (!row) return null;
  await auditedRead(ctx.db, who(ctx), { entity: "consent", entityId: id, patientId: row.c.patientId, detail: { pdf: true } }, () => [] as [], row.tail);
  const consent = consentJson(row.c);
  if (!signedByOther(row.c, ctx.actor.id)) return documentOf(row, consent);
  return { ...documentOf(row, { ...consent, signer_name: null, signature: null }), otherSigner: true };
}

/**
 * Whether a signed consent was signed by someone other than the signed-in parent `parentId` (the client was linked to
 * another parent since): that parent is not told who signed or shown the drawing — a parent never sees another
 * family's details (decision 040, stop 45).
 */
export function signedByOther(c: Pick<Row, "status" | "signerType" | "signerId">, parentId: number): boolean {
  return c.status === "signed" && !(c.signerType === "parent" && c.signerId === parentId);
}
