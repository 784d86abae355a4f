import type { MetaFunction } from "@remix-run/cloudflare";
import { ComingSoon } from "~/components/coming-soon";
import { guardedLoader } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "My Tickets · Baseline" }];
export const handle = { guard: "staff" };
export const loader = guardedLoader("staff");

export default function Screen() {
  return <ComingSoon title="My Tickets" arrivesWith="the customer-service ticket screens" />;
}
