import type { MetaFunction } from "@remix-run/cloudflare";
import { ComingSoon } from "~/components/coming-soon";
import { guardedLoader } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Notes · Baseline" }];
export const handle = { guard: "view_notes" };
export const loader = guardedLoader("view_notes");

export default function Screen() {
  return <ComingSoon title="Notes" arrivesWith="the session notes screens" />;
}
