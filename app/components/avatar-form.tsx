import { Form, useSearchParams } from "@remix-run/react";
import { AVATAR_FIELD } from "~/domain/avatars";
import { Field, FormMessage } from "./ui/field";

/**
 * The current avatar with an upload form (multipart, works without JavaScript) and, when one is set, a
 * remove form. `error`: the field message of a refused upload.
 */
export function AvatarForm({ avatar, label, error, busy }: { avatar: string | null; label: string; error?: string; busy: boolean }) {
  const [params] = useSearchParams();
  const flash = params.get("flash");
  return (
    <section className="avatar-zone" aria-labelledby="avatar-title">
      <h2 id="avatar-title">Avatar</h2>
      {flash?.startsWith("Avatar") ? <FormMessage success={flash} /> : null}
      <p data-testid="current-avatar">
        {avatar ? <img src={avatar} alt={`Avatar of ${label}`} width={96} height={96} className="avatar-preview" /> : "No avatar yet."}
      </p>
      <Form method="post" encType="multipart/form-data" noValidate>
        <input type="hidden" name="intent" value="avatar" />
        <Field id="f-avatar" label="New avatar image" name={AVATAR_FIELD} type="file" accept="image/png,image/jpeg,image/webp" hint="PNG, JPEG or WebP, 200 KB or smaller." required error={error} />
        <button className="btn" type="submit" disabled={busy}>
          Upload avatar
        </button>
      </Form>
      {avatar ? (
        <Form method="post">
          <input type="hidden" name="intent" value="avatar-remove" />
          <button className="btn" type="submit" disabled={busy}>
            Remove avatar
          </button>
        </Form>
      ) : null}
    </section>
  );
}
