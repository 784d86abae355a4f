import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { ChangePasswordInput } from "~/domain/auth-schemas";
import { AdminPasswordInput, complianceState, EmployeeInput, EmployeeStatusInput, employmentFormErrors, maskSsn, NewEmployeeInput, readEmployeeBody, withEmploymentFromForm } from "~/domain/employees";
import { ParentPasswordInput } from "~/domain/parents";
import { parseWith } from "~/domain/validation";

describe("complianceState", () => {
  const today = "2026-03-01";
  it.each([
    [null, "missing"],
    [undefined, "missing"],
    ["", "missing"],
    ["not a date", "missing"],
    ["2026-02-30", "missing"],
    ["2026-02-28", "expired"],
    ["2020-01-01", "expired"],
    ["2026-03-01", "expiring_30"],
    ["2026-03-31", "expiring_30"],
    ["2026-04-01", "expiring_60"],
    ["2026-04-30", "expiring_60"],
    ["2026-05-01", "valid"],
    ["2030-01-01", "valid"],
    ["2026-03-15T10:00:00Z", "expiring_30"],
  ] as const)("%s on 2026-03-01 → %s", (date, state) => {
    expect(complianceState(date, today)).toBe(state);
  });

  it("counts days across a leap day and a year end", () => {
    expect(complianceState("2028-03-30", "2028-02-28")).toBe("expiring_60");
    expect(complianceState("2027-01-30", "2026-12-31")).toBe("expiring_30");
  });
});

describe("maskSsn", () => {
  it.each([
    ["123456789", "***-**-6789"],
    ["123-45-6789", "***-**-6789"],
    [null, null],
    ["", null],
    ["---", null],
  ])("%s → %s", (input, out) => expect(maskSsn(input)).toBe(out));
});

const base = { name: "Ana", surname: "Lopez", email: "Ana@Clinic.Test", roles: ["3"], locations: ["7"] };

describe("EmployeeInput", () => {
  it("accepts the minimum, lower-cases the email, defaults the status, reads ids from a form", () => {
    const r = parseWith(EmployeeInput, base);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.data).toMatchObject({ email: "ana@clinic.test", status: "active", roles: [3], locations: [7], employment: [], ss_number: null, npi: null });
  });

  it.each([
    [{ name: " " }, "name", "Name is required."],
    [{ surname: undefined }, "surname", "Surname is required."],
    [{ email: "" }, "email", "Email is required."],
    [{ email: "x@y" }, "email", "Enter a valid email address."],
    [{ phone: "abc" }, "phone", "Enter a valid phone number (digits, spaces, +, -, parentheses; 7 to 20 characters)."],
    [{ status: "gone" }, "status", "Choose a status from the list."],
    [{ roles: [] }, "roles", "Choose at least one role."],
    [{ roles: ["x"] }, "roles", "Choose roles from the list."],
    [{ locations: "" }, "locations", "Choose at least one location."],
    [{ location_id: "9" }, "location_id", "The primary location must be one of the employee's locations."],
    [{ date_of_hire: "2026-13-01" }, "date_of_hire", "Enter a valid date (YYYY-MM-DD)."],
    [{ ss_number: "12345" }, "ss_number", "Enter a valid social security number (9 digits)."],
    [{ employment: [{ location_id: 8 }] }, "employment", "Employment details must be for one of the employee's locations."],
    [{ employment: [{ location_id: 7, salary: "-1" }] }, "employment.salary", "Salary must be 0 or more."],
    [{ employment: [{ location_id: 7, wc: "yesterday" }] }, "employment.wc", "Enter a valid date (YYYY-MM-DD)."],
  ])("refuses %j", (over, field, message) => {
    const r = parseWith(EmployeeInput, { ...base, ...over });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[field]).toBe(message);
  });

  it("keeps ss numbers as digits only and employment numbers and dates", () => {
    const r = parseWith(EmployeeInput, { ...base, ss_number: "123-45-6789", employment: [{ location_id: "7", salary: "30.5", fixed_weekly_hours: 40, cpr_every_2_years: "2027-01-01" }] });
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.data.ss_number).toBe("123456789");
      expect(r.data.employment[0]).toMatchObject({ location_id: 7, salary: 30.5, fixed_weekly_hours: 40, cpr_every_2_years: "2027-01-01", wc: null, position_id: null });
    }
  });
});

