import type { MetaFunction } from "@remix-run/cloudflare";
import { ComingSoon } from "~/components/coming-soon";
import { guardedLoader } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Tickets · Baseline" }];
export const handle = { guard: "manage_tickets" };
export const loader = guardedLoader("manage_tickets");

export default function Screen() {
  return <ComingSoon title="Tickets" arrivesWith="the customer-service ticket screens" />;
}
