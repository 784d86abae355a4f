import { and, desc, eq, isNull, ne, sql } from "drizzle-orm";
import { clientConsents, locations, notes, patients, pdfJobs, sharedDocuments, users } from "~/db/schema";
import type { ChartInput } from "~/domain/chart";
import { zonedDate, zoneOffsetMinutes } from "~/domain/time";
import { auditedRead, auditTail } from "~/services/audit.server";
import { chartInputsFrom, patientChartsQuery } from "./charts.server";
import { consentJson, signedByOther } from "./consents.server";
import type { ModelContext } from "./context";
import { who } from "./patients.server";
import { portalNarrativeOn as narrativeOn, staffNameForParent } from "./parent-view.server";
import { jobPlanLive } from "./pdf-jobs.server";
import { upcomingSessionsQuery } from "./schedule.server";

/**
 * The parent portal (docs/decisions/040): what a signed-in parent sees of their OWN children only. A
 * child is found by id AND the parent link (patients.parent_id = the parent), so another family's child
 * answers exactly like one that does not exist (404). Every read is audited with the parent as actor.
 * Nothing here answers staff details beyond a provider's first name, other families, or billing amounts:
 * the selects name their columns, never whole rows of notes, sessions or jobs.
 */

/** How many upcoming sessions and recent session dates the child's page lists. */
export const PORTAL_UPCOMING = 10;
export const PORTAL_RECENT = 10;
/** The goal charts show the last half year of weekly data. */
export const PORTAL_CHART_DAYS = 182;

function isParent(ctx: ModelContext): boolean {
  return ctx.actor.kind === "parent";
}

/** One of the parent's own children (live), with the location's time zone and the audit tail; else nothing. */
function ownChild(ctx: ModelContext, patientId: number) {
  return ctx.db
    .select({ id: patients.id, firstName: patients.firstName, lastName: patients.lastName, timeZone: locations.timeZone, tail: auditTail })
    .from(patients)
    .innerJoin(locations, eq(locations.id, patients.locationId))
    .where(and(eq(patients.id, patientId), eq(patients.parentId, ctx.actor.id), isNull(patients.deletedAt)));
}

/** Recent session dates and types; the note's summary only when the clinic shows narratives (null otherwise). */
function recentSessionsQuery(ctx: ModelContext, patientId: number) {
  return ctx.db
    .select({
      id: notes.id,
      session_date: notes.sessionDate,
      type: notes.type,
      provider_first_name: staffNameForParent,
      summary: sql<string | null>`case when ${narrativeOn} then ${notes.summaryNote} else null end`,
    })
    .from(notes)
    .leftJoin(users, eq(users.id, notes.providerId))
    .where(and(eq(notes.patientId, patientId), isNull(notes.deletedAt)))
    .orderBy(desc(notes.sessionDate), desc(notes.id))
    .limit(PORTAL_RECENT);
}

/**
 * A share is served through its family copy only (decision 041, stop 38): the plan PDF rendered under the rules of
 * parent-view.server.ts, done, never the staff job's own file — a share made before has none and is not listed.
 * A copy rendered with the chart comments is served only while they are shown (stop 42): turning
 * portal_show_narrative off hides it at once, and the settings save makes it again without them (remakeFamilyCopies).
 */
const familyCopyServed = and(
  isNull(sharedDocuments.revokedAt),
  eq(pdfJobs.audience, "family"),
  eq(pdfJobs.status, "done"),
  sql`coalesce(${pdfJobs.narrative}, 1) <= ${narrativeOn}`,
);

function documentsQuery(ctx: ModelContext, patientId: number) {
  return ctx.db
    .select({ id: sharedDocuments.id, title: sharedDocuments.title, shared_at: sharedDocuments.createdAt })
    .from(sharedDocuments)
    .innerJoin(pdfJobs, eq(pdfJobs.id, sharedDocuments.familyJobId))
    // A document of a plan deleted since is not the family's to see (decision 041, 2026-11-27): jobPlanLive.
    .where(and(eq(sharedDocuments.patientId, patientId), familyCopyServed, jobPlanLive))
    .orderBy(desc(sharedDocuments.createdAt), desc(sharedDocuments.id));
}

function consentsQuery(ctx: ModelContext, patientId: number) {
  return ctx.db
    .select()
    .from(clientConsents)
    // A draft the clinic withdrew never reaches the parent (decision 040).
    .where(and(eq(clientConsents.patientId, patientId), isNull(clientConsents.deletedAt), ne(clientConsents.status, "withdrawn")))
    .orderBy(desc(clientConsents.createdAt), desc(clientConsents.id));
}

/**
 * A consent as the parent's page shows it: the text they read and sign (with the version they read, which
 * their signature names), and for a signed one who signed and when. Not the staff's fields or the stored
 * drawing (the PDF has it). `signer_name` is null when another parent signed it (the client re-linked since):
 * the page says "signed by another parent or guardian" (decision 040, stop 45).
 */
