import { beforeAll, describe, expect, it } from "vitest";
import { REPORT_KEYS } from "~/domain/reports";
import { billingList } from "~/models/client-reports.server";
import { listNoteItems } from "~/models/notes.server";
import { patientScope } from "~/models/patients.server";
import { patients } from "~/db/schema";
import { db, request, signInCookie } from "./helpers";
import { fullPath, leafGuarded } from "./route-guards.shared";
import { inGroups, manyLocationsActor, type ManyLocations } from "./many-locations.shared";

/**
 * A staff user assigned explicitly to 120 locations (many-locations.shared.ts) on every screen that needs no
 * record id, every report and its export, and a client's record screens: none answers 5xx. D1 binds at most
 * 100 parameters per statement: the actor's location ids are written into the statements, not bound.
 * The API's walk is many-locations-api.test.ts.
 */

let m: ManyLocations;
let cookie: string;

beforeAll(async () => {
  m = await manyLocationsActor();
  cookie = await signInCookie(m.user);
}, 60_000);

const screens = leafGuarded.filter((r) => r.module.loader && r.module.handle?.guard !== "parent" && !fullPath(r).includes("/1") && r.path !== "*").map(fullPath);
const reports = REPORT_KEYS.flatMap((key) => [`/reports/${key}`, `/reports/${key}/export.csv`]);

async function noServerError(paths: readonly string[]) {
  await Promise.all(
    paths.map(async (path) => {
      const res = await request(path, { cookie });
      await res.body?.cancel();
      expect(res.status, path).toBeLessThan(500);
    })
  );
}

describe("a staff user at 120 locations", () => {
  it.each(inGroups([...screens, ...reports]).map((g) => [g[0]!, g] as const))("screens without a record id answer below 500 (%s …)", { timeout: 120_000 }, (_first, group) => noServerError(group));

  it("the client's record screens answer 200", { timeout: 120_000 }, async () => {
    const [rbt, , bcba] = m.noteIds;
    const id = m.client.id;
    const paths = [
      `/patients/profile/${id}`,
      `/billing/by-client/${id}?from=2026-03-01&to=2026-03-31&type=rbt`,
      `/note-rbt/listbyclient/${id}`,
      `/note-bcba/listbyclient/${id}`,
      `/note-combined/listbyclient/${id}`,
      `/note-rbt/view/${rbt}`,
      `/note-bcba/view/${bcba}`,
      `/client-report/by-client/${id}`,
    ];
    for (const group of inGroups(paths)) {
      await Promise.all(
        group.map(async (path) => {
          const res = await request(path, { cookie });
          await res.body?.cancel();
          expect(res.status, `${path} → ${res.headers.get("Location") ?? ""}`).toBe(200);
        })
      );
    }
  });

  it("patientScope, the notes list and the billing list answer the client's rows", async () => {
    const seen = await db().select({ id: patients.id }).from(patients).where(patientScope(m.ctx));
    expect(seen.map((p) => p.id)).toContain(m.client.id);
    const list = await listNoteItems(m.ctx, { per_page: 25, page: 1, search: "", date_from: "", date_to: "", cache: false });
    expect(list.ok && list.data.data.map((n) => n.id).sort()).toEqual([...m.noteIds].sort());
    const billing = await billingList(m.ctx, { date_from: "2026-03-01", date_to: "2026-03-31" });
    expect(billing.ok && billing.data.page.data.map((r) => r.patient_id)).toEqual([m.client.id]);
  });
});
