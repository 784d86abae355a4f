import type { MetaFunction } from "@remix-run/cloudflare";
import { ComingSoon } from "~/components/coming-soon";
import { guardedLoader } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Locations · Baseline" }];
export const handle = { guard: "manage_locations_access" };
export const loader = guardedLoader("manage_locations_access");

export default function Screen() {
  return <ComingSoon title="Locations" arrivesWith="the people, places and payers screens" />;
}
