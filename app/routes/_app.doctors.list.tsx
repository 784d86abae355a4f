import type { MetaFunction } from "@remix-run/cloudflare";
import { ComingSoon } from "~/components/coming-soon";
import { guardedLoader } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Employees · Baseline" }];
export const handle = { guard: "manage_employees" };
export const loader = guardedLoader("manage_employees");

export default function Screen() {
  return <ComingSoon title="Employees" arrivesWith="the people, places and payers screens" />;
}
