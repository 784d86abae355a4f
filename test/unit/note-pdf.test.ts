import { PDFDocument, StandardFonts } from "pdf-lib";
import { beforeAll, describe, expect, it } from "vitest";
import { cptText, decimal, hoursText, localDate, notePdfDocument, notePdfFilename, notePdfHref, percentCorrect, timeRange } from "~/domain/note-pdf";
import type { NoteContent, NoteJson } from "~/domain/notes";
import { ageOn } from "~/domain/patients";
import { isWinAnsi, toWinAnsi, wrapText } from "~/domain/pdf-text";
import { renderNotePdf } from "~/services/note-pdf.server";
import { fixtureContext, fixtureNote, RBT_CONTENT, SIGNATURE_PNG } from "../support/note-fixtures";
import { pdfImageCount, pdfLineEnds, pdfPages, pdfText } from "../support/pdf-text";

describe("toWinAnsi: any text becomes text the standard fonts can draw", () => {
  it.each([
    ["plain ASCII", "Client requested a break.", "Client requested a break."],
    ["Latin-1 accents kept", "José Núñez, Zoë, Ångström, façade", "José Núñez, Zoë, Ångström, façade"],
    ["WinAnsi extras kept", "“quoted” – dash — em … € ™ •", "“quoted” – dash — em … € ™ •"],
    ["accents outside WinAnsi dropped", "Dvořák, Łódź, Őrs, Nguyễn, Ǆ", "Dvorák, Lódz, Ors, Nguyên, ?"],
    ["decomposed accents composed", "Jose\u0301", "José"],
    ["emoji become one ? each", "Great day 😀👍", "Great day ??"],
    ["emoji sequences", "👨‍👩‍👧 ❤️", "??? ?"],
    ["CJK", "患者 田中", "?? ??"],
    ["Cyrillic and Greek", "Мария α", "????? ?"],
    ["symbols with stand-ins", "≤ 3, ≥ 5, a → b, −2", "<= 3, >= 5, a -> b, -2"],
    ["line breaks normalised", "a\r\nb\rc\u2028d", "a\nb\nc\nd"],
    ["tabs and odd spaces become spaces", "a\tb\u00a0c\u2009d\u3000e", "a b\u00a0c d e"],
    ["control and invisible characters vanish", "a\u0000b\u0007c\u200bd\ufeffe\u202ef\u0085", "abcdef\n"],
    ["empty", "", ""],
  ])("%s", (_name, input, expected) => {
    expect(toWinAnsi(input)).toBe(expected);
  });

  it("never leaves a character Helvetica cannot encode, whatever the code point", async () => {
    const doc = await PDFDocument.create();
    const fonts = await Promise.all([StandardFonts.Helvetica, StandardFonts.HelveticaBold, StandardFonts.HelveticaOblique].map((f) => doc.embedFont(f)));
    const points = [...Array.from({ length: 0x3100 }, (_, i) => i), 0xd55c, 0xfb01, 0xfeff, 0xfffd, 0x1f600, 0x1f468, 0x20000, 0xe0100, 0x10ffff];
    const text = points.map((cp) => (cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp))).join("");
    const safe = toWinAnsi(text).replace(/\n/g, " ");
    for (const ch of safe) expect(isWinAnsi(ch.codePointAt(0)!), `U+${ch.codePointAt(0)!.toString(16)}`).toBe(true);
    for (const font of fonts) expect(() => font.encodeText(safe)).not.toThrow();
  });
});

