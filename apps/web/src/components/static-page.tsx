import type { ReactNode } from "react";

/** A content page: a banded title, then readable prose. */
export function StaticPage({
  eyebrow,
  title,
  lead,
  updated,
  children,
}: {
  eyebrow?: string;
  title: string;
  lead?: ReactNode;
  updated?: string;
  children: ReactNode;
}) {
  return (
    <div className="static-page">
      <title>{`${title} · Keepsake`}</title>
      <header className="static-hero">
        <div className="container">
          {eyebrow && <span className="eyebrow">{eyebrow}</span>}
          <h1>{title}</h1>
          {lead && <p className="static-lead">{lead}</p>}
          {updated && <p className="static-updated">Last updated: {updated}</p>}
        </div>
      </header>
      <div className="container static-body">{children}</div>
    </div>
  );
}
