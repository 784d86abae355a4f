import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { choiceOr, flag, hasVisibleText, isStateCode, MESSAGES, STATE_MESSAGE, numberOrNaN, numberOrNull, optionalEmail, optionalId, optionalInt, optionalLine, optionalMoney, optionalNumber, optionalText, requiredDate, requiredEmail, requiredInt, requiredLine, requiredText } from "~/domain/fields";
import { ParentInput } from "~/domain/parents";
import { parsePatient } from "~/domain/patients";
import { insuranceInput } from "~/domain/insurance";
import { locationInput } from "~/domain/locations";
import { PLAN_MESSAGES, PlanInput } from "~/domain/plans";
import { EmployeeInput } from "~/domain/employees";
import { TicketInput } from "~/domain/tickets";
import { LoginInput } from "~/domain/auth-schemas";
import { RateRecordInput } from "~/domain/rates";
import { CountersignInput } from "~/domain/note-rules";
import { parseWith } from "~/domain/validation";

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

/** Probe 8921 #3: a field shown as a single-line <input> refuses a line break; a textarea's field keeps it. */
describe("one-line text (requiredLine, optionalLine)", () => {
  const breaks = ["a\nb", "a\r\nb", "a\rb", "a\u2028b", "a\u2029b"];
  it.each(breaks)("refuses %j with 'Keep <label> on one line.'", (text) => {
    expect(v.safeParse(requiredLine("First name"), text).issues?.[0]?.message).toBe("Keep first name on one line.");
    expect(v.safeParse(optionalLine("Payer ID"), text).issues?.[0]?.message).toBe("Keep payer ID on one line.");
    expect(v.safeParse(optionalLine("NPI"), text).issues?.[0]?.message).toBe("Keep NPI on one line.");
  });

  it.each(breaks)("requiredText and optionalText (textareas) keep %j", (text) => {
    expect(v.parse(requiredText("Message"), text)).toBe(text);
    expect(v.parse(optionalText("Notes"), text)).toBe(text);
  });

  it.each([
    ["\nAna María\r\n", "Ana María"],
    ["O’Brien 😀", "O’Brien 😀"],
    ["tab\tinside", "tab\tinside"],
  ])("takes %j on one line as %j (outer breaks are trimmed like spaces)", (text, stored) => {
    expect(v.parse(requiredLine("Name"), text)).toBe(stored);
  });

  it("optionalLine keeps none as none", () => {
    expect(v.parse(optionalLine("City"), "")).toBeNull();
    expect(v.parse(optionalLine("City"), null)).toBeNull();
  });

  it("the client, employee, parent, ticket and rate schemas use it for names and subjects, not for their textareas", () => {
    const client = parsePatient({ patient_identifier: "P-1", first_name: "A\nB", last_name: "C", location_id: 1, special_note: "line 1\nline 2" });
    expect(client.ok ? {} : client.errors).toEqual({ first_name: "Keep first name on one line." });
    expect(v.safeParse(EmployeeInput, { name: "Ana", surname: "Di\r\naz", email: "a@b.test", roles: [1], locations: [1], note: "x\ny" }).issues?.map((i) => i.message)).toEqual(["Keep surname on one line."]);
    expect(v.safeParse(ParentInput, { name: "Ana\u2028", surname: "Diaz", email: "a@b.test" }).success).toBe(true);
    expect(v.safeParse(ParentInput, { name: "A\u2028na", surname: "Diaz", email: "a@b.test" }).issues?.[0]?.message).toBe("Keep name on one line.");
    expect(v.safeParse(TicketInput, { subject: "Help\r\nBcc: x@y.test", body: "line 1\nline 2" }).issues?.map((i) => i.message)).toEqual(["Keep subject on one line."]);
    expect(v.safeParse(RateRecordInput, { name: "Std\n2027", location_id: 1 }).issues?.[0]?.message).toBe("Keep name on one line.");
  });

  // Probe 8924 #4: the edit screen shows each info list one item per line, so an item holding a break became two.
  it.each(breaks)("a rate record's info item refuses %j, naming its list", (text) => {
    for (const [key, message] of [["rbt", "Keep RBT info on one line."], ["bcba", "Keep BCBA info on one line."], ["manager", "Keep manager info on one line."]] as const) {
      const r = v.safeParse(RateRecordInput, { name: "Std", location_id: 1, info: { [key]: ["Hourly", text] } });
      expect(r.issues?.[0]?.message).toBe(message);
    }
  });

  it("a rate record's info sent as text is one item per line, as the screen sends it", () => {
    expect(v.parse(RateRecordInput, { name: "Std", location_id: 1, info: { rbt: "Hourly\r\nrate\n" } }).info.rbt).toEqual(["Hourly", "rate"]);
  });
});