export interface PortalConsent {
  id: number;
  version: number;
  section_labels: string[];
  section_texts: { label: string; text: string }[];
  notes: string;
  signer_name: string | null;
  signed_at: string | null;
  /** The day it was signed at the child's location (the page's dates are the location's, as its sessions). */
  signed_on: string | null;
}

function portalConsent(row: typeof clientConsents.$inferSelect, timeZone: string, parentId: number): PortalConsent {
  const c = consentJson(row);
  const signerName = signedByOther(row, parentId) ? null : c.signer_name;
  return { id: c.id, version: c.version, section_labels: c.section_labels, section_texts: c.section_texts, notes: c.notes, signer_name: signerName, signed_at: c.signed_at, signed_on: c.signed_at ? zonedDate(new Date(c.signed_at), timeZone) : null };
}

export interface PortalChild {
  child: { id: number; first_name: string; last_name: string };
  upcoming: { id: number; session_date: string; time_in: string; time_out: string; provider_first_name: string | null }[];
  recent: { id: number; session_date: string; type: string; provider_first_name: string | null; summary: string | null }[];
  /** The active goals' chart inputs, by plan id. */
  goals: { id: number; input: ChartInput }[];
  /** Consents still to sign and those already signed (the parent sees only their child's). */
  toSign: PortalConsent[];
  signed: PortalConsent[];
  /** `shared_on`: the day it was shared, at the child's location. */
  documents: { id: number; title: string; shared_at: string; shared_on: string }[];
  showNarrative: boolean;
}

/** Today's date as YYYY-MM-DD minus `days`, in UTC (the chart window needs only a day's precision). */
function daysAgo(now: Date, days: number): string {
  return new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The child's page: the child (scope: the parent's own, one statement), then the upcoming sessions, goal
 * charts, recent sessions, consents and shared documents in ONE batch with the read's audit row. Null
 * for anything not the parent's child (and for staff actors).
 */
export async function getPortalChild(ctx: ModelContext, patientId: number): Promise<PortalChild | null> {
  if (!isParent(ctx)) return null;
  const [child] = await ownChild(ctx, patientId);
  if (!child) return null;
  const now = ctx.now();
  const localMinute = Math.floor(now.getTime() / 60_000) + zoneOffsetMinutes(now, child.timeZone);
  const range = { from: daysAgo(now, PORTAL_CHART_DAYS), to: null };
  const [upcoming, charts, recent, consentRows, documents] = await auditedRead(
    ctx.db,
    who(ctx),
    { entity: "portal_child", entityId: patientId, patientId },
    () => [upcomingSessionsQuery(ctx, patientId, localMinute, PORTAL_UPCOMING), patientChartsQuery(ctx, patientId, range, narrativeOn), recentSessionsQuery(ctx, patientId), consentsQuery(ctx, patientId), documentsQuery(ctx, patientId)],
    child.tail,
  );
  const consents = consentRows.map((row) => ({ status: row.status, shown: portalConsent(row, child.timeZone, ctx.actor.id) }));
  return {
    child: { id: child.id, first_name: child.firstName, last_name: child.lastName },
    // Named fields only: what a parent may see of a session (decision 040), whatever the query selects.
    upcoming: upcoming.map((u) => ({ id: u.id, session_date: u.session_date, time_in: u.time_in, time_out: u.time_out, provider_first_name: u.provider_first_name })),
    recent: recent.map((r) => ({ id: r.id, session_date: r.session_date, type: r.type, provider_first_name: r.provider_first_name, summary: r.summary ?? null })),
    goals: [...chartInputsFrom(charts, range)].map(([id, input]) => ({ id, input })),
    toSign: consents.filter((c) => c.status === "draft").map((c) => c.shown),
    signed: consents.filter((c) => c.status === "signed").map((c) => c.shown),
    documents: documents.map((doc) => ({ ...doc, shared_on: zonedDate(new Date(doc.shared_at), child.timeZone) })),
    showNarrative: recent.some((r) => r.summary !== null),
  };
}

/** A document shared with the parent's child, ready to download (its family copy): its R2 key and title; the read is audited. */
export async function getPortalDocument(ctx: ModelContext, id: number): Promise<{ fileKey: string; title: string } | null> {
  if (!isParent(ctx)) return null;
  const [row] = await ctx.db
    .select({ patientId: sharedDocuments.patientId, title: sharedDocuments.title, fileKey: pdfJobs.fileKey, tail: auditTail })
    .from(sharedDocuments)
    .innerJoin(pdfJobs, eq(pdfJobs.id, sharedDocuments.familyJobId))
    .innerJoin(patients, eq(patients.id, sharedDocuments.patientId))
    .where(and(eq(sharedDocuments.id, id), familyCopyServed, jobPlanLive, eq(patients.parentId, ctx.actor.id), isNull(patients.deletedAt)));
  if (!row || !row.fileKey) return null;
  await auditedRead(ctx.db, who(ctx), { entity: "shared_document", entityId: id, patientId: row.patientId }, () => [] as [], row.tail);
  return { fileKey: row.fileKey, title: row.title };
}
