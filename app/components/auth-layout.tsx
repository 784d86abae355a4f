import type { ReactNode } from "react";

/** The frame of the sign-in, two-factor, reset and lock screens. */
export function AuthLayout({ title, subtitle, children }: { title: string; subtitle?: string; children: ReactNode }) {
  return (
    <main className="auth">
      <div className="auth-card">
        <p className="brand">Baseline</p>
        <h1>{title}</h1>
        {subtitle ? <p className="muted">{subtitle}</p> : null}
        {children}
      </div>
      <p className="hipaa">Fully HIPAA Compliance Website</p>
    </main>
  );
}