describe("NewEmployeeInput and AdminPasswordInput", () => {
  it.each([
    [{}, "password", "Password is required."],
    [{ password: "short", password_confirmation: "short" }, "password", "Password must be at least 8 characters."],
    [{ password: "long enough 1", password_confirmation: "long enough 2" }, "password_confirmation", "Passwords do not match."],
  ])("refuses %j", (over, field, message) => {
    const r = parseWith(NewEmployeeInput, { ...base, ...over });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[field]).toBe(message);
  });

  // "Passwords do not match." comes with the other field errors in one answer (probe 9041 §4).
  it.each([
    ["a bad email", NewEmployeeInput, { ...base, email: "bad", password: "longpassword1", password_confirmation: "longpassword2" }, { email: "Enter a valid email address.", password_confirmation: "Passwords do not match." }],
    ["no name and no role", NewEmployeeInput, { ...base, name: "", roles: [], password: "longpassword1", password_confirmation: "longpassword2" }, { name: "Name is required.", roles: "Choose at least one role.", password_confirmation: "Passwords do not match." }],
    ["a short password", NewEmployeeInput, { ...base, password: "short", password_confirmation: "shorter" }, { password: "Password must be at least 8 characters.", password_confirmation: "Passwords do not match." }],
    ["an admin's new password too short", AdminPasswordInput, { new_password: "short", new_password_confirmation: "other" }, { new_password: "Password must be at least 8 characters.", new_password_confirmation: "Passwords do not match." }],
    ["one's own change without the current password", ChangePasswordInput, { password: "longpassword1", password_confirmation: "longpassword2" }, { current_password: "Password is required.", password_confirmation: "Passwords do not match." }],
    ["a parent's password too short", ParentPasswordInput, { password: "short", password_confirmation: "other" }, { password: "Password must be at least 8 characters.", password_confirmation: "Passwords do not match." }],
  ] as const)("%s: every field error at once", (_, schema, input, errors) => {
    const r = parseWith(schema as v.GenericSchema, input);
    expect(r.ok ? {} : r.errors).toEqual(errors);
  });

  it("accepts a matching password", () => {
    expect(parseWith(NewEmployeeInput, { ...base, password: "long enough 1", password_confirmation: "long enough 1" }).ok).toBe(true);
    expect(parseWith(AdminPasswordInput, { new_password: "long enough 1", new_password_confirmation: "long enough 1" }).ok).toBe(true);
    const bad = parseWith(AdminPasswordInput, { new_password: "long enough 1", new_password_confirmation: "other" });
    expect(bad.ok ? null : bad.errors.new_password_confirmation).toBe("Passwords do not match.");
  });

  it.each([
    ["active", true],
    ["inactive", true],
    ["deleted", false],
  ])("status %s → %s", (status, ok) => expect(parseWith(EmployeeStatusInput, { status }).ok).toBe(ok));
});

describe("withEmploymentFromForm", () => {
  it("folds emp_<location>_<field> into entries for the chosen locations only", () => {
    const out = withEmploymentFromForm({ name: "A", locations: ["7"], emp_7_salary: "30", emp_7_wc: "2027-01-01", emp_8_salary: "99" });
    expect(out).toEqual({ name: "A", locations: ["7"], employment: [{ location_id: "7", salary: "30", wc: "2027-01-01" }] });
  });

  it("leaves a JSON body with an employment list as it is", () => {
    const body = { locations: [7], employment: [{ location_id: 7 }], emp_7_salary: "1" };
    expect(withEmploymentFromForm(body)).toBe(body);
  });

  it("a single chosen location (one form value) is read too", () => {
    expect(withEmploymentFromForm({ locations: "7", emp_7_salary: "5" }).employment).toEqual([{ location_id: "7", salary: "5" }]);
  });
});

describe("employmentFormErrors", () => {
  it("names every bad employment input of every chosen location", () => {
    expect(employmentFormErrors({ locations: ["7", "8"], emp_7_salary: "-5", emp_7_fixed_weekly_hours: "200", emp_8_telehealth_salary: "x", emp_8_salary: "30", emp_9_salary: "-1" })).toEqual({
      emp_7_salary: "Salary must be 0 or more.",
      emp_7_fixed_weekly_hours: "Fixed weekly hours must be at most 168.",
      emp_8_telehealth_salary: "Telehealth salary must be a number.",
    });
  });

  it("is empty for a JSON body and for good input", () => {
    expect(employmentFormErrors({ locations: [7], employment: [{ location_id: 7, salary: -5 }] })).toEqual({});
    expect(employmentFormErrors({ locations: ["7"], emp_7_salary: "30" })).toEqual({});
  });
});

describe("readEmployeeBody: roles and locations as the API answers them (probe 8943 D1)", () => {
  const answered = { id: 3, title: "Clinic", position_id: null, salary: 31, telehealth_salary: null, fixed_hours_salary: null, fixed_weekly_hours: 40, compliance: { cpr_every_2_years: "2026-12-24" }, compliance_state: { cpr_every_2_years: "valid" } };
  it.each([
    ["objects with id → ids; a detailed location → its employment entry (known keys only)", { roles: [{ id: 6, name: "BCBA" }], locations: [answered, { id: 4, title: "Other" }] }, { roles: [6], locations: [3, 4], employment: [{ location_id: 3, position_id: null, salary: 31, telehealth_salary: null, fixed_hours_salary: null, fixed_weekly_hours: 40, compliance: { cpr_every_2_years: "2026-12-24" } }] }],
    ["ids stay ids; no details, no employment", { roles: [6, "7"], locations: "3,4" }, { roles: [6, "7"], locations: "3,4" }],
    ["a sent employment wins over the locations' details", { locations: [answered], employment: [] }, { locations: [3], employment: [] }],
    ["an object without an id is left for the schema to refuse", { roles: [{ name: "BCBA" }], locations: [{ title: "Clinic" }] }, { roles: [{ name: "BCBA" }], locations: [{ title: "Clinic" }] }],
  ])("%s", (_what, body, expected) => expect(readEmployeeBody(body)).toEqual(expected));

  it.each([
    ["roles", [{ name: "BCBA" }], "Roles must be role ids (a list of numbers), or the roles as the API answers them."],
    ["roles", { id: 6 }, "Roles must be role ids (a list of numbers), or the roles as the API answers them."],
    ["locations", true, "Locations must be location ids (a list of numbers), or the locations as the API answers them."],
  ])("%s as %j: the message says what is expected", (field, value, message) => {
    const r = parseWith(EmployeeInput, readEmployeeBody({ name: "A", surname: "B", email: "a@b.test", roles: [1], locations: [1], [field]: value }));
    expect(r.ok ? {} : r.errors[field]).toBe(message);
  });
});