describe("wrapText", () => {
  const mono = (s: string) => s.length; // one unit per character
  it.each([
    ["fits on one line", "one two", 10, ["one two"]],
    ["breaks between words", "one two three four", 9, ["one two", "three", "four"]],
    ["exact width fits", "abcde fghij", 11, ["abcde fghij"]],
    ["a long word breaks between characters", "abcdefghijkl xy", 5, ["abcde", "fghij", "kl xy"]],
    ["newlines start lines, blank lines kept", "a\n\nb", 10, ["a", "", "b"]],
    ["runs of spaces collapse", "a    b", 10, ["a b"]],
    ["a character wider than the line still goes somewhere", "abc", 0.5, ["a", "b", "c"]],
    ["empty text is one empty line", "", 10, [""]],
  ] as const)("%s", (_name, text, width, lines) => {
    expect(wrapText(text, width, mono)).toEqual(lines);
  });

  it("no line is wider than the width with a real font", async () => {
    const font = await (await PDFDocument.create()).embedFont(StandardFonts.Helvetica);
    const text = "The client demonstrated increased tolerance of transitions between preferred and non-preferred activities. ".repeat(20);
    const lines = wrapText(text, 300, (s) => font.widthOfTextAtSize(s, 10));
    expect(lines.length).toBeGreaterThan(10);
    for (const l of lines) expect(font.widthOfTextAtSize(l, 10)).toBeLessThanOrEqual(300);
    expect(lines.join(" ")).toBe(text.trim());
  });
});

describe("what a note PDF says", () => {
  it.each([
    ["rbt", "Appointment Note", "appointment-note-7.pdf"],
    ["bcba", "Supervision Note", "supervision-note-7.pdf"],
    ["combined", "Session Note", "session-note-7.pdf"],
  ] as const)("a %s note is titled %s and named %s (no client name)", (type, title, file) => {
    expect(notePdfDocument({ note: fixtureNote(type, "97153"), context: fixtureContext }).title).toBe(title);
    expect(notePdfFilename(type, 7)).toBe(file);
    expect(notePdfHref(type, 7)).toBe(`/note-${type}/pdf/7`);
  });

  it.each([
    // birth date, session date, age at the session
    ["2019-11-21", "2026-11-20", 6],
    ["2019-11-21", "2026-11-21", 7],
    ["2020-02-29", "2025-02-28", 4],
    ["2020-02-29", "2025-03-01", 5],
    ["2020-02-29", "2024-02-29", 4],
    ["2026-11-20", "2026-11-20", 0],
  ])("born %s, session on %s: age %i", (birth, session, age) => {
    expect(ageOn(birth, session)).toBe(age);
    const d = notePdfDocument({ note: fixtureNote("rbt", "97153", { session_date: session }), context: { ...fixtureContext, patient: { ...fixtureContext.patient, birth_date: birth } } });
    expect(d.fields).toContainEqual(["Date of birth", `${birth.slice(5, 7)}/${birth.slice(8)}/${birth.slice(0, 4)} (age ${age})`]);
  });

  it("a client without a birth date shows a dash, and one born after the session no age", () => {
    const none = notePdfDocument({ note: fixtureNote("rbt", "97153"), context: { ...fixtureContext, patient: { ...fixtureContext.patient, birth_date: null } } });
    expect(none.fields).toContainEqual(["Date of birth", "—"]);
    const later = notePdfDocument({ note: fixtureNote("rbt", "97153"), context: { ...fixtureContext, patient: { ...fixtureContext.patient, birth_date: "2027-01-01" } } });
    expect(later.fields).toContainEqual(["Date of birth", "01/01/2027"]);
  });

  it.each([
    [12, 8, "66.7%"],
    [10, 10, "100%"],
    [4, 0, "0%"],
    [0, 0, "—"],
    [null, 3, "—"],
    [5, null, "—"],
    ["12", 8, "—"],
    [Infinity, 1, "—"],
  ])("%s trials, %s correct: %s", (trials, correct, text) => {
    expect(percentCorrect(trials, correct)).toBe(text);
  });

  it.each([
    [210, "3.5 h (210 min)"],
    [0, "0 h (0 min)"],
    [50, "0.83 h (50 min)"],
    [-5, "0 h (0 min)"],
  ])("%i minutes: %s", (minutes, text) => {
    expect(hoursText(minutes)).toBe(text);
  });

  it("formats times, CPT modifiers and decimals", () => {
    expect(timeRange("09:00", "11:30")).toBe("09:00 – 11:30");
    expect(timeRange(null, null)).toBe("—");
    expect(timeRange("09:00", null)).toBe("09:00 – —");
    expect(cptText({ cpt_code: "97153", md: "HN", md2: " 59 ", md3: "" })).toBe("97153 (modifiers: HN, 59)");
    expect(cptText({ cpt_code: "97155", md: null, md2: null, md3: null })).toBe("97155");
    expect(decimal(2 / 3, 2)).toBe("0.67");
  });

  it("says 'Amended — version N' only when the note has earlier versions", () => {
    const note = fixtureNote("rbt", "97153", { version: 3 });
    expect(notePdfDocument({ note, context: fixtureContext }).amended).toBeNull();
    const amended = notePdfDocument({ note, context: fixtureContext, history: [{ version: 1, reason: "Typo", amended_at: "2026-11-21T03:00:00Z", amended_by_name: "Ruth Banks" }, { version: 2, reason: "Wrong time", amended_at: "2026-11-22", amended_by_name: null }] });
    expect(amended.amended).toBe("Amended — version 3");
    expect(amended.history?.rows).toEqual([
      ["1", "11/20/2026", "Ruth Banks", "Typo"],
      ["2", "11/22/2026", "—", "Wrong time"],
    ]);
  });

  it.each([
    ["2026-11-21T03:00:00.000Z", "America/Chicago", "11/20/2026"],
    ["2026-11-21T03:00:00.000Z", "Europe/Berlin", "11/21/2026"],
    ["2026-11-21", "America/Chicago", "11/21/2026"],
    ["2026-11-21T03:00:00.000Z", "Not/AZone", "11/21/2026"],
    ["", "America/Chicago", "—"],
  ])("the stored instant %s is %s local date %s", (at, zone, shown) => {
    expect(localDate(at, zone)).toBe(shown);
  });

  it("names the chosen provider and supervisor; the signature blocks keep the typed signatures, empty when not signed", () => {
    const note = fixtureNote("rbt", "97153", { provider_name: "", provider_signed_on: null, supervisor_name: "", supervisor_signed_on: null });
    const d = notePdfDocument({ note, context: { ...fixtureContext, provider: { id: 21, name: "Quinn User" }, supervisor: { id: 22, name: "Sloane User" } } });
    expect(Object.fromEntries(d.fields)).toMatchObject({ Provider: "Quinn User", Supervisor: "Sloane User" });
    expect(d.signatures.map((s) => [s.role, s.name, s.date])).toEqual([["Provider", "—", "—"], ["Supervisor", "—", "—"]]);
    // No user chosen (a note written before): the typed name.
    const typed = notePdfDocument({ note: fixtureNote("rbt", "97153"), context: fixtureContext });
    expect(Object.fromEntries(typed.fields)).toMatchObject({ Provider: "Ruth Banks", Supervisor: "Simone Clark" });
  });

  it("a CPT the product does not know has only the shared sections", () => {
    const d = notePdfDocument({ note: fixtureNote("bcba", "99999"), context: fixtureContext });
    expect(d.sections.map((s) => s.title)).toEqual(["Session details"]);
  });
});

