import { describe, expect, it } from "vitest";
import { centsOf, chargeFor, dollarPrice, dollarsOf, money, pickService, priceNote, pricingProvider, serviceLabel, servicesInUse, unitPriceText, type PriceService } from "~/domain/billing";

const svc = (over: Partial<PriceService>): PriceService => ({
  id: 1, insuranceId: 7, locationId: null, cptCode: "97153", modifiers: "", provider: "rbt", type: "rbt", unitPrice: 12.5, multiplier: 1, maxPerDay: null, ...over,
});

describe("charges: units × unit price × multiplier, rounded once, in cents", () => {
  it.each([
    [4, 1250, [], 1, 5000, 0],
    [9, 1999, ["HM"], 1, 17991, 0],
    [8, 1250, ["XP"], 1, 0, 10000],
    [8, 1250, ["HM", "XP"], 1, 0, 10000],
    [3, 333, [], 1.5, 1499, 0], // 1498.5 → 1499, rounded once
    [0, 1250, [], 1, 0, 0],
  ])("%i units at %i¢ with %j × %d → %i¢ (XP %i¢)", (units, price, mods, m, charges, xp) => {
    const c = chargeFor(units, price, mods, m);
    expect(c.chargesCents).toBe(charges);
    expect(c.xpCents).toBe(xp);
  });
  it("converts stored dollars to cents without float drift", () => {
    expect(centsOf(19.99)).toBe(1999);
    expect(centsOf(0.29)).toBe(29);
    expect(centsOf(1.005)).toBe(100);
    expect(dollarsOf(123450)).toBe("1234.50");
    expect(dollarsOf(-5)).toBe("-0.05");
    expect(money(123456789)).toBe("$1,234,567.89");
  });
  it.each([
    [16.25, "$16.25"],
    [0.29, "$0.29"],
    [1250, "$1,250.00"],
    [null, ""],
  ])("shows a stored dollar price %s as %j", (dollars, text) => {
    expect(dollarPrice(dollars)).toBe(text);
  });
});

describe("charges with a service multiplier: exact in integers, rounded once, half up", () => {
  // Each multiplier is read as a whole number of ten-thousandths (1.15 → 11500/10000), so units × price ×
  // multiplier is an exact fraction; it is rounded once, a half cent up. In floating point, 1290 × 1.15 is
  // 1483.4999…, which rounded to 1483¢.
  it.each([
    // units, unit price ¢, modifiers, service multiplier, charges ¢, XP ¢
    [1, 1290, [], 1.15, 1484, 0], // 1483.5 → 1484 (float: 1483)
    [1, 3010, [], 1.15, 3462, 0], // 3461.5 → 3462 (float: 3461)
    [2, 1575, ["HM"], 1.15, 3623, 0], // 3622.5 → 3623 (float: 3622)
    [8, 1290, [], 1.15, 11868, 0], // exactly 11868 (float: 11867.999…)
    [7, 1575, [], 0.7, 7718, 0], // 7717.5 → 7718 (float: 7717)
    [1, 1290, [], 1.1, 1419, 0],
    [1, 15, [], 1.1, 17, 0], // 16.5 → 17
    [8, 1250, [], 1.1, 11000, 0],
    [1, 1290, [], 0.85, 1097, 0], // 1096.5 → 1097
    [1, 10, [], 0.85, 9, 0], // 8.5 → 9
    [1, 1290, [], 2, 2580, 0],
    [3, 333, [], 2, 1998, 0],
    [1, 1290, [], 1.5, 1935, 0],
    [3, 333, [], 1.5, 1499, 0], // 1498.5 → 1499
    [1, 1, [], 0.5, 1, 0], // half a cent → 1
    [4, 2525, [], 1.0001, 10101, 0], // 10101.01 → 10101
    [1, 1290, ["XP"], 1.15, 0, 1484], // XP: nothing billed; what it would have been, rounded the same way
    [0, 1290, [], 1.15, 0, 0],
    // Large unit counts: the product passes 2^53 before the division and stays exact.
    [999_999, 1290, [], 1.15, 1_483_498_517, 0], // 1,483,498,516.5 → …517
    [100_001, 3010, [], 1.15, 346_153_462, 0],
    [123_457, 1999, [], 0.85, 209_771_962, 0], // 209,771,961.55 → …962
    [1_000_000, 99_999_999, [], 1.15, 114_999_998_850_000, 0], // float: 114,999,998,849,999.98
    [1_000_000, 99_999_999, ["XP"], 0.85, 0, 84_999_999_150_000],
  ])("%i units at %i¢ with %j × %d → %i¢ (XP %i¢)", (units, price, mods, m, charges, xp) => {
    const c = chargeFor(units, price, mods, m);
    expect(c.chargesCents).toBe(charges);
    expect(c.xpCents).toBe(xp);
    expect(Number.isSafeInteger(c.chargesCents)).toBe(true);
  });

  it("reports the multiplier it charged, and prices a note through the same rule", () => {
    expect(chargeFor(1, 1290, ["HM"], 1.15).multiplier).toBe(1.15);
    expect(chargeFor(1, 1290, ["XP"], 1.15).multiplier).toBe(0);
    const p = priceNote([svc({ unitPrice: 12.9, multiplier: 1.15 })], { type: "rbt", cptCode: "97153", units: 1, modifiers: [], locationId: 1, insurerId: 7, providerCredential: null });
    expect(p).toMatchObject({ unitPriceCents: 1290, multiplier: 1.15, chargesCents: 1484 });
  });
});

