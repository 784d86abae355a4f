import { describe, expect, it } from "vitest";
import { centsOf, chargeFor, dollarsOf, money, pickService, priceNote, pricingProvider, type PriceService } from "~/domain/billing";

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
  it("prices a note with its modifiers, and a combined note with its own price", () => {
    const rbt = priceNote(services, { type: "rbt", cptCode: "97153", units: 8, modifiers: ["hm", null, ""], locationId: 1, insurerId: 7 });
    expect(rbt).toMatchObject({ unitPriceCents: 1250, chargesCents: 10000, modifiers: ["HM"], multiplier: 1 });
    const combined = priceNote(services, { type: "combined", cptCode: "97155", units: 2, modifiers: [], locationId: 1, insurerId: 7, unitPriceCents: 4000 });
    expect(combined.chargesCents).toBe(8000);
    const none = priceNote(services, { type: "bcba", cptCode: "97156", units: 4, modifiers: [], locationId: 1, insurerId: 7 });
    expect(none).toMatchObject({ service: null, chargesCents: 0 });
    expect(pricingProvider("combined")).toBe("bcba");
    expect(pricingProvider("rbt", "BCaBA")).toBe("bcaba");
  });
});
