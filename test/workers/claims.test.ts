import { and, count, desc, eq, like, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, claimLineNotes, claimLines, claims, clientReports, insurances, insuranceServices, locations, notes, paServices, patients, userLocations, userRoles, users, x12Files } from "~/db/schema";
import { CLAIM_MESSAGES } from "~/domain/claims";
import { npiFrom } from "~/domain/npi";
import { NOTE_MESSAGES } from "~/domain/note-rules";
import { getActor } from "~/models/actors.server";
import { billableNotes, buildClaims, generateClaims, removeClaimLine, sendClaim } from "~/models/claims.server";
import { setNoteModifiers, updateNote } from "~/models/notes.server";
import type { ClaimFileToSend, ClaimSender } from "~/services/claim-sender.server";
import { verifyAuditChain } from "~/services/audit.server";
import type { Db } from "~/db/client.server";
import { appFetch } from "./app-fetch";
import { api, apiToken, BASE, beforeWriteDb, countingDb, createLocation, createPatient, createRole, createUser, db, form, request, signInCookie, type TestUser } from "./helpers";
import { readBack837 } from "../support/x12";

/** Claims: build from billed notes, generate the 837P, send, status, download; screens and API (decision 032). */

let seq = 0;
async function world(opts: { npi?: string | null; zip?: string } = {}) {
  seq++;
  // The billing provider's ZIP is the 9-digit ZIP+4 (2010AA N403); the subscriber's may be 5 digits.
  const location = await createLocation({ address: "100 Main St", city: "Miami", state: "FL", zip: opts.zip ?? "33101-1234", phone1: "305-555-0100", npi: opts.npi === undefined ? "1234567893" : opts.npi, taxId: "591234567" });
  const [insurer] = await db().insert(insurances).values({ name: `Florida Blue ${seq}`, payerId: "00590" }).returning();
  await db().insert(insuranceServices).values([
    { insuranceId: insurer!.id, cptCode: "97153", provider: "rbt", type: "rbt", unitPrice: 12.5 },
    { insuranceId: insurer!.id, cptCode: "97155", provider: "bcba", type: "bcba", unitPrice: 31.13 },
  ]);
  const details = { insuranceId: `W${seq}000`, insured_policy_group: "GRP", is_self_subscriber: true, address: "5 Palm Ave", city: "Miami", state: "FL", zip: "33102", diagnosis_code: "F84.0" };
  const patient = await createPatient({ locationId: location.id, insurerId: insurer!.id, birthDate: "2018-04-02", gender: 2, details: JSON.stringify(details) });
  const provider = await createUser({ permissions: ["view_notes"], locations: [location.id] });
  await db().update(users).set({ name: "Rita", surname: "Baker", profile: JSON.stringify({ npi: npiFrom("111222333") }) }).where(eq(users.id, provider.id));
  const pa = async (patientId: number) => {
    const [row] = await db().insert(paServices).values({ patientId, paService: `PA-${seq}-${patientId}`, cpt: "97153", nUnits: 2000, startDate: "2026-10-01", endDate: "2026-12-31", insuranceId: insurer!.id }).returning();
    return row!.id;
  };
  const pas = new Map<number, number>();
  const note = async (over: Partial<typeof notes.$inferInsert> = {}) => {
    const pid = over.patientId ?? patient.id;
    if (!pas.has(pid)) pas.set(pid, await pa(pid));
    const [row] = await db()
      .insert(notes)
      .values({ type: "rbt", patientId: patient.id, locationId: location.id, providerId: provider.id, paServiceId: pas.get(pid)!, cptCode: "97153", diagnosisCode: "F84.0", pos: "12", sessionDate: "2026-11-02", minutes: 120, units: 8, billed: true, status: "ok", signedAt: "2026-11-02T20:00:00.000Z", providerName: "Rita Baker", providerSignedOn: "2026-11-02", ...over })
      .returning();
    return row!.id;
  };
  const manager = await createUser({ permissions: ["manage_claims"], locations: [location.id] });
  return { location, insurer: insurer!, patient, provider, note, manager, token: await apiToken(manager) };
}

async function claimCount() {
  const [row] = await db().select({ n: count() }).from(claims);
  return row!.n;
}

describe("the build form's note picker shows the scrubber's reasons (probe 9007 §3)", () => {
  it("a billed note the scrubber refuses: its reasons on the API row and the screen row (JS off), its checkbox disabled; ≤ 2 round trips", async () => {
    const w = await world();
    // The provider's CPR expired on 2026-11-16: the note of 2026-11-02 can be claimed, the one of 2026-11-20 cannot.
    await db().update(userLocations).set({ compliance: JSON.stringify({ cpr_every_2_years: "2026-11-16" }) }).where(and(eq(userLocations.userId, w.provider.id), eq(userLocations.locationId, w.location.id)));
    const good = await w.note({ sessionDate: "2026-11-02" });
    const lapsed = await w.note({ sessionDate: "2026-11-20", signedAt: "2026-11-20T20:00:00.000Z", providerSignedOn: "2026-11-20" });
    const expired = /^CPR \(every 2 years\) of Rita Baker expired on 2026-11-16, before the session date 2026-11-20\.$/;

    const res = await api(`/v2/claims/billable-notes?location_id=${w.location.id}`, { token: w.token });
    expect(res.status).toBe(200);
    const rows = ((await res.json()) as { data: { id: number; reasons: string[] }[] }).data;
    expect(rows.find((r) => r.id === good)!.reasons).toEqual([]);
    expect(rows.find((r) => r.id === lapsed)!.reasons).toEqual([expect.stringMatching(expired)]);

    const html = (await (await request(`/claims?pick=1&b_location_id=${w.location.id}`, { cookie: await signInCookie(w.manager) })).text()).replace(/<!-- -->/g, "");
    const box = (id: number) => [...html.matchAll(/<input type="checkbox" name="note_ids"[^>]*>/g)].map((m) => m[0]).find((tag) => tag.includes(`value="${id}"`)) ?? "";
    expect(box(good)).not.toContain("disabled");
    expect(box(good)).toContain("checked");
    expect(box(lapsed)).toContain("disabled");
    expect(box(lapsed)).not.toContain("checked");
    expect(html).toMatch(new RegExp(`<p class="field-error" id="pick-reasons-${lapsed}">Cannot be claimed: CPR \\(every 2 years\\) of Rita Baker expired on 2026-11-16`));

    // The reasons ride in the picker's batch: the read and the audit row (the guard's session read makes three).
    const counting = countingDb();
    const picked = await billableNotes(await ctxOf(w.manager, counting.db), { location_id: String(w.location.id) });
    expect(picked.ok && picked.data.find((r) => r.id === lapsed)!.reasons).toEqual([expect.stringMatching(expired)]);
    expect(counting.roundTrips()).toBeLessThanOrEqual(2);
  });
});

describe("API /v2/claims", () => {
  it("builds one claim per client + provider + payer with lines per CPT and date, generates, sends, accepts, downloads", async () => {
    const w = await world();
    const a = await w.note();
    const b = await w.note({ sessionDate: "2026-11-02", md: "HM" });
    const c = await w.note({ sessionDate: "2026-11-03" });
    const d = await w.note({ sessionDate: "2026-11-03" });
    const built = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [a, b, c, d] } });
    expect(built.status, await built.clone().text()).toBe(201);
    const { data } = (await built.json()) as { data: { id: number; claim_number: string; total_cents: number; lines: number; errors: unknown[] }[] };
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ lines: 3, errors: [], total_cents: 4 * 8 * 1250 });
    expect(data[0]!.claim_number).toMatch(/^C\d{7}$/);
    const id = data[0]!.id;

    const shown = (await (await api(`/v2/claims/${id}`, { token: w.token })).json()) as { data: { status: string; lines: { units: number; note_ids: number[]; modifiers: string }[] } };
    expect(shown.data.status).toBe("draft");
    expect(shown.data.lines.map((l) => [l.units, l.modifiers, l.note_ids.length])).toEqual([
      [8, "", 1],
      [8, "HM", 1],
      [16, "", 2],
    ]);

    const gen = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [id] } });
    expect(gen.status).toBe(201);
    const file = ((await gen.json()) as { data: { file_id: number; claims: { set_control: string }[] } }).data;
    expect(file.claims[0]!.set_control).toBe("0001");

    const dl = await api(`/v2/claims/${id}/download`, { token: w.token });
    expect(dl.status).toBe(200);
    expect(dl.headers.get("Content-Disposition")).toMatch(/attachment; filename="837P-\d{9}\.x12"/);
    const content = await dl.text();
    const back = readBack837(content);
    expect(Number(back.interchangeControl)).toBe(file.file_id);
    expect(content).toContain("NM1*85*2*");
    expect(content).toContain("REF*EI*591234567~");
    expect(content).toContain("SV1*HC:97153*200.00*UN*16***1~");

    expect((await api(`/v2/claims/${id}/status`, { method: "POST", token: w.token, body: { status: "accepted" } })).status).toBe(422);
    const sent = await api(`/v2/claims/${id}/send`, { method: "POST", token: w.token });
    expect(sent.status).toBe(200);
    const [stored] = await db().select().from(x12Files).where(eq(x12Files.id, file.file_id));
    expect(stored!.sender).toBe("local");
    expect(stored!.sentAt).toBeTruthy();
    const acc = await api(`/v2/claims/${id}/status`, { method: "POST", token: w.token, body: { status: "accepted" } });
    expect(acc.status).toBe(200);
    expect((await api(`/v2/claims/${id}/status`, { method: "POST", token: w.token, body: { status: "rejected" } })).status).toBe(422);

    const list = (await (await api(`/v2/claims?status=accepted`, { token: w.token })).json()) as { data: { id: number }[]; total: number };
    expect(list.data.map((r) => r.id)).toContain(id);
  });

  it("builds from 150 notes at once (more ids than D1 binds in one statement)", async () => {
    const w = await world();
    const ids: number[] = [];
    for (let i = 0; i < 150; i++) ids.push(await w.note({ sessionDate: `2026-${i < 75 ? "10" : "11"}-${String(1 + (i % 25)).padStart(2, "0")}` }));
    const built = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: ids } });
    expect(built.status, await built.clone().text()).toBe(201);
    const { data } = (await built.json()) as { data: { lines: number; total_cents: number }[] };
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ lines: 50, total_cents: 150 * 8 * 1250 });
  });

  it("51 lines of one client, provider and payer build into two claims of 50 and 1 lines, in date order, that generate into one file read back whole (decision 034, stop 31)", async () => {
    const w = await world();
    const dates = Array.from({ length: 51 }, (_, i) => new Date(Date.UTC(2026, 9, 1 + i)).toISOString().slice(0, 10));
    const ids: number[] = [];
    for (const sessionDate of [...dates].reverse()) ids.push(await w.note({ sessionDate }));
    const built = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: ids } });
    expect(built.status, await built.clone().text()).toBe(201);
    const { data } = (await built.json()) as { data: { id: number; lines: number; total_cents: number; errors: unknown[] }[] };
    expect(data.map((c) => [c.lines, c.total_cents, c.errors])).toEqual([
      [50, 50 * 8 * 1250, []],
      [1, 8 * 1250, []],
    ]);
    const stored = await db().select({ id: claims.id, patientId: claims.patientId, locationId: claims.locationId, providerId: claims.providerId, insurerId: claims.insurerId }).from(claims).where(sql`${claims.id} in (${data[0]!.id}, ${data[1]!.id})`);
    expect(new Set(stored.map((c) => `${c.patientId}|${c.locationId}|${c.providerId}|${c.insurerId}`))).toEqual(new Set([`${w.patient.id}|${w.location.id}|${w.provider.id}|${w.insurer.id}`]));
    const linesOf = async (id: number) => (await db().select({ n: claimLines.lineNumber, date: claimLines.serviceDate }).from(claimLines).where(eq(claimLines.claimId, id)).orderBy(claimLines.lineNumber)).map((l) => [l.n, l.date]);
    expect(await linesOf(data[0]!.id)).toEqual(dates.slice(0, 50).map((d, i) => [i + 1, d]));
    expect(await linesOf(data[1]!.id)).toEqual([[1, dates[50]]]);

    const gen = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: data.map((c) => c.id) } });
    expect(gen.status, await gen.clone().text()).toBe(201);
    const content = await (await api(`/v2/claims/${data[0]!.id}/download`, { token: w.token })).text();
    const back = readBack837(content);
    expect(back.sets.map((set) => set.segments.filter((tag) => tag === "SV1").length)).toEqual([50, 1]);
    expect(back.sets.map((set) => set.segments.filter((tag) => tag === "CLM").length)).toEqual([1, 1]);
  });

  it("two drafts go into one file with increasing control numbers; a later file has a higher id", async () => {
    const w = await world();
    const other = await createPatient({ locationId: w.location.id, insurerId: w.insurer.id, birthDate: "2017-01-01", gender: 1, details: JSON.stringify({ insuranceId: "M2", is_self_subscriber: "1", address: "1 A St", city: "Miami", state: "FL", zip: "33101", diagnosis_code: "F84.0" }) });
    const n1 = await w.note();
    const n2 = await w.note({ patientId: other.id, md: "XP", md2: "HM" });
    const built = ((await (await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [n1, n2] } })).json()) as { data: { id: number; errors: unknown[] }[] }).data;
    expect(built).toHaveLength(2);
    const genRes = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: built.map((b) => b.id) } });
    const genBody = (await genRes.json()) as { data: { file_id: number; claims: { set_control: string }[] }; message?: string };
    expect(genRes.status, genBody.message).toBe(201);
    const gen = genBody.data;
    expect(gen.claims.map((c) => c.set_control)).toEqual(["0001", "0002"]);
    const content = await (await api(`/v2/claims/${built[0]!.id}/download`, { token: w.token })).text();
    expect(readBack837(content).sets).toHaveLength(2);
    expect(content).toContain("SV1*HC:97153:XP:HM*0.00*UN*8***1~");
    const n3 = await w.note({ sessionDate: "2026-11-09" });
    const again = ((await (await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [n3] } })).json()) as { data: { id: number }[] }).data;
    const gen2 = ((await (await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [again[0]!.id] } })).json()) as { data: { file_id: number } }).data;
    expect(gen2.file_id).toBeGreaterThan(gen.file_id);
  });

  it("refuses notes that are not billed or already on a claim, with a message per note, and changes nothing", async () => {
    const w = await world();
    const unbilled = await w.note({ billed: false });
    const before = await claimCount();
    const res = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [unbilled] } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: { note_ids: string } }).errors.note_ids).toMatch(new RegExp(`Note ${unbilled} .*not billed`));
    // The pre-billing scrubber's reasons refuse a note (decision 034): here, not signed.
    const unsigned = await w.note({ signedAt: null });
    const scrubbed = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [unsigned] } });
    expect(scrubbed.status).toBe(422);
    expect(((await scrubbed.json()) as { errors: Record<string, string> }).errors[`notes.${unsigned}`]).toMatch(/^Note \d+: Cannot bill this note: .*signed/);
    const billed = await w.note();
    expect((await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [billed] } })).status).toBe(201);
    const twice = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [billed] } });
    expect(twice.status).toBe(422);
    expect(((await twice.json()) as { message: string }).message).toMatch(/already on claim C\d{7}/);
    expect(await claimCount()).toBe(before + 1);
  });

  it("charges each note at its provider's credential, the price the scrubber judged and the billing row shows", async () => {
    const w = await world();
    // The payer prices 97153 for BCBAs too; the note's provider holds the BCBA role.
    await db().insert(insuranceServices).values({ insuranceId: w.insurer.id, cptCode: "97153", provider: "bcba", type: "bcba", unitPrice: 20 });
    await db().insert(userRoles).values({ userId: w.provider.id, roleId: (await createRole("BCBA", [])).id });
    const n = await w.note();
    const built = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [n] } });
    expect(built.status, await built.clone().text()).toBe(201);
    const { data } = (await built.json()) as { data: { id: number; total_cents: number }[] };
    expect(data[0]!.total_cents).toBe(8 * 2000);
    const shown = (await (await api(`/v2/claims/${data[0]!.id}`, { token: w.token })).json()) as { data: { lines: { charge_cents: number; units: number }[] } };
    expect(shown.data.lines).toEqual([expect.objectContaining({ units: 8, charge_cents: 16000 })]);
  });

  it("the notes' own calls keep what a claim billed: modifiers, delete and an amendment of times are refused; a narrative amendment passes; voiding frees the note (probe, stop 24)", async () => {
    const w = await world();
    const n = await w.note({ timeIn: "09:00", timeOut: "11:00", content: JSON.stringify({ as_evidenced_by: "Calm" }) });
    const built = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [n] } });
    expect(built.status).toBe(201);
    const claim = ((await built.json()) as { data: { id: number; claim_number: string }[] }).data[0]!;
    const clinician = await apiToken(await createUser({ permissions: ["view_notes", "manage_notes", "ignore_time_limits"], locations: [w.location.id] }));
    const onClaim = NOTE_MESSAGES.onClaim(`${claim.claim_number} (draft)`);
    const row = async () => (await db().select().from(notes).where(eq(notes.id, n)))[0]!;
    const before = await row();
    const call = async (path: string, method: string, body?: unknown) => {
      const res = await api(path, { method, token: clinician, body });
      return { status: res.status, errors: ((await res.json()) as { errors?: Record<string, string> }).errors };
    };
    expect(await call(`/note_rbt/update/modifier/${n}`, "PUT", { md: "XP" })).toEqual({ status: 422, errors: { md: onClaim } });
    expect(await call(`/v2/notes-rbt/${n}`, "DELETE")).toEqual({ status: 422, errors: { form: onClaim } });
    expect(await call(`/v2/notes-rbt/${n}`, "PATCH", { time_out: "10:00", amendment_reason: "Shorter" })).toEqual({ status: 422, errors: { time_out: onClaim } });
    expect(await call(`/v2/notes-rbt/${n}`, "PATCH", { pos: "11", amendment_reason: "Office" })).toEqual({ status: 422, errors: { pos: onClaim } });
    // The supervisor too: a payer that uses the supervisor as provider bills the note under them (stop 35).
    const other = await createUser({ role: "BCBA", permissions: ["view_notes"], locations: [w.location.id] });
    expect(await call(`/v2/notes-rbt/${n}`, "PATCH", { supervisor_id: other.id, amendment_reason: "Other supervisor" })).toEqual({ status: 422, errors: { supervisor_id: onClaim } });
    expect(await row()).toEqual(before);
    // The narrative is no claim's: a correction of it is an amendment as any other.
    const narrative = await call(`/v2/notes-rbt/${n}`, "PATCH", { as_evidenced_by: "Calm and engaged", amendment_reason: "Typo" });
    expect(narrative.status, JSON.stringify(narrative)).toBe(200);
    expect([(await row()).units, (await row()).timeOut]).toEqual([8, "11:00"]);
    // Voided: the note is off the claim, and still billed (decision 034, stop 30) until its billing row unticks it.
    expect((await api(`/v2/claims/${claim.id}/status`, { method: "POST", token: w.token, body: { status: "rejected" } })).status).toBe(200);
    expect(await call(`/v2/notes-rbt/${n}`, "PATCH", { time_out: "10:00", amendment_reason: "Shorter" })).toEqual({ status: 422, errors: { time_out: NOTE_MESSAGES.billed } });
    expect((await api("/client_report/store", { method: "POST", token: w.token, body: { note_id: n, billed: false } })).status).toBe(201);
    const freed = await call(`/v2/notes-rbt/${n}`, "PATCH", { time_out: "10:00", amendment_reason: "Shorter" });
    expect(freed.status, JSON.stringify(freed)).toBe(200);
    expect((await row()).units).toBe(4);
  });

  it("a note on a claim that is not rejected keeps its modifiers and billed flag; pay may change; voiding the claim frees them", async () => {
    const w = await world();
    const n = await w.note();
    const built = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [n] } });
    expect(built.status).toBe(201);
    const claim = ((await built.json()) as { data: { id: number; claim_number: string }[] }).data[0]!;
    const noteNow = async () => (await db().select({ md: notes.md, billed: notes.billed, paid: notes.paid, version: notes.version }).from(notes).where(eq(notes.id, n)))[0]!;
    const store = async (body: Record<string, unknown>) => {
      const res = await api("/client_report/store", { method: "POST", token: w.token, body: { note_id: n, note_version: (await noteNow()).version, ...body } });
      return { status: res.status, body: (await res.json()) as { errors?: Record<string, string>; data?: { report: { id: number; version: number } } } };
    };
    const before = await noteNow();
    for (const [body, field] of [
      [{ md: "XP", billed: true }, "md"],
      [{ md2: "HM", billed: true }, "md2"],
      [{ billed: false }, "billed"],
      [{ mdbcba: "HO", billedbcba: true }, "mdbcba"],
    ] as const) {
      const res = await store(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors?.[field]).toBe(`This note is on claim ${claim.claim_number} (draft): its modifiers and billed flag stay as claimed. Reject (void) that claim first to change them.`);
    }
    expect(await noteNow()).toEqual(before);
    // The same modifiers and billed flag, paid now: allowed (a payment recorded by hand).
    const paid = await store({ billed: true, pay: true });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(await noteNow()).toMatchObject({ md: null, billed: true, paid: true });
    // Voided (a draft may be rejected): the note is free again.
    expect((await api(`/v2/claims/${claim.id}/status`, { method: "POST", token: w.token, body: { status: "rejected" } })).status).toBe(200);
    const report = paid.body.data!.report;
    const freed = await api(`/client_report/update/${report.id}`, { method: "POST", token: w.token, body: { note_id: n, md: "XP", billed: true, pay: true, version: report.version, note_version: (await noteNow()).version } });
    expect(freed.status, await freed.clone().text()).toBe(200);
    expect(await noteNow()).toMatchObject({ md: "XP", billed: true });
  });

  it("the prior authorization number on a line is the billing record's PA number when saved, else the PA service's text", async () => {
    const w = await world();
    const a = await w.note();
    const b = await w.note({ sessionDate: "2026-11-03" });
    const saved = await api("/client_report/store", { method: "POST", token: w.token, body: { note_id: a, billed: true, pa_number: "AUTH-12345" } });
    expect(saved.status, await saved.clone().text()).toBe(201);
    const built = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [a, b] } });
    expect(built.status, await built.clone().text()).toBe(201);
    const id = ((await built.json()) as { data: { id: number }[] }).data[0]!.id;
    const shown = (await (await api(`/v2/claims/${id}`, { token: w.token })).json()) as { data: { lines: { service_date: string; pa_number: string }[] } };
    expect(shown.data.lines.map((l) => [l.service_date, l.pa_number])).toEqual([
      ["2026-11-02", "AUTH-12345"],
      ["2026-11-03", `PA-${seq}-${w.patient.id}`],
    ]);
  });

  it("two racing builds of the same note make one claim", async () => {
    const w = await world();
    const n = await w.note();
    const [r1, r2] = await Promise.all([1, 2].map(() => api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [n] } })));
    // The loser is told the note is taken: 422 when it read after the winner wrote, 409 when both read first.
    expect([422, 409]).toContain([r1!.status, r2!.status].find((s) => s !== 201));
    expect([r1!.status, r2!.status].filter((s) => s === 201)).toHaveLength(1);
    const [row] = await db().select({ n: count() }).from(claimLineNotes).where(eq(claimLineNotes.noteId, n));
    expect(row!.n).toBe(1);
  });

  it.each([
    ["without the location's NPI", { npi: null }, "billing.npi", (title: string) => `The location ${title} has no NPI. Add the billing provider's 10-digit NPI on the location's page.`],
    ["with a 5-digit location ZIP (2010AA N403 needs ZIP+4)", { zip: "33101" }, "billing.zip", (title: string) => `The ZIP code of the location ${title} is 33101: a claim's billing provider needs the 9-digit ZIP+4 (for example 33101-1234). Enter the ZIP+4 on the location's page.`],
  ])("a location %s: the build refuses its notes with the scrubber's reason; a draft built before shows it in the viewer, and generating it is refused", async (_l, change, field, message) => {
    const w = await world();
    const built = ((await (await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [await w.note()] } })).json()) as { data: { id: number; errors: { field: string; message: string }[] }[] }).data;
    expect(built[0]!.errors).toEqual([]);
    await db().update(locations).set(change).where(eq(locations.id, w.location.id));
    const expected = message(w.location.title);
    // The pre-billing scrubber runs the 837P's party checks (decision 034): a note of that location is refused at the build.
    const later = await w.note({ sessionDate: "2026-11-03" });
    const claimsBefore = await claimCount();
    const refused = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [later] } });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: Record<string, string> }).errors[`notes.${later}`]).toBe(`Note ${later}: Cannot bill this note: ${expected}`);
    expect(await claimCount()).toBe(claimsBefore);
    const viewer = await request(`/claims/edit-viewer/${built[0]!.id}`, { cookie: await signInCookie(w.manager) });
    expect((await viewer.text()).replaceAll("&#x27;", "'")).toContain(expected);
    const files = (await db().select({ n: count() }).from(x12Files))[0]!.n;
    const gen = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [built[0]!.id] } });
    expect(gen.status).toBe(422);
    expect(((await gen.json()) as { message: string }).message).toContain(expected);
    expect((await db().select({ n: count() }).from(x12Files))[0]!.n).toBe(files);
    const [claim] = await db().select().from(claims).where(eq(claims.id, built[0]!.id));
    expect(claim!.status).toBe("draft");
    expect(JSON.parse(claim!.errors!)).toEqual([{ field, message: expected }]);
  });

  it("a location's ZIP+4 goes out whole in 2010AA N403; the subscriber's 5-digit ZIP is kept as it is", async () => {
    const w = await world();
    const n = await w.note();
    const built = ((await (await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [n] } })).json()) as { data: { id: number }[] }).data;
    expect((await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [built[0]!.id] } })).status).toBe(201);
    const file = await (await api(`/v2/claims/${built[0]!.id}/download`, { token: w.token })).text();
    expect(file).toMatch(/NM1\*85\*2\*CLINIC [A-Z0-9]+\*{5}XX\*1234567893~\nN3\*100 MAIN ST~\nN4\*MIAMI\*FL\*331011234~/);
    expect(file).toContain("N4*MIAMI*FL*33102~");
  });

  it("403 without manage_claims; 404 for another location's claim and notes; 4xx for bad input", async () => {
    const w = await world();
    const n = await w.note();
    const built = ((await (await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [n] } })).json()) as { data: { id: number }[] }).data;
    const id = built[0]!.id;
    const nobody = await apiToken(await createUser({ permissions: ["view_notes", "manage_notes"], locations: [w.location.id] }));
    for (const [method, path] of [
      ["GET", "/v2/claims"],
      ["GET", `/v2/claims/${id}`],
      ["GET", `/v2/claims/${id}/download`],
      ["POST", "/v2/claims"],
      ["POST", "/v2/claims/generate"],
      ["POST", `/v2/claims/${id}/send`],
      ["POST", `/v2/claims/${id}/status`],
      ["GET", "/v2/claims/billable-notes"],
    ] as const) {
      expect((await api(path, { method, token: nobody, body: method === "POST" ? {} : undefined })).status, `${method} ${path}`).toBe(403);
    }
    const elsewhere = await createLocation();
    const outsider = await apiToken(await createUser({ permissions: ["manage_claims"], locations: [elsewhere.id] }));
    expect((await api(`/v2/claims/${id}`, { token: outsider })).status).toBe(404);
    expect((await api(`/v2/claims/${id}/send`, { method: "POST", token: outsider })).status).toBe(404);
    expect((await api(`/v2/claims/${id}/status`, { method: "POST", token: outsider, body: { status: "rejected" } })).status).toBe(404);
    expect((await api("/v2/claims/generate", { method: "POST", token: outsider, body: { claim_ids: [id] } })).status).toBe(404);
    const n2 = await w.note({ sessionDate: "2026-11-20" });
    // Another location's note is not among the outsider's candidates: the same 422 as a note that does not exist.
    const outside = await api("/v2/claims", { method: "POST", token: outsider, body: { note_ids: [n2] } });
    expect(outside.status).toBe(422);
    expect(((await outside.json()) as { message: string }).message).toBe(CLAIM_MESSAGES.notCandidates([n2]));
    expect(((await (await api("/v2/claims", { token: outsider })).json()) as { data: unknown[] }).data).toEqual([]);
    // A filter naming a location the actor cannot see lists nothing (decision 017), as every list's does.
    for (const path of [`/v2/claims?location_id=${w.location.id}`, `/v2/claims/billable-notes?location_id=${w.location.id}`]) {
      const res = await api(path, { token: outsider });
      expect(res.status, path).toBe(200);
      expect(((await res.json()) as { data: unknown[] }).data, path).toEqual([]);
    }

    const before = await claimCount();
    // An empty choice and a value that is not an id each get their own message (probe 9007 §4: "abc" got the first).
    for (const [body, message] of [
      [{}, "Choose at least one billed note."],
      [{ note_ids: [] }, "Choose at least one billed note."],
      [{ note_ids: ["x"] }, "Note ids are whole numbers."],
      [{ note_ids: -1 }, "Note ids are whole numbers."],
      [{ note_ids: "abc" }, "Note ids are whole numbers."],
    ] as const) {
      const res = await api("/v2/claims", { method: "POST", token: w.token, body });
      expect(res.status).toBe(422);
      // The person's words, never the validation library's.
      expect(((await res.json()) as { message: string }).message).toBe(message);
    }
    expect((await api(`/v2/claims/${id}/status`, { method: "POST", token: w.token, body: { status: "paid" } })).status).toBe(422);
    const lost = await api("/v2/claims?status=lost", { token: w.token });
    expect(lost.status).toBe(422);
    expect(((await lost.json()) as { message: string }).message).toBe("Choose a status from the list.");
    expect((await api("/v2/claims/abc", { token: w.token })).status).toBe(404);
    expect(await claimCount()).toBe(before);
  });
});

