import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { tickets } from "~/db/schema";
import { FORM_UNREADABLE } from "../../workers/form-bodies";
import { createLocation, createUser, db, request, signInCookie } from "./helpers";

const URLENCODED = "application/x-www-form-urlencoded";
type Bytes = Uint8Array<ArrayBuffer>;
const ascii = (text: string): Bytes => new Uint8Array(new TextEncoder().encode(text));
/** `text` as UTF-16LE bytes: each ASCII character followed by a zero byte. */
const utf16 = (text: string): Bytes => new Uint8Array([...text].flatMap((c) => [c.charCodeAt(0) & 0xff, c.charCodeAt(0) >> 8]));
const latin1 = (text: string): Bytes => new Uint8Array([...text].map((c) => c.charCodeAt(0)));

/**
 * A URL-encoded screen post names a charset (scripts, integrators and scanners do; browsers do not). The form reads
 * as UTF-8 whatever the parameter says when its bytes mean the same in UTF-8; otherwise it is refused 415 with the
 * guard's message. Never a 500.
 */
type Case = [label: string, contentType: string, encode: (text: string) => Bytes, reads: boolean];
const CASES: Case[] = [
  ["no charset", URLENCODED, ascii, true],
  ["utf-8", `${URLENCODED}; charset=utf-8`, ascii, true],
  ["UTF-8", `${URLENCODED}; charset=UTF-8`, ascii, true],
  ['"utf-8" quoted', `${URLENCODED}; charset="utf-8"`, ascii, true],
  ["utf8", `${URLENCODED};charset=utf8`, ascii, true],
  ["iso-8859-1, ASCII body", `${URLENCODED}; charset=iso-8859-1`, ascii, true],
  ["windows-1252, ASCII body", `${URLENCODED}; charset=windows-1252`, ascii, true],
  ["us-ascii", `${URLENCODED}; charset=us-ascii`, ascii, true],
  ["utf-16 named, ASCII body", `${URLENCODED}; charset=utf-16`, ascii, true],
  ["UTF-16LE named, ASCII body", `${URLENCODED}; charset=UTF-16LE`, ascii, true],
  ["bogus charset", `${URLENCODED}; charset=bogus`, ascii, true],
  ["another parameter", `${URLENCODED}; foo=bar`, ascii, true],
  ["utf-16 body", `${URLENCODED}; charset=utf-16`, utf16, false],
  ["utf-16le body", `${URLENCODED}; charset=utf-16le`, utf16, false],
];

describe("a URL-encoded screen form that names a charset", () => {
  it("signs in when its bytes read as UTF-8, and is refused 415 otherwise, signed out; never a 500", async () => {
    const user = await createUser();
    const fields = new URLSearchParams({ email: user.email, password: user.password, redirectTo: "/dashboard" }).toString();
    for (const [label, type, encode, reads] of CASES) {
      const res = await request("/login", { method: "POST", headers: { "Content-Type": type }, body: encode(fields) });
      expect(res.status, label).toBe(reads ? 303 : 415);
      if (reads) expect(res.headers.get("Location"), label).toBe("/dashboard");
      else expect(await res.text(), label).toBe(FORM_UNREADABLE);
    }
    // The other signed-out forms read it the same way.
    for (const [label, type, encode, reads] of CASES) {
      const forgot = await request("/forgot-password", { method: "POST", headers: { "Content-Type": type }, body: encode("email=nobody%40example.test") });
      expect(forgot.status, `/forgot-password: ${label}`).not.toBe(500);
      if (!reads) expect(forgot.status, `/forgot-password: ${label}`).toBe(415);
      const prefs = await request("/prefs", { method: "POST", headers: { "Content-Type": type }, body: encode("intent=dark&redirectTo=%2Flogin") });
      expect(prefs.status, `/prefs: ${label}`).toBe(reads ? 303 : 415);
    }
  });

  it("a letter outside ASCII reads only in UTF-8: in another charset it would be other text, so it is refused", async () => {
    const loc = await createLocation();
    const user = await createUser({ permissions: [], locations: [loc.id] });
    const cookie = await signInCookie(user);
    const post = (type: string, body: Bytes) => request("/tickets/add", { method: "POST", cookie, headers: { "Content-Type": type }, body });
    const subjectOf = async (res: Response) => {
      const id = Number(/\/tickets\/view\/(\d+)/.exec(res.headers.get("Location") ?? "")?.[1]);
      return (await db().select({ subject: tickets.subject }).from(tickets).where(eq(tickets.id, id)))[0]?.subject;
    };
    const fields = (subject: string) => `subject=${subject}&body=Please+help&category=general&priority=normal`;
    const rows = async () => (await db().select({ id: tickets.id }).from(tickets).where(eq(tickets.userId, user.id))).length;

    // Percent-escaped UTF-8, whatever the charset says about the ASCII it is written in.
    for (const type of [URLENCODED, `${URLENCODED}; charset=UTF-8`]) {
      const res = await post(type, ascii(fields("Jos%C3%A9")));
      expect(res.status, type).toBe(303);
      expect(await subjectOf(res), type).toBe("José");
    }
    const asIso = await post(`${URLENCODED}; charset=iso-8859-1`, ascii(fields("Printer+jammed")));
    expect(asIso.status).toBe(303);
    expect(await subjectOf(asIso)).toBe("Printer jammed");

    const before = await rows();
    const refused: [label: string, type: string, body: Bytes][] = [
      ["an escaped Latin-1 letter", `${URLENCODED}; charset=iso-8859-1`, ascii(fields("Jos%E9"))],
      ["a raw Latin-1 letter", `${URLENCODED}; charset=iso-8859-1`, latin1(fields("José"))],
      ["escaped UTF-8 under another charset", `${URLENCODED}; charset=windows-1252`, ascii(fields("Jos%C3%A9"))],
      ["a UTF-16 body", `${URLENCODED}; charset=utf-16`, utf16(fields("Printer"))],
      ["a bogus charset and a raw byte", `${URLENCODED}; charset=bogus`, latin1(fields("José"))],
    ];
    for (const [label, type, body] of refused) {
      const res = await post(type, body);
      expect(res.status, label).toBe(415);
      expect(await res.text(), label).toBe(FORM_UNREADABLE);
    }
    const asJson = await request("/tickets/add", { method: "POST", cookie, headers: { "Content-Type": `${URLENCODED}; charset=utf-16`, Accept: "application/json" }, body: utf16(fields("x")) });
    expect(asJson.status).toBe(415);
    expect(await asJson.json()).toEqual({ message: FORM_UNREADABLE });
    expect(await rows()).toBe(before);
  });
});

describe("an API JSON body that names a charset", () => {
  it("is read as UTF-8 when it is UTF-8, and answered 400 when it is not JSON in UTF-8; never a 500", async () => {
    const user = await createUser();
    const body = JSON.stringify({ email: user.email, password: user.password });
    const login = (type: string, bytes: Bytes) => request("/api/auth/login", { method: "POST", headers: { "Content-Type": type, Accept: "application/json" }, body: bytes });
    for (const charset of ["utf-8", "UTF-8", "iso-8859-1", "utf-16", "bogus"]) {
      const res = await login(`application/json; charset=${charset}`, ascii(body));
      expect(res.status, charset).toBe(200);
    }
    for (const charset of ["utf-16", "utf-16le"]) {
      const res = await login(`application/json; charset=${charset}`, utf16(body));
      expect(res.status, charset).toBe(400);
      expect(((await res.json()) as { message: string }).message, charset).toBe("The request body must be JSON.");
    }
  });
});
