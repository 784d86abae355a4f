import { ACCESS_DENIED } from "~/domain/shell";

/** The 403 / 423 warning dialog (platform §8): works as plain HTML, the button is a link; the page's main landmark. */
export function AccessDenied({ status }: { status: 403 | 423 }) {
  return (
    <main className="dialog-backdrop">
      <div role="alertdialog" aria-modal="true" aria-labelledby="access-denied-title" aria-describedby="access-denied-text" className="dialog dialog-warning">
        <h1 id="access-denied-title">{ACCESS_DENIED.title}</h1>
        <p id="access-denied-text">{status === 423 ? ACCESS_DENIED.locked : ACCESS_DENIED.forbidden}</p>
        <a className="btn btn-primary" href="/dashboard">
          {ACCESS_DENIED.button}
        </a>
      </div>
    </main>
  );
}