/** A model call's context for `user`, on `database` (a racing one from beforeWriteDb). */
async function ctxOf(user: TestUser, database: Db) {
  return { db: database, actor: (await getActor(db(), "user", user.id))!, ip: "127.0.0.1", now: () => new Date() };
}

const auditRows = (entity: string, entityId?: number) =>
  db()
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.entity, entity), entityId === undefined ? undefined : eq(auditLog.entityId, String(entityId))));

describe("a claim bills what its notes say, whichever of a build and a note change commits first (probe 8905 §1)", () => {
  const clinicianOf = (w: Awaited<ReturnType<typeof world>>) => createUser({ permissions: ["view_notes", "manage_notes", "ignore_time_limits"], locations: [w.location.id] });
  const noteRow = async (id: number) => (await db().select().from(notes).where(eq(notes.id, id)))[0]!;
  const linesOf = (noteId: number) =>
    db().select({ units: claimLines.units, modifiers: claimLines.modifiers, charge: claimLines.chargeCents }).from(claimLines).innerJoin(claimLineNotes, eq(claimLineNotes.claimLineId, claimLines.id)).where(eq(claimLineNotes.noteId, noteId));

  it.each([
    // A billed note's times change once its billing row unticks Billed (decision 034, stop 30); ticked again, it is billed anew.
    [
      "Billed unticked, the end time amended (8 → 6 units) and Billed ticked again",
      async (n: number, t: { clinician: string; manager: string }) => {
        const billed = (body: Record<string, unknown>) => api("/client_report/store", { method: "POST", token: t.manager, body: { note_id: n, ...body } });
        const unticked = await billed({ billed: false });
        expect(unticked.status).toBe(201);
        const amended = await api(`/v2/notes-rbt/${n}`, { method: "PATCH", token: t.clinician, body: { time_out: "10:30", amendment_reason: "wrong end time" } });
        expect(amended.status, await amended.clone().text()).toBe(200);
        return billed({ billed: true, version: ((await unticked.json()) as { data: { report: { version: number } } }).data.report.version });
      },
      { units: 6, md: null, billed: true },
      { units: 6, modifiers: "" },
    ],
    // A billed note's modifiers change on its billing row (decision 034, stop 30).
    ["a modifier change (HM → GT)", (n: number, t: { manager: string }) => api("/client_report/store", { method: "POST", token: t.manager, body: { note_id: n, md: "GT" } }), { units: 8, md: "GT" }, { units: 8, modifiers: "GT" }],
  ])("%s landing between the build's read and its write: 409, nothing built; a new build bills the change", async (_l, change, noteAfter, lineAfter) => {
    const w = await world();
    const other = await w.note({ sessionDate: "2026-11-03", timeIn: "09:00", timeOut: "11:00" });
    const n = await w.note({ timeIn: "09:00", timeOut: "11:00", md: noteAfter.md === "GT" ? "HM" : null });
    const clinician = await apiToken(await clinicianOf(w));
    const claimsBefore = await claimCount();
    const buildRowsBefore = (await auditRows("claim")).length;
    // The build reads and prices both notes; right before its write, the note is changed (200).
    const racing = beforeWriteDb(async () => {
      const res = await change(n, { clinician, manager: w.token });
      expect([200, 201], await res.clone().text()).toContain(res.status);
    }, 1);
    const result = await buildClaims(await ctxOf(w.manager, racing), { note_ids: [other, n] });
    expect(result).toEqual({ ok: false, status: 409, message: CLAIM_MESSAGES.notesChanged([n]), current: { changed_notes: [n] } });
    expect(result.ok ? "" : result.message).toBe(`Note ${n} was changed while the claims were being built, so nothing was built. Build again: the claims will bill what the notes say now.`);
    // Nothing written: no claim, no line for either note, no build audit row; the note keeps its change.
    expect(await claimCount()).toBe(claimsBefore);
    expect([await linesOf(n), await linesOf(other)]).toEqual([[], []]);
    expect((await auditRows("claim")).length).toBe(buildRowsBefore);
    expect(await noteRow(n)).toMatchObject(noteAfter);
    // Built again, the claim bills the note as it is now.
    const again = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [other, n] } });
    expect(again.status, await again.clone().text()).toBe(201);
    expect(await linesOf(n)).toEqual([expect.objectContaining(lineAfter)]);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it.each([
    // A billed note's times never change (decision 034, stop 30): of an amendment, md3 is what a claim alone holds.
    ["an amendment of md3", async (ctx: Awaited<ReturnType<typeof ctxOf>>, n: number) => updateNote(ctx, "rbt", n, { md3: "GT" }, { version: null, partial: true, amendmentReason: "wrong modifier" }), "md3"],
    // md3 (not a billing field: a billed note's md/md2 change only on its billing row) is held by a claim all the same.
    ["a modifier change", async (ctx: Awaited<ReturnType<typeof ctxOf>>, n: number) => setNoteModifiers(ctx, "rbt", n, { md3: "GT" }), "md"],
  ])("the other order: %s that read the note before a build committed is refused (422 on a claim), the note unchanged", async (_l, change, field) => {
    const w = await world();
    const n = await w.note({ timeIn: "09:00", timeOut: "11:00", md: "HM" });
    const clinician = await clinicianOf(w);
    const before = await noteRow(n);
    let claimNumber = "";
    const racing = beforeWriteDb(async () => {
      const res = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [n] } });
      expect(res.status, await res.clone().text()).toBe(201);
      claimNumber = ((await res.json()) as { data: { claim_number: string }[] }).data[0]!.claim_number;
    });
    const result = await change(await ctxOf(clinician, racing), n);
    expect(result).toMatchObject({ ok: false, status: 422, errors: { [field]: NOTE_MESSAGES.onClaim(`${claimNumber} (draft)`) } });
    expect(await noteRow(n)).toEqual(before);
    expect(await linesOf(n)).toEqual([expect.objectContaining({ units: 8, modifiers: "HM" })]);
  });
});