describe("the price lookup", () => {
  const services = [
    svc({ id: 1, type: "all", provider: "", unitPrice: 10 }),
    svc({ id: 2, type: "rbt", provider: "rbt", unitPrice: 12.5 }),
    svc({ id: 3, type: "bcba", provider: "bcba", cptCode: "97155", unitPrice: 30 }),
    svc({ id: 4, type: "bcba", provider: "bcaba", cptCode: "97155", unitPrice: 25 }),
    svc({ id: 5, type: "rbt", provider: "rbt", locationId: 2, unitPrice: 14 }),
    svc({ id: 6, type: "rbt", provider: "rbt", locationId: 3, unitPrice: 99 }),
    svc({ id: 7, type: "rbt", provider: "rbt", modifiers: "HM", unitPrice: 11 }),
  ];
  it.each([
    ["rbt at location 1 → the insurer-wide rbt price", 7, "97153", "rbt", 1, 2],
    ["rbt at location 2 → that location's price", 7, "97153", "rbt", 2, 5],
    ["a provider of no type → the 'all' price", 7, "97153", "", 1, 1],
    ["bcaba → the bcaba price over bcba", 7, "97155", "bcaba", 1, 4],
    ["bcba → the bcba price", 7, "97155", "bcba", 1, 3],
    ["another CPT → none", 7, "97156", "bcba", 1, null],
    ["another insurer → none", 8, "97153", "rbt", 1, null],
    ["no insurer → none", null, "97153", "rbt", 1, null],
  ] as const)("%s", (_, insurer, cpt, provider, location, id) => {
    expect(pickService(services, insurer, cpt, provider, location)?.id ?? null).toBe(id);
  });
  it.each([
    // note type, provider's credential → the service that prices 97153/97155 at location 1
    ["rbt", null, "97153", 2], // no credential: the note's type
    ["rbt", "rbt", "97153", 2],
    ["rbt", "bcba", "97153", 1], // a BCBA's RBT session: the payer's price for BCBAs (here "all"), not the RBT price
    ["rbt", "BCaBA", "97153", 1],
    ["bcba", null, "97155", 3],
    ["bcba", "bcaba", "97155", 4], // the bcaba price over bcba
    ["combined", "bcaba", "97155", 4],
    ["bcba", "rbt", "97155", null], // an RBT has no 97155 price: no price, and the scrubber says so
    ["bcba", "lead", "97155", 3], // a role that is no credential: the note's type
  ] as const)("a %s note by a provider credentialed %j prices %s with service %j", (type, credential, cpt, id) => {
    expect(priceNote(services, { type, cptCode: cpt, units: 1, modifiers: [], locationId: 1, insurerId: 7, providerCredential: credential }).service?.id ?? null).toBe(id);
  });

  it("prices a note with its modifiers, and a combined note with its own price", () => {
    // The HM note takes the HM price (service 7), not the one without modifiers (service 2).
    const rbt = priceNote(services, { type: "rbt", cptCode: "97153", units: 8, modifiers: ["hm", null, ""], locationId: 1, insurerId: 7, providerCredential: null });
    expect(rbt).toMatchObject({ unitPriceCents: 1100, chargesCents: 8800, modifiers: ["HM"], multiplier: 1 });
    expect(rbt.service?.id).toBe(7);
    const combined = priceNote(services, { type: "combined", cptCode: "97155", units: 2, modifiers: [], locationId: 1, insurerId: 7, providerCredential: null, unitPriceCents: 4000 });
    expect(combined.chargesCents).toBe(8000);
    const none = priceNote(services, { type: "bcba", cptCode: "97156", units: 4, modifiers: [], locationId: 1, insurerId: 7, providerCredential: null });
    expect(none).toMatchObject({ service: null, chargesCents: 0 });
    expect(pricingProvider("combined")).toBe("bcba");
    expect(pricingProvider("rbt", "BCaBA")).toBe("bcaba");
  });
});

