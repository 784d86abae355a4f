import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getAvatar } from "~/models/avatars.server";
import { notFound, requirePrincipal } from "~/services/guard.server";

/** GET /avatars/{id}: a stored avatar image. Any signed-in user may see avatars (they appear in menus and lists). */
export const handle = { guard: "principal" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requirePrincipal(request, context);
  const avatar = await getAvatar(context.app.db, params.id ?? "");
  if (!avatar) throw notFound("Avatar not found.");
  return new Response(avatar.bytes, {
    headers: {
      "Content-Type": avatar.contentType,
      "Content-Length": String(avatar.bytes.length),
      // A new image gets a new id, so a cached one never goes stale.
      "Cache-Control": "private, max-age=86400",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