describe("a build's write is a fixed number of statements, whatever the number of claims (D1: 1,000 queries per invocation)", () => {
  /** `n` more clients of the world's location and payer, each with one billed note; the notes' ids, by client. */
  async function clientsWithNotes(w: Awaited<ReturnType<typeof world>>, n: number) {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const p = await createPatient({ locationId: w.location.id, insurerId: w.insurer.id, birthDate: "2018-04-02", gender: 1, details: JSON.stringify({ insuranceId: `M${seq}-${i}`, is_self_subscriber: true, address: "5 Palm Ave", city: "Miami", state: "FL", zip: "33102", diagnosis_code: "F84.0" }) });
      ids.push(await w.note({ patientId: p.id, sessionDate: `2026-11-${String(2 + (i % 20)).padStart(2, "0")}` }));
    }
    return ids;
  }
  /** `column` among `ids`, one bound value (more ids than D1 binds in one statement). */
  const among = (column: typeof notes.id | typeof claimLineNotes.noteId, ids: number[]) => sql`${column} in (select value from json_each(${JSON.stringify(ids)}))`;
  const claimsOfNotes = (noteIds: number[]) =>
    db()
      .select({ claimId: claims.id, claimNumber: claims.claimNumber, patientId: claims.patientId, lineNumber: claimLines.lineNumber, units: claimLines.units, noteId: claimLineNotes.noteId, notePatient: notes.patientId })
      .from(claimLineNotes)
      .innerJoin(claimLines, eq(claimLines.id, claimLineNotes.claimLineId))
      .innerJoin(claims, eq(claims.id, claimLines.claimId))
      .innerJoin(notes, eq(notes.id, claimLineNotes.noteId))
      .where(among(claimLineNotes.noteId, noteIds));

  it("120 clients' notes make 120 claims, each with its line and note and its own increasing number, in as many statements as one claim", async () => {
    const one = await world();
    const single = countingDb();
    const alone = await buildClaims(await ctxOf(one.manager, single.db), { note_ids: [await one.note()] });
    expect(alone.ok, JSON.stringify(alone)).toBe(true);

    const w = await world();
    const ids = await clientsWithNotes(w, 120);
    const claimsBefore = await claimCount();
    const counting = countingDb();
    const result = await buildClaims(await ctxOf(w.manager, counting.db), { note_ids: ids });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    const built = result.ok ? result.data : [];
    // The same statements as a build of one claim: the reads, then one write batch of 4 statements and the audit row.
    expect(counting.statements()).toBe(single.statements());
    expect(counting.roundTrips()).toBe(single.roundTrips());
    expect(counting.statements()).toBeLessThan(20);

    expect(built).toHaveLength(120);
    expect(await claimCount()).toBe(claimsBefore + 120);
    // Answered in the build's order (by client), numbered from their ids, increasing.
    const rows = await db().select({ id: notes.id, patientId: notes.patientId }).from(notes).where(among(notes.id, ids));
    expect(built.map((b) => b.patient_id)).toEqual(rows.map((r) => r.patientId).sort((a, b) => a - b));
    expect(built.map((b) => b.claim_number)).toEqual(built.map((b) => `C${String(b.id).padStart(7, "0")}`));
    expect(built.every((b, i) => i === 0 || b.id > built[i - 1]!.id)).toBe(true);
    expect(built.every((b) => b.lines === 1 && b.total_cents === 8 * 1250)).toBe(true);
    // Every note on one line of its own client's claim, under the number answered.
    const stored = await claimsOfNotes(ids);
    expect(stored).toHaveLength(120);
    const byNote = new Map(stored.map((s) => [s.noteId, s]));
    for (const r of rows) expect(byNote.get(r.id)).toMatchObject({ patientId: r.patientId, notePatient: r.patientId, lineNumber: 1, units: 8 });
    expect(new Set(stored.map((s) => s.claimId))).toEqual(new Set(built.map((b) => b.id)));
    expect(stored.map((s) => s.claimNumber).sort()).toEqual(built.map((b) => b.claim_number).sort());
    // One audit row for the build, naming every client; the chain holds.
    const [row] = await db().select().from(auditLog).where(and(eq(auditLog.entity, "claim"), eq(auditLog.action, "create"))).orderBy(desc(auditLog.id)).limit(1);
    expect(JSON.parse(row!.detail!)).toMatchObject({ patients: rows.map((r) => r.patientId).sort((a, b) => a - b), notes: ids });
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it.each([
    ["written", {}],
    ["refused (the location has no billing NPI)", { npi: null }],
  ] as const)("generating 40 claims into one 837P takes the statements of one claim's, %s", async (outcome, change) => {
    const generate = async (w: Awaited<ReturnType<typeof world>>, noteIds: number[]) => {
      const built = await buildClaims(await ctxOf(w.manager, db()), { note_ids: noteIds });
      expect(built.ok, JSON.stringify(built)).toBe(true);
      const claimIds = built.ok ? built.data.map((b) => b.id) : [];
      // The location loses its NPI after the build (the build itself refuses a location without one).
      if (outcome !== "written") await db().update(locations).set(change).where(eq(locations.id, w.location.id));
      const counting = countingDb();
      return { claimIds, result: await generateClaims(await ctxOf(w.manager, counting.db), { claim_ids: claimIds }), statements: counting.statements() };
    };
    const one = await world();
    const single = await generate(one, [await one.note()]);
    const w = await world();
    const many = await generate(w, await clientsWithNotes(w, 40));
    expect(many.statements).toBe(single.statements);
    const stored = await db().select().from(claims).where(sql`${claims.id} in (select value from json_each(${JSON.stringify(many.claimIds)}))`).orderBy(claims.id);
    expect(stored).toHaveLength(40);
    if (outcome === "written") {
      expect(many.result.ok, JSON.stringify(many.result)).toBe(true);
      const file = many.result.ok ? many.result.data : null;
      // Each claim generated into the one file with its own transaction set's control number and the data it was sent with.
      expect(stored.map((c) => [c.status, c.fileId])).toEqual(stored.map(() => ["generated", file!.file_id]));
      expect(stored.map((c) => c.setControl)).toEqual(file!.claims.map((c) => c.set_control));
      expect(new Set(stored.map((c) => c.setControl)).size).toBe(40);
      expect(stored.map((c) => (JSON.parse(c.sentData!) as { claimNumber: string }).claimNumber)).toEqual(stored.map((c) => c.claimNumber));
    } else {
      expect(many.result).toMatchObject({ ok: false, status: 422 });
      // Every claim stays a draft and keeps the reasons its 837P was refused.
      expect(stored.every((c) => c.status === "draft" && c.fileId === null)).toBe(true);
      expect(stored.every((c) => (JSON.parse(c.errors!) as unknown[]).length > 0)).toBe(true);
    }
  });

  it.each([
    ["a note changed (its modifier)", "changed"],
    ["a note taken by another build", "taken"],
  ] as const)("%s between the read and the write of a build of several clients: 409, no claim, line, link or audit row of it", async (_l, race) => {
    const w = await world();
    const ids = await clientsWithNotes(w, 5);
    const n = ids[2]!;
    const claimsBefore = await claimCount();
    const buildRowsBefore = (await auditRows("claim")).length;
    const racing = beforeWriteDb(async () => {
      const res = race === "changed" ? await api("/client_report/store", { method: "POST", token: w.token, body: { note_id: n, md: "GT" } }) : await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [n] } });
      expect(res.status, await res.clone().text()).toBe(201);
    }, 1);
    const result = await buildClaims(await ctxOf(w.manager, racing), { note_ids: ids });
    expect(result).toEqual({ ok: false, status: 409, message: race === "changed" ? CLAIM_MESSAGES.notesChanged([n]) : CLAIM_MESSAGES.notesTaken, current: { changed_notes: race === "changed" ? [n] : [] } });
    // Only the other build's claim (of note n) was written; no claim, line or link of this build; no audit row of it.
    const others = race === "taken" ? 1 : 0;
    expect(await claimCount()).toBe(claimsBefore + others);
    expect((await claimsOfNotes(ids)).map((s) => s.noteId)).toEqual(race === "taken" ? [n] : []);
    expect((await db().select({ n: count() }).from(claims).where(like(claims.claimNumber, "tmp-%")))[0]!.n).toBe(0);
    expect((await auditRows("claim")).length).toBe(buildRowsBefore + others);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });
});

describe("sending a claim twice at once sends it once (probe 8905 §3)", () => {
  /** A sender that counts the files handed to it, and answers `fail` when told. */
  function countingSender(fail: string | null = null): ClaimSender & { files: ClaimFileToSend[] } {
    const files: ClaimFileToSend[] = [];
    return { name: "clearinghouse-test", files, send: async (file) => (files.push(file), fail ? { ok: false, message: fail } : { ok: true }) };
  }
  async function generated(w: Awaited<ReturnType<typeof world>>) {
    const n = await w.note();
    const built = ((await (await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [n] } })).json()) as { data: { id: number }[] }).data[0]!;
    expect((await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [built.id] } })).status).toBe(201);
    return built.id;
  }
  const claimRow = async (id: number) => (await db().select().from(claims).where(eq(claims.id, id)))[0]!;
  const sendRows = async (id: number) => (await auditRows("claim", id)).filter((a) => a.action === "send" || a.action === "send_failed").map((a) => a.action);

  it("the second send, which read the claim generated, answers 409 without calling the sender; one send audit row", async () => {
    const w = await world();
    const id = await generated(w);
    const sender = countingSender();
    let first: Awaited<ReturnType<typeof sendClaim>> | null = null;
    // Both read the claim as generated; the first one's write and send land before the second one writes.
    // skip 1: the send's read is a batch too (the claim and its file's claims).
    const racing = beforeWriteDb(async () => {
      first = await sendClaim(await ctxOf(w.manager, db()), id, sender);
    }, 1);
    const second = await sendClaim(await ctxOf(w.manager, racing), id, sender);
    expect(first).toMatchObject({ ok: true, message: "Claim sent.", data: { sender: "clearinghouse-test", claims: 1 } });
    expect(second).toMatchObject({ ok: false, status: 409, message: "The claim is sent; only a generated claim is sent." });
    expect(sender.files).toHaveLength(1);
    expect(await sendRows(id)).toEqual(["send"]);
    const claim = await claimRow(id);
    expect(claim.status).toBe("sent");
    const [file] = await db().select().from(x12Files).where(eq(x12Files.id, claim.fileId!));
    expect(file!.sender).toBe("clearinghouse-test");
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("the screen and the API share it: a screen send landing between the API's read and write wins; the API's send is refused, the sender called once", async () => {
    const w = await world();
    const id = await generated(w);
    const cookie = await signInCookie(w.manager);
    const sender = countingSender();
    const racing = beforeWriteDb(async () => {
      const screen = await form(`/claims/edit-viewer/${id}`, { intent: "send" }, cookie);
      expect(screen.status).toBe(303);
      expect(decodeURIComponent(screen.headers.get("Location") ?? "")).toContain("Claim sent.");
    }, 1);
    // sendClaim is what POST /api/v2/claims/{id}/send calls.
    expect(await sendClaim(await ctxOf(w.manager, racing), id, sender)).toMatchObject({ ok: false, status: 409, message: "The claim is sent; only a generated claim is sent." });
    expect(sender.files).toHaveLength(0);
    expect(await sendRows(id)).toEqual(["send"]);
    // A send after that (no overlap) is refused before any write: 422, on the API and on the screen.
    const late = await api(`/v2/claims/${id}/send`, { method: "POST", token: w.token });
    expect(late.status).toBe(422);
    expect(((await late.json()) as { message: string }).message).toBe("The claim is sent; only a generated claim is sent.");
    const lateScreen = await form(`/claims/edit-viewer/${id}`, { intent: "send" }, cookie);
    expect(lateScreen.status).toBe(422);
    expect((await lateScreen.text()).replaceAll("&#x27;", "'")).toContain("The claim is sent; only a generated claim is sent.");
    expect(await sendRows(id)).toEqual(["send"]);
  });

  it("a sender that fails: the claim is generated again (a send_failed row), the file unsent, and a later send goes out", async () => {
    const w = await world();
    const id = await generated(w);
    const before = await claimRow(id);
    const failing = countingSender("the clearinghouse refused the connection.");
    const result = await sendClaim(await ctxOf(w.manager, db()), id, failing);
    expect(result).toEqual({ ok: false, status: 422, message: CLAIM_MESSAGES.notSent("the clearinghouse refused the connection.", true), errors: { status: CLAIM_MESSAGES.notSent("the clearinghouse refused the connection.", true) } });
    expect(result.ok ? "" : result.message).toBe("The file was not sent: the clearinghouse refused the connection. The claim is generated again: send it again later.");
    expect(failing.files).toHaveLength(1);
    const after = await claimRow(id);
    expect(after.status).toBe("generated");
    expect(after.version).toBe(before.version + 2);
    const [file] = await db().select().from(x12Files).where(eq(x12Files.id, after.fileId!));
    expect([file!.sender, file!.sentAt]).toEqual([null, null]);
    expect(await sendRows(id)).toEqual(["send", "send_failed"]);
    // A sender that throws is a failure too.
    const throwing: ClaimSender = { name: "broken", send: async () => { throw new Error("socket hang up"); } };
    expect(await sendClaim(await ctxOf(w.manager, db()), id, throwing)).toMatchObject({ ok: false, status: 422, message: CLAIM_MESSAGES.notSent(CLAIM_MESSAGES.senderDidNotAnswer, true) });
    expect((await claimRow(id)).status).toBe("generated");
    const ok = countingSender();
    expect(await sendClaim(await ctxOf(w.manager, db()), id, ok)).toMatchObject({ ok: true, message: "Claim sent." });
    expect(ok.files).toHaveLength(1);
    expect((await claimRow(id)).status).toBe("sent");
    // Both attempts carried the file's ISA13 as the idempotency key, so a clearinghouse drops a repeat it had delivered.
    const isa13 = file!.content.split("*")[13];
    expect(isa13).toMatch(/^\d{9}$/);
    expect([failing.files[0]!.idempotencyKey, ok.files[0]!.idempotencyKey]).toEqual([isa13, isa13]);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });
});

describe("screens /claims and /claims/edit-viewer/:id", () => {
  it.each([
    ["To before From", "date_from=2026-11-20&date_to=2026-11-01", "date_to", "To must be on or after From."],
    ["a date that is not real", "date_from=2026-11-40", "date_from", "Dates must be real dates like 2026-01-31."],
    ["a real To with an impossible From", "date_from=2026-02-30&date_to=2026-03-01", "date_from", "Dates must be real dates like 2026-01-31."],
  ])("a refused list filter (%s): its error beside the field, the typed dates kept, no claim listed", async (_l, qs, field, message) => {
    const w = await world();
    const n = await w.note();
    const built = ((await (await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [n] } })).json()) as { data: { claim_number: string }[] }).data[0]!;
    const cookie = await signInCookie(w.manager);
    const res = await request(`/claims?status=draft&${qs}`, { cookie });
    expect(res.status).toBe(200);
    const page = (await res.text()).replaceAll("&#x27;", "'");
    expect(new RegExp(`<p id="f-${field}-error" class="field-error" role="alert">([^<]*)</p>`).exec(page)?.[1]).toBe(message);
    expect(page).toMatch(new RegExp(`<input id="f-${field}"[^>]*aria-invalid="true"`));
    const typed = Object.fromEntries(new URLSearchParams(qs));
    for (const k of ["date_from", "date_to"]) expect(new RegExp(`<input id="f-${k}"[^>]*value="([^"]*)"`).exec(page)?.[1] ?? "").toBe(typed[k] ?? "");
    expect(page).toContain("Nothing is listed until the filters marked above are corrected.");
    expect(page).not.toContain(built.claim_number);
    // The same filters in order list the claim.
    const fine = await (await request(`/claims?status=draft&date_from=2026-01-01&date_to=2099-12-31`, { cookie })).text();
    expect(fine).toContain(built.claim_number);
  });

  it("the build form's To before From is refused with its message; the list still shows", async () => {
    const w = await world();
    await w.note();
    const cookie = await signInCookie(w.manager);
    const page = await (await request(`/claims?pick=1&b_location_id=${w.location.id}&b_from=2026-11-20&b_to=2026-11-01`, { cookie })).text();
    expect(page).toContain("To must be on or after From.");
    expect(page).not.toContain("Nothing is listed until the filters marked above are corrected.");
  });

  it("the note picker and billable-notes name the provider the claim bills, not the typed signer (probe 8912)", async () => {
    const w = await world();
    const n = await w.note({ providerName: "Probe Signer" });
    const api1 = (await (await api(`/v2/claims/billable-notes?location_id=${w.location.id}`, { token: w.token })).json()) as { data: { id: number; provider_name: string }[] };
    expect(api1.data.find((x) => x.id === n)?.provider_name).toBe("Rita Baker");
    const page = await (await request(`/claims?pick=1&b_location_id=${w.location.id}`, { cookie: await signInCookie(w.manager) })).text();
    expect(page.replace(/<!-- -->/g, "")).toContain(`Rita Baker (note ${n})`);
    expect(page).not.toContain("Probe Signer");
    // A note naming no provider user keeps its typed name (nothing better to show).
    const none = await w.note({ providerId: null, providerName: "Typed Only", sessionDate: "2026-11-03" });
    const api2 = (await (await api(`/v2/claims/billable-notes?location_id=${w.location.id}`, { token: w.token })).json()) as typeof api1;
    expect(api2.data.find((x) => x.id === none)?.provider_name).toBe("Typed Only");
  });

  it("the viewer's words fit each case: voided before generation (no file), generated, generated before the viewer kept what was sent (probe 8912)", async () => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    const build = async (date: string) => ((await (await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [await w.note({ sessionDate: date })] } })).json()) as { data: { id: number }[] }).data[0]!.id;
    const viewer = async (id: number) => (await (await request(`/claims/edit-viewer/${id}`, { cookie })).text()).replace(/<!-- -->/g, "").replace(/&#x27;/g, "'");
    const FILE_BELOW = "The file below is what was sent.";
    const VOIDED = "Voided before any 837P file was generated: nothing was written or sent for this claim.";

    // A draft voided before it was generated: no file, and the viewer says so.
    const voided = await build("2026-11-02");
    expect((await api(`/v2/claims/${voided}/status`, { method: "POST", token: w.token, body: { status: "rejected" } })).status).toBe(200);
    const v = await viewer(voided);
    expect(v).toContain("<dd>not generated</dd>");
    expect(v).toContain(VOIDED);
    expect(v).toContain("No 837P was written: the claim was voided before it was generated.");
    expect(v).not.toContain(FILE_BELOW);
    expect(v).not.toContain("The 837P is written when the claim is generated.");

    // Generated (then voided too): what was sent, as before.
    const generated = await build("2026-11-03");
    expect((await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [generated] } })).status).toBe(201);
    const g = await viewer(generated);
    expect(g).toContain("As sent in the 837P: later changes to the client, payer or providers do not change this claim.");
    expect(g).not.toContain(VOIDED);
    expect((await api(`/v2/claims/${generated}/status`, { method: "POST", token: w.token, body: { status: "rejected" } })).status).toBe(200);
    expect(await viewer(generated)).not.toContain(VOIDED);

    // Generated before the viewer kept what was sent (no stored copy): today's records, and the file below.
    const older = await build("2026-11-04");
    expect((await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [older] } })).status).toBe(201);
    await db().update(claims).set({ sentData: null }).where(eq(claims.id, older));
    const o = await viewer(older);
    expect(o).toContain(`From today's records: this claim was generated before the viewer kept what was sent. ${FILE_BELOW}`);
    expect(o).not.toContain(VOIDED);
  });

  it("a draft voided before generation no longer lists the problems its generation found, on the viewer or the list (probe 8912)", async () => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    const built = (await (await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [await w.note()] } })).json()) as { data: { id: number; claim_number: string }[] };
    const { id, claim_number } = built.data[0]!;
    // The location loses its NPI after the build: generating is refused and the draft keeps the reasons.
    await db().update(locations).set({ npi: null }).where(eq(locations.id, w.location.id));
    expect((await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [id] } })).status).toBe(422);
    const errors = JSON.parse((await db().select({ errors: claims.errors }).from(claims).where(eq(claims.id, id)))[0]!.errors!) as unknown[];
    expect(errors.length).toBeGreaterThan(0);
    const listRow = async () => {
      const html = (await (await request(`/claims?location_id=${w.location.id}`, { cookie })).text()).replace(/<!-- -->/g, "");
      return html.slice(html.indexOf(`<td>${claim_number}</td>`), html.indexOf("</tr>", html.indexOf(`<td>${claim_number}</td>`)));
    };
    expect(await listRow()).toContain(`${errors.length} to fix`);
    expect(await (await request(`/claims/edit-viewer/${id}`, { cookie })).text()).toContain("To fix before the 837P can be written");
    expect((await api(`/v2/claims/${id}/status`, { method: "POST", token: w.token, body: { status: "rejected" } })).status).toBe(200);
    expect(await listRow()).not.toContain("to fix");
    expect(await (await request(`/claims/edit-viewer/${id}`, { cookie })).text()).not.toContain("To fix before the 837P can be written");
  });

  it("builds from the form without JavaScript, shows the draft, generates, downloads; guards", async () => {
    const w = await world();
    const n = await w.note();
    const cookie = await signInCookie(w.manager);
    const list = await request(`/claims?pick=1&b_location_id=${w.location.id}`, { cookie });
    expect(list.status).toBe(200);
    const html = await list.text();
    expect(html).toContain(`value="${n}"`);
    const post = await form("/claims", { intent: "build", note_ids: String(n) }, cookie);
    expect(post.status).toBe(303);
    const to = post.headers.get("Location")!;
    expect(to).toMatch(/^\/claims\/edit-viewer\/\d+\?flash=/);
    const id = Number(/edit-viewer\/(\d+)/.exec(to)![1]);
    const viewer = await request(to, { cookie });
    expect(viewer.status).toBe(200);
    expect(await viewer.text()).toContain("Generate 837P");
    const gen = await form(`/claims/edit-viewer/${id}`, { intent: "generate" }, cookie);
    expect(gen.status).toBe(303);
    const page = await (await request(`/claims/edit-viewer/${id}`, { cookie })).text();
    expect(page).toContain("Billing provider tax id");
    expect(page).toContain("As sent in the 837P");

    // What was sent stays what the viewer shows: the location's NPI and the payer's name edited afterwards
    // change neither the screen nor the API's data (stop 24's probe saw today's NPI beside the sent file).
    await db().update(locations).set({ npi: "1245319599" }).where(eq(locations.id, w.location.id));
    await db().update(insurances).set({ name: "Renamed Payer" }).where(eq(insurances.id, w.insurer.id));
    const after = await (await request(`/claims/edit-viewer/${id}`, { cookie })).text();
    expect(after).toContain("NPI 1234567893");
    expect(after).not.toContain("1245319599");
    expect(after).not.toContain("Renamed Payer");
    const shown = (await (await api(`/v2/claims/${id}`, { token: w.token })).json()) as { data: { data_source: string; data: { billingProvider: { npi: string }; payer: { name: string } } } };
    expect(shown.data.data_source).toBe("sent");
    expect(shown.data.data.billingProvider.npi).toBe("1234567893");
    expect(shown.data.data.payer.name).toMatch(/^Florida Blue/);
    const dl = await request(`/claims/edit-viewer/${id}/download`, { cookie });
    expect(dl.status).toBe(200);
    expect(dl.headers.get("Content-Type")).toMatch(/application\/edi-x12/);
    readBack837(await dl.text());

    // Bad input: nothing chosen → the form's message, nothing built.
    const before = await claimCount();
    const bad = await form("/claims", { intent: "build" }, cookie);
    expect(bad.status).toBe(422);
    expect(await claimCount()).toBe(before);

    const plain = await signInCookie(await createUser({ permissions: ["view_notes"], locations: [w.location.id] }));
    expect((await request("/claims", { cookie: plain })).status).toBe(403);
    expect((await request(`/claims/edit-viewer/${id}`, { cookie: plain })).status).toBe(403);
    expect((await request(`/claims/edit-viewer/${id}/download`, { cookie: plain })).status).toBe(403);
    const other = await signInCookie(await createUser({ permissions: ["manage_claims"], locations: [(await createLocation()).id] }));
    expect((await request(`/claims/edit-viewer/${id}`, { cookie: other })).status).toBe(404);
    expect((await request(`/claims/edit-viewer/${id}/download`, { cookie: other })).status).toBe(404);
    expect((await form(`/claims/edit-viewer/${id}`, { intent: "send" }, other)).status).toBe(404);
  });
});

