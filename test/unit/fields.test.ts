import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { hasVisibleText, MESSAGES, requiredText } from "~/domain/fields";
import { EmployeeInput } from "~/domain/employees";
import { TicketInput } from "~/domain/tickets";

/** A required text that prints nothing is empty (probe, stop 24: names of zero-width spaces showed as blank). */
describe("required text", () => {
  it.each([
    ["\u200b", false],
    ["\u2060", false],
    ["\u3164", false],
    ["\u00ad", false],
    ["\ufeff \u200b\u200c\u200d", false],
    ["\u2800", false],
    ["\u3000", false],
    ["A\u200b", true],
    ["José", true],
    ["李", true],
    ["😀", true],
  ])("hasVisibleText(%j) = %s", (text, visible) => {
    expect(hasVisibleText(text)).toBe(visible);
  });

  it.each(["\u200b", "\u3164\u3164", " \u2060 "])("requiredText refuses %j as empty, with the field's own message", (text) => {
    const r = v.safeParse(requiredText("Name"), text);
    expect(r.success).toBe(false);
    expect(r.issues?.[0]?.message).toBe(MESSAGES.required("Name"));
  });

  it("schemas built on it refuse an invisible name and subject", () => {
    const emp = v.safeParse(EmployeeInput, { name: "\u200b", surname: "Ok", email: "a@b.test" });
    expect(emp.issues?.some((i) => i.message === MESSAGES.required("Name"))).toBe(true);
    const ticket = v.safeParse(TicketInput, { subject: "\u2060", body: "Help" });
    expect(ticket.issues?.some((i) => i.message === MESSAGES.required("Subject"))).toBe(true);
  });
});
