import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { outboxEmails, parents } from "~/db/schema";
import { api, codeIn, cookiesFrom, createParent, createUser, db, form, lastEmail, type TestUser } from "./helpers";

/**
 * A password reset resets the account kind asked for, as sign-in does (probe 8986 §4, decision 016 stop 35): with the
 * parent tick (`parent: true`) the parent account of the email, without it the staff account, also when a staff
 * account and a parent share the address. The code email greets that account, and the reset token sets that
 * account's password only. A kind the email has no account of answers as an unknown email does.
 */

const NEW = "a brand new passphrase";

/** A staff account (Ann) and a parent (Paula) with one email, both with the test password. */
async function sharedEmail(): Promise<{ staff: TestUser; parent: TestUser }> {
  const staff = await createUser({ name: "Ann" });
  const parent = await createParent({ email: staff.email, name: "Paula" });
  return { staff, parent: { ...parent, email: staff.email } };
}

const signsIn = async (t: TestUser, password: string, parent: boolean) => (await api("/auth/login", { method: "POST", body: { email: t.email, password, parent } })).status === 200;
const emailsTo = async (to: string) => (await db().select({ id: outboxEmails.id }).from(outboxEmails).where(eq(outboxEmails.to, to))).length;

/** Request → code → verify → change, through the API or the screens, asking for a parent's account or a staff one. */
const FLOWS: Record<"api" | "screens", (email: string, parent: boolean) => Promise<{ greeting: string; status: number }>> = {
  api: async (email, parent) => {
    const asked = await api("/password-reset/request", { method: "POST", body: { email, parent } });
    const { challenge_id } = (await asked.json()) as { challenge_id: string };
    const sent = (await lastEmail(email))!.text;
    const verified = await api("/password-reset/verify", { method: "POST", body: { email, code: codeIn(sent), challenge_id } });
    const { reset_token } = (await verified.json()) as { reset_token: string };
    const changed = await api("/password-reset/change", { method: "POST", body: { email, reset_token, password: NEW, password_confirmation: NEW } });
    return { greeting: sent.split("\n")[0]!, status: changed.status };
  },
  screens: async (email, parent) => {
    let jar = cookiesFrom(await form("/forgot-password", parent ? { email, parent: "on" } : { email }));
    // "Send a new code" keeps the kind asked for.
    jar = cookiesFrom(await form("/reset-password-verify", { intent: "resend" }, jar), jar);
    const sent = (await lastEmail(email))!.text;
    const verified = await form("/reset-password-verify", { intent: "verify", code: codeIn(sent) }, jar);
    expect(verified.headers.get("Location")).toBe("/reset-password-change");
    jar = cookiesFrom(verified, jar);
    const changed = await form("/reset-password-change", { password: NEW, password_confirmation: NEW }, jar);
    return { greeting: sent.split("\n")[0]!, status: changed.status };
  },
};

describe("a password reset for an email a parent shares with a staff account (probe 8986 §4)", () => {
  it.each([
    ["api", true],
    ["api", false],
    ["screens", true],
    ["screens", false],
  ] as const)("through the %s, parent %s: only the account asked for is greeted and gets the new password", async (via, parent) => {
    const { staff, parent: guardian } = await sharedEmail();
    const { greeting, status } = await FLOWS[via](staff.email, parent);
    expect(status).toBe(via === "api" ? 200 : 303);
    expect(greeting).toBe(parent ? "Hello Paula," : "Hello Ann,");
    const [asked, other] = parent ? [guardian, staff] : [staff, guardian];
    expect(await signsIn(asked, NEW, parent)).toBe(true);
    expect(await signsIn(asked, asked.password, parent)).toBe(false);
    // The other account keeps its password.
    expect(await signsIn(other, other.password, !parent)).toBe(true);
    expect(await signsIn(other, NEW, !parent)).toBe(false);
  });

  it.each([
    ["a parent's email asked for as staff", false],
    ["a staff email asked for as a parent", true],
  ] as const)("%s: the answer of an unknown email, no code sent, nothing reset", async (_label, parent) => {
    const account = parent ? await createUser() : await createParent();
    const unknown = `nobody-${account.id}-${parent}@test.example`;
    const answers = [];
    for (const email of [account.email, unknown]) {
      const res = await api("/password-reset/request", { method: "POST", body: { email, parent } });
      const { challenge_id, ...body } = (await res.json()) as { challenge_id: string };
      answers.push({ status: res.status, body, id: /^[\w-]{32}$/.test(challenge_id) });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(await emailsTo(account.email)).toBe(0);
    const screen = await form("/forgot-password", parent ? { email: account.email, parent: "on" } : { email: account.email });
    expect(screen.headers.get("Location")).toBe("/reset-password-verify");
    expect(await emailsTo(account.email)).toBe(0);
  });

  it("a `parent` that is not yes or no answers 422 with the message and sends nothing", async () => {
    const { staff } = await sharedEmail();
    for (const path of ["/password-reset/request", "/two-factor/send-code"]) {
      const res = await api(path, { method: "POST", body: { email: staff.email, parent: "maybe", context: "password_reset" } });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { message: string }).message).toBe("Choose yes or no.");
    }
    expect(await emailsTo(staff.email)).toBe(0);
  });

  it("a reset token of the staff account sets no parent password, and the reverse", async () => {
    const { staff, parent } = await sharedEmail();
    const [stored] = await db().select({ hash: parents.passwordHash }).from(parents).where(eq(parents.id, parent.id));
    // Both resets pending at once: each token sets its own account's password.
    const tokens: Record<string, string> = {};
    for (const asParent of [false, true]) {
      const asked = await api("/password-reset/request", { method: "POST", body: { email: staff.email, parent: asParent } });
      const { challenge_id } = (await asked.json()) as { challenge_id: string };
      const code = codeIn((await lastEmail(staff.email))!.text);
      const verified = await api("/password-reset/verify", { method: "POST", body: { email: staff.email, code, challenge_id } });
      tokens[String(asParent)] = ((await verified.json()) as { reset_token: string }).reset_token;
    }
    const changed = await api("/password-reset/change", { method: "POST", body: { email: staff.email, reset_token: tokens.false, password: NEW, password_confirmation: NEW } });
    expect(changed.status).toBe(200);
    expect(await signsIn(staff, NEW, false)).toBe(true);
    const [after] = await db().select({ hash: parents.passwordHash }).from(parents).where(eq(parents.id, parent.id));
    expect(after!.hash).toBe(stored!.hash);
    const parentChanged = await api("/password-reset/change", { method: "POST", body: { email: staff.email, reset_token: tokens.true, password: "the parent's passphrase", password_confirmation: "the parent's passphrase" } });
    expect(parentChanged.status).toBe(200);
    expect(await signsIn(parent, "the parent's passphrase", true)).toBe(true);
    expect(await signsIn(staff, NEW, false)).toBe(true);
  });
});