describe("a draft is priced again when its 837P is generated; a generated claim keeps what it sent (probe 8912 §2, §4)", () => {
  const linesOfClaim = (claimId: number) => db().select({ unitPrice: claimLines.unitPriceCents, multiplier: claimLines.multiplier, charge: claimLines.chargeCents }).from(claimLines).where(eq(claimLines.claimId, claimId));
  const claimRow = async (claimId: number) => (await db().select().from(claims).where(eq(claims.id, claimId)))[0]!;
  const setService = (w: Awaited<ReturnType<typeof world>>, set: Partial<typeof insuranceServices.$inferInsert>) =>
    db().update(insuranceServices).set(set).where(and(eq(insuranceServices.insuranceId, w.insurer.id), eq(insuranceServices.cptCode, "97153")));
  const built = async (w: Awaited<ReturnType<typeof world>>, noteIds: number[]) => {
    const res = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: noteIds } });
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { data: { id: number; claim_number: string; total_cents: number }[] }).data[0]!;
  };
  const generated = async (w: Awaited<ReturnType<typeof world>>, claimId: number) => {
    const res = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [claimId] } });
    expect(res.status, await res.clone().text()).toBe(201);
    return (await api(`/v2/claims/${claimId}/download`, { token: w.token })).text();
  };

  it.each([
    // 8 units × $13.49 = $107.92.
    ["the payer's unit price ($12.50 → $13.49)", { unitPrice: 13.49 }, { unitPrice: 1349, multiplier: 1, charge: 10792 }, "$13.49"],
    // 8 units × $12.50 × 1.15 = $115.00.
    ["the service's multiplier (1 → 1.15)", { multiplier: 1.15 }, { unitPrice: 1250, multiplier: 1.15, charge: 11500 }, "$12.50 × 1.15"],
  ] as const)("%s changed after the build: the 837P, the lines, the total, the list and the viewer say today's price, as the billing row does", async (_l, change, today, unitPriceCell) => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    // A claim generated before the change, and a draft built before it.
    const old = await built(w, [await w.note({ sessionDate: "2026-11-02" })]);
    const oldFile = await generated(w, old.id);
    const n = await w.note({ sessionDate: "2026-11-03" });
    const draft = await built(w, [n]);
    expect(draft.total_cents).toBe(10000);
    const draftPage = await (await request(`/claims/edit-viewer/${draft.id}`, { cookie })).text();
    expect(draftPage).toContain("Generating its 837P prices it again from the payer&#x27;s services as they are then");
    expect(draftPage).not.toContain("×");

    await setService(w, change);
    const billingRow = ((await (await api(`/client_report/byprofile/${w.patient.id}?date_start=2026-11-03&date_end=2026-11-03`, { token: w.token })).json()) as { noteRbts: { id: number; charges_cents: number }[] }).noteRbts.find((r) => r.id === n)!;
    expect(billingRow.charges_cents).toBe(today.charge);

    const file = await generated(w, draft.id);
    const dollars = (today.charge / 100).toFixed(2);
    expect(file).toContain(`CLM*${draft.claim_number}*${dollars}*`);
    expect(file).toContain(`SV1*HC:97153*${dollars}*UN*8*`);
    expect(await linesOfClaim(draft.id)).toEqual([today]);
    const stored = await claimRow(draft.id);
    expect(stored.totalCents).toBe(today.charge);
    expect((JSON.parse(stored.sentData!) as { lines: { chargeCents: number }[] }).lines.map((l) => l.chargeCents)).toEqual([today.charge]);
    const listed = ((await (await api(`/v2/claims?status=generated&patient_id=${w.patient.id}`, { token: w.token })).json()) as { data: { id: number; total_cents: number }[] }).data;
    expect(listed.find((c) => c.id === draft.id)!.total_cents).toBe(today.charge);
    const page = await (await request(`/claims/edit-viewer/${draft.id}`, { cookie })).text();
    expect(page).toContain(`<td>${unitPriceCell}</td><td>$${dollars}</td>`);

    // The claim generated before the change keeps what it sent: lines, total, file.
    expect(await linesOfClaim(old.id)).toEqual([{ unitPrice: 1250, multiplier: 1, charge: 10000 }]);
    expect((await claimRow(old.id)).totalCents).toBe(10000);
    expect(await (await api(`/v2/claims/${old.id}/download`, { token: w.token })).text()).toBe(oldFile);
    expect(oldFile).toContain(`CLM*${old.claim_number}*100.00*`);
  });

  type World = Awaited<ReturnType<typeof world>>;
  it.each([
    // A note with its own price ($13.49) and one at the payer's ($12.50) on the same day are two lines; at $13.49 they would be one.
    ["a price change merges two lines", async (w: World): Promise<void> => void (await setService(w, { unitPrice: 13.49 }))],
    ["the client's payer changed", async (w: World): Promise<void> => {
      const [other] = await db().insert(insurances).values({ name: `Other Payer ${seq}`, payerId: "00999" }).returning();
      await db().insert(insuranceServices).values({ insuranceId: other!.id, cptCode: "97153", provider: "rbt", type: "rbt", unitPrice: 12.5 });
      await db().update(paServices).set({ insuranceId: other!.id }).where(eq(paServices.patientId, w.patient.id));
    }],
  ] as const)("a draft whose notes no longer make the same claim and lines (%s): 409 telling to void and rebuild, nothing written", async (_l, change) => {
    const w = await world();
    const draft = await built(w, [await w.note(), await w.note({ unitPriceCents: 1349 })]);
    const linesBefore = await linesOfClaim(draft.id);
    expect(linesBefore).toHaveLength(2);
    const filesBefore = (await db().select({ n: count() }).from(x12Files))[0]!.n;
    await change(w);
    const res = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [draft.id] } });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { message: string }).message).toBe(CLAIM_MESSAGES.regrouped([draft.claim_number]));
    expect(CLAIM_MESSAGES.regrouped([draft.claim_number])).toMatch(/Void the claim \(reject\) and build again from its notes\./);
    expect(await claimRow(draft.id)).toMatchObject({ status: "draft", fileId: null, totalCents: draft.total_cents, sentData: null });
    expect(await linesOfClaim(draft.id)).toEqual(linesBefore);
    expect((await db().select({ n: count() }).from(x12Files))[0]!.n).toBe(filesBefore);
  });

  /** The note's billing record with a PA number (what the billing screen saves), and a change of it through the API. */
  const billingRecord = async (w: World, noteId: number, paNumber: string) => {
    const [row] = await db().insert(clientReports).values({ noteId, noteType: "rbt", patientId: w.patient.id, locationId: w.location.id, sessionDate: "2026-11-02", paNumber }).returning();
    return row!.id;
  };
  const changePaNumber = async (w: World, reportId: number, noteId: number, paNumber: string) => {
    const [r] = await db().select({ version: clientReports.version }).from(clientReports).where(eq(clientReports.id, reportId));
    const [n] = await db().select({ version: notes.version }).from(notes).where(eq(notes.id, noteId));
    const res = await api(`/client_report/update/${reportId}`, { method: "POST", token: w.token, body: { pa_number: paNumber, version: r!.version, note_version: n!.version } });
    expect(res.status, await res.clone().text()).toBe(200);
  };
  const paNumbers = async (claimId: number) => (await db().select({ pa: claimLines.paNumber }).from(claimLines).where(eq(claimLines.claimId, claimId))).map((l) => l.pa);

  it("the billing record's PA number changed after the build: the 837P and the stored line carry today's; a claim generated before keeps its file (probe 8914 §2)", async () => {
    const w = await world();
    const oldNote = await w.note({ sessionDate: "2026-11-02" });
    const oldReport = await billingRecord(w, oldNote, "AUTH-9");
    const old = await built(w, [oldNote]);
    const oldFile = await generated(w, old.id);
    expect(oldFile).toContain("REF*G1*AUTH-9~");

    const n = await w.note({ sessionDate: "2026-11-02" });
    const report = await billingRecord(w, n, "AUTH-9");
    const draft = await built(w, [n]);
    expect(await paNumbers(draft.id)).toEqual(["AUTH-9"]);
    await changePaNumber(w, report, n, "AUTH-10");
    await changePaNumber(w, oldReport, oldNote, "AUTH-10");

    const file = await generated(w, draft.id);
    expect(file).toContain("REF*G1*AUTH-10~");
    expect(file).not.toContain("AUTH-9");
    expect(await paNumbers(draft.id)).toEqual(["AUTH-10"]);
    expect((JSON.parse((await claimRow(draft.id)).sentData!) as { lines: { paNumber: string }[] }).lines.map((l) => l.paNumber)).toEqual(["AUTH-10"]);

    // Generated before the change: its line and file stay as sent.
    expect(await paNumbers(old.id)).toEqual(["AUTH-9"]);
    expect(await (await api(`/v2/claims/${old.id}/download`, { token: w.token })).text()).toBe(oldFile);
  });

  it("a PA number saved after the build, where the line took the PA service's name, is sent (probe 8914 §2, first run)", async () => {
    const w = await world();
    const n = await w.note();
    const draft = await built(w, [n]);
    const [service] = await db().select({ name: paServices.paService }).from(paServices).where(eq(paServices.patientId, w.patient.id));
    expect(await paNumbers(draft.id)).toEqual([service!.name]);
    await billingRecord(w, n, "AUTH-9");
    expect(await generated(w, draft.id)).toContain("REF*G1*AUTH-9~");
    expect(await paNumbers(draft.id)).toEqual(["AUTH-9"]);
  });

  it("one note of a line given another PA number after the build: the line would split, so 409 and nothing written", async () => {
    const w = await world();
    const a = await w.note();
    const b = await w.note();
    await billingRecord(w, a, "AUTH-9");
    const report = await billingRecord(w, b, "AUTH-9");
    const draft = await built(w, [a, b]);
    expect(await paNumbers(draft.id)).toEqual(["AUTH-9"]);
    await changePaNumber(w, report, b, "AUTH-10");
    const res = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [draft.id] } });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { message: string }).message).toBe(CLAIM_MESSAGES.regrouped([draft.claim_number]));
    expect(await claimRow(draft.id)).toMatchObject({ status: "draft", fileId: null, sentData: null });
    expect(await paNumbers(draft.id)).toEqual(["AUTH-9"]);
  });

  it("the client profile's diagnoses changed after the build: the 837P and the claim carry today's", async () => {
    const w = await world();
    const draft = await built(w, [await w.note()]);
    expect((await claimRow(draft.id)).diagnosisCodes).toBe("F84.0");
    const details = JSON.parse(w.patient.details ?? "{}") as Record<string, unknown>;
    await db().update(patients).set({ details: JSON.stringify({ ...details, secondary_diagnosis_codes: "F80.9" }) }).where(eq(patients.id, w.patient.id));
    const file = await generated(w, draft.id);
    expect(file).toContain("HI*ABK:F840*ABF:F809~");
    expect((await claimRow(draft.id)).diagnosisCodes).toBe("F84.0,F80.9");
  });
});

describe("names and addresses go out in X12's characters and whole, or the claim says why (probe 8921 §1, §2)", () => {
  const long = "12345 North Very Long Boulevard Name Extension, Building 7, Suite 1200 East Wing";
  /** The client is a dependent: the parent (José Müller, at 5 Palm Ave, Miami) is the subscriber. */
  const dependent = async (w: Awaited<ReturnType<typeof world>>, set: { firstName: string; lastName: string; address?: string; city?: string }) => {
    const details = { ...(JSON.parse(w.patient.details ?? "{}") as Record<string, unknown>), is_self_subscriber: false, parent_name: "José Müller", parent_birth_date: "1985-03-04", parent_address: "5 Palm Ave", parent_city: "Miami", address: set.address ?? "5 Palm Ave", city: set.city ?? "Miami" };
    await db().update(patients).set({ firstName: set.firstName, lastName: set.lastName, details: JSON.stringify(details) }).where(eq(patients.id, w.patient.id));
  };
  const build = async (w: Awaited<ReturnType<typeof world>>) => {
    const res = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [await w.note()] } });
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { data: { id: number; errors: { field: string; message: string }[] }[] }).data[0]!;
  };
  const generate = (w: Awaited<ReturnType<typeof world>>, id: number) => api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [id] } });
  const fileCount = async () => (await db().select({ n: count() }).from(x12Files))[0]!.n;

  it("Zoë Núñez-O’Brien, child of José Müller, with a long street: built without issues, written in upper-case ASCII, the street on N301 and N302", async () => {
    const w = await world();
    await dependent(w, { firstName: "Zoë", lastName: "Núñez-O’Brien", address: long });
    const draft = await build(w);
    expect(draft.errors).toEqual([]);
    const gen = await generate(w, draft.id);
    expect(gen.status, await gen.clone().text()).toBe(201);
    const content = await (await api(`/v2/claims/${draft.id}/download`, { token: w.token })).text();
    readBack837(content);
    expect(content).toContain("NM1*IL*1*MULLER*JOSE****MI*");
    expect(content).toContain("NM1*QC*1*NUNEZ-O'BRIEN*ZOE~\nN3*12345 NORTH VERY LONG BOULEVARD NAME EXTENSION,*BUILDING 7, SUITE 1200 EAST WING~\nN4*MIAMI*FL*33102~");
    expect(content).toMatch(/^[\x20-\x7e\n]*$/);
    // What the viewer says was sent is the record, whole: the file is that, in X12's characters.
    const shown = (await (await api(`/v2/claims/${draft.id}`, { token: w.token })).json()) as { data: { data_source: string; data: { patient: { firstName: string; lastName: string; address: string }; subscriber: { firstName: string; lastName: string } } } };
    expect(shown.data.data_source).toBe("sent");
    expect(shown.data.data.patient).toMatchObject({ firstName: "Zoë", lastName: "Núñez-O’Brien", address: long });
    expect(shown.data.data.subscriber).toMatchObject({ firstName: "José", lastName: "Müller" });
  });

  it.each([
    ["a first name longer than NM104", { firstName: "Alexandrina Maximiliana Christabel Rose", lastName: "Davis" }, "patient.first_name", "Client first name is longer than the 35 characters a claim can carry. Shorten it on the client's profile."],
    ["a city longer than N401", { firstName: "Ana", lastName: "Davis", city: "Rancho Santa Margarita Heights Village" }, "patient.city", "Client city is longer than the 30 characters a claim can carry. Shorten it on the client's profile."],
    ["a street longer than N301 and N302", { firstName: "Ana", lastName: "Davis", address: `${long}, Across From The Old Library On The Corner` }, "patient.address", "Client address is longer than the two lines of 55 characters a claim can carry. Shorten it on the client's profile."],
    ["a name in another script", { firstName: "山田", lastName: "Davis" }, "patient.first_name", "Client first name contains '山', which a claim cannot carry (letters, digits and basic punctuation only). Edit it on the client's profile."],
  ])("%s: the build refuses the note with the scrubber's reason; a draft built before answers 422 to generating and writes nothing", async (_name, set, field, message) => {
    const w = await world();
    const draft = await build(w);
    await dependent(w, set);
    const later = await w.note({ sessionDate: "2026-11-03" });
    const refused = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [later] } });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: Record<string, string> }).errors[`notes.${later}`]).toBe(`Note ${later}: Cannot bill this note: ${message}`);
    const files = await fileCount();
    const gen = await generate(w, draft.id);
    expect(gen.status).toBe(422);
    expect(((await gen.json()) as { message: string }).message).toBe(`The 837P was not written: ${message}`);
    expect(await fileCount()).toBe(files);
    const [row] = await db().select({ status: claims.status, errors: claims.errors, sentData: claims.sentData }).from(claims).where(eq(claims.id, draft.id));
    expect(row).toEqual({ status: "draft", errors: JSON.stringify([{ field, message }]), sentData: null });
  });
});

