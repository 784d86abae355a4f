import type { MetaFunction } from "@remix-run/cloudflare";
import { ComingSoon } from "~/components/coming-soon";
import { guardedLoader } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Reports · Baseline" }];
export const handle = { guard: "manage_notes" };
export const loader = guardedLoader("manage_notes");

export default function Screen() {
  return <ComingSoon title="Reports" arrivesWith="the reports screens" />;
}
