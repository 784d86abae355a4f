import { useRouteLoaderData } from "@remix-run/react";
import type { loader } from "~/routes/_app";

/**
 * The signed-in actor's time zone, from the page shell (null: UTC). Screens under the shell print a stored instant
 * with `localDate` / `localDateTime` (app/domain/time.ts) in this zone, the clock `actorToday` uses (decision 039).
 */
export function useActorTimeZone(): string | null {
  return useRouteLoaderData<typeof loader>("routes/_app")?.timeZone ?? null;
}