describe("the price lookup by the note's modifiers (probe 8933 §1)", () => {
  // The probe's payer: Chicago North (4) has "97153 HM" at $15.00 and "97153 HM GT" at $14.25, both rbt.
  const services = [
    svc({ id: 1, locationId: 4, modifiers: "HM", unitPrice: 15, maxPerDay: 32 }),
    svc({ id: 2, locationId: 4, modifiers: "HM-GT", unitPrice: 14.25, maxPerDay: 32 }),
    svc({ id: 3, locationId: null, modifiers: "", unitPrice: 13 }),
    svc({ id: 4, locationId: null, modifiers: "GT", type: "all", provider: "", unitPrice: 12 }),
    svc({ id: 5, locationId: 5, modifiers: "HM-GT", unitPrice: 16 }),
    svc({ id: 6, locationId: null, modifiers: "HM-GT", unitPrice: 17 }),
    svc({ id: 7, locationId: null, modifiers: "TS", unitPrice: 18 }),
    svc({ id: 8, locationId: 6, modifiers: "HM", unitPrice: 19 }),
    svc({ id: 9, locationId: 6, modifiers: "HM", type: "all", provider: "", unitPrice: 20 }),
    svc({ id: 10, cptCode: "97155", locationId: null, modifiers: "HO-GT", type: "bcba", provider: "bcba", unitPrice: 30 }),
  ];
  it.each([
    ["exact: HM GT at Chicago → the HM GT price", 4, ["HM", "GT"], "rbt", 2],
    ["the order of the modifiers does not matter", 4, ["GT", "HM"], "rbt", 2],
    ["exact: HM at Chicago → the HM price, not HM GT", 4, ["HM"], "rbt", 1],
    ["subset: HM XP at Chicago → the HM price (XP has no service)", 4, ["HM", "XP"], "rbt", 1],
    ["subset, most specific first: HM GT TS → HM GT over HM and the one without", 4, ["HM", "GT", "TS"], "rbt", 2],
    ["none: no modifiers → the service without modifiers", 4, [], "rbt", 3],
    ["exact beats location: GT alone at Chicago → the insurer-wide GT price", 4, ["GT"], "rbt", 4],
    ["location: HM GT at location 5 → its own HM GT price over the insurer-wide one", 5, ["HM", "GT"], "rbt", 5],
    ["all locations: HM GT at location 7 → the insurer-wide HM GT price", 7, ["HM", "GT"], "rbt", 6],
    ["a subset at all locations: HM at location 7 → the one without (no HM service applies there)", 7, ["HM"], "rbt", 3],
    ["provider type before 'all': HM at location 6 → the rbt HM price", 6, ["HM"], "rbt", 8],
    ["a provider of no type at location 6 → the 'all' HM price", 6, ["HM"], "", 9],
    ["a service of another location never applies: HM GT at location 6 → the insurer-wide HM GT", 6, ["HM", "GT"], "rbt", 6],
  ] as const)("%s", (_l, location, modifiers, provider, id) => {
    expect(pickService(services, 7, "97153", provider, location, modifiers)?.id ?? null).toBe(id);
  });

  it.each([
    // Only services with a modifier the note lacks: the one lacking fewest, then sharing most; never another CPT.
    ["97155 HO alone → the HO GT price (no other 97155 service)", "97155", ["HO"], "bcba", 10],
    ["97155 with no modifiers → the HO GT price", "97155", [], "bcba", 10],
    ["97156 → none", "97156", ["HO"], "bcba", null],
  ] as const)("%s", (_l, cpt, modifiers, provider, id) => {
    expect(pickService(services, 7, cpt, provider, 4, modifiers)?.id ?? null).toBe(id);
  });

  it("charges the probe's HM GT note $128.25 (9 units at $14.25), and keeps XP's 0", () => {
    const note = { type: "rbt" as const, cptCode: "97153", units: 9, locationId: 4, insurerId: 7, providerCredential: "rbt" };
    expect(priceNote(services, { ...note, modifiers: ["HM", "GT"] })).toMatchObject({ unitPriceCents: 1425, chargesCents: 12825, multiplier: 1 });
    expect(priceNote(services, { ...note, modifiers: ["HM", null] })).toMatchObject({ unitPriceCents: 1500, chargesCents: 13500 });
    expect(priceNote(services, { ...note, modifiers: ["HM", "XP"] })).toMatchObject({ unitPriceCents: 1500, chargesCents: 0, xpCents: 13500 });
  });
});

