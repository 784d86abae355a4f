import type { MetaFunction } from "@remix-run/cloudflare";
import { ComingSoon } from "~/components/coming-soon";
import { guardedLoader } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Insurance · Baseline" }];
export const handle = { guard: "manage_insurances" };
export const loader = guardedLoader("manage_insurances");

export default function Screen() {
  return <ComingSoon title="Insurance" arrivesWith="the people, places and payers screens" />;
}