/** Probe 8921 #8: a lone surrogate (half of an emoji's UTF-16 pair) is ill-formed text, refused by every text field. */
describe("lone surrogates", () => {
  it.each(["Ai\ud800den", "\udc00", "x\ud83d", "\ude00y"])("%j is refused by requiredText, optionalText and the one-line fields", (text) => {
    for (const schema of [requiredText("Name"), optionalText("Notes"), requiredLine("Name"), optionalLine("City")]) {
      expect(v.safeParse(schema, text).issues?.[0]?.message).toMatch(/^(Name|Notes|City): remove the broken character \(half of an emoji or symbol\)\.$/);
    }
  });

  it("a whole emoji (a surrogate pair) is kept", () => {
    expect(v.parse(requiredText("Name"), "😀 Jasmine")).toBe("😀 Jasmine");
  });

  it("control characters keep their own message", () => {
    expect(v.safeParse(requiredText("Name"), "a\u0007b").issues?.[0]?.message).toBe("Name: remove control or text-direction characters.");
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

describe("optionalEmail: a contact email a mail server could deliver to (probe 8924)", () => {
  it.each<[string, boolean]>([
    ["parent@demo.test", true],
    ["o'brien+clinic@mail.example.org", true],
    ["ana@sub-domain.example.co", true],
    ["a@b.c\\x", false],
    ["a@b", false],
    ["a@-b.com", false],
    ["a@b-.com", false],
    ["a@b..com", false],
    ["a b@c.com", false],
    ["a@b.com ", true],
    ["x@1.2", false],
    ["a@b..c", false],
    ["jos\u00e9@example.com", false],
  ])("%s → accepted: %s, and the same for a parent's, a staff member's and a sign-in's email", (email, accepted) => {
    expect(v.safeParse(optionalEmail, email).success).toBe(accepted);
    // One rule for every stored email and for sign-in: a saved address can always sign in (probe 8925 §2).
    expect(v.safeParse(ParentInput, { name: "A", surname: "B", email }).success).toBe(accepted);
    expect(v.safeParse(EmployeeInput, { name: "A", surname: "B", email, roles: [1], locations: [1] }).issues?.some((i) => i.message === MESSAGES.email) ?? false).toBe(!accepted);
    expect(v.safeParse(LoginInput, { email, password: "x" }).success).toBe(accepted);
  });
});

// One state rule for every address a claim reads (decision 017, stop 36): the USPS codes, upper-cased; a stored value
// sent back as it is passes, so records saved before the rule stay editable.
describe("optionalState: the location's, the client's and the insurer's state", () => {
  const schemas = (stored: string | null = null) => [
    ["location", (state: unknown) => parseWith(locationInput(stored), { title: "L", time_zone: "America/New_York", pos_codes: ["11"], state }), "state"],
    ["insurer", (state: unknown) => parseWith(insuranceInput(stored), { name: "I", state }), "state"],
    ["client", (state: unknown) => parsePatient({ patient_identifier: "P-1", first_name: "A", last_name: "B", location_id: 1, state }, null, stored === null ? null : { state: stored }), "state"],
    ["client's parent", (state: unknown) => parsePatient({ patient_identifier: "P-1", first_name: "A", last_name: "B", location_id: 1, parent_state: state }, null, stored === null ? null : { parent_state: stored }), "parent_state"],
  ] as const;

  it.each<[typed: unknown, stored: string | null]>([
    ["FL", "FL"],
    ["fl", "FL"],
    [" tx ", "TX"],
    ["DC", "DC"],
    ["pr", "PR"],
    ["GU", "GU"],
    ["VI", "VI"],
    ["AS", "AS"],
    ["MP", "MP"],
    ["", null],
    [null, null],
    [undefined, null],
  ])("%j is stored as %j", (typed, expected) => {
    expect(isStateCode(String(typed ?? ""))).toBe(expected !== null);
    for (const [what, parse, field] of schemas()) {
      const r = parse(typed);
      expect(r.ok, what).toBe(true);
      if (r.ok) expect((r.data as Record<string, unknown>)[field], what).toBe(expected);
    }
  });

  it.each(["Texas", "Florida", "California", "XX", "F", "FLA", "F1", "ZZ", "UK"])("%j is refused with the message", (typed) => {
    for (const [what, parse, field] of schemas()) {
      const r = parse(typed);
      expect(r.ok, what).toBe(false);
      if (!r.ok) expect(r.errors[field], what).toBe(STATE_MESSAGE);
    }
  });

  it.each<[stored: string, typed: string, ok: boolean]>([
    ["Texas", "Texas", true],
    ["Texas", "TEXAS", true],
    ["Texas", "Florida", false],
    ["Texas", "FL", true],
  ])("stored %j, sent %j → passes: %s", (stored, typed, ok) => {
    for (const [what, parse, field] of schemas(stored)) {
      const r = parse(typed);
      expect(r.ok, what).toBe(ok);
      if (!r.ok) expect(r.errors[field], what).toBe(STATE_MESSAGE);
    }
  });
});

/**
 * A text field sent as another kind of value (a number, a list, an object, true) was given: it is told it must be
 * text, as a number field says "… must be a number."; "… is required." is kept for none (left out, null, "", blanks)
 * (decision 017, stop 40).
 */
describe("a text field sent as another kind of value", () => {
  const SENT: [label: string, value: unknown][] = [
    ["a number", 123],
    ["zero", 0],
    ["a list", ["a", "b"]],
    ["an empty list", []],
    ["an object", { x: 1 }],
    ["true", true],
  ];
  const NONE: [label: string, value: unknown][] = [
    ["left out", undefined],
    ["null", null],
    ["empty", ""],
    ["blanks", "   "],
  ];
  const messageOf = (schema: v.GenericSchema, input: unknown) => {
    const r = parseWith(v.object({ f: schema }), input === undefined ? {} : { f: input });
    return r.ok ? null : r.errors.f;
  };
  const required: [name: string, schema: v.GenericSchema, label: string][] = [
    ["requiredText", requiredText("First name"), "First name"],
    ["requiredLine", requiredLine("Subject"), "Subject"],
    ["requiredDate", requiredDate("Birth date"), "Birth date"],
    ["requiredEmail", requiredEmail, "Email"],
  ];
  it.each(required.flatMap(([name, schema, label]) => SENT.map(([sent, value]) => [name, sent, schema, value, `${label} must be text.`] as const)))(
    "%s sent %s: %j",
    (_name, _sent, schema, value, message) => expect(messageOf(schema, value)).toBe(message),
  );
  it.each(required.flatMap(([name, schema, label]) => NONE.filter(([, x]) => !(name === "requiredDate" && x === "   ")).map(([none, value]) => [name, none, schema, value, `${label} is required.`] as const)))(
    "%s %s: %j",
    (_name, _none, schema, value, message) => expect(messageOf(schema, value)).toBe(message),
  );
  it.each([
    ["optionalText", optionalText("Notes")],
    ["optionalLine", optionalLine("City")],
  ] as const)("%s: another kind is told it must be text; none is none", (_name, schema) => {
    const label = _name === "optionalText" ? "Notes" : "City";
    for (const [sent, value] of SENT) expect(messageOf(schema, value), sent).toBe(`${label} must be text.`);
    for (const [none, value] of NONE) expect(v.safeParse(v.object({ f: schema }), value === undefined ? {} : { f: value }).output, none).toEqual({ f: null });
  });
  it.each([123, ["a", "b"], { x: 1 }])("a client's first name sent as %j must be text", (first_name) => {
    const client = { patient_identifier: "P-1", first_name: "Ann", last_name: "Lee", location_id: 1 };
    expect(parsePatient({ ...client, first_name })).toMatchObject({ ok: false, errors: { first_name: "First name must be text." } });
    expect(parsePatient({ ...client, first_name: null })).toMatchObject({ ok: false, errors: { first_name: "First name is required." } });
  });
  it.each([
    ["email as a list", { email: ["a@b.co"], password: "x" }, { email: "Email must be text." }],
    ["email as a number", { email: 5, password: "x" }, { email: "Email must be text." }],
    ["password as an object", { email: "a@b.co", password: { p: 1 } }, { password: "Password must be text." }],
    ["email left out", { password: "x" }, { email: "Email is required." }],
    ["email null, password empty", { email: null, password: "" }, { email: "Email is required.", password: "Password is required." }],
  ])("sign-in, %s", (_label, body, errors) => {
    const r = parseWith(LoginInput, body);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toEqual(errors);
  });
});
