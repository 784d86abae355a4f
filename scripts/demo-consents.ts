import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "../app/db/client.server";
import { clientConsents, locations, patients } from "../app/db/schema";
import { DEMO_PATIENT_IDS } from "./demo-ids";

/**
 * Demo consents (issue 12, docs/decisions/040): for each child of the demo parent (parent@demo.test), one
 * consent to sign on the parent portal (assessment and treatment, release of information, notice of privacy
 * practices, cancellation policy); the first child also has an older one already signed by the parent, so
 * the staff screen (/patients/consents/:id) shows who signed what and when. Idempotent: a child that
 * already has consents is left as it is. The signed one carries the clinic and the client's name its document shows, as
 * a signature stores them (decision 040, stop 45).
 */
export async function seedDemoConsents(db: Db, now: Date, parentId = 1, createdBy = 1): Promise<void> {
  const children = await db
    .select({ id: patients.id, firstName: patients.firstName, lastName: patients.lastName, locationId: patients.locationId, locationTitle: locations.title })
    .from(patients)
    .innerJoin(locations, eq(locations.id, patients.locationId))
    .where(and(eq(patients.parentId, parentId), isNull(patients.deletedAt), inArray(patients.id, [...DEMO_PATIENT_IDS])))
    .orderBy(asc(patients.id));
  for (const [i, child] of children.entries()) {
    const [existing] = await db.select({ id: clientConsents.id }).from(clientConsents).where(eq(clientConsents.patientId, child.id)).limit(1);
    if (existing) continue;
    const rows: (typeof clientConsents.$inferInsert)[] = [{ patientId: child.id, sections: "[1,2,6,8]", notes: "Annual consent packet.", createdBy, createdAt: now.toISOString(), updatedAt: now.toISOString() }];
    if (i === 0) {
      const signedAt = new Date(now.getTime() - 180 * 86_400_000).toISOString();
      rows.push({ patientId: child.id, sections: "[3,4]", status: "signed", signerType: "parent", signerId: parentId, signerName: "Laura Garcia", signedAt, signedLocationId: child.locationId, signedLocationTitle: child.locationTitle, signedClientName: `${child.firstName} ${child.lastName}`.trim(), createdBy, createdAt: signedAt, updatedAt: signedAt, version: 2 });
    }
    await db.insert(clientConsents).values(rows);
  }
}
