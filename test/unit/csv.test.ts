import { describe, expect, it } from "vitest";
import { CSV_BOM, csvCents, csvField, csvFileName, csvFixed, csvRow, csvStream, csvText, neutraliseFormula } from "~/domain/csv";

describe("csv fields (RFC 4180, formula injection neutralised)", () => {
  it.each([
    ["plain", "plain"],
    ["", ""],
    ["a,b", '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ["two\nlines", '"two\nlines"'],
    ["cr\rhere", '"cr\rhere"'],
    ["=SUM(A1:A2)", "'=SUM(A1:A2)"],
    ["+1 555", "'+1 555"],
    ["-2", "'-2"],
    ["@cmd", "'@cmd"],
    ["\tTAB", "'\tTAB"],
    ["\rCR", '"\'\rCR"'],
    ['=HYPERLINK("x","y")', '"\'=HYPERLINK(""x"",""y"")"'],
    ["a=b", "a=b"],
    [" =lead space", " =lead space"],
    ["Ñandú café", "Ñandú café"],
  ])("text %j → %j", (input, out) => {
    expect(csvField(input)).toBe(out);
  });

  it.each([
    [0, "0"],
    [-5, "-5"],
    [1250, "1250"],
    [1.5, "1.5"],
    [Number.NaN, ""],
    [null, ""],
    [undefined, ""],
    [true, "true"],
    [false, "false"],
  ] as const)("value %j → %j (numbers stay numbers)", (input, out) => {
    expect(csvField(input)).toBe(out);
  });

  it("neutralises only the formula starts", () => {
    expect(["=", "+", "-", "@", "\t", "\r"].map((c) => neutraliseFormula(`${c}x`))).toEqual(["'=x", "'+x", "'-x", "'@x", "'\tx", "'\rx"]);
    expect(neutraliseFormula("x=1")).toBe("x=1");
  });
});

// Money, hours and percentages are written as plain decimals a spreadsheet sums (decision 038, stop 43).
describe("csv decimal cells", () => {
  it.each([
    [0, "0.00"],
    [5, "0.05"],
    [-5, "-0.05"],
    [500, "5.00"],
    [-500, "-5.00"],
    [123450, "1234.50"],
    [123456789, "1234567.89"],
    [-123456789, "-1234567.89"],
    // Cents that arrive off a whole number (a float sum) are rounded to the cent, never printed as the float.
    [30.000000000000004, "0.30"],
    [29.999999999999996, "0.30"],
    [-0.4, "0.00"],
    [null, ""],
    [undefined, ""],
    [Number.NaN, ""],
    [Number.POSITIVE_INFINITY, ""],
  ] as const)("%s cents → %j", (cents, out) => {
    expect(csvField(csvCents(cents))).toBe(out);
  });

  it.each([
    // Hours to two places, as the screens' hoursText (1 minute → 0.02 h, 10 → 0.17 h, 90 → 1.50 h).
    [1 / 60, 2, "0.02"],
    [10 / 60, 2, "0.17"],
    [1.5, 2, "1.50"],
    [0.1 + 0.2, 2, "0.30"],
    // Percentages and mean hours to one place, as the screens show them ("12.5%", "4.0").
    [12.5, 1, "12.5"],
    [100 / 6, 1, "16.7"],
    [4, 1, "4.0"],
    [-12.25, 1, "-12.3"],
    [-0.001, 2, "0.00"],
    [0, 1, "0.0"],
    [null, 1, ""],
  ] as const)("%s to %i places → %j", (value, places, out) => {
    expect(csvField(csvFixed(value, places))).toBe(out);
  });

  it("a negative decimal stays a number (no apostrophe), where the same text as text is neutralised", () => {
    expect(csvRow([csvCents(-500), "-5.00", csvFixed(-1.5, 2)])).toBe("-5.00,'-5.00,-1.50\r\n");
  });

  it("a decimal cell whose text is not a plain decimal is written as text, neutralised and quoted", () => {
    expect(csvField({ decimal: "=1+1" })).toBe("'=1+1");
    expect(csvField({ decimal: "1,234.50" })).toBe('"1,234.50"');
    expect(csvField({ decimal: "1e21" })).toBe("1e21");
  });
});

describe("csv files", () => {
  it("a record ends in CRLF; a file starts with the BOM and the header", () => {
    expect(csvRow(["a", 1, null])).toBe("a,1,\r\n");
    expect(
      csvText(
        ["Name", "Units"],
        [
          ["Doe, J", 4],
          ["=x", -2],
        ]
      )
    ).toBe(`${CSV_BOM}Name,Units\r\n"Doe, J",4\r\n'=x,-2\r\n`);
  });

  it("the stream writes the same bytes as the text, in chunks", async () => {
    const rows = Array.from({ length: 2500 }, (_, i) => [`row ${i}`, i, i % 2 ? "=bad" : "a,b"]);
    const text = await new Response(csvStream(["A", "B", "C"], rows, 1000)).text();
    expect(text).toBe(csvText(["A", "B", "C"], rows).slice(1)); // Response.text() drops the BOM
    const bytes = new Uint8Array(await new Response(csvStream(["A"], [])).arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  });

  it.each([
    ["baseline-logs", "2026-01-31", "baseline-logs-2026-01-31.csv"],
    ['bad"name\r\n', "2026-01-31", "bad-name-2026-01-31.csv"],
    ["", "", "report.csv"],
  ])("file name %j", (base, date, out) => {
    expect(csvFileName(base, date)).toBe(out);
  });
});
