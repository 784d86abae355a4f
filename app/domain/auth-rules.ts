/** Sign-in, two-factor and session rules (platform §4, §5, §8, §9). Pure: callers pass the clock. */

export const TWO_FACTOR_ATTEMPTS = 5;
export const DEFAULT_CODE_EXPIRY_MINUTES = 5;
export const BACKUP_CODE_COUNT = 10;
export const RESET_TOKEN_MINUTES = 15;
/**
 * A sign-in challenge is bound to the client that started it (docs/decisions/016): it lives at most 15 minutes
 * however often its code is resent, sends at most 3 more codes after the first, and an account receives at
 * most 10 sign-in code emails an hour.
 */
export const CHALLENGE_LIFETIME_MINUTES = 15;
export const RESENDS_PER_CHALLENGE = 3;
export const CODE_EMAILS_PER_HOUR = 10;
/**
 * Password-reset requests one client address may make in an hour, whatever the emails (decision 016, stop 45): a
 * clinic's shared connection resetting a few forgotten passwords stays far below it, a script cycling made-up emails
 * to flood the audit trail stops after it. (Each email has its own limit too: 5 an hour.)
 */
export const RESET_REQUESTS_PER_ADDRESS = 20;
export const DEFAULT_IDLE_MINUTES = 30;
export const DEFAULT_ABSOLUTE_HOURS = 12;
/** API bearer tokens live 15 minutes; refresh accepts them until the absolute session limit. */
export const ACCESS_TOKEN_SECONDS = 15 * 60;

/** A wait in whole minutes, rounded up, at least one: "1 minute", "3 minutes". */
function waitText(waitSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(waitSeconds / 60));
  return `${minutes} ${minutes === 1 ? "minute" : "minutes"}`;
}

export const AUTH_MESSAGES = {
  invalidCredentials: "These credentials do not match our records.",
  emailRequired: "Email is required.",
  emailInvalid: "Enter a valid email address.",
  passwordRequired: "Password is required.",
  throttled: "Too many sign-in attempts. Please try again later.",
  /**
   * A signed-in person's password check past the throttle (change password, the profile; decision 016): their own
   * account, so it says what happened and when to try again ("in 3 minutes"), not "sign-in attempts" (probe 9043 §6).
   */
  passwordThrottled: (waitSeconds: number) => `Too many wrong passwords. Please try again in ${waitText(waitSeconds)}.`,
  /**
   * A password-reset request from an address past its hourly allowance (decision 016, stop 45): the same words for
   * every email, naming the caller's network (not "this address", which reads as the email) and when to try again.
   */
  resetRequestsThrottled: (waitSeconds: number) => `Too many password reset requests from your network. Please try again in ${waitText(waitSeconds)}.`,
  refreshThrottled: "Too many token refreshes. Please wait and try again.",
  codeExpired: "Verification code has expired. Please request a new one.",
  verificationFailed: "Verification failed",
  /** Beside the code field after a wrong code (under the spec's 'Verification failed'): what to do next (WCAG 3.3.3). */
  wrongCode: "The code is wrong or has expired. Check the latest email or request a new code.",
  /** Beside the backup code field after a refused code (P §8's "Backup code verification failed" stays above). */
  wrongBackupCode: "This backup code is wrong or was already used. Check it against your saved codes; each works once.",
  noChallenge: "There is no pending verification. Please sign in again.",
  attemptsExhausted: "Too many incorrect codes. Please sign in again.",
  resendLimit: "No more codes can be sent for this sign-in. Please sign in again.",
  codeEmailsLimit: "Too many codes were sent to this account. Please try again later.",
  codeThrottled: "Too many verification attempts. Please try again later.",
  backupFailed: "Backup code verification failed",
  sendFailed: "Failed to send verification code",
  emailCodeFailed: "Failed to send email code",
  resendFailed: "Failed to resend code",
  emailMissingSend: "Email not found for 2FA send code",
  emailMissingVerify: "Email not found for 2FA verification",
  emailMissingResend: "Email not found for 2FA resend",
  emailMissingBackup: "Email not found for backup code verification",
  resetSent: "If an account exists for that email, we have sent a verification code.",
  resetTokenInvalid: "This reset link is no longer valid. Please request a new code.",
  passwordChanged: "Your password has been changed. Please sign in.",
  currentPasswordWrong: "The current password is incorrect.",
  /** One's own email changed to the one it is (profile). */
  ownEmailUnchanged: "This is already your email.",
  /** One's own email changed (profile): every other session and token ends, this browser keeps a fresh one. */
  ownEmailChanged: "Your email was changed. Other devices have been signed out.",
  registrationClosed: "Registration is closed. Ask an administrator for an account.",
  locked: "Your session is locked. Enter your password to continue.",
  unlockPasswordWrong: "That password is not correct. Try again, or sign out.",
  resetAttemptsExhausted: "Too many incorrect codes. Please request a new code.",
  codeResent: "A new verification code has been sent.",
  twoFactorOffFirst: "Turn on two-factor verification first.",
  /** A second turn-on (a form left from before) changes nothing: the codes already shown stay the ones that work. */
  twoFactorAlreadyOn: "Two-factor verification is already on. Your backup codes were not changed; use Generate new backup codes to replace them.",
  /** Turning it off when it is off changes nothing: no session or token ends (decision 016, stop 31). */
  twoFactorAlreadyOff: "Two-factor authentication is already off. Nothing was changed.",
  accountInactive: "These credentials do not match our records.",
} as const;