describe("generation re-scrubs the drafts' notes (probe 8931 §5)", () => {
  const breaks: [label: string, broken: (w: Awaited<ReturnType<typeof world>>, noteId: number) => Promise<unknown>, reason: string][] = [
    ["its PA service deleted", async (_w, id) => db().update(paServices).set({ deletedAt: "2026-11-27T10:00:00.000Z" }).where(sql`${paServices.id} = (select pa_service_id from notes where id = ${id})`), "Note has no prior authorization (PA service)."],
    ["its rendering provider deleted", async (w) => db().update(users).set({ deletedAt: "2026-11-27T10:00:00.000Z" }).where(eq(users.id, w.provider.id)), "Note has no rendering provider."],
  ];

  it.each(breaks)("a draft whose note has %s: API and screen answer 422 naming the claim and note, and nothing is generated", async (_label, broken, reason) => {
    const w = await world();
    const ok1 = await w.note();
    const ok2 = await w.note({ sessionDate: "2026-11-03" });
    const built = ((await (await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [ok1, ok2] } })).json()) as { data: { id: number; claim_number: string }[] }).data;
    const draft = built[0]!;
    await broken(w, ok2);
    const files = (await db().select({ n: count() }).from(x12Files))[0]!.n;
    // Both notes share the PA service and the provider: each is named, with the scrubber's reason.
    const each = [ok1, ok2].map((id) => CLAIM_MESSAGES.unbillable(draft.claim_number, id, `Cannot bill this note: ${reason}`));
    const expected = each[1]!;

    const viaApi = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [draft.id] } });
    expect(viaApi.status).toBe(422);
    const body = (await viaApi.json()) as { message: string; errors: Record<string, string> };
    expect(body.message).toBe(`No file was written. ${each.join(" ")}`);
    expect(body.errors[`${draft.claim_number}.notes.${ok1}`]).toBe(each[0]);
    expect(body.errors[`${draft.claim_number}.notes.${ok2}`]).toBe(each[1]);

    const viaScreen = await form("/claims", { intent: "generate", claim_ids: String(draft.id) }, await signInCookie(w.manager));
    expect(viaScreen.status).toBe(422);
    expect((await viaScreen.text()).replaceAll("&#x27;", "'")).toContain(expected);

    expect((await db().select({ n: count() }).from(x12Files))[0]!.n).toBe(files);
    const [row] = await db().select({ status: claims.status, fileId: claims.fileId, errors: claims.errors }).from(claims).where(eq(claims.id, draft.id));
    expect({ status: row!.status, fileId: row!.fileId }).toEqual({ status: "draft", fileId: null });
    // The reasons stay on the draft, as the file's own refusals do (the list and the viewer show them).
    expect((JSON.parse(row!.errors!) as { field: string }[]).map((e) => e.field)).toEqual(expect.arrayContaining([`notes.${ok1}`, `notes.${ok2}`]));
    // The viewer names each kept refusal by its line and note (stop 31); the API's show carries them too.
    const viewer = (await (await request(`/claims/edit-viewer/${draft.id}`, { cookie: await signInCookie(w.manager) })).text()).replace(/<!-- -->/g, "").replaceAll("&#x27;", "'");
    expect(viewer).toContain("Notes refused when the 837P was last generated");
    expect(viewer).toMatch(new RegExp(`Line \\d \\(97153 on 2026-11-03\\), note ${ok2}: ${reason.replace(/[.()]/g, "\\$&")}`));
    const shown = (await (await api(`/v2/claims/${draft.id}`, { token: w.token })).json()) as { data: { kept_refusals: { field: string }[] } };
    expect(shown.data.kept_refusals.map((e) => e.field).sort()).toEqual([`notes.${ok1}`, `notes.${ok2}`].sort());
  });
});

describe("the build's candidates leave out deleted notes and deleted clients' notes (probe 8931 §6)", () => {
  async function scene() {
    const w = await world();
    const live = await w.note();
    const gone = await createPatient({ locationId: w.location.id, insurerId: w.insurer.id, birthDate: "2017-01-01", gender: 1, details: JSON.stringify({ insuranceId: "M9", is_self_subscriber: "1", address: "1 A St", city: "Miami", state: "FL", zip: "33101", diagnosis_code: "F84.0" }) });
    const ofDeletedClient = await w.note({ patientId: gone.id, sessionDate: "2026-11-04" });
    await db().update(patients).set({ deletedAt: "2026-11-27T10:00:00.000Z" }).where(eq(patients.id, gone.id));
    const deleted = await w.note({ sessionDate: "2026-11-05", deletedAt: "2026-11-27T10:00:00.000Z" });
    return { w, live, ofDeletedClient, deleted };
  }

  it("the API list and the screen's ticked notes offer only the live note", async () => {
    const s = await scene();
    const listed = (await (await api(`/v2/claims/billable-notes?location_id=${s.w.location.id}`, { token: s.w.token })).json()) as { data: { id: number }[] };
    expect(listed.data.map((n) => n.id)).toEqual([s.live]);
    const page = await (await request(`/claims?pick=1&b_location_id=${s.w.location.id}`, { cookie: await signInCookie(s.w.manager) })).text();
    expect(page).toContain(`value="${s.live}"`);
    expect(page).not.toContain(`value="${s.ofDeletedClient}"`);
    expect(page).not.toContain(`value="${s.deleted}"`);
  });

  const builds: [label: string, ids: (s: Awaited<ReturnType<typeof scene>>) => number[], refused: (s: Awaited<ReturnType<typeof scene>>) => number[]][] = [
    ["a deleted client's note", (s) => [s.ofDeletedClient], (s) => [s.ofDeletedClient]],
    ["a deleted note", (s) => [s.deleted], (s) => [s.deleted]],
    ["a deleted client's note beside the live one", (s) => [s.ofDeletedClient, s.live], (s) => [s.ofDeletedClient]],
    ["a note that does not exist, a deleted note and the live one", (s) => [2_000_000_000, s.deleted, s.live], (s) => [2_000_000_000, s.deleted]],
  ];

  it.each(builds)("a build naming %s: 422 with the message on the API and the claims screen (choices kept), nothing built", async (_label, ids, refused) => {
    const s = await scene();
    const message = CLAIM_MESSAGES.notCandidates(refused(s));
    const before = await claimCount();
    const viaApi = await api("/v2/claims", { method: "POST", token: s.w.token, body: { note_ids: ids(s) } });
    expect(viaApi.status).toBe(422);
    expect(((await viaApi.json()) as { message: string }).message).toBe(message);

    const screen = await request(`/claims?pick=1&b_location_id=${s.w.location.id}`, {
      method: "POST",
      body: new URLSearchParams([["intent", "build"], ...ids(s).map((id): [string, string] => ["note_ids", String(id)])]),
      cookie: await signInCookie(s.w.manager),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(screen.status).toBe(422);
    const html = (await screen.text()).replaceAll("&#x27;", "'");
    expect(html).toContain(message);
    expect(html).not.toContain("Page not found");
    // The live note stays ticked only when it was among the choices.
    const liveTicked = new RegExp(`<input[^>]*(checked[^>]*value="${s.live}"|value="${s.live}"[^>]*checked)`).test(html);
    expect(liveTicked).toBe(ids(s).includes(s.live));
    expect(await claimCount()).toBe(before);
  });
});

describe("each service line points to its own diagnosis first (SV107; decision 032, stop 31)", () => {
  it("a claim of 6 codes and a note without one: each line points to its note's code (else the principal), 4 pointers at most; generation points to today's codes; the file reads back", async () => {
    const w = await world();
    // The client's principal code is F84.0 (world's profile); the 7th note has no code of its own.
    const written = ["F84.0", "F80.2", "F90.9", "F41.9", "F42.2", "F93.0", ""];
    const ids: number[] = [];
    for (const [i, diagnosisCode] of written.entries()) ids.push(await w.note({ sessionDate: `2026-11-${String(i + 2).padStart(2, "0")}`, diagnosisCode }));
    const res = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: ids } });
    expect(res.status, await res.clone().text()).toBe(201);
    const [draft] = ((await res.json()) as { data: { id: number; errors: unknown[] }[] }).data;
    expect(draft!.errors).toEqual([]);
    type Shown = { data: { diagnosis_codes: string[]; lines: { note_ids: number[]; diagnosis_pointers: number[] }[] } };
    const show = async () => ((await (await api(`/v2/claims/${draft!.id}`, { token: w.token })).json()) as Shown).data;
    const before = await show();
    expect(before.diagnosis_codes).toEqual(["F84.0", "F80.2", "F90.9", "F41.9", "F42.2", "F93.0"]);
    expect(before.lines.map((l) => l.diagnosis_pointers)).toEqual([
      [1, 2, 3, 4],
      [2, 1, 3, 4],
      [3, 1, 2, 4],
      [4, 1, 2, 3],
      [5, 1, 2, 3],
      [6, 1, 2, 3],
      [1, 2, 3, 4],
    ]);
    const cookie = await signInCookie(w.manager);
    const page = await (await request(`/claims/edit-viewer/${draft!.id}`, { cookie })).text();
    expect(page).toContain("Diagnosis pointers");
    expect(page).toContain("1 F84.0, 2 F80.2, 3 F90.9, 4 F41.9, 5 F42.2, 6 F93.0");
    expect(page).toContain("6 (F93.0), 1 (F84.0), 2 (F80.2), 3 (F90.9)");

    // The 7th note is given a code of its own after the build: generation reads the notes again.
    await db().update(notes).set({ diagnosisCode: "F43.10" }).where(eq(notes.id, ids[6]!));
    const gen = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [draft!.id] } });
    expect(gen.status, await gen.clone().text()).toBe(201);
    const content = await (await api(`/v2/claims/${draft!.id}/download`, { token: w.token })).text();
    const [set] = readBack837(content).sets;
    const hi = set!.elements[set!.segments.indexOf("HI")]!.map((e) => e.split(":")[1]);
    expect(hi).toEqual(["F840", "F802", "F909", "F419", "F422", "F930", "F4310"]);
    const sv107 = set!.segments.flatMap((tag, i) => (tag === "SV1" ? [set!.elements[i]![6]!] : []));
    expect(sv107).toEqual(["1:2:3:4", "2:1:3:4", "3:1:2:4", "4:1:2:3", "5:1:2:3", "6:1:2:3", "7:1:2:3"]);
    // Each line's first pointer is its own note's code; none points past HI.
    const codeOf = [...written.slice(0, 6), "F43.10"].map((c) => c.replace(".", ""));
    expect(sv107.map((p) => hi[Number(p.split(":")[0]) - 1])).toEqual(codeOf);
    for (const p of sv107) for (const n of p.split(":")) expect(Number(n)).toBeLessThanOrEqual(hi.length);
    // The stored lines and the viewer say what was sent.
    expect((await db().select({ codes: claimLines.diagnosisCodes }).from(claimLines).where(eq(claimLines.claimId, draft!.id)).orderBy(claimLines.lineNumber)).map((l) => l.codes)).toEqual(["F84.0", "F80.2", "F90.9", "F41.9", "F42.2", "F93.0", "F43.10"]);
    expect((await show()).lines.map((l) => l.diagnosis_pointers[0])).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(await (await request(`/claims/edit-viewer/${draft!.id}`, { cookie })).text()).toContain("7 (F43.10), 1 (F84.0), 2 (F80.2), 3 (F90.9)");
  });

  it("a claim of one code: every line points to 1", async () => {
    const w = await world();
    const ids = [await w.note(), await w.note({ sessionDate: "2026-11-03", diagnosisCode: "" })];
    const res = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: ids } });
    expect(res.status, await res.clone().text()).toBe(201);
    const id = ((await res.json()) as { data: { id: number }[] }).data[0]!.id;
    expect((await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [id] } })).status).toBe(201);
    const [set] = readBack837(await (await api(`/v2/claims/${id}/download`, { token: w.token })).text()).sets;
    expect(set!.segments.flatMap((tag, i) => (tag === "SV1" ? [set!.elements[i]![6]] : []))).toEqual(["1", "1"]);
  });
});

describe("a claim's diagnosis codes: one written form, HI from the lines' own codes (probe 8941 §1, §2; decision 032, stop 31, later)", () => {
  type Shown = { data: { diagnosis_codes: string[]; errors: unknown[]; lines: { service_date: string; note_ids: number[]; diagnosis_pointers: number[] }[] } };
  /** Builds the notes through the API (201, one claim), generates it (201) and reads the file back: HI and each SV107. */
  async function buildAndGenerate(w: Awaited<ReturnType<typeof world>>, ids: number[]) {
    const res = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: ids } });
    expect(res.status, await res.clone().text()).toBe(201);
    const built = ((await res.json()) as { data: { id: number; errors: unknown[] }[] }).data;
    expect(built).toHaveLength(1);
    expect(built[0]!.errors).toEqual([]);
    const shown = ((await (await api(`/v2/claims/${built[0]!.id}`, { token: w.token })).json()) as Shown).data;
    const gen = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [built[0]!.id] } });
    expect(gen.status, await gen.clone().text()).toBe(201);
    const [set] = readBack837(await (await api(`/v2/claims/${built[0]!.id}/download`, { token: w.token })).text()).sets;
    const hi = set!.elements[set!.segments.indexOf("HI")]!.map((e) => e.split(":")[1]!);
    const sv107 = set!.segments.flatMap((tag, i) => (tag === "SV1" ? [set!.elements[i]![6]!.split(":").map(Number)] : []));
    // HI holds each code once, at most 12; no pointer goes past it.
    expect(new Set(hi).size).toBe(hi.length);
    expect(hi.length).toBeLessThanOrEqual(12);
    for (const p of sv107) expect(Math.max(...p)).toBeLessThanOrEqual(hi.length);
    return { shown, hi, firstPointed: sv107.map((p) => hi[p[0]! - 1]) };
  }
  const setProfile = async (w: Awaited<ReturnType<typeof world>>, secondary: string) => {
    const details = JSON.parse(w.patient.details ?? "{}") as Record<string, unknown>;
    await db().update(patients).set({ details: JSON.stringify({ ...details, secondary_diagnosis_codes: secondary }) }).where(eq(patients.id, w.patient.id));
  };

  it("F84.0 and F840 (profile and notes) are one code: HI carries F840 once and each line points to it", async () => {
    const w = await world();
    // The principal is F84.0; the profile's secondary codes write it again without its dot, and F80.2 twice.
    await setProfile(w, "F840, f80.2, F80.2, F80.20");
    const ids = [await w.note({ diagnosisCode: "F840" }), await w.note({ sessionDate: "2026-11-03", diagnosisCode: "f84.0" }), await w.note({ sessionDate: "2026-11-04" })];
    const r = await buildAndGenerate(w, ids);
    expect(r.shown.diagnosis_codes).toEqual(["F840", "F80.2", "F80.20"]);
    expect(r.hi).toEqual(["F840", "F802", "F8020"]);
    expect(r.firstPointed).toEqual(["F840", "F840", "F840"]);
  });

  it("11 profile codes and two same-day notes F70 and F71 merged into one line, then a clean note the next day: one valid claim of 12 codes that generates", async () => {
    const w = await world();
    await setProfile(w, "F80.2, F90.9, F41.1, F93.0, F98.8, F80.1, F80.9, F82, F90.0, F80.4");
    const ids = [
      await w.note({ sessionDate: "2026-11-25", timeIn: "14:00", timeOut: "15:00", minutes: 60, units: 4, diagnosisCode: "F70" }),
      await w.note({ sessionDate: "2026-11-25", timeIn: "15:30", timeOut: "16:30", minutes: 60, units: 4, diagnosisCode: "F71" }),
      await w.note({ sessionDate: "2026-11-26", timeIn: "14:00", timeOut: "15:00", minutes: 60, units: 4, diagnosisCode: "F84.0" }),
    ];
    // Each note reads Ready alone, as in the probe.
    for (const id of ids) expect(((await (await api(`/v2/billing/scrubber/notes/${id}`, { token: w.token })).json()) as { data: { reasons: unknown[] } }).data.reasons).toEqual([]);
    const r = await buildAndGenerate(w, ids);
    expect(r.shown.lines.map((l) => [l.service_date, l.note_ids])).toEqual([
      ["2026-11-25", [ids[0], ids[1]]],
      ["2026-11-26", [ids[2]]],
    ]);
    // The lines' own codes first, then the profile's while there is room: the 11th profile code (F80.4) is left out.
    expect(r.hi).toEqual(["F70", "F71", "F840", "F802", "F909", "F411", "F930", "F988", "F801", "F809", "F82", "F900"]);
    expect(r.firstPointed).toEqual(["F70", "F840"]);
  });
});