/** Renders and reads back, logging how long the render took. */
async function render(note: NoteJson, history?: Parameters<typeof renderNotePdf>[0]["history"]) {
  const started = performance.now();
  const bytes = await renderNotePdf({ note, context: fixtureContext, history });
  const ms = performance.now() - started;
  const pages = await pdfPages(bytes);
  return { bytes, ms, pages, text: pages.map((p) => p.join("\n")).join("\n") };
}

describe("a long location title and address wrap on the note PDF (stop 35)", () => {
  it("every word is printed, and no line runs past the right margin", async () => {
    const title = `Northside Behavioral Health Center for Applied Behavior Analysis and Family Support Services ${"Wing ".repeat(5)}`.trim().slice(0, 120);
    const address = `${"Building 7, Suite 1200, ".repeat(6)}Main Street`;
    const bytes = await renderNotePdf({ note: { ...fixtureNote("rbt", "97153"), summary_note: "Long text. ".repeat(600) }, context: { ...fixtureContext, location: { ...fixtureContext.location, title, address } } });
    const text = (await pdfText(bytes)).replace(/\s+/g, " ");
    for (const word of [...title.split(" "), "Main", "Street"]) expect(text).toContain(word);
    const lines = await pdfLineEnds(bytes);
    expect(new Set(lines.map((x) => x.page)).size).toBeGreaterThan(1);
    for (const line of lines) expect(line.right, line.text.slice(0, 40)).toBeLessThanOrEqual(612 - 48 + 0.01);
  });
});

