import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { cellToIsoDate, columnIndex, decodeXml, excelSerialToIso, isoToExcelSerial, MAX_INFLATED_BYTES, MAX_UNZIPPED_BYTES, MAX_ZIP_ENTRIES, parseSharedStrings, parseSheet, readXlsx } from "~/domain/xlsx";
import { deflated, weeklySheet, withDeclaredSize, xlsxFile } from "../support/xlsx";

describe("Excel serial dates", () => {
  it.each([
    [1, "1900-01-01"],
    [59, "1900-02-28"],
    [61, "1900-03-01"],
    [25569, "1970-01-01"],
    [44927, "2023-01-01"],
    [45292, "2024-01-01"],
    [46032, "2026-01-10"],
    [46032.75, "2026-01-10"], // a time of day is dropped
  ])("serial %d is %s", (serial, iso) => {
    expect(excelSerialToIso(serial)).toBe(iso);
  });

  it.each(["1900-01-01", "1900-02-28", "1900-03-01", "2024-02-29", "2026-01-10", "2099-12-31"])("%s round-trips", (iso) => {
    expect(excelSerialToIso(isoToExcelSerial(iso))).toBe(iso);
  });

  it("the 1904 system counts from 1904-01-01", () => {
    expect(excelSerialToIso(0, true)).toBe("1904-01-01");
    expect(excelSerialToIso(46032 - 1462, true)).toBe("2026-01-10");
  });

  it.each([0, -3, Number.NaN, Number.POSITIVE_INFINITY, 3_000_000])("serial %d is not a date", (serial) => {
    expect(excelSerialToIso(serial)).toBeNull();
  });
});

describe("cellToIsoDate", () => {
  it.each([
    [46032, "2026-01-10"],
    ["2026-01-10", "2026-01-10"],
    ["2026-1-3", "2026-01-03"],
    ["2026-01-10T00:00:00Z", "2026-01-10"],
    ["01/10/2026", "2026-01-10"],
    ["1/3/2026", "2026-01-03"],
    [" 01/10/2026 ", "2026-01-10"],
    ["1/10/2026 12:00 AM", "2026-01-10"],
    ["02/30/2026", null],
    ["13/01/2026", null],
    ["10.01.2026", null],
    ["next week", null],
    ["", null],
    [true, null],
    [null, null],
  ])("%j → %j", (cell, iso) => {
    expect(cellToIsoDate(cell)).toBe(iso);
  });
});

describe("XML pieces", () => {
  it("decodes entities", () => {
    expect(decodeXml("a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos; &#65;&#x42; &bogus;")).toBe("a & b <c> \"d\" 'e' AB &bogus;");
  });

  it.each([
    ["A", 0],
    ["Z", 25],
    ["AA", 26],
    ["AZ", 51],
    ["XFD", 16383],
  ])("column %s is %d", (letters, i) => expect(columnIndex(letters)).toBe(i));

  it("reads shared strings, rich text runs, phonetic runs and empty items", () => {
    const xml = `<sst><si><t>Week Ending</t></si><si><r><rPr><b/></rPr><t>Va</t></r><r><t xml:space="preserve">lue </t></r></si><si><t>日本</t><rPh sb="0" eb="2"><t>ニホン</t></rPh></si><si/><si><t/></si><si><t>A &amp; B</t></si></sst>`;
    expect(parseSharedStrings(xml)).toEqual(["Week Ending", "Value ", "日本", "", "", "A & B"]);
  });

  it("reads every cell type, skips empty rows and cells, and places cells by their reference", () => {
    const xml = `<worksheet><sheetData>
      <row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" t="inlineStr"><is><t>inline</t></is></c></row>
      <row r="2"/>
      <row r="4"><c r="A4"><v>46032</v></c><c r="B4" t="b"><v>1</v></c><c r="C4" t="str"><f>A4&amp;""</f><v>46032</v></c><c r="D4" t="e"><v>#DIV/0!</v></c><c r="E4" s="2"/></row>
      <row r="5"><c><v>1.5</v></c><c><v>2</v></c></row>
    </sheetData></worksheet>`;
    expect(parseSheet(xml, ["Header"])).toEqual([
      { row: 1, cells: ["Header", null, "inline"] },
      { row: 4, cells: [46032, true, "46032"] },
      { row: 5, cells: [1.5, 2] },
    ]);
  });
});

