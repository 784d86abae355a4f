import type { AppLoadContext } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import type { Actor } from "~/domain/permissions";
import type { ModelContext } from "~/models/context";
import type { ModelResult } from "~/models/results";
import { notFound } from "./guard.server";

/** Glue between Remix route modules and model use cases. */

export function modelContextFor(context: AppLoadContext, actor: Actor): ModelContext {
  return { db: context.app.db, actor, ip: context.app.ip, now: context.app.now };
}

/** The action data a form re-renders with after bad input. */
export interface FormAnswer {
  errors: Record<string, string>;
  message: string | null;
  values: Record<string, string | string[]>;
  current?: unknown;
}

/** A form's fields with repeated names (checkbox groups) kept as lists. */
export function formValues(form: FormData): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(form.keys())) {
    const all = form.getAll(key).filter((x): x is string => typeof x === "string");
    out[key] = all.length > 1 ? all : (all[0] ?? "");
  }
  return out;
}

/**
 * Success → redirect (POST → 303 → GET) with a flash in the query; 404 → thrown; 4xx → re-render data with
 * the field errors and the typed values.
 */
export function formResult<T>(result: ModelResult<T>, values: Record<string, string | string[]>, onSuccess: (data: T) => string) {
  if (result.ok) {
    const to = onSuccess(result.data);
    return redirect(`${to}${to.includes("?") ? "&" : "?"}flash=${encodeURIComponent(result.message ?? "Saved.")}`, 303);
  }
  if (result.status === 404) throw notFound(result.message);
  const answer: FormAnswer = {
    errors: result.status === 422 ? result.errors : {},
    message: result.message,
    values,
    current: result.status === 409 ? result.current : undefined,
  };
  return data(answer, { status: result.status });
}