describe("a line taken off a draft: Remove from draft (decision 032, stop 31)", () => {
  type Shown = { data: { status: string; version: number; total_cents: number; diagnosis_codes: string[]; lines: { id: number; line_number: number; note_ids: number[]; diagnosis_pointers: number[] }[] } };
  const show = async (w: Awaited<ReturnType<typeof world>>, id: number) => ((await (await api(`/v2/claims/${id}`, { token: w.token })).json()) as Shown).data;
  const remove = (id: number, lineId: number, token: string, version?: string) =>
    request(`/api/v2/claims/${id}/lines/${lineId}`, { method: "DELETE", headers: { Authorization: `Bearer ${token}`, Accept: "application/json", ...(version === undefined ? {} : { "If-Match": version }) } });
  const candidates = async (w: Awaited<ReturnType<typeof world>>) => ((await (await api(`/v2/claims/billable-notes?location_id=${w.location.id}`, { token: w.token })).json()) as { data: { id: number }[] }).data.map((n) => n.id);
  /** What a refused removal must leave as it was. */
  const stored = async (id: number) => ({
    claim: (await db().select({ status: claims.status, version: claims.version, total: claims.totalCents, codes: claims.diagnosisCodes, errors: claims.errors }).from(claims).where(eq(claims.id, id)))[0],
    lines: await db().select({ id: claimLines.id, n: claimLines.lineNumber }).from(claimLines).where(eq(claimLines.claimId, id)).orderBy(claimLines.lineNumber),
    links: (await db().select({ n: count() }).from(claimLineNotes).innerJoin(claimLines, eq(claimLines.id, claimLineNotes.claimLineId)).where(eq(claimLines.claimId, id)))[0]!.n,
  });

  /** A draft of two lines: note `a` (F80.2, its own PA service) on 2026-11-02, note `b` (F84.0, the profile's principal) on 2026-11-03. */
  async function twoLineDraft() {
    const w = await world();
    const [pa] = await db().insert(paServices).values({ patientId: w.patient.id, paService: `PA-own-${seq}`, cpt: "97153", nUnits: 100, startDate: "2026-10-01", endDate: "2026-12-31", insuranceId: w.insurer.id }).returning();
    const a = await w.note({ paServiceId: pa!.id, diagnosisCode: "F80.2" });
    const b = await w.note({ sessionDate: "2026-11-03" });
    const res = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [a, b] } });
    expect(res.status, await res.clone().text()).toBe(201);
    const draft = ((await res.json()) as { data: { id: number; claim_number: string }[] }).data[0]!;
    return { w, a, b, pa: pa!.id, draft, lineOf: async (note: number) => (await show(w, draft.id)).lines.find((l) => l.note_ids.includes(note))! };
  }

  it("the draft whose note the scrubber refuses: its line comes off, the other line is renumbered, total and HI follow, the note is a candidate again, and the 837P generates and reads back", async () => {
    const s = await twoLineDraft();
    const before = await show(s.w, s.draft.id);
    expect(before.diagnosis_codes).toEqual(["F80.2", "F84.0"]);
    expect(before.total_cents).toBe(2 * 8 * 1250);
    // Note a's PA service is deleted: generation refuses and keeps the reason on the draft.
    await db().update(paServices).set({ deletedAt: "2026-11-27T10:00:00.000Z" }).where(eq(paServices.id, s.pa));
    expect((await api("/v2/claims/generate", { method: "POST", token: s.w.token, body: { claim_ids: [s.draft.id] } })).status).toBe(422);
    expect((JSON.parse((await stored(s.draft.id)).claim!.errors) as { field: string }[]).map((e) => e.field)).toEqual([`notes.${s.a}`]);
    expect(await candidates(s.w)).not.toContain(s.a);

    const lineA = await s.lineOf(s.a);
    const res = await remove(s.draft.id, lineA.id, s.w.token, String(before.version));
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { data: { total_cents: number; diagnosis_codes: string[]; lines: number; version: number; removed: unknown }; message: string };
    expect(body.message).toBe(CLAIM_MESSAGES.lineRemoved(1, s.draft.claim_number, [s.a]));
    expect(body.data).toMatchObject({ total_cents: 8 * 1250, diagnosis_codes: ["F84.0"], lines: 1, version: before.version + 1, removed: { line_id: lineA.id, line_number: 1, note_ids: [s.a] } });

    // F80.2 was only the removed line's code and is not on the profile: it goes; the remaining line is line 1 and points to 1.
    const after = await show(s.w, s.draft.id);
    expect({ status: after.status, total: after.total_cents, codes: after.diagnosis_codes }).toEqual({ status: "draft", total: 8 * 1250, codes: ["F84.0"] });
    expect(after.lines.map((l) => [l.line_number, l.note_ids, l.diagnosis_pointers])).toEqual([[1, [s.b], [1]]]);
    const row = await stored(s.draft.id);
    expect({ links: row.links, errors: JSON.parse(row.claim!.errors) }).toEqual({ links: 1, errors: [] });
    expect(await candidates(s.w)).toContain(s.a);
    expect(await candidates(s.w)).not.toContain(s.b);

    // One audit row on the claim, naming the line and the note, on a chain that still verifies.
    const [audit] = await db().select().from(auditLog).where(and(eq(auditLog.entity, "claim"), eq(auditLog.entityId, String(s.draft.id)), eq(auditLog.action, "remove_line")));
    expect(JSON.parse(audit!.detail!)).toEqual({ claim: s.draft.id, line: lineA.id, line_number: 1, notes: [s.a] });
    expect(audit!.patientId).toBe(s.w.patient.id);
    expect((await verifyAuditChain(db())).ok).toBe(true);

    // Generation now writes the file: one line, LX 1, the total and the one code.
    const gen = await api("/v2/claims/generate", { method: "POST", token: s.w.token, body: { claim_ids: [s.draft.id] } });
    expect(gen.status, await gen.clone().text()).toBe(201);
    const [set] = readBack837(await (await api(`/v2/claims/${s.draft.id}/download`, { token: s.w.token })).text()).sets;
    const el = (tag: string) => set!.segments.flatMap((t, i) => (t === tag ? [set!.elements[i]!] : []));
    expect(el("LX")).toEqual([["1"]]);
    expect(el("CLM")[0]![1]).toBe("100.00");
    expect(el("HI")[0]).toEqual(["ABK:F840"]);
    expect(el("SV1").map((e) => e[6])).toEqual(["1"]);

    // The freed note builds into a claim of its own once its PA service is back.
    await db().update(paServices).set({ deletedAt: null }).where(eq(paServices.id, s.pa));
    expect((await api("/v2/claims", { method: "POST", token: s.w.token, body: { note_ids: [s.a] } })).status).toBe(201);
  });

  it("the second of three lines: the third becomes line 2, HI is the remaining lines' codes, then the profile's (a code the profile carries stays)", async () => {
    const w = await world();
    const a = await w.note({ diagnosisCode: "F90.9" });
    const b = await w.note({ sessionDate: "2026-11-03", diagnosisCode: "F84.0" });
    const c = await w.note({ sessionDate: "2026-11-04", diagnosisCode: "F80.2" });
    const draft = ((await (await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [a, b, c] } })).json()) as { data: { id: number }[] }).data[0]!;
    const before = await show(w, draft.id);
    expect(before.diagnosis_codes).toEqual(["F90.9", "F84.0", "F80.2"]);
    const middle = before.lines.find((l) => l.note_ids.includes(b))!;
    expect(middle.line_number).toBe(2);
    expect((await remove(draft.id, middle.id, w.token)).status).toBe(200);
    const after = await show(w, draft.id);
    // F84.0 was only line 2's own code, but it is the client's principal on the profile: kept, after the lines' own
    // (HI's one rule, as a build of notes a and c makes it and generation writes it).
    expect(after.diagnosis_codes).toEqual(["F90.9", "F80.2", "F84.0"]);
    expect(after.lines.map((l) => [l.line_number, l.note_ids, l.diagnosis_pointers[0]])).toEqual([
      [1, [a], 1],
      [2, [c], 2],
    ]);
    expect(after.total_cents).toBe(2 * 8 * 1250);
    const gen = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [draft.id] } });
    expect(gen.status, await gen.clone().text()).toBe(201);
    const [set] = readBack837(await (await api(`/v2/claims/${draft.id}/download`, { token: w.token })).text()).sets;
    expect(set!.segments.flatMap((t, i) => (t === "LX" ? set!.elements[i]! : []))).toEqual(["1", "2"]);
    expect(set!.elements[set!.segments.indexOf("HI")]).toEqual(["ABK:F909", "ABF:F802", "ABF:F840"]);
  });

  it("refusals change nothing: the only line (void instead), a claim that is not a draft, a stale version, another claim's line, another location (404), no manage_claims (403)", async () => {
    const s = await twoLineDraft();
    const lineA = await s.lineOf(s.a);
    const snapshot = await stored(s.draft.id);

    const stale = await remove(s.draft.id, lineA.id, s.w.token, String(snapshot.claim!.version + 3));
    expect(stale.status).toBe(409);
    const badVersion = await remove(s.draft.id, lineA.id, s.w.token, "abc");
    expect(badVersion.status).toBe(422);

    // Another claim's line, through this claim: not found.
    const other = await w1Draft(s.w);
    const otherLine = (await show(s.w, other)).lines[0]!;
    const foreign = await remove(s.draft.id, otherLine.id, s.w.token);
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { message: string }).message).toBe("Claim line not found.");

    // The only line of a draft: refused, pointing to Void.
    const last = await remove(other, otherLine.id, s.w.token);
    expect(last.status).toBe(422);
    expect(((await last.json()) as { message: string }).message).toBe(CLAIM_MESSAGES.lastLine((await db().select({ n: claims.claimNumber }).from(claims).where(eq(claims.id, other)))[0]!.n));
    expect((await stored(other)).lines).toHaveLength(1);

    const elsewhere = await createUser({ permissions: ["manage_claims"], locations: [(await createLocation()).id] });
    expect((await remove(s.draft.id, lineA.id, await apiToken(elsewhere))).status).toBe(404);
    const viewer = await createUser({ permissions: ["view_notes"], locations: [s.w.location.id] });
    expect((await remove(s.draft.id, lineA.id, await apiToken(viewer))).status).toBe(403);
    expect(await stored(s.draft.id)).toEqual(snapshot);
    expect(await db().select().from(auditLog).where(and(eq(auditLog.action, "remove_line"), eq(auditLog.entityId, String(s.draft.id))))).toEqual([]);

    // Generated, sent, then voided: each refused with the claim's status, nothing changed.
    expect((await api("/v2/claims/generate", { method: "POST", token: s.w.token, body: { claim_ids: [s.draft.id] } })).status).toBe(201);
    for (const step of [null, "send", "status"] as const) {
      if (step === "send") expect((await api(`/v2/claims/${s.draft.id}/send`, { method: "POST", token: s.w.token })).status).toBe(200);
      if (step === "status") expect((await api(`/v2/claims/${s.draft.id}/status`, { method: "POST", token: s.w.token, body: { status: "rejected" } })).status).toBe(200);
      const now = await stored(s.draft.id);
      const refused = await remove(s.draft.id, lineA.id, s.w.token);
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as { message: string }).message).toBe(CLAIM_MESSAGES.lineOfNotDraft(s.draft.claim_number, now.claim!.status));
      expect(await stored(s.draft.id)).toEqual(now);
    }
  });

  it.each([
    ["the draft generated", async (s: Awaited<ReturnType<typeof twoLineDraft>>) => api("/v2/claims/generate", { method: "POST", token: s.w.token, body: { claim_ids: [s.draft.id] } }), "generated", 2],
    ["its other line removed", async (s: Awaited<ReturnType<typeof twoLineDraft>>) => remove(s.draft.id, (await s.lineOf(s.b)).id, s.w.token), "draft", 1],
  ] as const)("%s between the removal's read and its write: 409 and nothing of the removal written (one batch)", async (_label, landing, status, lines) => {
    const s = await twoLineDraft();
    const lineA = await s.lineOf(s.a);
    const racing = beforeWriteDb(async () => {
      const res = await landing(s);
      expect([200, 201], await res.clone().text()).toContain(res.status);
    }, 1);
    const result = await removeClaimLine(await ctxOf(s.w.manager, racing), s.draft.id, lineA.id, null);
    expect(result.ok ? 200 : result.status).toBe(409);
    const after = await stored(s.draft.id);
    expect(after.claim!.status).toBe(status);
    expect(after.lines).toHaveLength(lines);
    // Note a is still on the claim, and no removal of it was recorded.
    expect((await db().select().from(claimLineNotes).where(eq(claimLineNotes.noteId, s.a))).length).toBe(1);
    expect((await auditRows("claim", s.draft.id)).filter((r) => r.action === "remove_line").map((r) => JSON.parse(r.detail!).notes)).not.toContainEqual([s.a]);
  });

  it("a line removed between generation's read and its write: 409, no file, the claim a draft without that line, the freed note in no file (probe 8942 §1)", async () => {
    const s = await twoLineDraft();
    const lineA = await s.lineOf(s.a);
    const files = (await db().select({ n: count() }).from(x12Files))[0]!.n;
    const generateRows = async () => (await auditRows("claim")).filter((r) => r.action === "generate").length;
    const generatedBefore = await generateRows();
    const racing = beforeWriteDb(async () => {
      const res = await remove(s.draft.id, lineA.id, s.w.token);
      expect(res.status, await res.clone().text()).toBe(200);
    }, 1);
    const result = await generateClaims(await ctxOf(s.w.manager, racing), { claim_ids: [s.draft.id] });
    expect(result.ok ? 201 : result.status).toBe(409);
    expect((await db().select({ n: count() }).from(x12Files))[0]!.n).toBe(files);
    const after = await stored(s.draft.id);
    expect({ status: after.claim!.status, lines: after.lines.length, total: after.claim!.total }).toEqual({ status: "draft", lines: 1, total: 8 * 1250 });
    expect(await generateRows()).toBe(generatedBefore);
    // Generated again now, the file carries the remaining line only.
    const again = await api("/v2/claims/generate", { method: "POST", token: s.w.token, body: { claim_ids: [s.draft.id] } });
    expect(again.status, await again.clone().text()).toBe(201);
    const content = (await db().select({ content: x12Files.content }).from(x12Files).orderBy(desc(x12Files.id)).limit(1))[0]!.content;
    expect(content.match(/\bLX\*\d+~/g)).toHaveLength(1);
  });

  /** A one-line draft of another day for the same world. */
  async function w1Draft(w: Awaited<ReturnType<typeof world>>) {
    const n = await w.note({ sessionDate: "2026-11-09" });
    return ((await (await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [n] } })).json()) as { data: { id: number }[] }).data[0]!.id;
  }

  it("the viewer's per-line form works without JavaScript: the line goes, the flash says so, a one-line draft offers Void instead; stale, other location and no permission refused", async () => {
    const s = await twoLineDraft();
    const cookie = await signInCookie(s.w.manager);
    const here = `/claims/edit-viewer/${s.draft.id}`;
    const page = (await (await request(here, { cookie })).text()).replace(/<!-- -->/g, "");
    expect(page.match(/>Remove from draft</g)).toHaveLength(2);
    expect(page).toContain('aria-label="Remove line 1 (97153 on 2026-11-02) from this draft"');
    const lineA = await s.lineOf(s.a);
    const { version } = (await stored(s.draft.id)).claim!;

    // Another location and no permission: refused before anything is read or written.
    const elsewhere = await signInCookie(await createUser({ permissions: ["manage_claims"], locations: [(await createLocation()).id] }));
    expect((await form(here, { intent: "remove-line", line_id: String(lineA.id), version: String(version) }, elsewhere)).status).toBe(404);
    const plain = await signInCookie(await createUser({ permissions: ["view_notes"], locations: [s.w.location.id] }));
    expect((await form(here, { intent: "remove-line", line_id: String(lineA.id), version: String(version) }, plain)).status).toBe(403);
    // A page read before another change: 409 with the message, nothing removed.
    const stale = await form(here, { intent: "remove-line", line_id: String(lineA.id), version: String(version - 1) }, cookie);
    expect(stale.status).toBe(409);
    expect((await stale.text()).replaceAll("&#x27;", "'")).toContain("Someone else saved a newer version of this record.");
    expect((await stored(s.draft.id)).lines).toHaveLength(2);

    const post = await form(here, { intent: "remove-line", line_id: String(lineA.id), version: String(version) }, cookie);
    expect(post.status).toBe(303);
    const to = post.headers.get("Location")!;
    expect(to.startsWith(`${here}?flash=`)).toBe(true);
    const after = (await (await request(to, { cookie })).text()).replace(/<!-- -->/g, "").replaceAll("&#x27;", "'");
    expect(after).toContain(CLAIM_MESSAGES.lineRemoved(1, s.draft.claim_number, [s.a]));
    expect(after).not.toContain(">Remove from draft<");
    expect(after).toContain("This draft has one line. To take it off, void the claim (reject)");
    expect(after).toContain("<dd>$100.00</dd>");
    expect((await stored(s.draft.id)).lines.map((l) => l.n)).toEqual([1]);
  });
});

