import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { choiceOr, flag, hasVisibleText, MESSAGES, numberOrNaN, numberOrNull, optionalId, optionalInt, optionalMoney, optionalNumber, requiredInt, requiredText } from "~/domain/fields";
import { ParentInput } from "~/domain/parents";
import { parsePatient } from "~/domain/patients";
import { PLAN_MESSAGES, PlanInput } from "~/domain/plans";
import { EmployeeInput } from "~/domain/employees";
import { TicketInput } from "~/domain/tickets";
import { RateRecordInput } from "~/domain/rates";
import { CountersignInput } from "~/domain/note-rules";

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

/**
 * Numbers in a body: a finite JSON number or plain decimal text; blank is none. `Number()` read "   " as 0, "0x10"
 * as 16 and "1e3" as 1000 (probe 8913, defect 4).
 */
describe("number fields", () => {
  const parse = (schema: v.GenericSchema, x: unknown) => {
    const r = v.safeParse(schema, x);
    return r.success ? { ok: true, value: r.output } : { ok: false, message: r.issues[0].message };
  };

  it.each([
    [5, 5],
    ["5", 5],
    [" 12 ", 12],
    ["2.5", 2.5],
    [".5", 0.5],
    ["", null],
    ["   ", null],
    [null, null],
    [undefined, null],
  ])("optionalNumber reads %j as %j", (x, expected) => {
    expect(parse(optionalNumber("Target"), x)).toEqual({ ok: true, value: expected });
  });

  it.each(["0x10", "1e3", "1E3", "Infinity", "NaN", "1,000", "abc", "5 5", "--1", Infinity])("optionalNumber refuses %j", (x) => {
    expect(parse(optionalNumber("Target"), x)).toEqual({ ok: false, message: "Target must be a number." });
  });

  it.each([
    [optionalInt("Units"), "Units", "0x20"],
    [optionalInt("Units"), "Units", "1e3"],
    [optionalMoney("Unit price"), "Unit price", "0x10"],
    [optionalMoney("Deductible"), "Deductible", "1e3"],
  ])("%#: optionalInt and optionalMoney refuse hex and exponents", (schema, label, x) => {
    expect(parse(schema, x)).toEqual({ ok: false, message: `${label} must be a number.` });
  });

  it.each([
    [optionalInt("Units"), "   ", null],
    [optionalInt("Units"), " 960 ", 960],
    [optionalMoney("Unit price"), "12.50", 12.5],
    [optionalMoney("Unit price"), "   ", null],
  ])("%#: optionalInt and optionalMoney read plain text", (schema, x, expected) => {
    expect(parse(schema, x)).toEqual({ ok: true, value: expected });
  });

  it("a sign is read, so a negative gets its range message", () => {
    expect(parse(optionalInt("Units"), "-1")).toEqual({ ok: false, message: "Units must be 0 or more." });
  });

  it.each([
    [" 7 ", { ok: true, value: 7 }],
    [7, { ok: true, value: 7 }],
    ["", { ok: false, message: "Units is required." }],
    ["   ", { ok: false, message: "Units is required." }],
    ["0x10", { ok: false, message: "Units must be a number." }],
    ["1e3", { ok: false, message: "Units must be a number." }],
    ["abc", { ok: false, message: "Units must be a number." }],
    [Infinity, { ok: false, message: "Units must be a number." }],
  ])("requiredInt reads %j", (x, expected) => {
    expect(parse(requiredInt("Units"), x)).toEqual(expected);
  });

  it.each([
    ["3", 3],
    [3, 3],
    ["", null],
    ["  ", null],
  ])("optionalId reads %j as %j", (x, expected) => {
    expect(parse(optionalId, x)).toEqual({ ok: true, value: expected });
  });

  it.each(["0x1", "1e2", "abc", Infinity])("optionalId refuses %j", (x) => {
    expect(parse(optionalId, x)).toEqual({ ok: false, message: "Choose a valid option." });
  });

  it.each([
    [5, 5],
    ["5", 5],
    ["", null],
    ["   ", null],
    ["0x10", Number.NaN],
    ["1e3", Number.NaN],
    [Infinity, Number.NaN],
  ])("numberOrNull(%j) = %j", (x, expected) => {
    expect(numberOrNull(x)).toEqual(expected);
  });
});