describe("a unit price as shown beside its charge (probe 8912 §4)", () => {
  it.each([
    ["a 1.15 service", 1299, 1.15, "$12.99 × 1.15"],
    ["XP (the modifiers' 0)", 1299, 0, "$12.99 × 0"],
    ["a product of multipliers", 1250, 0.8625, "$12.50 × 0.8625"],
    ["1.00", 1299, 1, "$12.99"],
    ["a claim line built before stop 28 (no multiplier kept)", 1299, null, "$12.99"],
  ] as const)("%s", (_l, cents, multiplier, text) => {
    expect(unitPriceText(cents, multiplier)).toBe(text);
  });

  it("shows the multiplier priceNote charged with", () => {
    const price = priceNote([svc({ unitPrice: 12.99, multiplier: 1.15 })], { type: "rbt", cptCode: "97153", units: 1, modifiers: [], locationId: 1, insurerId: 7, providerCredential: null });
    expect([unitPriceText(price.unitPriceCents, price.multiplier), money(price.chargesCents)]).toEqual(["$12.99 × 1.15", "$14.94"]);
  });
});

describe("the prices the billing header lists: the services notes at the client's location can be priced with (probe 8984 L3)", () => {
  // Insurer 7; the client's location is 3.
  const hm = svc({ id: 1, modifiers: "HM", unitPrice: 16.25 });
  const ho = svc({ id: 2, modifiers: "HO", provider: "bcba", type: "bcba", unitPrice: 26.25 });
  const hmGt = svc({ id: 3, modifiers: "HM-GT", unitPrice: 12.99, multiplier: 1.15 });
  const bcaba = svc({ id: 4, modifiers: "HO", provider: "bcaba", type: "bcba", unitPrice: 24 });
  const anyone = svc({ id: 5, cptCode: "97156", provider: "", type: "all", unitPrice: 28.5 });
  const here = svc({ id: 6, modifiers: "HM", locationId: 3, unitPrice: 17 });
  const elsewhere = svc({ id: 7, modifiers: "HM", locationId: 4, unitPrice: 18 });
  const twin = svc({ id: 8, modifiers: "GT-HM", unitPrice: 11 });
  const otherPayer = svc({ id: 9, insuranceId: 8, modifiers: "HM" });
  const rbtOnly = svc({ id: 10, cptCode: "97156", unitPrice: 27 });
  const ids = (services: PriceService[], cpts = ["97153", "97156"]) => servicesInUse(services, 7, 3, cpts).map((s) => s.id);

  it.each([
    ["one price per provider and modifiers, by CPT then id", [hmGt, ho, hm], ["97153"], [1, 2, 3]],
    ["a BCaBA price beside the BCBA one: both price notes", [ho, bcaba], ["97153"], [2, 4]],
    ["the location's own price shadows the all-locations one of the same code", [hm, here], ["97153"], [6]],
    ["another location's price is not used here", [hm, elsewhere], ["97153"], [1]],
    ["a twin (the same modifiers in another order) after the oldest is never used", [hmGt, twin], ["97153"], [3]],
    ["another payer's prices are not this insurer's", [hm, otherPayer], ["97153"], [1]],
    ["an all-providers price beside an RBT one: still used for BCBAs", [anyone, rbtOnly], ["97156"], [5, 10]],
    ["only the CPTs asked for, in their order", [anyone, hm], ["97156", "97153"], [5, 1]],
    ["a CPT written in lower case", [hm], [" 97153 "], [1]],
  ])("%s", (_l, services, cpts, expected) => {
    expect(ids(services, cpts)).toEqual(expected);
  });

  it("no insurer: none", () => {
    expect(servicesInUse([hm], null, 3, ["97153"])).toEqual([]);
  });

  it.each([
    [hm, "97153 RBT HM"],
    [hmGt, "97153 RBT HM GT"],
    [bcaba, "97153 BCaBA HO"],
    [anyone, "97156 all providers"],
  ])("labels service %# as %j", (s, label) => {
    expect(serviceLabel(s)).toBe(label);
  });
});