describe("renderNotePdf", () => {
  beforeAll(async () => {
    await renderNotePdf({ note: fixtureNote("rbt", "97153"), context: fixtureContext }); // warm up (font metrics)
  });

  it("an RBT 97153 note: header, title, client, times, units, goals with data, summary, signatures", async () => {
    const { bytes, text } = await render(fixtureNote("rbt", "97153", {}, RBT_CONTENT));
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
    for (const s of [
      "Sunrise ABA Center",
      "12 Main St",
      "Springfield, IL 62701",
      "Phone: (217) 555-0142",
      "Appointment Note",
      "Mia Rivera",
      "P-0012",
      "11/21/2019 (age 6)",
      "Blue Cross",
      "BCX-99812",
      "F84.0",
      "Ruth Banks",
      "Simone Clark",
      "11/20/2026",
      "12",
      "09:00 – 11:30",
      "13:00 – 14:00",
      "3.5 h (210 min)",
      "14",
      "97153 (modifiers: HN)",
      "Direct therapy (97153), 09/01/2026 –",
      "02/28/2027",
      "Client and mother",
      "New baby sister at home",
      "Maladaptive behaviors",
      "Elopement",
      "Functional communication",
      "66.7%",
      "Token economy",
      "Differential reinforcement",
      "Smiling and approaching the therapist",
      "Prompting hierarchy for requests",
      "Responded well to reinforcement",
      "Provider signature",
      "Supervisor signature",
      "Date: 11/20/2026",
      "Appointment Note #4711 · Page 1 of 2",
    ])
      expect(text, s).toContain(s);
    expect(text).toContain("Met with client at home.");
    expect(text).not.toContain("Amended");
  });

  it.each([
    ["97151", { subtype: "report" }, { procedure: "Direct observation of play", assessment_tools: "VB-MAPP, ABLLS-R", intake_outcome: "Baseline of 12 mands per hour" }, ["Supervision Note", "Assessment (report)", "Direct observation of play", "VB-MAPP, ABLLS-R", "Baseline of 12 mands per hour"]],
    [
      "97155",
      {},
      {
        maladaptives: [{ plan_id: 1, name: "Aggression", frequency: 2 }],
        replacement_percentages: [{ plan_id: 2, name: "Waiting", percent: 72.5 }],
        protocol_modifications: [{ name: "Transition warnings", assessed: true, modified: true, demonstrated: false }],
        other_protocol: "Visual schedule",
        why_was_the_protocol_modified_or_not_modified: "Warnings came too late",
        describe_in_detail_the_protocol_modifications: "Two-minute warning with a timer",
        progress_noted_this_session_compared_to_previous_session: "Fewer refusals than last week",
      },
      ["Supervision Note", "Aggression", "Waiting", "72.5%", "Transition warnings", "Yes", "No", "Visual schedule", "Warnings came too late", "Two-minute warning with a timer", "Fewer refusals than last week"],
    ],
    [
      "97156",
      {},
      {
        caregiver_goals: [{ plan_id: 4, name: "Parent uses first-then language", percent: 80 }],
        demonstrated_replacement_protocols: ["Manding"],
        demonstrated_intervention_protocols: ["Planned ignoring"],
        discussed_behaviors: ["Elopement at the store"],
      },
      ["Supervision Note", "Caregiver training", "Parent uses first-then language", "80%", "Manding", "Planned ignoring", "Elopement at the store"],
    ],
  ] as const)("a BCBA %s note shows its CPT's fields", async (cpt, over, content, expected) => {
    const { text } = await render(fixtureNote("bcba", cpt, over as Partial<NoteJson>, content as NoteContent));
    for (const s of expected) expect(text, s).toContain(s);
    expect(text).toContain("Client and mother");
  });

  it("a combined note is a 'Session Note' with its CPT's fields", async () => {
    const { text } = await render(fixtureNote("combined", "97153", {}, RBT_CONTENT));
    expect(text).toContain("Session Note");
    expect(text).toContain("Functional communication");
    expect(text).toContain("Session Note #4711 · Page 1 of 2");
  });

  it("empty tables and lists say 'None recorded.', empty fields a dash", async () => {
    const { text } = await render(fixtureNote("rbt", "97153", { time_in2: null, time_out2: null, summary_note: "" }, {}));
    expect(text).toContain("None recorded.");
    expect(text.split("\n")).toContain("—");
  });

  it("a long summary wraps and continues on further pages, with the header and page numbers on each", async () => {
    const sentences = Array.from({ length: 160 }, (_, i) => `Sentence ${i + 1} describes the client's engagement during the session in some detail.`);
    const { pages, text } = await render(fixtureNote("rbt", "97153", { summary_note: sentences.join(" ") }, RBT_CONTENT));
    expect(pages.length).toBeGreaterThanOrEqual(3);
    const flat = text.replace(/\n/g, " ");
    for (const s of [sentences[0]!, sentences[80]!, sentences[159]!]) expect(flat).toContain(s);
    pages.forEach((p, i) => {
      expect(p, `page ${i + 1}`).toContain(`Appointment Note #4711 · Page ${i + 1} of ${pages.length}`);
      if (i > 0) expect(p).toContain("Sunrise ABA Center · Appointment Note");
    });
    // No line of the summary is lost or drawn twice.
    expect(flat.match(/Sentence \d+ describes/g)).toHaveLength(160);
  });

  it("a huge table cell and many rows break across pages without losing a row", async () => {
    const maladaptives = Array.from({ length: 90 }, (_, i) => ({ plan_id: i, name: `Behavior ${i + 1}`, frequency: i }));
    const { pages, text } = await render(fixtureNote("rbt", "97153", {}, { ...RBT_CONTENT, maladaptives, as_evidenced_by: "word ".repeat(3000) }));
    expect(pages.length).toBeGreaterThan(2);
    for (let i = 1; i <= 90; i++) expect(text.split("\n")).toContain(`Behavior ${i}`);
  });

  it("very long names and field values wrap or break across pages instead of running off the page", async () => {
    const long = "Alexandria-Konstantina Montgomery-Vanderbilt ".repeat(6).trim();
    const { pages, text } = await render(fixtureNote("rbt", "97153", { provider_name: long, diagnosis_code: "F84.0 ".repeat(700) }, RBT_CONTENT));
    expect(pages.length).toBeGreaterThan(2);
    const flat = text.replace(/\n/g, " ");
    expect(flat).toContain(long);
    expect(flat.match(/F84\.0/g)).toHaveLength(700);
    const font = await (await PDFDocument.create()).embedFont(StandardFonts.HelveticaBold);
    for (const line of text.split("\n")) expect(font.widthOfTextAtSize(line, 9), line.slice(0, 40)).toBeLessThan(612);
  });

  it("draws the provider's drawn signature beside the typed name and date", async () => {
    const plain = await render(fixtureNote("rbt", "97153"));
    expect(await pdfImageCount(plain.bytes)).toBe(0);
    const signed = await render(fixtureNote("rbt", "97153", { provider_signature: SIGNATURE_PNG }));
    expect(await pdfImageCount(signed.bytes)).toBe(1);
    expect(signed.text).toContain("Provider signature (drawn)");
    expect(signed.text).toContain("Supervisor signature");
    expect(signed.text).not.toContain("Supervisor signature (drawn)");
  });

  it.each([
    ["not a data URL", "https://example.test/sig.png"],
    ["not base64", "data:image/png;base64,@@@@"],
    ["a JPEG", "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ=="],
    ["a PNG header with garbage", "data:image/png;base64," + btoa("\x89PNG\r\n\x1a\n" + "garbage".repeat(10))],
  ])("a signature that is %s is left out, the typed name stays", async (_name, image) => {
    const { bytes, text } = await render(fixtureNote("rbt", "97153", { provider_signature: image }));
    expect(await pdfImageCount(bytes)).toBe(0);
    expect(text).toContain("Ruth Banks");
  });

  it("hostile text (accents, emoji, CJK, control characters, PDF syntax) never throws and keeps what it can", async () => {
    const hostile = "José Ñúñez 😀 患者 Dvořák \u0000\u0007 ) Tj (BT /F1 <ff> \\ endstream %%EOF\u202e";
    const note = fixtureNote("combined", "97155", { provider_name: hostile, summary_note: hostile.repeat(30) }, { participants: hostile, protocol_modifications: [{ name: hostile, assessed: true, modified: false, demonstrated: true }] });
    const bytes = await renderNotePdf({
      note,
      context: { ...fixtureContext, patient: { ...fixtureContext.patient, first_name: "Zoë 🦄", last_name: "王" }, location: { ...fixtureContext.location, title: "Clínica ☀ Sol" } },
      history: [{ version: 1, reason: hostile, amended_at: "2026-11-21", amended_by_name: hostile }],
    });
    const text = await pdfText(bytes);
    const flat = text.replace(/\n/g, " ");
    expect(flat).toContain("José Ñúñez ? ?? Dvorák ) Tj (BT /F1 <ff> \\ endstream %%EOF");
    expect(text).toContain("Zoë ? ?");
    expect(text).toContain("Clínica ? Sol");
    expect(text).toContain("Amended — version 1");
  });

  it("stored content of unexpected shapes (old versions, hand-edited data) renders instead of failing", async () => {
    const odd = { maladaptives: "Elopement", replacements: [null, 7, { name: 5, total_trials: "12", correct_responses: 3 }], interventions: [3, "", null, "Token economy"], caregiver_goals: { name: "x" }, participants: 42 } as unknown as NoteContent;
    for (const cpt of ["97153", "97155", "97156", "97151"]) {
      const { text } = await render(fixtureNote("bcba", cpt, {}, odd));
      expect(text).toContain("Supervision Note");
    }
    const { text } = await render(fixtureNote("rbt", "97153", {}, odd));
    expect(text).toContain("Token economy");
    expect(text.split("\n")).toContain("42");
  });

  it("never throws on random text in every field", async () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const ranges = [[0x00, 0x7f], [0x80, 0x24f], [0x2000, 0x206f], [0x4e00, 0x4fff], [0xd800, 0xdfff], [0x1f300, 0x1f6ff], [0xe000, 0xf8ff]] as const;
    const junk = (n: number) =>
      Array.from({ length: n }, () => {
        const [lo, hi] = ranges[Math.floor(rand() * ranges.length)]!;
        const cp = lo + Math.floor(rand() * (hi - lo));
        return cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp);
      }).join("");
    for (let i = 0; i < 15; i++) {
      const note = fixtureNote(i % 2 ? "bcba" : "rbt", ["97153", "97151", "97155", "97156"][i % 4]!, { provider_name: junk(30), supervisor_name: junk(5), diagnosis_code: junk(8), pos: junk(3), summary_note: junk(400) }, {
        ...RBT_CONTENT,
        participants: junk(100),
        maladaptives: [{ plan_id: 1, name: junk(60), frequency: 2 }],
        protocol_modifications: [{ name: junk(40), assessed: true, modified: false, demonstrated: true }],
        discussed_behaviors: [junk(20)],
        intake_outcome: junk(200),
      });
      const bytes = await renderNotePdf({ note, context: { ...fixtureContext, patient: { ...fixtureContext.patient, first_name: junk(10), insurance_identifier: junk(12) }, location: { ...fixtureContext.location, title: junk(20), address: junk(30) } }, history: [{ version: 1, reason: junk(50), amended_at: "2026-11-21T00:00:00Z", amended_by_name: junk(10) }] });
      expect((await pdfPages(bytes)).length).toBeGreaterThan(0);
    }
  });

  it("is quick: a typical note renders in tens of milliseconds (bound generous for a shared machine)", async () => {
    const runs: number[] = [];
    for (let i = 0; i < 10; i++) runs.push((await render(fixtureNote("rbt", "97153", { provider_signature: SIGNATURE_PNG }, RBT_CONTENT))).ms);
    runs.sort((a, b) => a - b);
    const median = runs[5]!;
    console.log(`note PDF render: median ${median.toFixed(1)} ms, max ${runs[9]!.toFixed(1)} ms (node, a 2-page RBT note with a drawn signature)`);
    expect(median).toBeLessThan(500);
  });
});
