import type { ReactNode } from "react";

/** The sign-in and sign-up screens: a centred card with a heading, the form and a switch link. */
export function AuthCard({
  title,
  heading,
  lead,
  footer,
  children,
}: {
  /** The document title, before " · Keepsake". */
  title: string;
  heading: string;
  lead: string;
  /** The line under the card linking to the other screen. */
  footer: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className="auth-page">
      <title>{`${title} · Keepsake`}</title>
      <div className="auth-card">
        <header className="auth-header">
          <h1>{heading}</h1>
          <p>{lead}</p>
        </header>
        {children}
        <p className="auth-switch">{footer}</p>
      </div>
    </section>
  );
}
