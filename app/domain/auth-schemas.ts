import * as v from "valibot";
import { AUTH_MESSAGES } from "./auth-rules";
import { PASSWORD_MAX_LENGTH, PASSWORD_MESSAGES, PASSWORD_MIN_LENGTH } from "./passwords";
import { EMAIL_PATTERN, flag, notTextMessage, requiredEmail } from "./fields";
import { oneLine, plainText } from "./validation";

/** One schema per auth form, shared by the screens and the API. */

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const Email = v.pipe(
  v.string(notTextMessage("Email", AUTH_MESSAGES.emailRequired)),
  v.trim(),
  v.nonEmpty(AUTH_MESSAGES.emailRequired),
  v.maxLength(254, AUTH_MESSAGES.emailInvalid),
  v.regex(EMAIL_PATTERN, AUTH_MESSAGES.emailInvalid),
  v.toLowerCase(),
);

const AnyPassword = v.pipe(v.string(notTextMessage("Password", PASSWORD_MESSAGES.required)), v.nonEmpty(PASSWORD_MESSAGES.required), v.maxLength(1024, PASSWORD_MESSAGES.tooLong));

export const NewPassword = v.pipe(
  v.string(notTextMessage("Password", PASSWORD_MESSAGES.required)),
  v.nonEmpty(PASSWORD_MESSAGES.required),
  v.minLength(PASSWORD_MIN_LENGTH, PASSWORD_MESSAGES.tooShort),
  v.maxLength(PASSWORD_MAX_LENGTH, PASSWORD_MESSAGES.tooLong),
);

const Code = v.pipe(v.string("Enter the 6-digit code."), v.trim(), v.regex(/^\d{6}$/, "Enter the 6-digit code."));

export const LoginInput = v.object({ email: Email, password: AnyPassword, parent: flag });

/** `challenge_id` (API only) is the opaque id the login's 202 answer gave; the screens keep it in a cookie. */
const ChallengeId = v.optional(v.pipe(v.string(), v.maxLength(64)), "");
export const TwoFactorVerifyInput = v.object({ email: v.optional(v.string(), ""), code: Code, challenge_id: ChallengeId });
export const BackupCodeInput = v.object({
  email: v.optional(v.string(), ""),
  challenge_id: ChallengeId,
  backup_code: v.pipe(v.string("Enter a backup code."), v.trim(), v.nonEmpty("Enter a backup code."), v.maxLength(32, AUTH_MESSAGES.backupFailed)),
});
export const ResendInput = v.object({ email: v.optional(v.string(), ""), method: v.optional(v.string(), "email"), context: v.optional(v.string()), challenge_id: ChallengeId });

/** `parent`: the parent account of the email, as on sign-in; otherwise the staff account (decision 016, stop 35). */
export const ResetRequestInput = v.object({ email: Email, parent: flag });
export const ResetVerifyInput = v.object({ email: Email, code: Code, challenge_id: ChallengeId });

/**
 * The confirmation must equal the password; the message goes on the confirmation field. Checked whenever the
 * confirmation itself reads as text, so "Passwords do not match." comes with the form's other field errors in one
 * answer (an object-level check would wait until every other field is valid: probe 9041 §4, decision 017 stop 43).
 * One rule for every pair: sign-up, reset, change password, an employee's first and new password, a parent's.
 */
export function confirmedPassword<T extends Record<string, unknown>>(password = "password", confirmation = "password_confirmation"): v.BaseValidation<T, T, v.BaseIssue<unknown>> {
  const matches = v.partialCheck([[confirmation]] as never, (x: Record<string, unknown>) => x[password] === x[confirmation], PASSWORD_MESSAGES.mismatch);
  return v.forward(matches, [confirmation] as never) as unknown as v.BaseValidation<T, T, v.BaseIssue<unknown>>;
}

export const ResetChangeInput = v.pipe(
  v.object({
    email: Email,
    reset_token: v.pipe(v.string(AUTH_MESSAGES.resetTokenInvalid), v.nonEmpty(AUTH_MESSAGES.resetTokenInvalid)),
    password: NewPassword,
    password_confirmation: v.string(PASSWORD_MESSAGES.mismatch),
  }),
  confirmedPassword(),
);

export const ChangePasswordInput = v.pipe(
  v.object({ current_password: AnyPassword, password: NewPassword, password_confirmation: v.string(PASSWORD_MESSAGES.mismatch) }),
  confirmedPassword(),
);

export const RegisterInput = v.pipe(
  v.object({
    name: v.pipe(v.string("Name is required."), v.trim(), v.nonEmpty("Name is required."), v.maxLength(100, "Name is too long."), plainText("Name"), oneLine<string>("Name")),
    surname: v.pipe(v.optional(v.string(), ""), v.trim(), v.maxLength(100, "Surname is too long."), plainText("Surname"), oneLine<string>("Surname")),
    email: Email,
    password: NewPassword,
    password_confirmation: v.string(PASSWORD_MESSAGES.mismatch),
  }),
  confirmedPassword(),
);

export const UnlockInput = v.object({ password: AnyPassword });

/** Switching two-factor on or off, or issuing new backup codes, needs the current password again. */
export const TwoFactorSwitchInput = v.object({ enabled: flag, current_password: AnyPassword });
export const BackupCodesInput = v.object({ current_password: AnyPassword });
/** One's own email, on the profile: the new address and the current password (decision 015, stop 35). */
export const OwnEmailInput = v.object({ email: requiredEmail, current_password: AnyPassword });
