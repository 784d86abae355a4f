import { and, count, eq, gt, inArray, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import { primaryOf, rowsChanged, type Db } from "~/db/client.server";
import { deleteInSteps, PRUNE_LIMITS } from "~/db/prune.server";
import { backupCodes, loginFailures, parents, RESET_REQUEST_ACTIONS, resetRequestRows, roles, twoFactorChallenges, userRoles, users } from "~/db/schema";
import {
  addMinutes,
  afterFailedAttempt,
  AUTH_MESSAGES,
  BACKUP_CODE_COUNT,
  challengeForgottenAt,
  challengeOver,
  CODE_EMAILS_PER_HOUR,
  codeEmailWaitSeconds,
  codeExpiresAt,
  expiryText,
  isExpired,
  RESENDS_PER_CHALLENGE,
  RESET_REQUESTS_PER_ADDRESS,
  RESET_TOKEN_MINUTES,
  THROTTLE,
  throttleWaitSeconds,
  TWO_FACTOR_ATTEMPTS,
} from "~/domain/auth-rules";
import { normalizeEmail } from "~/domain/auth-schemas";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { auditTail, CHAIN_ATTEMPTS, chainBackoff, chainBusy, isChainRace, withAudit, withAuditIfUnchanged, withConditionalAudit, type AuditEntry, type AuditWho, type KnownTail } from "~/services/audit.server";
import type { AppContext } from "~/services/context.server";
import { randomDigits, randomToken, sha256Hex, timingSafeEqual } from "~/services/crypto.server";
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from "~/services/passwords.server";
import { enqueueEmail, recordEmailFailure, securityNotice } from "~/services/jobs.server";
import { endAllAccessStatements } from "~/services/access.server";
import { bumpListVersion } from "~/services/list-cache.server";
import { rowCells } from "~/services/idempotency.server";
import type { PrincipalType } from "./actors.server";
import { getAuthSettings } from "./settings.server";

export interface Principal {
  type: PrincipalType;
  id: number;
  email: string;
  name: string;
  passwordHash: string | null;
  twoFactorEnabled: boolean;
  /**
   * Read in the same statement as `passwordHash`: a session or token issued on this check carries it, so a change
   * that ends access after this read (a password set meanwhile) leaves them refused (decision 015).
   */
  accessGeneration: number;
}

type PrincipalRow = Pick<typeof users.$inferSelect, "id" | "email" | "name" | "twoFactorEnabled" | "accessGeneration"> & { passwordHash: string | null };

function principalOf(type: PrincipalType, row: PrincipalRow): Principal {
  return { type, id: row.id, email: row.email, name: row.name, passwordHash: row.passwordHash, twoFactorEnabled: row.twoFactorEnabled, accessGeneration: row.accessGeneration };
}

type AuthApp = Pick<AppContext, "db" | "env" | "email" | "ip" | "isDev" | "now">;

async function findPrincipal(db: Db, email: string, type: PrincipalType): Promise<Principal | null> {
  if (type === "user") {
    const [u] = await db
      .select()
      .from(users)
      .where(and(eq(users.email, email), isNull(users.deletedAt), eq(users.status, "active")));
    return u ? principalOf(type, u) : null;
  }
  const [p] = await db
    .select()
    .from(parents)
    .where(and(eq(parents.email, email), isNull(parents.deletedAt), eq(parents.status, "active")));
  return p ? principalOf(type, p) : null;
}

export async function getPrincipalById(db: Db, type: PrincipalType, id: number): Promise<Principal | null> {
  const table = type === "user" ? users : parents;
  const [row] = await db.select().from(table).where(and(eq(table.id, id), isNull(table.deletedAt)));
  return row ? principalOf(type, row) : null;
}

/* ---------------------------------------------------------------- throttling */

/**
 * A staff account's and a parent's failures are counted apart (probe 9008 §3): the two sign-in namespaces may share an
 * email (decision 016), and one must not lock the other out. A staff key keeps its old shape.
 */
/** The list-version row an account's own change bumps: the employees' list or the parents' (decision 017). */
const accountsList = (type: PrincipalType) => (type === "user" ? "employees" : "parents");
const accountKey = (email: string, type: PrincipalType = "user") => (type === "parent" ? `account:parent:${email}` : `account:${email}`);
const addressKey = (ip: string) => `ip:${ip}`;

/**
 * A password check's place in the throttle, claimed BEFORE the password is compared (probe 9008 §2): one batch inserts
 * this attempt's account and address failure rows and reads the window's failures, so attempts sent together are
 * counted as they are: each sees the ones committed before it (a batch is one transaction). `wait` is what the
 * attempts before this one impose (0 = it may be checked). The claim is withdrawn (`release`) when the attempt is
 * refused by the throttle (a refused attempt is not a failure, as before) or the password is right.
 */
async function claimPasswordAttempt(db: Db, email: string, type: PrincipalType, ip: string, now: Date): Promise<{ wait: number; release: () => BatchItem<"sqlite"> }> {
  const since = new Date(now.getTime() - THROTTLE.windowMs).toISOString();
  const at = now.toISOString();
  const [account, address] = [accountKey(email, type), addressKey(ip)];
  const [mine, rows] = await db.batch([
    db.insert(loginFailures).values([{ key: account, at }, { key: address, at }]).returning({ id: loginFailures.id }),
    db
      .select({ id: loginFailures.id, key: loginFailures.key, at: loginFailures.at })
      .from(loginFailures)
      .where(and(inArray(loginFailures.key, [account, address]), gt(loginFailures.at, since))),
  ]);
  const ids = mine.map((r) => r.id);
  const before = rows.filter((r) => !ids.includes(r.id));
  const of = (k: string) => before.filter((r) => r.key === k).map((r) => r.at);
  const wait = Math.max(throttleWaitSeconds(of(account), THROTTLE.account, now), throttleWaitSeconds(of(address), THROTTLE.address, now));
  return { wait, release: () => db.delete(loginFailures).where(inArray(loginFailures.id, ids)) };
}

/** A sign-in's audit row: the email tried (never the password) and how, with the client address in `ip`. */
function signInEntry(action: string, principal: Principal | null, email: string | null, via: SignInChannel, secondFactor?: "email_code" | "backup_code", kind?: PrincipalType): AuditEntry {
  // A parent's attempt says so (`parent: true`), so a failure against a parent account sharing a staff email is told
  // apart from one against the staff account (probe 9008 §3).
  const parent = (principal?.type ?? kind) === "parent";
  return { action, entity: principal?.type ?? "session", entityId: principal?.id ?? null, detail: { email, via, ...(parent ? { parent: true } : {}), ...(secondFactor ? { second_factor: secondFactor } : {}) } };
}

/**
 * A password reset's audit row (decision 019, stop 44): by nobody signed in, with the email asked for (as a failed
 * sign-in's row has it) and how; on the account (an employee or a parent, its id) when the email has one of the kind
 * asked for, or the code's challenge names one; else on `session`, as a failed sign-in. `parent: true` when a parent's
 * account was asked for.
 */
function resetEntry(action: string, account: { email: string | null; type?: PrincipalType; id?: number }, via: SignInChannel, more: Record<string, unknown> = {}): AuditEntry {
  const on = account.type && account.id != null ? signInChangeEntry({ type: account.type, id: account.id }, action) : { action, entity: "session", entityId: null };
  return { ...on, detail: { email: account.email, via, ...(account.type === "parent" ? { parent: true } : {}), ...more } };
}

/**
 * The second step of a sign-in, recorded: success with the consuming writes in one batch; every refused attempt too
 * (probe 9037 L1/L2): a wrong or expired code, a code that reached no challenge (in the batch of the address's failure
 * it counts as, `attempt.writes`) and one the throttle refused (`sign_in_throttled`). A refused attempt's row names
 * the account the way the screen and the API both can (attemptAccount), so the two write the same row.
 */
async function recordSecondFactor(app: AuthApp, result: CodeResult, attempt: CodeAttempt, via: SignInChannel, factor: "email_code" | "backup_code", writes: () => BatchItem<"sqlite">[]): Promise<void> {
  if (result.kind === "ok") {
    const p = result.principal;
    await withAudit(app.db, { actor: { kind: p.type, id: p.id }, ip: app.ip }, signInEntry("sign_in", p, p.email, via, factor), writes as () => [], attempt.tail);
    return;
  }
  const { email, type } = attempt.account;
  const action = result.kind === "throttled" ? "sign_in_throttled" : "sign_in_failed";
  await withAudit(app.db, anonymous(app.ip), signInEntry(action, null, email, via, factor, type), (() => attempt.writes()) as () => [], attempt.tail);
}

/**
 * A code's attempt as its audit row sees it: the account tried (the challenge's when its id names one and no other
 * email was sent, else the email sent; null when neither), the chain's tail read with the throttle's count, and the
 * writes that go in the row's batch (a stranger's guess counted against the address).
 */
type CodeAttempt = { account: { email: string | null; type?: PrincipalType; id?: number }; tail: KnownTail; writes: () => BatchItem<"sqlite">[] };

function attemptAccount(by: { email?: string }, challenge: { email: string | null; type: PrincipalType; id: number } | undefined): CodeAttempt["account"] {
  const sent = by.email ? normalizeEmail(by.email) : null;
  if (challenge?.email && (sent === null || sent === challenge.email)) return { email: challenge.email, type: challenge.type, id: challenge.id };
  return { email: sent };
}
const anonymous = (ip: string): AuditWho => ({ actor: { kind: "anonymous", id: null }, ip });

/**
 * The failed sign-in's audit row; its failure rows were written by its claim (claimPasswordAttempt) and stay. Failures
 * out of the window are deleted by the hourly clean-up (pruneLoginFailures), not here: a delete on each failed attempt
 * made every attempt of a password-guessing burst scan the burst's rows.
 */
async function recordFailure(db: Db, email: string, kind: PrincipalType, ip: string, via: SignInChannel): Promise<void> {
  await withAudit(db, anonymous(ip), signInEntry("sign_in_failed", null, email, via, undefined, kind), () => [] as []);
}

/**
 * Seconds until the address may try again, by its own failures only (two-factor codes: strangers wait, owners do not),
 * read in one batch with what the attempt's audit row needs: the chain's tail and the account of the challenge the id
 * names, pending or not (a stale id still tells whose sign-in was guessed at).
 */
async function addressWait(db: Db, ip: string, now: Date, challengeId: string | undefined) {
  const since = new Date(now.getTime() - THROTTLE.windowMs).toISOString();
  const [rows, tails, accounts] = await db.batch([
    db
      .select({ at: loginFailures.at })
      .from(loginFailures)
      .where(and(eq(loginFailures.key, addressKey(ip)), gt(loginFailures.at, since))),
    db.select({ tail: auditTail }).from(sql`(select 1)`),
    db
      .select({
        type: twoFactorChallenges.principalType,
        id: twoFactorChallenges.principalId,
        email: sql<string | null>`case ${twoFactorChallenges.principalType} when 'user' then (select email from users where id = ${twoFactorChallenges.principalId}) else (select email from parents where id = ${twoFactorChallenges.principalId}) end`,
      })
      .from(twoFactorChallenges)
      .where(eq(twoFactorChallenges.id, challengeId ?? "")),
  ]);
  const wait = throttleWaitSeconds(
    rows.map((r) => r.at),
    THROTTLE.address,
    now,
  );
  return { wait, tail: tails[0]?.tail ?? null, challenge: accounts[0] };
}

function addressFailure(db: Db, ip: string, now: Date) {
  return db.insert(loginFailures).values({ key: addressKey(ip), at: now.toISOString() });
}

function clearAccountFailures(db: Db, email: string, type: PrincipalType) {
  return db.delete(loginFailures).where(eq(loginFailures.key, accountKey(email, type)));
}

/**
 * The account's failures cleared, this attempt's claim withdrawn and the sign-in's audit row (success, or password
 * accepted with a second factor to come), in one batch.
 */
async function recordSuccess(db: Db, principal: Principal, email: string, ip: string, via: SignInChannel, release: () => BatchItem<"sqlite">): Promise<void> {
  const action = principal.twoFactorEnabled ? "sign_in_password_ok" : "sign_in";
  await withAudit(db, { actor: { kind: principal.type, id: principal.id }, ip }, signInEntry(action, principal, email, via), () => [clearAccountFailures(db, email, principal.type), release()]);
}

/* ---------------------------------------------------------------- sign-in */

export type SignInResult =
  | { kind: "signed_in"; principal: Principal }
  /** `challengeId` goes only to the client that signed in (the screens' cookie, the API's 202 answer). */
  | { kind: "two_factor"; principal: Principal; challengeId: string; expiresInMinutes: number; attemptsRemaining: number }
  | { kind: "invalid"; message: string }
  | { kind: "throttled"; retryAfter: number; message: string }
  | { kind: "send_failed"; message: string };

/**
 * Seconds until the account may be sent another sign-in code email (decision 016: at most 10 an hour, first codes
 * included); 0 when it may now. Asked before a sign-in's first code and before a resend (probe 8895, stop 25).
 */
async function codeEmailsWait(db: Db, principal: { type: PrincipalType; id: number }, now: Date): Promise<number> {
  const since = new Date(now.getTime() - THROTTLE.windowMs).toISOString();
  const sentThisHour = await db
    .select({ createdAt: twoFactorChallenges.createdAt, sends: twoFactorChallenges.sends })
    .from(twoFactorChallenges)
    .where(and(eq(twoFactorChallenges.principalType, principal.type), eq(twoFactorChallenges.principalId, principal.id), eq(twoFactorChallenges.context, "login"), gt(twoFactorChallenges.createdAt, since)));
  return codeEmailWaitSeconds(sentThisHour, now);
}

/**
 * The condition under which one more sign-in code email may be counted for the account: the sends of its sign-in
 * challenges of the last hour (codeEmailsWait's rows) are under CODE_EMAILS_PER_HOUR. Put in the WHERE of the statement
 * that counts the send (a new challenge's insert, a resend's increment), so requests racing each other are counted one
 * after the other: at most CODE_EMAILS_PER_HOUR sends are ever counted (decision 016, stop 41).
 */
function codeEmailsRoom(principal: { type: PrincipalType; id: number }, now: Date) {
  const since = new Date(now.getTime() - THROTTLE.windowMs).toISOString();
  return sql`(select coalesce(sum(c.sends), 0) from two_factor_challenges c
    where c.principal_type = ${principal.type} and c.principal_id = ${principal.id} and c.context = 'login' and c.created_at > ${since}) < ${CODE_EMAILS_PER_HOUR}`;
}

/** Checks credentials with throttling; never tells whether the email exists. */
/** Where a sign-in came from, for its audit row. */
export type SignInChannel = "screen" | "api";

/** Checks credentials with throttling; never tells whether the email exists. Every attempt writes an audit row. */
export async function signIn(app: AuthApp, input: { email: string; password: string; parent: boolean }, via: SignInChannel = "screen"): Promise<SignInResult> {
  const email = normalizeEmail(input.email);
  const kind: PrincipalType = input.parent ? "parent" : "user";
  const now = app.now();
  const claim = await claimPasswordAttempt(app.db, email, kind, app.ip, now);
  if (claim.wait > 0) {
    await withAudit(app.db, anonymous(app.ip), signInEntry("sign_in_throttled", null, email, via, undefined, kind), () => [claim.release()]);
    return { kind: "throttled", retryAfter: claim.wait, message: AUTH_MESSAGES.throttled };
  }

  const principal = await findPrincipal(app.db, email, kind);
  const ok = await verifyPassword(input.password, principal?.passwordHash ?? DUMMY_PASSWORD_HASH, app.env.PASSWORD_PEPPER ?? "");
  if (!principal || !principal.passwordHash || !ok) {
    await recordFailure(app.db, email, kind, app.ip, via);
    return { kind: "invalid", message: AUTH_MESSAGES.invalidCredentials };
  }
  await recordSuccess(app.db, principal, email, app.ip, via, claim.release);
  if (!principal.twoFactorEnabled) return { kind: "signed_in", principal };

  const codeWait = await codeEmailsWait(app.db, principal, now);
  if (codeWait > 0) return { kind: "throttled", retryAfter: codeWait, message: AUTH_MESSAGES.codeEmailsLimit };
  const challenge = await startChallenge(app, principal, "login");
  // Racing sign-ins took the hour's last sends between the check above and the insert.
  if (challenge.limited) return { kind: "throttled", retryAfter: Math.max(1, await codeEmailsWait(app.db, principal, app.now())), message: AUTH_MESSAGES.codeEmailsLimit };
  if (!challenge.sent) return { kind: "send_failed", message: AUTH_MESSAGES.sendFailed };
  return { kind: "two_factor", principal, challengeId: challenge.id, expiresInMinutes: challenge.expiresInMinutes, attemptsRemaining: TWO_FACTOR_ATTEMPTS };
}

export type PasswordCheck = { kind: "ok" } | { kind: "wrong" } | { kind: "throttled"; retryAfter: number; message: string };

/** Why a signed-in (or locked) principal re-enters their password: the audit trail tells these apart from sign-ins. */
export type PasswordPurpose = "unlock" | "change_password" | "profile";

/** What a password accepted for `purpose` also writes, in the batch that clears the failures (the unlock and its row). */
export type PasswordAccepted = { entry: AuditEntry; writes: () => BatchItem<"sqlite">[] };

/**
 * Verifies a password for an already-known principal (lock screen, change password, two-factor switch, backup
 * codes) under the sign-in throttle: failures count against the account and the address exactly as failed
 * sign-ins do, and once either must wait no password is checked at all. A refused password is audited as
 * `password_check_failed` by the principal, with its purpose — not as a sign-in failure, since nobody signed in.
 * `accepted`, when given, is written (audited) with the cleared failures in one batch.
 */
export async function checkPassword(
  app: Pick<AppContext, "db" | "env" | "ip" | "now">,
  type: PrincipalType,
  id: number,
  password: string,
  purpose: PasswordPurpose,
  accepted?: PasswordAccepted,
): Promise<PasswordCheck> {
  const p = await getPrincipalById(app.db, type, id);
  const email = p?.email ?? "";
  const now = app.now();
  const claim = await claimPasswordAttempt(app.db, email, type, app.ip, now);
  if (claim.wait > 0) {
    await claim.release();
    return { kind: "throttled", retryAfter: claim.wait, message: AUTH_MESSAGES.passwordThrottled(claim.wait) };
  }
  const ok = await verifyPassword(password, p?.passwordHash ?? DUMMY_PASSWORD_HASH, app.env.PASSWORD_PEPPER ?? "");
  const who: AuditWho = { actor: { kind: type, id }, ip: app.ip };
  if (!p?.passwordHash || !ok) {
    await withAudit(app.db, who, { action: "password_check_failed", entity: type, entityId: id, detail: { purpose } }, () => [] as []);
    return { kind: "wrong" };
  }
  const cleared = () => [clearAccountFailures(app.db, email, type), claim.release()] as BatchItem<"sqlite">[];
  if (accepted) await withAudit(app.db, who, accepted.entry, (() => [...cleared(), ...accepted.writes()]) as () => []);
  else await app.db.batch(cleared() as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  return { kind: "ok" };
}

/* ---------------------------------------------------------------- challenges (two-factor and password reset) */

type ChallengeContext = "login" | "password_reset";
type ChallengeRow = typeof twoFactorChallenges.$inferSelect;

const codeHash = (challengeId: string, code: string) => sha256Hex(`${challengeId}:${code.trim()}`);

function codeEmail(principal: Principal, code: string, minutes: number, context: ChallengeContext) {
  const what = context === "login" ? "sign-in verification code" : "password reset code";
  return {
    to: principal.email,
    subject: context === "login" ? `Your Baseline verification code: ${code}` : `Your Baseline password reset code: ${code}`,
    text: `Hello ${principal.name},\n\nYour ${what} is ${code}. ${expiryText(minutes)} It can be used once.\n\nIf you did not ask for it, ignore this email and consider changing your password.\n\nBaseline`,
  };
}

/**
 * Sets a fresh code on the challenge and emails it. A resend counts against the challenge's sends and the account's
 * code emails of the hour in the same statement (`maxSends`, codeEmailsRoom), so resends at once cannot pass either
 * limit; `sent: false, limited: true` then. A new challenge's first send was counted by its insert (startChallenge).
 * A send that fails is given back (decision 016, stop 41): an email that never left does not count toward the hour,
 * and its code never works — a new challenge is consumed, a resend's challenge gets back the code and expiry it had
 * (the one the user last received), unless another resend replaced it meanwhile.
 */
async function sendCode(
  app: AuthApp,
  principal: Principal,
  challenge: { id: string; createdAt: string; codeHash?: string | null; expiresAt?: string | null },
  context: ChallengeContext,
  maxSends?: number,
): Promise<{ sent: boolean; limited?: boolean; expiresInMinutes: number }> {
  const { codeExpiryMinutes } = await getAuthSettings(app.db);
  const code = randomDigits(6);
  const now = app.now();
  const expiresAt = context === "login" ? codeExpiresAt(challenge.createdAt, now, codeExpiryMinutes) : addMinutes(now, codeExpiryMinutes);
  const expiresInMinutes = Math.max(1, Math.ceil((expiresAt.getTime() - now.getTime()) / 60_000));
  const set = { codeHash: await codeHash(challenge.id, code), expiresAt: expiresAt.toISOString() };
  if (maxSends === undefined) {
    await app.db.update(twoFactorChallenges).set(set).where(eq(twoFactorChallenges.id, challenge.id));
  } else {
    const counted = await app.db
      .update(twoFactorChallenges)
      .set({ ...set, sends: sql`${twoFactorChallenges.sends} + 1` })
      .where(and(eq(twoFactorChallenges.id, challenge.id), lt(twoFactorChallenges.sends, maxSends), codeEmailsRoom(principal, now)))
      .returning({ id: twoFactorChallenges.id });
    if (counted.length === 0) return { sent: false, limited: true, expiresInMinutes };
  }
  try {
    await app.email.send(codeEmail(principal, code, expiresInMinutes, context));
    return { sent: true, expiresInMinutes };
  } catch (e) {
    console.error("email send failed", e);
    await giveBackSend(app.db, challenge, set.codeHash, maxSends === undefined ? "new" : "resend", app.now()).catch((undo: unknown) => {
      // The send then stays counted: the safe side of the hourly limit.
      console.error("could not give back a failed code send", undo);
    });
    return { sent: false, expiresInMinutes };
  }
}

/**
 * Undoes the count of a code email that failed to send (sendCode). A new challenge ("new"): consumed with no code and
 * no sends, so it neither counts nor can be used. A resend: its send taken off, and the code and expiry the challenge
 * had before put back, only while the failed code is still the one set (`sentHash`: a resend that landed meanwhile
 * keeps its own).
 */
function giveBackSend(db: Db, challenge: { id: string; codeHash?: string | null; expiresAt?: string | null }, sentHash: string, kind: "new" | "resend", now: Date) {
  if (kind === "new") {
    return db.update(twoFactorChallenges).set({ sends: 0, codeHash: null, consumedAt: now.toISOString() }).where(eq(twoFactorChallenges.id, challenge.id));
  }
  const ours = sql`${twoFactorChallenges.codeHash} = ${sentHash}`;
  return db
    .update(twoFactorChallenges)
    .set({
      sends: sql`max(0, ${twoFactorChallenges.sends} - 1)`,
      codeHash: sql`case when ${ours} then ${challenge.codeHash ?? null} else ${twoFactorChallenges.codeHash} end`,
      expiresAt: sql`case when ${ours} then ${challenge.expiresAt ?? null} else ${twoFactorChallenges.expiresAt} end`,
    })
    .where(eq(twoFactorChallenges.id, challenge.id));
}

/**
 * Voids the principal's pending challenges of a context (a new one replaces them), as a statement for a batch. With
 * `replacedBy`, that new challenge is spared, and nothing is voided unless it was stored.
 */
function voidPendingChallenges(db: Db, principal: { type: PrincipalType; id: number }, context: ChallengeContext, at: string, replacedBy?: string) {
  return db
    .update(twoFactorChallenges)
    .set({ consumedAt: at })
    .where(
      and(
        eq(twoFactorChallenges.principalType, principal.type),
        eq(twoFactorChallenges.principalId, principal.id),
        eq(twoFactorChallenges.context, context),
        isNull(twoFactorChallenges.consumedAt),
        replacedBy === undefined ? undefined : sql`${twoFactorChallenges.id} <> ${replacedBy} and exists (select 1 from two_factor_challenges n where n.id = ${replacedBy})`,
      ),
    );
}

/**
 * A new challenge (sign-in or password reset), inserted only while `room` holds (the hour's allowance, in the insert's
 * own WHERE so racing requests are counted one after the other); answers its id when it landed. The row is pending
 * (not consumed, no reset token), with its five attempts and its first send counted; `codeHash` and `expiresAt` are
 * null for a sign-in, whose first send sets them (sendCode).
 */
function insertChallenge(
  db: Db,
  challenge: { id: string; principal: { type: PrincipalType; id: number }; context: ChallengeContext; codeHash: string | null; expiresAt: string | null; createdAt: string; accessGeneration: number },
  room: SQL,
) {
  const row = {
    id: challenge.id,
    principalType: challenge.principal.type,
    principalId: challenge.principal.id,
    context: challenge.context,
    codeHash: challenge.codeHash,
    expiresAt: challenge.expiresAt,
    attemptsRemaining: TWO_FACTOR_ATTEMPTS,
    sends: 1,
    resetTokenHash: null,
    resetTokenExpiresAt: null,
    consumedAt: null,
    createdAt: challenge.createdAt,
    accessGeneration: challenge.accessGeneration,
  } as const;
  return db.insert(twoFactorChallenges).select(sql`select ${rowCells(twoFactorChallenges, row)} where ${room}`).returning({ id: twoFactorChallenges.id });
}

/**
 * Starts a new challenge (voiding earlier pending ones of the same context) and emails its code. It keeps the access
 * generation the password check read: a change that ended access after that check, even one made before this
 * insert (so its void missed the challenge), leaves the session or token of the second step refused.
 */
async function startChallenge(app: AuthApp, principal: Principal, context: "login") {
  const id = randomToken(24);
  const now = app.now();
  const at = now.toISOString();
  // The first send is counted by the insert, which lands only while the hour has room (codeEmailsRoom); the earlier
  // pending challenges are voided only when it landed.
  const [inserted] = await app.db.batch([
    insertChallenge(app.db, { id, principal, context, codeHash: null, expiresAt: null, createdAt: at, accessGeneration: principal.accessGeneration }, codeEmailsRoom(principal, now)),
    voidPendingChallenges(app.db, principal, context, at, id),
  ]);
  if (inserted.length === 0) return { id, sent: false, limited: true, expiresInMinutes: 0 };
  const sent = await sendCode(app, principal, { id, createdAt: at }, context);
  return { id, ...sent };
}

/**
 * Challenges of the live account(s) with this (normalized) email (a deleted account's address may be someone's again).
 * `of`: the name the challenge's row goes by in the statement (an alias inside a subquery on the same table).
 */
function challengeOfEmail(email: string, of: SQL = sql`"two_factor_challenges"`) {
  return sql`(
    (${of}."principal_type" = 'user' and ${of}."principal_id" in (select id from users where email = ${email} and deleted_at is null))
    or (${of}."principal_type" = 'parent' and ${of}."principal_id" in (select id from parents where email = ${email} and deleted_at is null))
  )`;
}

/**
 * The pending (not consumed) challenge. A sign-in challenge is found only by its id (the screens' cookie, the
 * API's challenge_id), with the email when one is given, and only within its lifetime: knowing an email alone
 * reaches nothing. A reset code is checked by its id too (verifyPasswordResetCode); the change step finds its reset
 * by the one-time reset token (completePasswordReset).
 */
async function pendingChallenge(db: Db, by: { id?: string; email?: string }, context: ChallengeContext, now: Date = new Date()): Promise<Pending | null> {
  const found = await pendingOrDecoy(db, by, context, now);
  return found?.principal ? { row: found.row, principal: found.principal } : null;
}

type Pending = { row: ChallengeRow; principal: Principal };
/** A reset challenge recorded for an email without an account to send to (requestPasswordReset): no one behind it. */
type Decoy = { row: ChallengeRow; principal: null };

/**
 * pendingChallenge, and also a decoy when a reset code is checked by the decoy's id with the email it was asked
 * for: the same reads either way, so that a wrong code on it can be answered as on a real one (checkCode).
 */
async function pendingOrDecoy(db: Db, by: { id?: string; email?: string }, context: ChallengeContext, now: Date): Promise<Pending | Decoy | null> {
  if (!by.id) return null;
  const [row] = await db
    .select()
    .from(twoFactorChallenges)
    .where(and(eq(twoFactorChallenges.id, by.id), eq(twoFactorChallenges.context, context), isNull(twoFactorChallenges.consumedAt)));
  if (!row || (context === "login" && challengeOver(row.createdAt, now))) return null;
  const principal = await getPrincipalById(db, row.principalType, row.principalId);
  if (!principal) {
    const decoy = context === "password_reset" && by.id && by.email && row.principalId === DECOY.id && row.codeHash === (await decoyTag(normalizeEmail(by.email)));
    return decoy ? { row, principal: null } : null;
  }
  if (by.email && principal.email !== normalizeEmail(by.email)) return null;
  // A sign-in's second step issues at the generation its password check read, not today's.
  return { row, principal: context === "login" ? { ...principal, accessGeneration: row.accessGeneration } : principal };
}

export type CodeResult =
  | { kind: "ok"; principal: Principal; challenge: ChallengeRow }
  | { kind: "no_challenge"; message: string }
  | { kind: "throttled"; message: string; retryAfter: number }
  | { kind: "expired"; message: string; attemptsRemaining: number }
  | { kind: "wrong"; message: string; attemptsRemaining: number; voided: boolean };

/**
 * A code's attempt, taken from the challenge BEFORE the code is compared (probe 9008 §1): one conditional decrement,
 * so codes sent together each take their own attempt and at most TWO_FACTOR_ATTEMPTS are ever compared per challenge.
 * The attempts left before this one, or null when none was left (the code is then not compared at all).
 */
async function takeAttempt(db: Db, row: ChallengeRow): Promise<number | null> {
  const [taken] = await db
    .update(twoFactorChallenges)
    .set({ attemptsRemaining: sql`${twoFactorChallenges.attemptsRemaining} - 1` })
    .where(and(eq(twoFactorChallenges.id, row.id), isNull(twoFactorChallenges.consumedAt), gt(twoFactorChallenges.attemptsRemaining, 0)))
    .returning({ left: twoFactorChallenges.attemptsRemaining });
  return taken ? taken.left + 1 : null;
}

/** A wrong code, its attempt already taken (`before`: the attempts left before it); the last one voids the challenge. */
async function failAttempt(db: Db, row: ChallengeRow, before: number | null, now: Date, message: string): Promise<CodeResult> {
  const next = afterFailedAttempt(before ?? 0);
  if (next.void) {
    await db
      .update(twoFactorChallenges)
      .set({ consumedAt: now.toISOString() })
      .where(and(eq(twoFactorChallenges.id, row.id), isNull(twoFactorChallenges.consumedAt), eq(twoFactorChallenges.attemptsRemaining, 0)));
  }
  return { kind: "wrong", message: next.void ? AUTH_MESSAGES.attemptsExhausted : message, attemptsRemaining: next.attemptsRemaining, voided: next.void };
}

/**
 * A code or backup code that reaches no pending sign-in challenge is a stranger's guess: it counts against the
 * guessing address (the sign-in throttle's address key), never against anyone's challenge.
 */
/**
 * The challenge of a code, or the attempt's refusal: `throttled` while the address must wait, `no_challenge` for a
 * stranger's guess, whose failure of the address goes in the batch of the attempt's audit row (`attempt.writes`).
 */
async function findForCode<F extends Pending | Decoy>(
  app: AuthApp,
  by: { id?: string; email?: string },
  find: (now: Date) => Promise<F | null>,
): Promise<{ found: F | Extract<CodeResult, { kind: "no_challenge" | "throttled" }>; attempt: CodeAttempt }> {
  const now = app.now();
  const { wait, tail, challenge } = await addressWait(app.db, app.ip, now, by.id);
  const attempt: CodeAttempt = { account: attemptAccount(by, challenge), tail, writes: () => [] };
  if (wait > 0) return { found: { kind: "throttled", message: AUTH_MESSAGES.codeThrottled, retryAfter: wait }, attempt };
  const found = await find(now);
  if (found) return { found, attempt: found.principal ? { ...attempt, account: { email: found.principal.email, type: found.principal.type, id: found.principal.id } } : attempt };
  return { found: { kind: "no_challenge", message: AUTH_MESSAGES.noChallenge }, attempt: { ...attempt, writes: () => [addressFailure(app.db, app.ip, now)] } };
}

async function checkCode(app: AuthApp, by: { id?: string; email?: string }, code: string, context: ChallengeContext): Promise<{ result: CodeResult; attempt: CodeAttempt }> {
  const { found, attempt } = await findForCode(app, by, (now) => pendingOrDecoy(app.db, by, context, now));
  if ("kind" in found) return { result: found, attempt };
  const { row, principal } = found;
  const now = app.now();
  if (isExpired(row.expiresAt, now)) return { result: { kind: "expired", message: AUTH_MESSAGES.codeExpired, attemptsRemaining: row.attemptsRemaining }, attempt };
  const before = await takeAttempt(app.db, row);
  // A decoy (no principal) takes every code as a wrong one: its attempts count down and end as a real challenge's do.
  if (before === null || !principal || !row.codeHash || !/^\d{6}$/.test(code.trim()) || !timingSafeEqual(await codeHash(row.id, code), row.codeHash)) {
    return { result: await failAttempt(app.db, row, before, now, AUTH_MESSAGES.verificationFailed), attempt };
  }
  return { result: { kind: "ok", principal, challenge: row }, attempt };
}

/** Two-factor sign-in: a correct, unexpired code consumes the challenge. */
export async function verifyLoginCode(app: AuthApp, by: { id?: string; email?: string }, code: string, via: SignInChannel = "screen"): Promise<CodeResult> {
  const { result, attempt } = await checkCode(app, by, code, "login");
  const consume = () => (result.kind === "ok" ? [app.db.update(twoFactorChallenges).set({ consumedAt: app.now().toISOString(), codeHash: null }).where(eq(twoFactorChallenges.id, result.challenge.id))] : []);
  await recordSecondFactor(app, result, attempt, via, "email_code", consume);
  return result;
}

/** A backup code stands in for the emailed code; each works once. Failures count against the same attempts. */
export async function verifyBackupCode(app: AuthApp, by: { id?: string; email?: string }, backupCode: string, via: SignInChannel = "screen"): Promise<CodeResult> {
  const { found, attempt } = await findForCode(app, by, (now) => pendingChallenge(app.db, by, "login", now));
  if ("kind" in found) {
    await recordSecondFactor(app, found, attempt, via, "backup_code", () => []);
    return found;
  }
  const { row, principal } = found;
  const now = app.now();
  const before = await takeAttempt(app.db, row);
  const hash = await sha256Hex(normalizeBackupCode(backupCode));
  const [match] = before === null ? [] : await app.db
    .select({ id: backupCodes.id })
    .from(backupCodes)
    .where(
      and(eq(backupCodes.principalType, principal.type), eq(backupCodes.principalId, principal.id), eq(backupCodes.codeHash, hash), isNull(backupCodes.usedAt)),
    );
  if (!match) {
    const failed = await failAttempt(app.db, row, before, now, AUTH_MESSAGES.backupFailed);
    await recordSecondFactor(app, failed, attempt, via, "backup_code", () => []);
    return failed;
  }
  const result: CodeResult = { kind: "ok", principal, challenge: row };
  await recordSecondFactor(app, result, attempt, via, "backup_code", () => [
    app.db.update(backupCodes).set({ usedAt: now.toISOString() }).where(eq(backupCodes.id, match.id)),
    app.db.update(twoFactorChallenges).set({ consumedAt: now.toISOString(), codeHash: null }).where(eq(twoFactorChallenges.id, row.id)),
  ]);
  return result;
}

export type ResendResult =
  | { kind: "sent"; expiresInMinutes: number; attemptsRemaining: number }
  | { kind: "no_challenge"; message: string }
  | { kind: "limited"; message: string; retryAfter?: number }
  | { kind: "unsupported_method"; message: string }
  | { kind: "send_failed"; message: string };

/**
 * Sends a fresh code for the pending challenge. Attempts are not restored and the challenge's lifetime does not
 * grow, so resending cannot extend guessing; at most 3 resends per challenge and 10 code emails an hour per account.
 */
export async function resendLoginCode(app: AuthApp, by: { id?: string; email?: string }, method = "email", failMessage: string = AUTH_MESSAGES.resendFailed): Promise<ResendResult> {
  if (method !== "email") return { kind: "unsupported_method", message: "Only email verification is available." };
  const now = app.now();
  const found = await pendingChallenge(app.db, by, "login", now);
  if (!found) return { kind: "no_challenge", message: AUTH_MESSAGES.noChallenge };
  if (found.row.sends >= 1 + RESENDS_PER_CHALLENGE) return { kind: "limited", message: AUTH_MESSAGES.resendLimit };
  const wait = await codeEmailsWait(app.db, found.principal, now);
  if (wait > 0) return { kind: "limited", message: AUTH_MESSAGES.codeEmailsLimit, retryAfter: wait };
  const sent = await sendCode(app, found.principal, found.row, "login", 1 + RESENDS_PER_CHALLENGE);
  if (sent.limited) {
    // Refused by the statement that counts: a racing resend took the challenge's last one, or the hour's last send.
    const hourWait = await codeEmailsWait(app.db, found.principal, app.now());
    return hourWait > 0 ? { kind: "limited", message: AUTH_MESSAGES.codeEmailsLimit, retryAfter: hourWait } : { kind: "limited", message: AUTH_MESSAGES.resendLimit };
  }
  if (!sent.sent) return { kind: "send_failed", message: failMessage };
  return { kind: "sent", expiresInMinutes: sent.expiresInMinutes, attemptsRemaining: found.row.attemptsRemaining };
}

export async function getPendingLoginChallenge(db: Db, id: string, now: Date = new Date()) {
  const found = await pendingChallenge(db, { id }, "login", now);
  return found ? { email: found.principal.email, attemptsRemaining: found.row.attemptsRemaining, expiresAt: found.row.expiresAt } : null;
}

/** True when a login challenge ended because every attempt was used, so the screen can say why instead of bouncing to sign-in. */
export async function loginChallengeExhausted(db: Db, id: string): Promise<boolean> {
  const [row] = await db
    .select({ attemptsRemaining: twoFactorChallenges.attemptsRemaining, consumedAt: twoFactorChallenges.consumedAt })
    .from(twoFactorChallenges)
    .where(and(eq(twoFactorChallenges.id, id), eq(twoFactorChallenges.context, "login")));
  return !!row?.consumedAt && row.attemptsRemaining === 0;
}

/* ---------------------------------------------------------------- backup codes */

export function normalizeBackupCode(code: string): string {
  return code.replace(/[\s-]/g, "").toUpperCase();
}

/**
 * The audit row of a change to who can sign in as an account (password, two-factor, backup codes): on the
 * account itself, an employee or a parent, never with the password or codes (decision 019, stop 24).
 */
export function signInChangeEntry(principal: { type: PrincipalType; id: number }, action: string): AuditEntry {
  return { action, entity: principal.type === "user" ? "employee" : "parent", entityId: principal.id };
}

/** One principal acting on their own account, for its audit row. */
export function selfWho(principal: { type: PrincipalType; id: number }, ip: string): AuditWho {
  return { actor: { kind: principal.type, id: principal.id }, ip };
}

const clearBackupCodes = (db: Db, principal: { type: PrincipalType; id: number }) =>
  db.delete(backupCodes).where(and(eq(backupCodes.principalType, principal.type), eq(backupCodes.principalId, principal.id)));

/** Ten new backup codes: the codes (shown once) and the statements that store their hashes in place of the old ones. */
async function freshBackupCodes(db: Db, principal: { type: PrincipalType; id: number }, makeCode: () => string) {
  const codes = Array.from({ length: BACKUP_CODE_COUNT }, makeCode);
  const hashes = await Promise.all(codes.map((c) => sha256Hex(normalizeBackupCode(c))));
  const writes = () => [clearBackupCodes(db, principal), db.insert(backupCodes).values(hashes.map((codeHash) => ({ principalType: principal.type, principalId: principal.id, codeHash })))] as const;
  return { codes, writes };
}

/** Replaces the principal's backup codes with ten new ones, returned once in plain text; `who` is recorded with the change. */
export async function generateBackupCodes(db: Db, principal: { type: PrincipalType; id: number }, who: AuditWho, makeCode: () => string = newBackupCode): Promise<string[]> {
  const { codes, writes } = await freshBackupCodes(db, principal, makeCode);
  await withAudit(db, who, signInChangeEntry(principal, "backup_codes"), () => [...writes()]);
  return codes;
}

const BACKUP_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
function newBackupCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  const chars = Array.from(bytes, (b) => BACKUP_ALPHABET[b % BACKUP_ALPHABET.length]).join("");
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

export async function countUnusedBackupCodes(db: Db, principal: { type: PrincipalType; id: number }): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(backupCodes)
    .where(and(eq(backupCodes.principalType, principal.type), eq(backupCodes.principalId, principal.id), isNull(backupCodes.usedAt)));
  return row?.n ?? 0;
}

/** `changed`: false when two-factor was already off, so nothing was written and no session or token ended. */
export type TwoFactorSwitch = { ok: true; codes: string[] | null; changed: boolean } | { ok: false; message: string };

/**
 * Switches email two-factor on or off (oneself; off also by an administrator's reset). Turning it on issues
 * fresh backup codes, off clears them. Either way every session and API token of the account ends, as for a
 * password change (decision 015); `change.keep`: the owner's browser's fresh session (sessionAfterOwnChange),
 * stored after that in the same batch. One batch: the switch, the codes, the end of access (and the kept
 * session) and the audit row (`action`: two_factor_on/two_factor_off unless told).
 * A switch that changes nothing writes nothing (decision 016, 2026-11-27): turning it on when it is already on is
 * refused (only "Generate new backup codes" replaces the codes), turning it off when it is already off answers
 * `changed: false` and ends no session or token. The state is read with the audit chain's tail and the batch is
 * written only while the chain still ends there (withAuditIfUnchanged), so of two switches at once one finds the
 * change already made.
 */
export async function setTwoFactor(
  db: Db,
  principal: { type: PrincipalType; id: number },
  enabled: boolean,
  change: { who: AuditWho; action?: string; keep?: () => BatchItem<"sqlite"> },
): Promise<TwoFactorSwitch> {
  const table = principal.type === "user" ? users : parents;
  const entry = signInChangeEntry(principal, change.action ?? (enabled ? "two_factor_on" : "two_factor_off"));
  // The employees' and parents' lists show two_factor_enabled: every cached list moves with it (decision 017).
  const update = () => [db.update(table).set({ twoFactorEnabled: enabled }).where(eq(table.id, principal.id)), bumpListVersion(db, accountsList(principal.type))] as const;
  const endAccess = () => [...endAllAccessStatements(db, principal, new Date()), ...(change.keep ? [change.keep()] : [])];
  const { codes, writes } = enabled ? await freshBackupCodes(db, principal, newBackupCode) : { codes: null, writes: () => [clearBackupCodes(db, principal)] };
  for (let attempt = 0; ; attempt++) {
    const [row] = await primaryOf(db).select({ on: table.twoFactorEnabled, tail: auditTail }).from(table).where(eq(table.id, principal.id));
    if (!row || row.on === enabled) return enabled ? { ok: false, message: AUTH_MESSAGES.twoFactorAlreadyOn } : { ok: true, codes: null, changed: false };
    try {
      await withAuditIfUnchanged(db, change.who, entry, () => [...update(), ...writes(), ...endAccess()], row.tail);
      return { ok: true, codes, changed: true };
    } catch (e) {
      // Another audited write landed after the read: read and check again.
      if (!isChainRace(e)) throw e;
      if (attempt + 1 >= CHAIN_ATTEMPTS) throw chainBusy();
      await chainBackoff(attempt);
    }
  }
}

/* ---------------------------------------------------------------- password reset */

const RESET_REQUESTS_PER_HOUR = 5;

/**
 * A reset request with no account to send to (an unknown email) records a decoy: a
 * challenge of no principal (user 0 never exists) whose code hash is its email's tag, so it is found only with
 * that email, replaced by the email's next request, and refuses every code while counting its attempts down as a
 * real one does (decision 016, stop 32). The tag is not the hash of any code (codeHash hashes the id first).
 */
const DECOY = { type: "user", id: 0 } as const;
const decoyTag = (email: string) => sha256Hex(`decoy:${email}`);
const decoyOf = (tag: string) => and(eq(twoFactorChallenges.principalId, DECOY.id), eq(twoFactorChallenges.codeHash, tag));

/**
 * The email's reset requests of the last hour: its live accounts' reset challenges and its decoys alike, so the count
 * is the same whether or not the address has an account (decision 016, stop 33). A scalar subquery (on its own alias,
 * so it counts the same inside a statement on two_factor_challenges): read with the request's account, and the
 * condition of the request's writes (resetRoom).
 */
function resetsThisHour(email: string, tag: string, since: string) {
  return sql<number>`(select count(*) from two_factor_challenges r
    where r.context = 'password_reset' and r.created_at > ${since}
      and (${challengeOfEmail(email, sql.raw("r"))} or (r.principal_id = ${DECOY.id} and r.code_hash = ${tag})))`.mapWith(Number);
}

/** Whether the email may have one more reset this hour: the WHERE of the request's two writes. */
const resetRoom = (email: string, tag: string, since: string) => sql`${resetsThisHour(email, tag, since)} < ${RESET_REQUESTS_PER_HOUR}`;

/**
 * Voids the pending resets a new request replaces: the account's (when it has one) and its email's decoys, only while
 * the hour has room (`room`): past the hour's resets nothing is voided, so a stranger cannot end the owner's pending
 * reset that way.
 */
function voidPendingResets(db: Db, of: { principal: Principal | null; kind: PrincipalType; tag: string }, at: string, room: SQL) {
  // Without an account, the same statement names an account no row has (ids start at 1), so its text is the same.
  const account = of.principal ?? { type: of.kind, id: -1 };
  const replaced = or(decoyOf(of.tag), and(eq(twoFactorChallenges.principalType, account.type), eq(twoFactorChallenges.principalId, account.id)));
  return db
    .update(twoFactorChallenges)
    .set({ consumedAt: at })
    .where(and(eq(twoFactorChallenges.context, "password_reset"), isNull(twoFactorChallenges.consumedAt), replaced, room));
}

/**
 * A client address's reset requests of the last hour (decision 016, stop 45), whatever the emails: its
 * `password_reset_requested` rows, which every request within the address's allowance writes. Read from the partial
 * index of the reset rows (audit_reset_requests_idx, whose WHERE `resetRequestRows` repeats), at most
 * RESET_REQUESTS_PER_ADDRESS rows. A scalar subquery: read with the request's account, and the condition of its writes.
 */
export function addressResetRequests(ip: string, since: string) {
  return sql<number>`(select count(*) ${addressRows(ip, since, RESET_REQUEST_ACTIONS.requested)})`.mapWith(Number);
}

function addressRows(ip: string, since: string, action: string) {
  return sql`from audit_log a where ${resetRequestRows(sql.raw("a.action"))} and a.ip = ${ip} and a.action = ${action} and a.at > ${since}`;
}

/** Whether the address may make one more reset request this hour: in the WHERE of each of the request's writes. */
const addressRoom = (ip: string, since: string) => sql`${addressResetRequests(ip, since)} < ${RESET_REQUESTS_PER_ADDRESS}`;

/** Seconds until the address's oldest request of the hour leaves it, freeing room for one more (at least 1). */
function addressWaitSeconds(oldest: string | null, now: Date): number {
  const frees = (oldest ? new Date(oldest).getTime() : now.getTime()) + THROTTLE.windowMs;
  return Math.max(1, Math.ceil((frees - now.getTime()) / 1000));
}

type ResetApp = AuthApp & Pick<AppContext, "waitUntil">;

/** A reset request's answer: its challenge's id (which may lead nowhere), or the address's refusal (decision 016, stop 45). */
export type ResetRequestResult = { kind: "requested"; challengeId: string } | { kind: "throttled"; retryAfter: number; message: string };

/**
 * Always answers the same way, and does the same work whether or not an account has that email, and whether or not
 * the hour's 5 requests for it were made (no timing tells; decision 016): one batch reads the account of the kind
 * asked for (staff, or parent as the sign-in's tick says), the hour's resets, the address's requests of the hour and
 * the audit chain's tail; a code is drawn and hashed; one batch of the two writes and the audit row follows. Without
 * such an account the writes record a decoy (also when the email is the other kind's: decision 016, stop 35). Both
 * writes run only while the email's hour has room (resetRoom, in their own WHERE): past 5 requests an hour for the
 * email, known or not, nothing is stored or voided, and nothing is sent; the `password_reset_requested` row is
 * written all the same (decision 019, stop 44). The email itself is sent after the answer (waitUntil; a failed send
 * is recorded, recordEmailFailure).
 *
 * The client address may make RESET_REQUESTS_PER_ADDRESS requests an hour, whatever the emails (decision 016, stop
 * 45): its `password_reset_requested` rows are counted, in the read and again in the WHERE of every write, so
 * requests racing each other cannot pass it. Past it the same statements run and store, void and send nothing; the
 * row becomes the address's refusal (`password_reset_request_throttled`), written only when the hour has none yet,
 * and the answer is `throttled` — for every email alike.
 */
export async function requestPasswordReset(app: ResetApp, rawEmail: string, kind: PrincipalType, via: SignInChannel): Promise<ResetRequestResult> {
  const email = normalizeEmail(rawEmail);
  const now = app.now();
  const since = new Date(now.getTime() - THROTTLE.windowMs).toISOString();
  const tag = await decoyTag(email);
  const table = kind === "user" ? users : parents;
  const [accountRows, [hour]] = await app.db.batch([
    app.db.select().from(table).where(and(eq(table.email, email), isNull(table.deletedAt), eq(table.status, "active"))),
    app.db
      .select({
        n: resetsThisHour(email, tag, since),
        tail: auditTail,
        fromAddress: addressResetRequests(app.ip, since),
        oldest: sql<string | null>`(select min(a.at) ${addressRows(app.ip, since, RESET_REQUEST_ACTIONS.requested)})`,
      })
      .from(sql`(select 1)`),
  ]);
  const principal: Principal | null = accountRows[0] ? principalOf(kind, accountRows[0]) : null;
  const limited = (hour?.n ?? 0) >= RESET_REQUESTS_PER_HOUR;
  // The address's allowance as read; the writes check it again themselves.
  const open = (hour?.fromAddress ?? 0) < RESET_REQUESTS_PER_ADDRESS;

  const { codeExpiryMinutes } = await getAuthSettings(app.db);
  const id = randomToken(24);
  const code = randomDigits(6);
  const hash = await codeHash(id, code);
  const at = now.toISOString();
  const expiresAt = addMinutes(now, codeExpiryMinutes).toISOString();
  // Without an account to send to, the same two statements record a decoy in place of the challenge.
  const challenge = { id, principal: principal ?? DECOY, context: "password_reset", codeHash: principal ? hash : tag, expiresAt, createdAt: at, accessGeneration: 0 } as const;
  // One text for every case, what the read found passed as a parameter (`go`): the writes store and void only while
  // the address (as read, and as it is now) and the email's hour have room.
  const go = open ? 1 : 0;
  const room = sql`${go} = 1 and ${addressRoom(app.ip, since)} and ${resetRoom(email, tag, since)}`;
  // Within the allowance, the request's row (only while the address still has room: a racer may have taken it);
  // past it, the address's refusal, once in the hour.
  const rowWhen = sql`case when ${go} = 1 then ${addressRoom(app.ip, since)} else not exists (select 1 ${addressRows(app.ip, since, RESET_REQUEST_ACTIONS.throttled)}) end`;
  // The row names the account asked for when there is one, and says when the hour's requests were already made (the
  // count as read); the requester is answered the same either way. The address's refusal names no account.
  const entry = open
    ? resetEntry(RESET_REQUEST_ACTIONS.requested, { email, type: kind, id: principal?.id }, via, limited ? { limited: true } : {})
    : resetEntry(RESET_REQUEST_ACTIONS.throttled, { email, type: kind }, via, { per_address: RESET_REQUESTS_PER_ADDRESS });
  const [, inserted, recorded] = await withConditionalAudit(
    app.db,
    anonymous(app.ip),
    entry,
    (audit) => [
      voidPendingResets(app.db, { principal, kind, tag }, at, room),
      insertChallenge(app.db, challenge, room),
      audit(rowWhen),
    ],
    hour ? hour.tail : undefined,
  );
  // Past the address's allowance, or a racer took its last request: refused, whatever the email.
  if (!open || rowsChanged(recorded) === 0) {
    const retryAfter = addressWaitSeconds(hour?.oldest ?? null, now);
    return { kind: "throttled", retryAfter, message: AUTH_MESSAGES.resetRequestsThrottled(retryAfter) };
  }
  // Past the email's hour the id answered leads nowhere: nothing was stored under it (decision 016, stop 33).
  if (!principal || inserted.length === 0) return { kind: "requested", challengeId: id };
  app.waitUntil(
    // A failed send is not revealed to the caller (decision 016) but recorded for administrators (decision 005).
    app.email.send(codeEmail(principal, code, codeExpiryMinutes, "password_reset")).catch(async (e: unknown) => {
      console.warn("password reset email failed; recording the failure", e);
      await recordEmailFailure(app.env, { kind: "password_reset_code", account: { type: principal.type, id: principal.id } }, { via: "reset", who: anonymous(app.ip) }).catch((r: unknown) =>
        console.error("could not record a failed password reset email", r),
      );
    }),
  );
  return { kind: "requested", challengeId: id };
}

/**
 * The hourly clean-up: challenges, sign-in and password reset, that count for nothing any more — older than
 * challengeForgottenAt, and neither their code nor their reset token still valid (isExpired: at or before now).
 */
export async function pruneOldChallenges(db: Db, now: Date, limits = PRUNE_LIMITS): Promise<number> {
  const at = now.toISOString();
  const spent = (column: SQLiteColumn) => or(isNull(column), lte(column, at))!;
  const where = and(lte(twoFactorChallenges.createdAt, challengeForgottenAt(now).toISOString()), spent(twoFactorChallenges.expiresAt), spent(twoFactorChallenges.resetTokenExpiresAt))!;
  return deleteInSteps(db, twoFactorChallenges, where, limits);
}

/** The hourly clean-up: failed sign-ins out of the throttling window (the reads count only those after it). */
export async function pruneLoginFailures(db: Db, now: Date, limits = PRUNE_LIMITS): Promise<number> {
  return deleteInSteps(db, loginFailures, lte(loginFailures.at, new Date(now.getTime() - THROTTLE.windowMs).toISOString()), limits);
}

export type ResetVerifyResult = { kind: "ok"; resetToken: string } | Exclude<CodeResult, { kind: "ok" }>;

/**
 * A correct reset code yields a one-time reset token valid for 15 minutes. Like a sign-in code, it is checked
 * only against the challenge the requesting client was given (`challengeId`), never by the email alone.
 */
export async function verifyPasswordResetCode(app: AuthApp, challengeId: string, email: string, code: string, via: SignInChannel): Promise<ResetVerifyResult> {
  const { result, attempt } = await checkCode(app, { id: challengeId, email }, code, "password_reset");
  if (result.kind !== "ok") {
    // Every refused code is recorded (decision 019, stop 44), a decoy's as a real challenge's, with the address's
    // failure of a code that reached no challenge in the row's batch, and on the chain's tail read with the throttle.
    const action = result.kind === "throttled" ? "password_reset_throttled" : "password_reset_failed";
    await withAudit(app.db, anonymous(app.ip), resetEntry(action, attempt.account, via), (() => attempt.writes()) as () => [], attempt.tail);
    return result;
  }
  const token = randomToken();
  await app.db
    .update(twoFactorChallenges)
    .set({ codeHash: null, resetTokenHash: await sha256Hex(token), resetTokenExpiresAt: addMinutes(app.now(), RESET_TOKEN_MINUTES).toISOString() })
    .where(eq(twoFactorChallenges.id, result.challenge.id));
  return { kind: "ok", resetToken: token };
}

export type ChangeResult = { kind: "ok" } | { kind: "invalid_token"; message: string };

/**
 * Consumes the reset, sets the new password and ends every session of the account. The reset is used up first,
 * by a statement conditional on its token still being pending: a second use of the token, or a change that ended
 * the account's access meanwhile (endAllAccessStatements voids pending resets), finds nothing to take and sets
 * no password. The password change then voids whatever else was under way (a pending sign-in, say).
 */
export async function completePasswordReset(app: AuthApp, email: string, resetToken: string, password: string): Promise<ChangeResult> {
  const invalid = { kind: "invalid_token", message: AUTH_MESSAGES.resetTokenInvalid } as const;
  // The token names its reset, and so the account the code was sent to, staff or parent, even when both have this
  // email (decision 016, stop 35); the email must still be that account's.
  const [row] = await app.db
    .select()
    .from(twoFactorChallenges)
    .where(
      and(
        eq(twoFactorChallenges.context, "password_reset"),
        isNull(twoFactorChallenges.consumedAt),
        eq(twoFactorChallenges.resetTokenHash, await sha256Hex(resetToken)),
        challengeOfEmail(normalizeEmail(email)),
      ),
    );
  const principal = row ? await getPrincipalById(app.db, row.principalType, row.principalId) : null;
  if (!row?.resetTokenHash || !principal || isExpired(row.resetTokenExpiresAt, app.now())) return invalid;
  const taken = await app.db
    .update(twoFactorChallenges)
    .set({ consumedAt: app.now().toISOString(), resetTokenHash: null })
    .where(and(eq(twoFactorChallenges.id, row.id), isNull(twoFactorChallenges.consumedAt), eq(twoFactorChallenges.resetTokenHash, row.resetTokenHash)))
    .returning({ id: twoFactorChallenges.id });
  if (taken.length === 0) return invalid;
  await setPassword(app, principal, password, { who: selfWho(principal, app.ip), action: "password_reset" });
  await clearAccountFailures(app.db, principal.email, principal.type);
  return { kind: "ok" };
}

/**
 * Sets a new password, ends every session and API token of the account, and queues a security notice. The
 * audit row (`change.action`: password, password_reset) goes in the same batch as the password, and so does
 * `change.keep`, the fresh session of the owner's browser on their own change (sessionAfterOwnChange), after
 * the end of access.
 */
export async function setPassword(
  app: Pick<AppContext, "db" | "env" | "email">,
  principal: { type: PrincipalType; id: number },
  password: string,
  change: { who: AuditWho; action: string; keep?: () => BatchItem<"sqlite"> },
): Promise<void> {
  const table = principal.type === "user" ? users : parents;
  const passwordHash = await hashPassword(password, app.env.PASSWORD_PEPPER ?? "");
  const now = new Date();
  await withAudit(app.db, change.who, signInChangeEntry(principal, change.action), () => [
    app.db.update(table).set({ passwordHash, updatedAt: now.toISOString() }).where(eq(table.id, principal.id)),
    bumpListVersion(app.db, accountsList(principal.type)),
    ...endAllAccessStatements(app.db, principal, now),
    ...(change.keep ? [change.keep()] : []),
  ]);
  const who = await getPrincipalById(app.db, principal.type, principal.id);
  if (who) await enqueueEmail(app, securityNotice(who.email, who.name, "Your password was changed"), { kind: "password_changed", account: principal }, change.who);
}

/* ---------------------------------------------------------------- first-run registration */

export async function registrationOpen(db: Db): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(users);
  return (row?.n ?? 0) === 0;
}

/** Creates the first SUPERADMIN. Closed once any user exists (the insert re-checks inside the same statement). */
export async function registerFirstSuperadmin(app: Pick<AppContext, "db" | "env">, input: { name: string; surname: string; email: string; password: string }) {
  const passwordHash = await hashPassword(input.password, app.env.PASSWORD_PEPPER ?? "");
  const email = normalizeEmail(input.email);
  await app.db.insert(roles).values({ name: "SUPERADMIN", permissions: "[]" }).onConflictDoNothing();
  const inserted = await app.db.run(
    sql`insert into users (name, surname, email, password_hash) select ${input.name}, ${input.surname}, ${email}, ${passwordHash} where not exists (select 1 from users)`,
  );
  const [user] = await app.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  const changes = (inserted as { meta?: { changes?: number }; rowsAffected?: number }).meta?.changes ?? (inserted as { rowsAffected?: number }).rowsAffected ?? 0;
  if (!user || changes === 0) return null;
  const [role] = await app.db.select({ id: roles.id }).from(roles).where(eq(roles.name, "SUPERADMIN"));
  await app.db.insert(userRoles).values({ userId: user.id, roleId: role!.id });
  return { type: "user" as const, id: user.id, accessGeneration: 0 };
}