/** Shows where a code went without spelling out the address: nadia@demo.test → n***@demo.test. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return "***";
  return `${email[0]}***${email.slice(at)}`;
}

export function addMinutes(at: Date, minutes: number): Date {
  return new Date(at.getTime() + minutes * 60_000);
}

export function isExpired(expiresAt: string | null | undefined, now: Date): boolean {
  return !expiresAt || new Date(expiresAt).getTime() <= now.getTime();
}

/** Whole minutes until a code expires, for display (0 once expired or when unknown). */
export function minutesLeft(expiresAt: string | null | undefined, now: Date): number {
  if (!expiresAt) return 0;
  return Math.max(0, Math.ceil((new Date(expiresAt).getTime() - now.getTime()) / 60_000));
}

export function attemptsLeftText(n: number): string {
  return `${n} ${n === 1 ? "attempt" : "attempts"} remaining.`;
}

export function expiryText(minutes: number): string {
  return minutes > 0 ? `It expires in ${minutes} ${minutes === 1 ? "minute" : "minutes"}.` : "It has expired; ask for a new one.";
}

/** When a sign-in code stops working: its own expiry, but never past the challenge's whole lifetime. */
export function codeExpiresAt(challengeCreatedAt: string, now: Date, codeExpiryMinutes: number): Date {
  const code = addMinutes(now, codeExpiryMinutes);
  const end = addMinutes(new Date(challengeCreatedAt), CHALLENGE_LIFETIME_MINUTES);
  return code.getTime() < end.getTime() ? code : end;
}

/**
 * The creation time at or before which a challenge (sign-in or password reset) no longer counts for anything:
 * out of the hour in which code emails and resets are counted (THROTTLE.windowMs, the reads' `since`) and past a
 * sign-in challenge's lifetime. Its code and reset-token expiries are the row's own (isExpired on each).
 */
export function challengeForgottenAt(now: Date): Date {
  return new Date(now.getTime() - Math.max(THROTTLE.windowMs, CHALLENGE_LIFETIME_MINUTES * 60_000));
}

/** True once a sign-in challenge is older than its lifetime, whatever was resent. */
export function challengeOver(challengeCreatedAt: string, now: Date): boolean {
  return now.getTime() - new Date(challengeCreatedAt).getTime() >= CHALLENGE_LIFETIME_MINUTES * 60_000;
}

