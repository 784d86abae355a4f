import { describe, expect, it } from "vitest";
import { CSV_BOM, csvField, csvFileName, csvRow, csvStream, csvText, neutraliseFormula } from "~/domain/csv";

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
    ["\rCR", "\"'\rCR\""],
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

describe("csv files", () => {
  it("a record ends in CRLF; a file starts with the BOM and the header", () => {
    expect(csvRow(["a", 1, null])).toBe("a,1,\r\n");
    expect(csvText(["Name", "Units"], [["Doe, J", 4], ["=x", -2]])).toBe(`${CSV_BOM}Name,Units\r\n"Doe, J",4\r\n'=x,-2\r\n`);
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