describe("a claim voided after generation never reaches the payer; its file's other claims go into a new file (probe 8961 §1; decision 032, stop 33)", () => {
  /** Two clients' claims generated into one 837P; `keep` is to be sent, `voided` to be voided. */
  async function twoInOneFile() {
    const w = await world();
    const other = await createPatient({ locationId: w.location.id, insurerId: w.insurer.id, birthDate: "2017-05-06", gender: 1, details: JSON.stringify({ insuranceId: `X${seq}111`, insured_policy_group: "GRP", is_self_subscriber: true, address: "6 Palm Ave", city: "Miami", state: "FL", zip: "33102", diagnosis_code: "F84.0" }) });
    const a = await w.note();
    const b = await w.note({ patientId: other.id });
    const built = ((await (await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [a, b] } })).json()) as { data: { id: number; claim_number: string; patient_id: number }[] }).data;
    expect(built).toHaveLength(2);
    const gen = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: built.map((c) => c.id) } });
    expect(gen.status, await gen.clone().text()).toBe(201);
    const file = ((await gen.json()) as { data: { file_id: number; file_name: string } }).data;
    const keep = built.find((c) => c.patient_id === w.patient.id)!;
    const voided = built.find((c) => c.patient_id === other.id)!;
    return { w, keep, voided, voidedNote: b, file };
  }
  const claimRow = async (id: number) => (await db().select().from(claims).where(eq(claims.id, id)))[0]!;
  const fileRow = async (id: number) => (await db().select().from(x12Files).where(eq(x12Files.id, id)))[0]!;
  const sendRows = async () => (await auditRows("claim")).filter((a) => a.action === "send").length;
  const clms = (content: string) => [...content.matchAll(/\bCLM\*(C\d{7})\*/g)].map((m) => m[1]).sort();

  it("a deleted client's draft: generating it says the client was deleted and the draft can only be voided (API and screen); nothing written", async () => {
    const w = await world();
    const note = await w.note();
    const [draft] = ((await (await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [note] } })).json()) as { data: { id: number; claim_number: string }[] }).data;
    await db().update(patients).set({ deletedAt: "2026-11-27T10:00:00.000Z" }).where(eq(patients.id, w.patient.id));
    const filesBefore = (await db().select({ n: count() }).from(x12Files))[0]!.n;
    const refused = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [draft!.id] } });
    expect(refused.status).toBe(409);
    const message = ((await refused.json()) as { message: string }).message;
    expect(message).toBe(CLAIM_MESSAGES.clientDeleted([draft!.claim_number]));
    expect(message).toBe(`The client of claim ${draft!.claim_number} was deleted, so no file was written. A deleted client's notes cannot be billed or built into a claim again: this claim can only be voided (reject).`);
    const screen = await form("/claims", { intent: "generate", claim_ids: String(draft!.id) }, await signInCookie(w.manager));
    expect((await screen.text()).replaceAll("&#x27;", "'")).toContain(CLAIM_MESSAGES.clientDeleted([draft!.claim_number]));
    expect((await claimRow(draft!.id)).status).toBe("draft");
    expect((await db().select({ n: count() }).from(x12Files))[0]!.n).toBe(filesBefore);
  });

  it("a file holding a deleted client's generated claim is not sent (API and screen): the message names the claim, nothing is sent, the file is unchanged", async () => {
    const { w, keep, voided: gone, file } = await twoInOneFile();
    await db().update(patients).set({ deletedAt: "2026-11-27T10:00:00.000Z" }).where(eq(patients.id, gone.patient_id));
    const refusal = CLAIM_MESSAGES.fileOfDeletedClient(file.file_name, { numbers: [gone.claim_number], hidden: 0 }, { numbers: [keep.claim_number], hidden: 0 });
    expect(refusal).toContain(`holds claim ${gone.claim_number} of a deleted client`);
    const before = await fileRow(file.file_id);
    const sendsBefore = await sendRows();
    for (const id of [keep.id, gone.id]) {
      const refused = await api(`/v2/claims/${id}/send`, { method: "POST", token: w.token });
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as { message: string }).message).toBe(refusal);
    }
    const cookie = await signInCookie(w.manager);
    const screen = await form(`/claims/edit-viewer/${keep.id}`, { intent: "send" }, cookie);
    expect(screen.status).toBe(422);
    expect((await screen.text()).replace(/<!-- -->/g, "").replaceAll("&#x27;", "'")).toContain(refusal);
    expect(await fileRow(file.file_id)).toEqual(before);
    expect([(await claimRow(keep.id)).status, (await claimRow(gone.id)).status]).toEqual(["generated", "generated"]);
    expect(await sendRows()).toBe(sendsBefore);
    // Voided, the deleted client's claim leaves the file to the voided-claim rule: the other claim goes in a new file.
    const voiding = await api(`/v2/claims/${gone.id}/status`, { method: "POST", token: w.token, body: { status: "rejected" } });
    expect(voiding.status).toBe(200);
    const again = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [keep.id] } });
    expect(again.status, await again.clone().text()).toBe(201);
    expect((await api(`/v2/claims/${keep.id}/send`, { method: "POST", token: w.token })).status).toBe(200);
  });

  it("API: voiding says the file's other claim needs a new file; sending it is refused and nothing is sent; generated again into a new file without the voided claim, it is sent", async () => {
    const { w, keep, voided, voidedNote, file } = await twoInOneFile();
    expect(clms((await fileRow(file.file_id)).content)).toEqual([keep.claim_number, voided.claim_number].sort());

    const voiding = await api(`/v2/claims/${voided.id}/status`, { method: "POST", token: w.token, body: { status: "rejected" } });
    expect(voiding.status).toBe(200);
    expect(((await voiding.json()) as { message: string }).message).toBe(CLAIM_MESSAGES.voidedInUnsentFile(file.file_name, { numbers: [keep.claim_number], hidden: 0 }));

    const sendsBefore = await sendRows();
    const refused = await api(`/v2/claims/${keep.id}/send`, { method: "POST", token: w.token });
    expect(refused.status).toBe(422);
    const refusal = CLAIM_MESSAGES.fileHoldsVoided(file.file_name, { numbers: [voided.claim_number], hidden: 0 }, { numbers: [keep.claim_number], hidden: 0 });
    expect(((await refused.json()) as { message: string }).message).toBe(refusal);
    expect(refusal).toContain(`holds claim ${voided.claim_number}, voided (rejected)`);
    const unsent = await fileRow(file.file_id);
    expect([unsent.sender, unsent.sentAt]).toEqual([null, null]);
    expect((await claimRow(keep.id)).status).toBe("generated");
    expect(await sendRows()).toBe(sendsBefore);

    const shown = ((await (await api(`/v2/claims/${keep.id}`, { token: w.token })).json()) as { data: { regenerable: boolean; file: { voided_claims: string[] } } }).data;
    expect(shown.regenerable).toBe(true);
    expect(shown.file.voided_claims).toEqual([voided.claim_number]);

    // Generated again: a new file (new interchange and set control numbers) with only the claim still to send.
    const again = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [keep.id] } });
    expect(again.status, await again.clone().text()).toBe(201);
    const regenerated = (await again.json()) as { message: string; data: { file_id: number; file_name: string; claims: { set_control: string }[] } };
    expect(regenerated.data.file_id).toBeGreaterThan(file.file_id);
    expect(regenerated.message).toBe(`837P ${regenerated.data.file_name} generated. It takes claim ${keep.claim_number} out of ${file.file_name}, which holds a voided claim and is never sent.`);
    const fresh = await fileRow(regenerated.data.file_id);
    expect(clms(fresh.content)).toEqual([keep.claim_number]);
    expect(Number(readBack837(fresh.content).interchangeControl)).toBe(regenerated.data.file_id);
    expect(regenerated.data.claims[0]!.set_control).toBe("0001");
    expect(await claimRow(keep.id)).toMatchObject({ status: "generated", fileId: regenerated.data.file_id, setControl: "0001" });
    // The voided claim keeps its (never sent) file; the old file is nobody's to send.
    expect((await claimRow(voided.id)).fileId).toBe(file.file_id);
    const generateRow = (await auditRows("claim")).filter((a) => a.action === "generate").at(-1)!;
    expect(JSON.parse(generateRow.detail!)).toMatchObject({ file: regenerated.data.file_id, regenerated: [{ claim: keep.id, file: file.file_id }] });

    const sent = await api(`/v2/claims/${keep.id}/send`, { method: "POST", token: w.token });
    expect(sent.status, await sent.clone().text()).toBe(200);
    expect(((await sent.json()) as { data: { file_id: number; claims: number } }).data).toMatchObject({ file_id: regenerated.data.file_id, claims: 1 });
    const download = await (await api(`/v2/claims/${keep.id}/download`, { token: w.token })).text();
    expect(clms(download)).toEqual([keep.claim_number]);
    expect(download).not.toContain(voided.claim_number);
    expect((await fileRow(regenerated.data.file_id)).sender).toBe("local");
    expect((await fileRow(file.file_id)).sentAt).toBeNull();

    // The voided claim's note is billed again under a new claim, which goes out alone: the session reaches the payer once.
    const rebuilt = ((await (await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [voidedNote] } })).json()) as { data: { id: number; claim_number: string }[] }).data[0]!;
    const rebuiltFile = ((await (await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [rebuilt.id] } })).json()) as { data: { file_id: number } }).data;
    expect((await api(`/v2/claims/${rebuilt.id}/send`, { method: "POST", token: w.token })).status).toBe(200);
    expect(clms((await fileRow(rebuiltFile.file_id)).content)).toEqual([rebuilt.claim_number]);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("a claim of a file that holds no voided claim is not generated again (422, no file written); a sent one neither", async () => {
    const { w, keep, voided } = await twoInOneFile();
    const files = (await db().select({ n: count() }).from(x12Files))[0]!.n;
    const res = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [keep.id] } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { message: string }).message).toBe(CLAIM_MESSAGES.notGeneratable(keep.claim_number, "generated"));
    expect((await db().select({ n: count() }).from(x12Files))[0]!.n).toBe(files);
    // Sent, then one of its claims rejected by the payer: nothing to generate again (the file has left).
    expect((await api(`/v2/claims/${keep.id}/send`, { method: "POST", token: w.token })).status).toBe(200);
    expect((await api(`/v2/claims/${voided.id}/status`, { method: "POST", token: w.token, body: { status: "rejected" } })).status).toBe(200);
    const sent = ((await (await api(`/v2/claims/${keep.id}`, { token: w.token })).json()) as { data: { regenerable: boolean } }).data;
    expect(sent.regenerable).toBe(false);
    expect((await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [keep.id] } })).status).toBe(422);
  });

  it("a void landing between the send's read and its write: 422 with the refusal, the sender not called, nothing sent", async () => {
    const { w, keep, voided, file } = await twoInOneFile();
    const files: ClaimFileToSend[] = [];
    const sender: ClaimSender = { name: "clearinghouse-test", send: async (f) => (files.push(f), { ok: true }) };
    const racing = beforeWriteDb(async () => {
      expect((await api(`/v2/claims/${voided.id}/status`, { method: "POST", token: w.token, body: { status: "rejected" } })).status).toBe(200);
    }, 1);
    const result = await sendClaim(await ctxOf(w.manager, racing), keep.id, sender);
    expect(result).toMatchObject({ ok: false, status: 422, message: CLAIM_MESSAGES.fileHoldsVoided(file.file_name, { numbers: [voided.claim_number], hidden: 0 }, { numbers: [keep.claim_number], hidden: 0 }) });
    expect(files).toHaveLength(0);
    expect((await claimRow(keep.id)).status).toBe("generated");
    expect((await fileRow(file.file_id)).sentAt).toBeNull();
  });

  it("screens without JavaScript: Void says so, Send is refused with the reason, the viewer offers Generate a new 837P, the list lets it be ticked; the new file is sent with only that claim", async () => {
    const { w, keep, voided, file } = await twoInOneFile();
    const cookie = await signInCookie(w.manager);
    const text = async (res: Response) => (await res.text()).replace(/<!-- -->/g, "").replaceAll("&#x27;", "'");
    const flash = (res: Response) => new URLSearchParams((res.headers.get("Location") ?? "").split("?")[1]).get("flash");

    const voiding = await form(`/claims/edit-viewer/${voided.id}`, { intent: "status", status: "rejected", version: String((await claimRow(voided.id)).version) }, cookie);
    expect(voiding.status).toBe(303);
    expect(flash(voiding)).toBe(CLAIM_MESSAGES.voidedInUnsentFile(file.file_name, { numbers: [keep.claim_number], hidden: 0 }));

    const viewer = await text(await request(`/claims/edit-viewer/${keep.id}`, { cookie }));
    expect(viewer).toContain(`Its 837P ${file.file_name} was not sent and holds claim ${voided.claim_number}, voided (rejected) after the file was generated, so that file is never sent.`);
    expect(viewer).toContain("Generate a new 837P");
    expect(viewer).not.toMatch(/value="send"/);

    // A send posted anyway (an old page) is refused with the reason; nothing is sent.
    const send = await form(`/claims/edit-viewer/${keep.id}`, { intent: "send" }, cookie);
    expect(send.status).toBe(422);
    expect(await text(send)).toContain(CLAIM_MESSAGES.fileHoldsVoided(file.file_name, { numbers: [voided.claim_number], hidden: 0 }, { numbers: [keep.claim_number], hidden: 0 }));
    expect((await fileRow(file.file_id)).sentAt).toBeNull();
    expect((await claimRow(keep.id)).status).toBe("generated");

    const list = await text(await request(`/claims?status=generated&location_id=${w.location.id}`, { cookie }));
    expect(list).toContain(`aria-label="Select generated claim ${keep.claim_number} to generate again"`);
    expect(list).toContain("Generate one 837P for the selected claims");

    const generate = await form("/claims", { intent: "generate", claim_ids: String(keep.id) }, cookie);
    expect(generate.status).toBe(303);
    expect(generate.headers.get("Location")).toMatch(new RegExp(`^/claims/edit-viewer/${keep.id}\\?`));
    expect(flash(generate)).toContain(`It takes claim ${keep.claim_number} out of ${file.file_name}`);
    const after = await text(await request(`/claims/edit-viewer/${keep.id}`, { cookie }));
    expect(after).not.toContain("Generate a new 837P");
    expect(after).toMatch(/value="send"/);

    const sent = await form(`/claims/edit-viewer/${keep.id}`, { intent: "send" }, cookie);
    expect(sent.status).toBe(303);
    expect(flash(sent)).toBe("Claim sent.");
    const newFile = await fileRow((await claimRow(keep.id)).fileId!);
    expect(newFile.id).not.toBe(file.file_id);
    expect(newFile.sender).toBe("local");
    expect(clms(newFile.content)).toEqual([keep.claim_number]);
    expect((await fileRow(file.file_id)).sentAt).toBeNull();
  });
});

describe("a file that also holds another location's claims is downloaded and sent only by someone who manages all of them (probe 8965 §1; decision 032, stop 33)", () => {
  /**
   * A claim of each of two locations generated into one 837P by an admin of every location (`token`); `here.manager`
   * manages the first location only. `second`: a claim of a second client of the first location in it too.
   */
  async function mixedFile(opts: { second?: boolean } = {}) {
    const here = await world();
    const far = await world();
    await db().update(patients).set({ firstName: "Zoe", lastName: "Farawayson" }).where(eq(patients.id, far.patient.id));
    const admin = await createUser({ permissions: ["manage_claims", "access_all_locations"] });
    const token = await apiToken(admin);
    const other = opts.second ? await createPatient({ locationId: here.location.id, insurerId: here.insurer.id, birthDate: "2017-05-06", gender: 1, details: JSON.stringify({ insuranceId: `X${seq}111`, insured_policy_group: "GRP", is_self_subscriber: true, address: "6 Palm Ave", city: "Miami", state: "FL", zip: "33102", diagnosis_code: "F84.0" }) }) : null;
    const noteIds = [await here.note(), await far.note(), ...(other ? [await here.note({ patientId: other.id })] : [])];
    const built = ((await (await api("/v2/claims", { method: "POST", token, body: { note_ids: noteIds } })).json()) as { data: { id: number; claim_number: string; patient_id: number }[] }).data;
    expect(built).toHaveLength(noteIds.length);
    const gen = await api("/v2/claims/generate", { method: "POST", token, body: { claim_ids: built.map((c) => c.id) } });
    expect(gen.status, await gen.clone().text()).toBe(201);
    const file = ((await gen.json()) as { data: { file_id: number; file_name: string } }).data;
    const mine = built.find((c) => c.patient_id === here.patient.id)!;
    const theirs = built.find((c) => c.patient_id === far.patient.id)!;
    const farMember = (JSON.parse(far.patient.details ?? "{}") as { insuranceId: string }).insuranceId;
    // What of the other location's claim the file carries: its number, client and member id.
    const farData = [theirs.claim_number, "FARAWAYSON", "Farawayson", farMember];
    const fileText = (await db().select({ content: x12Files.content }).from(x12Files).where(eq(x12Files.id, file.file_id)))[0]!.content;
    for (const d of [theirs.claim_number, "FARAWAYSON", farMember]) expect(fileText).toContain(d);
    return { here, token, mine, theirs, second: other ? built.find((c) => c.patient_id === other.id)! : null, file, farData };
  }
  const leaks = (body: string, farData: readonly string[]) => farData.filter((d) => body.includes(d));
  const fileRow = async (id: number) => (await db().select().from(x12Files).where(eq(x12Files.id, id)))[0]!;
  const text = async (res: Response) => (await res.text()).replace(/<!-- -->/g, "").replaceAll("&#x27;", "'");

  it("API: the manager's download and send are refused (403, the reason, nothing of the other location); the show and list say so; an admin downloads and sends", async () => {
    const { here, token, mine, file, farData } = await mixedFile();
    const download = await api(`/v2/claims/${mine.id}/download`, { token: here.token });
    expect(download.status).toBe(403);
    const body = await download.text();
    expect((JSON.parse(body) as { message: string }).message).toBe(CLAIM_MESSAGES.fileOfOtherLocations(file.file_name, 1, "download"));
    expect(CLAIM_MESSAGES.fileOfOtherLocations(file.file_name, 1, "download")).toBe(`The 837P ${file.file_name} also holds 1 claim of another location, whose clients you cannot see, so only someone who manages every location of the file can download it.`);
    expect(leaks(body, farData)).toEqual([]);
    expect((await auditRows("claim_file", mine.id)).length).toBe(0);

    const show = await api(`/v2/claims/${mine.id}`, { token: here.token });
    const shown = await show.text();
    expect((JSON.parse(shown) as { data: { file: { other_locations: number } } }).data.file.other_locations).toBe(1);
    expect(leaks(shown, farData)).toEqual([]);
    const listed = await (await api(`/v2/claims?location_id=${here.location.id}`, { token: here.token })).text();
    expect((JSON.parse(listed) as { data: { id: number; file_other_locations: number }[] }).data.find((c) => c.id === mine.id)!.file_other_locations).toBe(1);
    expect(leaks(listed, farData)).toEqual([]);

    const sendRowsBefore = (await auditRows("claim")).filter((a) => a.action === "send").length;
    const send = await api(`/v2/claims/${mine.id}/send`, { method: "POST", token: here.token });
    expect(send.status).toBe(403);
    const sendBody = await send.text();
    expect((JSON.parse(sendBody) as { message: string }).message).toBe(CLAIM_MESSAGES.fileOfOtherLocations(file.file_name, 1, "send"));
    expect(leaks(sendBody, farData)).toEqual([]);
    expect([(await fileRow(file.file_id)).sentAt, (await db().select({ status: claims.status }).from(claims).where(eq(claims.id, mine.id)))[0]!.status]).toEqual([null, "generated"]);
    expect((await auditRows("claim")).filter((a) => a.action === "send").length).toBe(sendRowsBefore);

    // An admin of every location: the whole file, then sent with both claims.
    const whole = await api(`/v2/claims/${mine.id}/download`, { token });
    expect(whole.status).toBe(200);
    expect(await whole.text()).toBe((await fileRow(file.file_id)).content);
    expect(((await (await api(`/v2/claims/${mine.id}`, { token })).json()) as { data: { file: { other_locations: number } } }).data.file.other_locations).toBe(0);
    const sent = await api(`/v2/claims/${mine.id}/send`, { method: "POST", token });
    expect(sent.status, await sent.clone().text()).toBe(200);
    expect(((await sent.json()) as { data: { claims: number } }).data.claims).toBe(2);
    // Sent, the file is still not the manager's to download.
    expect((await api(`/v2/claims/${mine.id}/download`, { token: here.token })).status).toBe(403);
  });

  it("screens: the download route answers 403 with the reason; the viewer shows it instead of the link and Send; the list has no 837P link; a send posted anyway is refused", async () => {
    const { here, mine, file, farData } = await mixedFile();
    const cookie = await signInCookie(here.manager);
    const download = await request(`/claims/edit-viewer/${mine.id}/download`, { cookie });
    expect(download.status).toBe(403);
    const body = await text(download);
    expect(body).toBe(CLAIM_MESSAGES.fileOfOtherLocations(file.file_name, 1, "download"));
    expect(leaks(body, farData)).toEqual([]);

    const viewer = await text(await request(`/claims/edit-viewer/${mine.id}`, { cookie }));
    expect(viewer).toContain(CLAIM_MESSAGES.fileOfOtherLocations(file.file_name, 1, "download or send"));
    expect(viewer).not.toContain(`/claims/edit-viewer/${mine.id}/download`);
    expect(viewer).not.toMatch(/value="send"/);
    expect(leaks(viewer, farData)).toEqual([]);

    const list = await text(await request(`/claims?location_id=${here.location.id}`, { cookie }));
    expect(list).toContain(`Open claim ${mine.claim_number}`);
    expect(list).not.toContain(`/claims/edit-viewer/${mine.id}/download`);
    expect(leaks(list, farData)).toEqual([]);

    const send = await form(`/claims/edit-viewer/${mine.id}`, { intent: "send" }, cookie);
    expect(send.status).toBe(403);
    expect(await text(send)).toContain(CLAIM_MESSAGES.fileOfOtherLocations(file.file_name, 1, "send"));
    expect((await fileRow(file.file_id)).sentAt).toBeNull();
  });

  it("a stranded file's messages tell the manager to generate their claims and that someone who manages the other location generates its claim; an admin is told every claim (probe 8965 §6)", async () => {
    const { here, token, mine, theirs, second, file } = await mixedFile({ second: true });
    const message = async (res: Response) => ((await res.json()) as { message: string }).message;
    const voiding = await api(`/v2/claims/${mine.id}/status`, { method: "POST", token: here.token, body: { status: "rejected" } });
    expect(voiding.status).toBe(200);
    expect(await message(voiding)).toBe(
      `Claim marked rejected. Its 837P ${file.file_name} was not sent and also holds claim ${second!.claim_number} and 1 claim of another location, so that file will not be sent now: generate a new 837P for claim ${second!.claim_number} (on the claim's page, or tick it on the claims list); the claim of another location must be generated again by someone who manages its location.`,
    );
    const managerSend = await api(`/v2/claims/${second!.id}/send`, { method: "POST", token: here.token });
    expect(managerSend.status).toBe(422);
    const refusal = await message(managerSend);
    expect(refusal).toBe(CLAIM_MESSAGES.fileHoldsVoided(file.file_name, { numbers: [mine.claim_number], hidden: 0 }, { numbers: [second!.claim_number], hidden: 1 }));
    expect(refusal).toContain(
      `Generate a new 837P for claim ${second!.claim_number}: the new file leaves the voided claim out; the claim of another location must be generated again by someone who manages its location.`,
    );
    // The admin sees every claim of the file: all named, each theirs to generate.
    const adminSend = await api(`/v2/claims/${second!.id}/send`, { method: "POST", token });
    expect(adminSend.status).toBe(422);
    const both = [theirs, second!].sort((a, b) => a.id - b.id).map((c) => c.claim_number);
    expect(await message(adminSend)).toContain(`This file will never be sent. Generate a new 837P for claims ${both[0]} and ${both[1]}: the new file leaves the voided claim out.`);
    // The manager's part done, the other location's claim is still stranded until its manager generates it.
    expect((await api("/v2/claims/generate", { method: "POST", token: here.token, body: { claim_ids: [theirs.id] } })).status).toBe(404);
    expect((await api("/v2/claims/generate", { method: "POST", token, body: { claim_ids: [theirs.id] } })).status).toBe(201);
  });

  it("an admin voiding a claim of a mixed file is told every stranded claim by number (probe 8965 §6)", async () => {
    const { token, mine, theirs, file } = await mixedFile();
    const voiding = await api(`/v2/claims/${mine.id}/status`, { method: "POST", token, body: { status: "rejected" } });
    expect(voiding.status).toBe(200);
    expect(((await voiding.json()) as { message: string }).message).toBe(
      `Claim marked rejected. Its 837P ${file.file_name} was not sent and also holds claim ${theirs.claim_number}, so that file will not be sent now: generate a new 837P for claim ${theirs.claim_number} (on the claim's page, or tick it on the claims list).`,
    );
  });
});