/** Only true/false, 1/0 and their words; anything else was read as false (probe 8913, defect 5). */
describe("flag", () => {
  it.each([
    [true, true],
    [false, false],
    [1, true],
    [0, false],
    ["true", true],
    ["TRUE", true],
    [" Yes ", true],
    ["on", true],
    ["1", true],
    ["false", false],
    ["No", false],
    ["OFF", false],
    ["0", false],
    ["", false],
    [null, false],
    [undefined, false],
  ])("reads %j as %s", (x, expected) => {
    expect(v.safeParse(flag, x)).toMatchObject({ success: true, output: expected });
  });

  it.each([2, -1, 1.5, "y", "t", "NaN", "2", "x".repeat(200_000)])("refuses %j", (x) => {
    const r = v.safeParse(flag, x);
    expect(r.success).toBe(false);
    expect(r.issues?.[0]?.message).toBe(MESSAGES.flag);
  });
});

/** A choice with a default: only a missing key takes it; null or blank is refused (probe 8913, defect 3). */
describe("choiceOr", () => {
  const status = choiceOr(["active", "inactive"], "active", "Choose a status from the list.");

  it.each([
    [undefined, "active"],
    ["inactive", "inactive"],
    [" inactive ", "inactive"],
  ])("reads %j as %j", (x, expected) => {
    expect(v.safeParse(status, x)).toMatchObject({ success: true, output: expected });
  });

  it.each([null, "", "   ", "bogus", 3])("refuses %j", (x) => {
    const r = v.safeParse(status, x);
    expect(r.success).toBe(false);
    expect(r.issues?.[0]?.message).toBe("Choose a status from the list.");
  });

  it("schemas built on it keep the default for a missing key and refuse null", () => {
    const client = { first_name: "Ann", last_name: "Lee", birth_date: "2018-01-02", location_id: 1 };
    expect(parsePatient({ ...client, status: null })).toMatchObject({ ok: false, errors: { status: "Choose a status from the list." } });
    expect(parsePatient({ ...client, status: "" })).toMatchObject({ ok: false, errors: { status: "Choose a status from the list." } });
    expect(v.safeParse(ParentInput, { name: "A", surname: "B", email: "a@b.test", status: null }).issues?.[0]?.message).toBe("Choose a status from the list.");
    expect(v.safeParse(TicketInput, { subject: "S", body: "B", category: "" }).issues?.[0]?.message).toBe("Choose a category from the list.");
    expect(v.safeParse(TicketInput, { subject: "S", body: "B", priority: null }).issues?.[0]?.message).toBe("Choose a priority from the list.");
    expect(v.safeParse(PlanInput, { name: "G", category: "maladaptive", status: " " }).issues?.[0]?.message).toBe(PLAN_MESSAGES.status);
  });
});

describe("ids and whole numbers given as text: plain digits only (numberOrNaN)", () => {
  const rate = (location_id: unknown) => v.safeParse(RateRecordInput, { name: "Standard", location_id });
  const countersign = (version: unknown) => v.safeParse(CountersignInput, { supervisor_name: "Sam Super", supervisor_signed_on: "2026-11-02", supervisor_signature: "", version });
  it.each([
    ["5", true],
    [5, true],
    [" 5 ", true],
    ["0x5", false],
    ["5e0", false],
    ["   ", false],
    ["", false],
    ["5.5", false],
  ] as const)("%j", (value, accepted) => {
    expect(numberOrNaN(value)).toSatisfy((n: number) => (accepted ? n === 5 : Number.isNaN(n) || !Number.isInteger(n)));
    expect(rate(value).success).toBe(accepted);
    expect(countersign(value).success).toBe(accepted);
  });
});
