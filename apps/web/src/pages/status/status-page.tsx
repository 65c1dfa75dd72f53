import { useState } from "react";
import { Icon } from "../../components/icons.tsx";
import {
  incidents as fixedIncidents,
  services as fixedServices,
  type Incident,
  overallStatus,
  type Service,
  stateLabel,
} from "./status-data.ts";

const stateBadge = {
  operational: "badge badge-success",
  degraded: "badge badge-warning",
  down: "badge badge-danger",
} as const;

export function StatusBanner({ services }: { services: readonly Service[] }) {
  const overall = overallStatus(services);
  return (
    <div
      className={overall.operational ? "status-banner status-ok" : "status-banner status-warn"}
      role="status"
    >
      <span className="status-dot" aria-hidden="true" />
      {overall.label}
    </div>
  );
}

export function StatusPage({
  services = fixedServices,
  incidents = fixedIncidents,
}: {
  services?: readonly Service[];
  incidents?: readonly Incident[];
}) {
  const [checkedAt] = useState(() => new Date());
  return (
    <div className="static-page">
      <title>System Status · Keepsake</title>
      <header className="static-hero">
        <div className="container">
          <span className="eyebrow">Status</span>
          <h1>System Status</h1>
          <StatusBanner services={services} />
          <div className="status-meta">
            <span>Last checked: {checkedAt.toLocaleString()}</span>
            <button type="button" className="btn btn-secondary btn-sm">
              <Icon.Refresh /> Refresh
            </button>
          </div>
        </div>
      </header>
      <div className="container static-body">
        <section className="card status-card" aria-labelledby="services-title">
          <h2 id="services-title">Services</h2>
          <ul className="service-list">
            {services.map((s) => (
              <li key={s.name} className="service-row">
                <span className={`service-dot service-dot-${s.status}`} aria-hidden="true" />
                <span className="service-name">{s.name}</span>
                <span className="service-uptime">{s.uptime} uptime</span>
                <span className={stateBadge[s.status]}>{stateLabel[s.status]}</span>
              </li>
            ))}
          </ul>
        </section>

        <section className="card status-card" aria-labelledby="incidents-title">
          <h2 id="incidents-title">Recent Incidents</h2>
          {incidents.length === 0 ? (
            <p className="muted">No recent incidents</p>
          ) : (
            <ul className="incident-list">
              {incidents.map((i) => (
                <li key={`${i.date}-${i.title}`} className="incident">
                  <div className="incident-head">
                    <h3>{i.title}</h3>
                    <span
                      className={
                        i.status === "resolved" ? "badge badge-success" : "badge badge-warning"
                      }
                    >
                      {i.status === "resolved" ? "Resolved" : i.status}
                    </span>
                  </div>
                  <p>{i.description}</p>
                  <p className="incident-meta">
                    {i.date} · Duration: {i.duration}
                  </p>
                </li>
              ))}
            </ul>
          )}
        </section>

        <section className="card status-subscribe" aria-labelledby="subscribe-title">
          <h2 id="subscribe-title">Subscribe to Status Updates</h2>
          <p>Get an e-mail when an incident is opened or resolved.</p>
          <div className="subscribe-row">
            <label htmlFor="status-email" className="visually-hidden">
              Email address
            </label>
            <input id="status-email" type="email" className="input" placeholder="you@example.com" />
            <button type="button" className="btn btn-primary">
              Subscribe
            </button>
          </div>
        </section>
      </div>
    </div>
  );
}
