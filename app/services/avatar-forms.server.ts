import { AVATAR_FIELD } from "~/domain/avatars";
import type { AvatarAnswer } from "~/models/avatars.server";
import type { ModelResult } from "~/models/results";
import { formResult } from "./forms.server";
import { forbidden } from "./guard.server";

export const AVATAR_INTENTS = ["avatar", "avatar-remove"] as const;
export type AvatarIntent = (typeof AVATAR_INTENTS)[number];

export function isAvatarIntent(intent: unknown): intent is AvatarIntent {
  return (AVATAR_INTENTS as readonly unknown[]).includes(intent);
}

/**
 * A screen's avatar forms (`intent=avatar` with the file in `avatar`, `intent=avatar-remove`): the model
 * call, then back to `back` with a flash; a refused file re-renders with the field message; 403 is thrown.
 */
export async function avatarFormAction(
  form: FormData,
  intent: AvatarIntent,
  ops: { set: (file: unknown) => Promise<ModelResult<AvatarAnswer>>; remove: () => Promise<ModelResult<AvatarAnswer>> },
  back: string,
) {
  const result = intent === "avatar" ? await ops.set(form.get(AVATAR_FIELD)) : await ops.remove();
  if (!result.ok && result.status === 403) throw forbidden(result.message);
  return formResult(result, { intent }, () => back);
}
