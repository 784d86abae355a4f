import { describe, expect, it } from "vitest";
import { csvRow } from "~/domain/csv";
import { projectedPercent, projectedUse } from "~/domain/report-defs/authorizations";
import { lapseWindow } from "~/domain/report-defs/eligibility";
import { complianceLabel, expiryState } from "~/domain/report-defs/expiration-dates";
import { actorText, auditTime } from "~/domain/report-defs/audit";
import { barChartSvgMarkup, BAR_COLORS } from "~/components/charts/bar-chart-markup";
import { barChart } from "~/domain/report-operations";
import { REPORT_DEFINITIONS } from "~/domain/report-registry";
import { csvHref, daysBetween, filterInput, REPORT_KEYS, REPORT_TITLES, withPeriod } from "~/domain/reports";
import { parseWith } from "~/domain/validation";
import type { Pacing } from "~/domain/pa-pacing";

describe("the report registry", () => {
  it("names the twelve reports of platform §2 with titles", () => {
    expect(REPORT_KEYS).toEqual(["logs", "access", "pas", "payroll", "hours", "expiration-dates", "bcba-report", "client-projection", "location-cpt", "provider-clients", "ticket-support", "client-eligibility"]);
    for (const k of REPORT_KEYS) expect(REPORT_TITLES[k].title).toBeTruthy();
  });

  it.each(Object.values(REPORT_DEFINITIONS).map((d) => [d!.key, d!] as const))("%s: its permission (beyond the reports' manage_notes), its key, unique column headers, its filters parse when empty", (key, def) => {
    expect(def.key).toBe(key);
    // Payroll shows what staff are paid: it also needs manage_employees (decision 039); location-cpt shows charges, so
    // it needs manage_claims as every billing screen (decision 039, stop 34); every other report is manage_notes alone.
    expect(def.permission).toBe(({ payroll: "manage_employees", "location-cpt": "manage_claims" } as Record<string, string>)[key] ?? "manage_notes");
    const headers = def.columns.map((c) => c.header);
    expect(new Set(headers).size).toBe(headers.length);
    expect(parseWith(def.schema, filterInput(def, new URLSearchParams())).ok).toBe(true);
  });
});

describe("period filters", () => {
  const schema = withPeriod({});
  it.each([
    [{ date_from: "", date_to: "" }, null],
    [{ date_from: "2026-01-01", date_to: "2026-12-31" }, null],
    [{ date_from: "2026-01-01", date_to: "2027-01-01" }, null],
    [{ date_from: "2026-01-01", date_to: "2027-01-02" }, "Choose a period of at most one year."],
    [{ date_from: "2026-02-01", date_to: "2026-01-31" }, "To must be on or after From."],
    [{ date_from: "2026-02-30", date_to: "" }, "Dates must be real dates like 2026-01-31."],
    [{ date_from: "yesterday", date_to: "" }, "Dates must be real dates like 2026-01-31."],
  ])("%j → %s", (input, message) => {
    const r = parseWith(schema, input);
    if (message === null) expect(r.ok).toBe(true);
    else expect(r.ok ? null : Object.values(r.errors)[0]).toBe(message);
  });

  it("days between dates", () => {
    expect(daysBetween("2026-01-01", "2026-12-31")).toBe(364);
    expect(daysBetween("2024-03-01", "2024-02-28")).toBe(-2);
  });
});

describe("the CSV link keeps the filters, not the page", () => {
  it.each([
    ["", "/reports/logs/export.csv"],
    ["page=3&per_page=50&actor_id=7", "/reports/logs/export.csv?actor_id=7"],
    ["date_from=&date_to=2026-01-31", "/reports/logs/export.csv?date_to=2026-01-31"],
  ])("%s → %s", (q, href) => expect(csvHref("logs", new URLSearchParams(q))).toBe(href));
});

