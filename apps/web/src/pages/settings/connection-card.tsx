import type { ReactNode } from "react";

export function StatusPill({
  connected,
  needsReconnect,
}: {
  connected: boolean;
  needsReconnect: boolean;
}) {
  if (!connected) return <span className="badge">Not connected</span>;
  if (needsReconnect) return <span className="badge badge-warning">Needs reconnection</span>;
  return <span className="badge badge-success">Connected</span>;
}

/**
 * One service's card: its icon, name, detail line and status, then what the caller adds.
 * `service` names its icon's colours (`connection-icon-<service>`) and its title's id.
 */
export function ConnectionCard({
  service,
  icon,
  title,
  detail,
  connected,
  needsReconnect,
  heading = "h2",
  children,
}: {
  service: string;
  icon: string;
  title: string;
  detail: ReactNode;
  connected: boolean;
  needsReconnect: boolean;
  /** h3 for the cards under Settings' "Storage" heading. */
  heading?: "h2" | "h3";
  children: ReactNode;
}) {
  const titleId = `${service}-card-title`;
  const Heading = heading;
  return (
    <section className="card connection-card" aria-labelledby={titleId}>
      <div className="connection-card-head">
        <div className={`connection-icon connection-icon-${service}`} aria-hidden="true">
          {icon}
        </div>
        <div>
          <Heading id={titleId} className="connection-card-title">
            {title}
          </Heading>
          <p className="muted connection-card-detail">{detail}</p>
        </div>
        <StatusPill connected={connected} needsReconnect={needsReconnect} />
      </div>
      {children}
    </section>
  );
}