describe("XML written with a namespace prefix (OpenXML SDK-based tools)", () => {
  const NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";

  it("reads prefixed shared strings, rich text runs and phonetic runs", () => {
    const xml = `<x:sst xmlns:x="${NS}"><x:si><x:t>Week Ending</x:t></x:si><x:si><x:r><x:t>Va</x:t></x:r><x:r><x:t>lue</x:t></x:r></x:si><x:si><x:t>日本</x:t><x:rPh sb="0" eb="2"><x:t>ニホン</x:t></x:rPh></x:si><x:si/></x:sst>`;
    expect(parseSharedStrings(xml)).toEqual(["Week Ending", "Value", "日本", ""]);
  });

  it("reads prefixed rows, cells, values and inline strings like unprefixed ones", () => {
    const plain = `<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="inlineStr"><is><t>Value</t></is></c></row><row r="2"/><row r="3"><c r="A3"><v>46032</v></c><c r="B3"><v>82.93</v></c><c r="C3" t="s"/></row></sheetData></worksheet>`;
    const prefixed = plain.replace(/<(\/?)(\w+)/g, "<$1x:$2").replace("<x:worksheet", `<x:worksheet xmlns:x="${NS}"`);
    expect(prefixed).toContain("<x:row r=\"1\"><x:c r=\"A1\" t=\"s\"><x:v>0</x:v></x:c>");
    const expected = [
      { row: 1, cells: ["Week Ending", "Value"] },
      { row: 3, cells: [46032, 82.93] },
    ];
    expect(parseSheet(plain, ["Week Ending"])).toEqual(expected);
    expect(parseSheet(prefixed, ["Week Ending"])).toEqual(expected);
  });

  it("does not take a longer tag name for the element (<col> is not <c>, <rows> not <row>)", () => {
    expect(parseSheet(`<worksheet><cols><col min="1"/></cols><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>`, [])).toEqual([{ row: 1, cells: [1] }]);
  });

  it("reads a whole workbook whose parts all use the prefix", () => {
    const files = {
      "[Content_Types].xml": strToU8(`<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`),
      "xl/workbook.xml": strToU8(`<x:workbook xmlns:x="${NS}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><x:workbookPr date1904="1"/><x:sheets><x:sheet name="Data" sheetId="1" r:id="rId1"/></x:sheets></x:workbook>`),
      "xl/_rels/workbook.xml.rels": strToU8(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`),
      "xl/sharedStrings.xml": strToU8(`<x:sst xmlns:x="${NS}"><x:si><x:t>Week Ending</x:t></x:si><x:si><x:t>Value</x:t></x:si></x:sst>`),
      "xl/worksheets/sheet1.xml": strToU8(
        `<x:worksheet xmlns:x="${NS}"><x:sheetData><x:row r="1"><x:c r="A1" t="s"><x:v>0</x:v></x:c><x:c r="B1" t="s"><x:v>1</x:v></x:c></x:row><x:row r="2"><x:c r="A2" t="inlineStr"><x:is><x:t>2026-11-21</x:t></x:is></x:c><x:c r="B2"><x:v>15</x:v></x:c></x:row></x:sheetData></x:worksheet>`,
      ),
    };
    expect(readXlsx(zipSync(files))).toEqual({
      ok: true,
      date1904: true,
      sheetName: "Data",
      rows: [
        { row: 1, cells: ["Week Ending", "Value"] },
        { row: 2, cells: ["2026-11-21", 15] },
      ],
    });
  });
});

describe("readXlsx", () => {
  it("reads the first sheet of a workbook, with shared strings and serial dates", () => {
    const file = weeklySheet([
      [{ date: "2026-01-10" }, 4, 80],
      ["01/17/2026", 5.5, null],
      [{ date: "2026-01-24" }, 0],
    ]);
    const r = readXlsx(file);
    expect(r).toEqual({
      ok: true,
      date1904: false,
      sheetName: "Weekly data",
      rows: [
        { row: 1, cells: ["Week Ending", "Value", "Total Units"] },
        { row: 2, cells: [46032, 4, 80] },
        { row: 3, cells: ["01/17/2026", 5.5] },
        { row: 4, cells: [46046, 0] },
      ],
    });
  });

  it("reads inline strings, follows the relationships to the first sheet and ignores the others", () => {
    const file = xlsxFile([["Week Ending", "Value"], ["2026-01-10", 1]], {
      inlineStrings: true,
      firstSheetName: "Data",
      firstSheetFile: "data.xml",
      moreSheets: [{ name: "Notes", rows: [["not this one"]] }],
    });
    const r = readXlsx(file);
    expect(r.ok && r.sheetName).toBe("Data");
    expect(r.ok && r.rows).toEqual([
      { row: 1, cells: ["Week Ending", "Value"] },
      { row: 2, cells: ["2026-01-10", 1] },
    ]);
  });

  it("tells a 1904-system workbook", () => {
    const r = readXlsx(xlsxFile([["Week Ending", "Value"], [{ date: "2026-01-10" }, 1]], { date1904: true }));
    expect(r.ok && r.date1904).toBe(true);
    expect(r.ok && cellToIsoDate(r.rows[1]!.cells[0]!, true)).toBe("2026-01-10");
  });

  it.each([
    ["an empty file", new Uint8Array()],
    ["a CSV", strToU8("Week Ending,Value\n2026-01-10,3\n")],
    ["a PDF", strToU8("%PDF-1.7\n...")],
    ["a broken zip", new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5])],
    ["a zip that is not a workbook", zipSync({ "readme.txt": strToU8("hello") })],
  ])("refuses %s as not an .xlsx", (_what, bytes) => {
    expect(readXlsx(bytes)).toEqual({ ok: false, reason: "not_xlsx" });
  });

  it("refuses a part that would unzip past the limit without inflating it", () => {
    const bomb = zipSync({ "xl/workbook.xml": strToU8("<workbook/>"), "xl/worksheets/sheet1.xml": new Uint8Array(MAX_UNZIPPED_BYTES + 1) }, { level: 9 });
    expect(bomb.length).toBeLessThan(100_000);
    expect(readXlsx(bomb)).toEqual({ ok: false, reason: "too_large" });
  });

  it("refuses a workbook without its sheet", () => {
    const bytes = zipSync({ "xl/workbook.xml": strToU8(`<workbook><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`) });
    expect(readXlsx(bytes)).toEqual({ ok: false, reason: "no_sheet" });
  });

  describe("zip bombs (a Worker has 128 MB)", () => {
    const MB = 1024 * 1024;
    const rows = [["Week Ending", "Value"], [{ date: "2026-01-10" }, 3]];

    it("refuses the reported bomb (40 sheets of 16 MB in a small upload) by its headers, before inflating", { timeout: 30_000 }, () => {
      const sixteen = deflated(new Uint8Array(16 * MB - 1));
      const extraParts = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`xl/worksheets/bomb${i}.xml`, sixteen]));
      const bomb = xlsxFile(rows, { extraParts });
      expect(bomb.length).toBeLessThan(1.5 * MB);
      const started = performance.now();
      expect(readXlsx(bomb)).toEqual({ ok: false, reason: "too_large" });
      // Inflating 640 MB takes seconds; reading 40 headers takes milliseconds.
      expect(performance.now() - started).toBeLessThan(500);
    });

    it("refuses a sheet that inflates past its declared size (a lying header) and stops inflating", { timeout: 30_000 }, () => {
      const big = deflated(new Uint8Array(MAX_UNZIPPED_BYTES - 1).fill(0x20));
      const honest = xlsxFile(rows, { extraParts: { "xl/sharedStrings.xml": big } });
      const lying = withDeclaredSize(honest, "xl/sharedStrings.xml", 1000);
      expect(readXlsx(lying)).toEqual({ ok: false, reason: "too_large" });
    });

    it("refuses parts that together inflate past the total limit", { timeout: 30_000 }, () => {
      const part = (MAX_INFLATED_BYTES / 2) | 0;
      const filler = deflated(new Uint8Array(part + 1024).fill(0x20));
      const file = xlsxFile(rows, { extraParts: { "xl/sharedStrings.xml": filler } });
      // The sheet itself is padded past the other half.
      const padded = xlsxFile(rows, { extraParts: { "xl/sharedStrings.xml": filler, "xl/worksheets/sheet1.xml": filler } });
      expect(readXlsx(file).ok).toBe(true);
      expect(readXlsx(padded)).toEqual({ ok: false, reason: "too_large" });
    });

    it(`refuses more than ${MAX_ZIP_ENTRIES} entries`, { timeout: 30_000 }, () => {
      const tiny = strToU8("x");
      const extraParts = Object.fromEntries(Array.from({ length: MAX_ZIP_ENTRIES }, (_, i) => [`xl/media/p${i}.bin`, tiny]));
      expect(readXlsx(xlsxFile(rows, { extraParts }))).toEqual({ ok: false, reason: "too_large" });
    });

    it("inflates only the parts the import reads: a huge unread part within the totals is never inflated", { timeout: 30_000 }, () => {
      // Declared 20 MB (past the per-entry limit) but never read: an image, another sheet.
      const file = withDeclaredSize(xlsxFile(rows, { extraParts: { "xl/media/image1.png": strToU8("not really a png") } }), "xl/media/image1.png", 20 * MB);
      const other = withDeclaredSize(xlsxFile(rows, { moreSheets: [{ name: "Other", rows: [["x"]] }] }), "xl/worksheets/sheet2.xml", 20 * MB);
      for (const bytes of [file, other]) {
        const r = readXlsx(bytes);
        expect(r.ok).toBe(true);
        if (r.ok) expect(r.rows[1]!.cells[1]).toBe(3);
      }
    });
  });
});