/** Seconds until an account may get another code email (0 = now): `sent` are the challenges of the last hour. */
export function codeEmailWaitSeconds(sent: readonly { createdAt: string; sends: number }[], now: Date): number {
  const t = now.getTime();
  const recent = sent.filter((s) => t - new Date(s.createdAt).getTime() < THROTTLE_WINDOW_MS).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  let total = recent.reduce((n, s) => n + s.sends, 0);
  if (total < CODE_EMAILS_PER_HOUR) return 0;
  // Wait until enough of the oldest challenges age out of the hour.
  for (const s of recent) {
    total -= s.sends;
    if (total < CODE_EMAILS_PER_HOUR) return Math.max(1, Math.ceil((new Date(s.createdAt).getTime() + THROTTLE_WINDOW_MS - t) / 1000));
  }
  return 1;
}

/** What a failed code attempt leaves: attempts never drop below 0, and 0 voids the challenge. */
export function afterFailedAttempt(attemptsRemaining: number): { attemptsRemaining: number; void: boolean } {
  const left = Math.max(0, attemptsRemaining - 1);
  return { attemptsRemaining: left, void: left === 0 };
}

export type SessionState = "active" | "locked" | "expired";

/** The sign-in time at or before which a session is past the absolute limit at `now` (sessionState: expired). */
export function sessionEndedAt(now: Date, absoluteHours: number): Date {
  return new Date(now.getTime() - absoluteHours * 3_600_000);
}

/** Idle longer than the idle limit locks the session; older than the absolute limit ends it. */
export function sessionState(
  s: { createdAt: string; lastSeenAt: string; locked: boolean },
  now: Date,
  limits: { idleMinutes: number; absoluteHours: number },
): SessionState {
  const t = now.getTime();
  if (new Date(s.createdAt).getTime() <= sessionEndedAt(now, limits.absoluteHours).getTime()) return "expired";
  if (s.locked || t - new Date(s.lastSeenAt).getTime() >= limits.idleMinutes * 60_000) return "locked";
  return "active";
}

/**
 * Sign-in throttling. Failures are counted per account and per address over the last hour.
 * Past a free allowance each further failure doubles the wait (capped); at the hourly ceiling
 * the key stays locked until its oldest failure of the hour ages out.
 */
const THROTTLE_WINDOW_MS = 3_600_000;
export const THROTTLE = {
  windowMs: THROTTLE_WINDOW_MS,
  account: { free: 5, baseSeconds: 30, maxSeconds: 15 * 60, hourlyCeiling: 100 },
  address: { free: 20, baseSeconds: 30, maxSeconds: 15 * 60, hourlyCeiling: 300 },
} as const;

export interface ThrottleRule {
  free: number;
  baseSeconds: number;
  maxSeconds: number;
  hourlyCeiling: number;
}

/** Seconds until another attempt is allowed (0 = allowed now). `failures` are ISO times within the window. */
export function throttleWaitSeconds(failures: readonly string[], rule: ThrottleRule, now: Date): number {
  const times = failures.map((f) => new Date(f).getTime()).filter((t) => now.getTime() - t < THROTTLE.windowMs).sort((a, b) => a - b);
  const n = times.length;
  if (n < rule.free) return 0;
  let until: number;
  if (n >= rule.hourlyCeiling) {
    until = times[n - rule.hourlyCeiling]! + THROTTLE.windowMs;
  } else {
    const wait = Math.min(rule.baseSeconds * 2 ** (n - rule.free), rule.maxSeconds);
    until = times[n - 1]! + wait * 1000;
  }
  return Math.max(0, Math.ceil((until - now.getTime()) / 1000));
}

/** API token refreshes per token family (platform §9: at most 5 in a 5-minute window). */
export const REFRESH_LIMIT = { max: 5, windowMs: 300_000 } as const;

/** Seconds until the family may refresh again (0 = now). `refreshes` are ISO times of its earlier refreshes. */
export function refreshWaitSeconds(refreshes: readonly string[], now: Date): number {
  const t = now.getTime();
  const times = refreshes.map((r) => new Date(r).getTime()).filter((x) => t - x < REFRESH_LIMIT.windowMs).sort((a, b) => a - b);
  if (times.length < REFRESH_LIMIT.max) return 0;
  return Math.max(1, Math.ceil((times[times.length - REFRESH_LIMIT.max]! + REFRESH_LIMIT.windowMs - t) / 1000));
}