describe("the subscriber loop, PAT01 and PER04 as 005010X222A1 asks (probe 8981 §2, §3, §7)", () => {
  it.each([
    ["a grandmother with a city, state and ZIP but no street", "G8", { relationship: "Grandmother (legal guardian)", parent_city: "Denver", parent_state: "CO", parent_zip: "80202" }],
    ["a mother without an address or birth date", "19", { relationship: "Mother" }],
    ["a husband", "01", { relationship: "Husband", parent_address: "9 Oak St", parent_city: "Doral", parent_state: "FL", parent_zip: "33172", parent_birth_date: "1980-01-02" }],
  ])("%s: built without issues; 2010BA is their name alone, the client's own address and demographics in 2010CA, PAT*%s", async (_name, pat, parent) => {
    const w = await world();
    await db().update(locations).set({ phone1: "+1 (305) 555-0100" }).where(eq(locations.id, w.location.id));
    const details: Record<string, unknown> = { ...(JSON.parse(w.patient.details ?? "{}") as Record<string, unknown>), is_self_subscriber: false, parent_name: "Parent, Maria", ...parent };
    await db().update(patients).set({ details: JSON.stringify(details) }).where(eq(patients.id, w.patient.id));
    const built = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [await w.note()] } });
    expect(built.status, await built.clone().text()).toBe(201);
    const draft = ((await built.json()) as { data: { id: number; errors: unknown[] }[] }).data[0]!;
    expect(draft.errors).toEqual([]);
    const gen = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [draft.id] } });
    expect(gen.status, await gen.clone().text()).toBe(201);
    const content = await (await api(`/v2/claims/${draft.id}/download`, { token: w.token })).text();
    readBack837(content);
    expect(content).toContain(`NM1*IL*1*PARENT*MARIA****MI*${String(details.insuranceId)}~\nNM1*PR*2*`);
    expect(content).toContain(`HL*3*2*23*0~\nPAT*${pat}~\nNM1*QC*1*${w.patient.lastName.toUpperCase()}*${w.patient.firstName.toUpperCase()}~\nN3*5 PALM AVE~\nN4*MIAMI*FL*33102~\nDMG*D8*20180402*F~`);
    expect(content.match(/^N3\*/gm)).toHaveLength(2); // 2010AA and 2010CA
    expect(content).not.toMatch(/DENVER|DORAL|9 OAK/);
    expect(content).toMatch(/^PER\*IC\*[^*~]+\*TE\*3055550100~$/m);
    // The viewer's readable 837P is the file's: 2010BA the subscriber's name, 2010CA the client's.
    const shown = (await (await api(`/v2/claims/${draft.id}`, { token: w.token })).json()) as { data: { readable: { loop: string; id: string }[]; data: { subscriber: Record<string, unknown> } } };
    const loop = (name: string) => shown.data.readable.filter((s) => s.loop.startsWith(name)).map((s) => s.id);
    expect(loop("2010BA")).toEqual(["NM1"]);
    expect(loop("2000C")).toEqual(["HL", "PAT"]);
    expect(loop("2010CA")).toEqual(["NM1", "N3", "N4", "DMG"]);
    expect(Object.keys(shown.data.data.subscriber).sort()).toEqual(["firstName", "groupNumber", "lastName", "memberId", "selfSubscriber"]);
  });
});

describe("the build form marks each bad filter at its field (probe 8981 §8)", () => {
  it.each([
    ["a client id that is not a number and a date that is not real", "b_patient_id=abc&b_from=2026-13-01", { b_patient_id: "Enter a client id (a whole number).", b_from: "Dates must be real dates like 2026-01-31." }],
    ["a client id that is not a number and To before From", "b_patient_id=4x&b_from=2026-11-20&b_to=2026-11-01", { b_patient_id: "Enter a client id (a whole number).", b_to: "To must be on or after From." }],
  ])("%s", async (_name, query, errors) => {
    const w = await world();
    const page = await (await request(`/claims?pick=1&${query}`, { cookie: await signInCookie(w.manager) })).text();
    for (const [field, message] of Object.entries(errors)) {
      expect(page).toMatch(new RegExp(`aria-errormessage="f-${field}-error"`));
      expect(page).toContain(`<p id="f-${field}-error" class="field-error" role="alert">${message}</p>`);
    }
    expect(page.match(/class="field-error"/g)).toHaveLength(Object.keys(errors).length);
    expect(page).not.toContain("Choose from the list.");
    expect(page).toContain("No billed notes are shown until the build filters marked above are corrected.");
  });

  it("billable-notes answers a client id that is not a number with the same message", async () => {
    const w = await world();
    const res = await api(`/v2/claims/billable-notes?patient_id=abc`, { token: w.token });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.patient_id).toBe("Enter a client id (a whole number).");
  });
});

describe("a payer that bills an RBT's sessions under the supervisor (probe 8981 §4)", () => {
  /** The world's payer with or without the flag; a BCBA supervisor (Noah Fischer) and a second RBT (Diego Ramirez), each with an NPI. */
  async function supervised(flag: boolean) {
    const w = await world();
    await db().update(insurances).set({ usesSupervisorAsProvider: flag }).where(eq(insurances.id, w.insurer.id));
    const staff = async (name: string, surname: string, npi: string | null) => {
      const u = await createUser({ permissions: ["view_notes"], locations: [w.location.id] });
      await db().update(users).set({ name, surname, profile: JSON.stringify(npi ? { npi } : {}) }).where(eq(users.id, u.id));
      return u;
    };
    return { ...w, bcba: await staff("Noah", "Fischer", npiFrom("222333444")), diego: await staff("Diego", "Ramirez", npiFrom("333444555")), staff };
  }
  const build = async (token: string, noteIds: number[]) => api("/v2/claims", { method: "POST", token, body: { note_ids: noteIds } });

  it("two RBTs' notes of one day with one supervisor make one claim; the 837P's rendering provider is the supervisor, at the RBT's price; the viewer says so; the billing rows keep each RBT", async () => {
    const w = await supervised(true);
    const a = await w.note({ supervisorId: w.bcba.id });
    const b = await w.note({ providerId: w.diego.id, providerName: "Diego Ramirez", supervisorId: w.bcba.id });
    const rows = (await (await api(`/client_report/byprofile/${w.patient.id}`, { token: w.token })).json()) as { data: { note_id: number; provider_name: string; reasons: string[] }[] };
    expect(rows.data.map((r) => [r.note_id, r.provider_name, r.reasons]).sort()).toEqual([
      [a, "Rita Baker", []],
      [b, "Diego Ramirez", []],
    ]);
    const built = await build(w.token, [a, b]);
    expect(built.status, await built.clone().text()).toBe(201);
    const { data } = (await built.json()) as { data: { id: number; lines: number; total_cents: number; errors: unknown[] }[] };
    // One claim (client + location + rendering provider + payer), one line of both notes' units at the RBT's 97153 price.
    expect(data).toEqual([expect.objectContaining({ lines: 1, total_cents: 16 * 1250, errors: [] })]);
    const [stored] = await db().select().from(claims).where(eq(claims.id, data[0]!.id));
    expect(stored!.providerId).toBe(w.bcba.id);
    const shown = (await (await api(`/v2/claims/${data[0]!.id}`, { token: w.token })).json()) as { data: { data: { renderingProvider: unknown }; current_errors: unknown[] } };
    expect(shown.data.data.renderingProvider).toEqual({ firstName: "Noah", lastName: "Fischer", npi: npiFrom("222333444") });
    expect(shown.data.current_errors).toEqual([]);
    const viewer = await (await request(`/claims/edit-viewer/${data[0]!.id}`, { cookie: await signInCookie(w.manager) })).text();
    expect(viewer).toContain(`Noah Fischer · NPI ${npiFrom("222333444")}`);

    const gen = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [data[0]!.id] } });
    expect(gen.status, await gen.clone().text()).toBe(201);
    const content = await (await api(`/v2/claims/${data[0]!.id}/download`, { token: w.token })).text();
    readBack837(content);
    expect(content).toContain(`NM1*82*1*FISCHER*NOAH****XX*${npiFrom("222333444")}~\nLX*1~\nSV1*HC:97153*200.00*UN*16***1~`);
    expect(content).not.toMatch(/BAKER|RAMIREZ/);
  });

  it("the supervisor changed on a draft's note: generation refuses, as for any change of the claim's rendering provider", async () => {
    const w = await supervised(true);
    const other = await w.staff("Ada", "Stone", npiFrom("444555666"));
    const a = await w.note({ supervisorId: w.bcba.id });
    const built = await build(w.token, [a]);
    expect(built.status, await built.clone().text()).toBe(201);
    const id = ((await built.json()) as { data: { id: number }[] }).data[0]!.id;
    await db().update(notes).set({ supervisorId: other.id }).where(eq(notes.id, a));
    const gen = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [id] } });
    expect(gen.status).toBe(409);
    expect(((await gen.json()) as { message: string }).message).toMatch(/no longer make the same lines at today's prices, payer and PA numbers/);
    expect((await db().select().from(claims).where(eq(claims.id, id)))[0]!.status).toBe("draft");
  });

  it.each([
    ["a note without a supervisor", false, /^Note \d+: Cannot bill this note: Florida Blue \d+ bills an RBT's sessions under the supervising BCBA \("Uses the supervisor as provider" on the insurer's page\), so the claim names the note's supervisor as the rendering provider, and this note names no supervisor\. Choose the BCBA who supervised the session as the note's supervisor \(on a signed note, by an amendment\)\.$/],
    ["a supervisor without an NPI", true, /^Note \d+: Cannot bill this note: Florida Blue \d+ bills an RBT's sessions under the supervising BCBA \("Uses the supervisor as provider" on the insurer's page\), so the claim names the note's supervisor as the rendering provider: Noah Fischer has no NPI\. Add the rendering provider's NPI on the employee's profile\.$/],
  ])("%s: the scrubber refuses it on the billing row and the build writes nothing", async (_name, withSupervisor, message) => {
    const w = await supervised(true);
    if (withSupervisor) await db().update(users).set({ profile: "{}" }).where(eq(users.id, w.bcba.id));
    const a = await w.note(withSupervisor ? { supervisorId: w.bcba.id } : {});
    const rows = (await (await api(`/client_report/byprofile/${w.patient.id}`, { token: w.token })).json()) as { data: { reasons: string[] }[] };
    expect(rows.data[0]!.reasons).toHaveLength(1);
    const before = await claimCount();
    const built = await build(w.token, [a]);
    expect(built.status).toBe(422);
    expect(((await built.json()) as { message: string }).message).toMatch(message);
    expect(await claimCount()).toBe(before);
  });

  it("a payer without the flag: each RBT renders their own claim, supervisor or not", async () => {
    const w = await supervised(false);
    const a = await w.note({ supervisorId: w.bcba.id });
    const b = await w.note({ providerId: w.diego.id, providerName: "Diego Ramirez", supervisorId: w.bcba.id });
    const built = await build(w.token, [a, b]);
    expect(built.status, await built.clone().text()).toBe(201);
    const made = ((await built.json()) as { data: { id: number }[] }).data;
    expect(made).toHaveLength(2);
    const gen = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: made.map((c) => c.id) } });
    expect(gen.status, await gen.clone().text()).toBe(201);
    const content = await (await api(`/v2/claims/${made[0]!.id}/download`, { token: w.token })).text();
    readBack837(content);
    expect(content.match(/^NM1\*82\*.*$/gm)?.sort()).toEqual([`NM1*82*1*BAKER*RITA****XX*${npiFrom("111222333")}~`, `NM1*82*1*RAMIREZ*DIEGO****XX*${npiFrom("333444555")}~`]);
    expect(content).not.toContain("FISCHER");
  });
});

describe("CLM11 and the 2310A referring provider from the client's profile (probe 8981 §5)", () => {
  const withProfile = async (set: Record<string, unknown>) => {
    const w = await world();
    const details = { ...(JSON.parse(w.patient.details ?? "{}") as Record<string, unknown>), ...set };
    await db().update(patients).set({ details: JSON.stringify(details) }).where(eq(patients.id, w.patient.id));
    return w;
  };

  it("employment related, other accident and a referring provider go out in CLM11 and 2310A, before 2310B; the viewer lists them", async () => {
    const w = await withProfile({ emmployment: true, other_accident: true, referring_provider_first_name: "Ana", referring_provider_last_name: "Lee", referring_provider_npi: "1306849450" });
    const built = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [await w.note()] } });
    expect(built.status, await built.clone().text()).toBe(201);
    const draft = ((await built.json()) as { data: { id: number; errors: unknown[] }[] }).data[0]!;
    expect(draft.errors).toEqual([]);
    const viewer = await (await request(`/claims/edit-viewer/${draft.id}`, { cookie: await signInCookie(w.manager) })).text();
    expect(viewer).toContain("Ana Lee · NPI 1306849450");
    expect(viewer).toContain("Employment related, Other accident");
    const gen = await api("/v2/claims/generate", { method: "POST", token: w.token, body: { claim_ids: [draft.id] } });
    expect(gen.status, await gen.clone().text()).toBe(201);
    const content = await (await api(`/v2/claims/${draft.id}/download`, { token: w.token })).text();
    const back = readBack837(content);
    expect(content).toMatch(/^CLM\*C\d{7}\*100\.00\*\*\*12:B:1\*Y\*A\*Y\*Y\*\*EM:OA~\nHI\*ABK:F840~\nNM1\*DN\*1\*LEE\*ANA\*\*\*\*XX\*1306849450~\nNM1\*82\*1\*BAKER\*RITA/m);
    // SE01 (checked by the reader) counts the new segment: 24 for a self-subscriber's one-line claim, + REF*G1 + NM1*DN.
    expect(back.sets[0]!.count).toBe(26);
  });

  it.each([
    ["an auto accident", { auto_accident: true }, /An auto accident claim needs the accident's state \(where it happened\), and the client's profile has no place to record it, so this claim cannot be sent from here\. If the services are not related to an auto accident, untick "Auto accident" on the client's profile\.$/],
    ["a referring provider's name without an NPI", { referring_provider_first_name: "Ana", referring_provider_last_name: "Lee" }, /The client's profile names the referring provider Ana Lee without an NPI\. Add the referring provider's 10-digit NPI on the client's profile, or clear the name if there is no referral\.$/],
    ["a referring NPI without a name", { referring_provider_npi: "1306849450" }, /The client's profile names a referring provider \(NPI 1306849450\) without a last name\./],
  ])("%s: refused before anything is built", async (_name, set, message) => {
    const w = await withProfile(set);
    const before = await claimCount();
    const built = await api("/v2/claims", { method: "POST", token: w.token, body: { note_ids: [await w.note()] } });
    expect(built.status).toBe(422);
    expect(((await built.json()) as { message: string }).message).toMatch(message);
    expect(await claimCount()).toBe(before);
  });
});

describe("a resent build answers the claims it built (decision 032, stop 40)", () => {
  it("the build form sent twice: the same 303, one claim; the API's Idempotency-Key 201 then 200, another body 422", async () => {
    const w = await world();
    const n1 = await w.note();
    const cookie = await signInCookie(w.manager);
    const page = await (await request(`/claims?pick=1&b_location_id=${w.location.id}`, { cookie })).text();
    const formToken = /name="form_token" value="([^"]+)"/.exec(page)?.[1];
    expect(formToken).toBeTruthy();
    const before = await claimCount();
    const fields = { intent: "build", note_ids: String(n1), form_token: formToken! };
    const first = await form("/claims", fields, cookie);
    const again = await form("/claims", fields, cookie);
    expect([first.status, again.status]).toEqual([303, 303]);
    expect(again.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(await claimCount()).toBe(before + 1);

    const n2 = await w.note({ sessionDate: "2026-11-03", signedAt: "2026-11-03T20:00:00.000Z", providerSignedOn: "2026-11-03" });
    const keyed = (key: string, body: unknown) =>
      appFetch(`${BASE}/api/v2/claims`, { method: "POST", headers: { Accept: "application/json", "Content-Type": "application/json", Authorization: `Bearer ${w.token}`, "Idempotency-Key": key }, body: JSON.stringify(body) });
    const a = await keyed("build-1", { note_ids: [n2] });
    const b = await keyed("build-1", { note_ids: [n2] });
    expect([a.status, b.status], await a.clone().text()).toEqual([201, 200]);
    expect(((await b.json()) as { data: { id: number }[] }).data.map((c) => c.id)).toEqual(((await a.json()) as { data: { id: number }[] }).data.map((c) => c.id));
    expect(await claimCount()).toBe(before + 2);
    expect((await keyed("build-1", { note_ids: [n1] })).status).toBe(422);
    expect(await claimCount()).toBe(before + 2);
  });
});