describe("states", () => {
  it.each([
    [-1, "expired"],
    [0, "within_30"],
    [30, "within_30"],
    [31, "ok"],
  ] as const)("a compliance date %i days away is %s", (days, state) => expect(expiryState(days)).toBe(state));

  it.each([
    [-1, null],
    [0, 14],
    [14, 14],
    [15, 30],
    [30, 30],
    [31, 60],
    [60, 60],
    [61, null],
  ] as const)("a lapse %i days away is in the %s-day window", (days, window) => expect(lapseWindow(days)).toBe(window));

  const pacing = (over: Partial<Pacing>): Pacing => ({ phase: "active", rate_per_week: 7, rate_days: 28, rate_units: 28, available_units: 10, forecast_units_left: 5, runs_out_on: null, exhausted: false, will_run_out: false, under_using: false, summary: "", ...over });
  it("projected use is the units authorized less the forecast left", () => {
    expect(projectedUse({ n_units: 100, pacing: pacing({ forecast_units_left: -20 }) })).toBe(120);
    expect(projectedPercent({ n_units: 100, pacing: pacing({ forecast_units_left: -20 }) })).toBe(120);
    expect(projectedPercent({ n_units: 0, pacing: pacing({}) })).toBeNull();
  });

  it("labels and audit texts", () => {
    expect(complianceLabel("cpr_every_2_years")).toBe("CPR (every 2 years)");
    expect(complianceLabel("unknown_key")).toBe("unknown_key");
    expect(auditTime("2026-01-31T14:05:09.123Z")).toBe("2026-01-31 14:05:09 UTC");
    expect(actorText({ actor_type: "anonymous", actor_id: null, actor_name: null })).toBe("Anonymous");
    expect(actorText({ actor_type: "parent", actor_id: 4, actor_name: "Pat Parent" })).toBe("Pat Parent (parent)");
  });

  it.each([
    ["email queue", "System (email queue)"],
    ["email", "System (email)"],
    ["cron", "System (scheduled)"],
    [null, "System (scheduled)"],
  ])("a system row at %s reads %s", (ip, label) => {
    expect(actorText({ actor_type: "system", actor_id: null, actor_name: null, ip })).toBe(label);
  });
});

describe("a report's row in the CSV comes from the screen's columns", () => {
  it("neutralises a client name that starts a formula", () => {
    const def = REPORT_DEFINITIONS.access!;
    const row = { id: 1, at: "2026-01-31T14:05:09.000Z", actor_type: "user", actor_id: 2, actor_name: "Ann Lee", action: "read", entity: "patient", entity_id: "3", patient_id: 3, client_name: "=cmd|' /C calc'!A0", clients_named: null, ip: "1.2.3.4" };
    expect(csvRow(def.columns.map((c) => c.value(row)))).toBe("2026-01-31 14:05:09 UTC,'=cmd|' /C calc'!A0,Ann Lee,read,patient #3,1.2.3.4\r\n");
  });
});

describe("the bar chart", () => {
  it("escapes labels, draws a target behind its bar and a flagged bar in the danger colour, with a legend", () => {
    const model = barChart("Projected", "units", [{ label: "<b>Ann</b> & co", value: 12, target: 20, flagged: true }, { label: "Bo", value: 5, target: 30 }], {
      legend: { value: "projected use", target: "units authorized" },
    });
    expect(model.bars.map((b) => b.text)).toEqual(["12 / 20 !", "5 / 30"]);
    expect(model.max).toBeGreaterThanOrEqual(30);
    expect(model.summary).toBe("Projected: 2 bars, 17 units in all; 1 flagged.");
    const svg = barChartSvgMarkup(model, "p");
    expect(svg).toContain("&lt;b&gt;Ann&lt;/b&gt; &amp; co");
    expect(svg).not.toContain("<b>");
    expect(svg).toContain('<desc id="p-desc">Projected: 2 bars, 17 units in all; 1 flagged.</desc>');
    expect(svg.match(new RegExp(`fill="${BAR_COLORS.target}"`, "g"))).toHaveLength(2);
    expect(svg.match(new RegExp(`fill="${BAR_COLORS.flagged}"`, "g"))).toHaveLength(1);
    expect(svg).toContain("■ projected use   □ units authorized");
  });
  it("a chart without targets draws no lighter bars and no legend", () => {
    const svg = barChartSvgMarkup(barChart("Hours", "hours", [{ label: "W1", value: 3 }]), "h");
    expect(svg).not.toContain(BAR_COLORS.target);
    expect(svg).not.toContain("■");
  });
});
