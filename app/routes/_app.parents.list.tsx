import type { MetaFunction } from "@remix-run/cloudflare";
import { ComingSoon } from "~/components/coming-soon";
import { guardedLoader } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Parents · Baseline" }];
export const handle = { guard: "view_parents" };
export const loader = guardedLoader("view_parents");

export default function Screen() {
  return <ComingSoon title="Parents" arrivesWith="the people, places and payers screens" />;
}
