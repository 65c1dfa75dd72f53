import type { StatusComponent, StatusIncident } from "@keepsake/contracts";
import { type FormEvent, useState } from "react";
import { useStatusQuery, useStatusSubscribeMutation } from "../../api/status.ts";
import { Icon } from "../../components/icons.tsx";
import { Spinner } from "../../components/spinner.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { bannerOf, groupComponents, stateLabel, uptimeLabel } from "./status-data.ts";

const stateBadge = {
  operational: "badge badge-success",
  degraded: "badge badge-warning",
  down: "badge badge-danger",
} as const;

export function StatusBanner({ components }: { components: readonly StatusComponent[] }) {
  const overall = bannerOf(components);
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

function ServiceRow({ s }: { s: StatusComponent }) {
  return (
    <li className="service-row" data-component={s.id}>
      <span className={`service-dot service-dot-${s.status}`} aria-hidden="true" />
      <span className="service-name">
        {s.name}
        <span className="service-detail muted">{s.detail}</span>
      </span>
      <span className="service-uptime">{uptimeLabel(s.uptime)}</span>
      <span className={stateBadge[s.status]}>{stateLabel[s.status]}</span>
    </li>
  );
}

/**
 * Keepsake's own services, then the backup destinations (the components naming one: Google
 * Drive, and Dropbox, OneDrive or S3 storage once Keepsake has used them).
 */
function Services({ components }: { components: readonly StatusComponent[] }) {
  const { services, destinations } = groupComponents(components);
  return (
    <>
      <ul className="service-list">
        {services.map((s) => (
          <ServiceRow key={s.id} s={s} />
        ))}
      </ul>
      {destinations.length > 0 && (
        <>
          <h3 id="destinations-title" className="service-group">
            Backup destinations
          </h3>
          <ul className="service-list" aria-labelledby="destinations-title">
            {destinations.map((s) => (
              <ServiceRow key={s.id} s={s} />
            ))}
          </ul>
          <p className="muted service-note">
            Dropbox, OneDrive and S3 storage are listed once backups have gone to them in the last
            day.
          </p>
        </>
      )}
    </>
  );
}

function Incidents({ incidents }: { incidents: readonly StatusIncident[] }) {
  if (incidents.length === 0) return <p className="muted">No recent incidents</p>;
  return (
    <ul className="incident-list">
      {incidents.map((i) => (
        <li key={i.id} className="incident">
          <div className="incident-head">
            <h3>{i.title}</h3>
            <span
              className={i.status === "resolved" ? "badge badge-success" : "badge badge-warning"}
            >
              {i.status === "resolved" ? "Resolved" : "Ongoing"}
            </span>
          </div>
          <p>{i.description}</p>
          <p className="incident-meta">
            {formatDateTime(i.date)} · Duration: {i.duration}
          </p>
        </li>
      ))}
    </ul>
  );
}

function Subscribe() {
  const [email, setEmail] = useState("");
  const subscribe = useStatusSubscribeMutation();
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    subscribe.mutate({ email }, { onSuccess: () => setEmail("") });
  };
  return (
    <section className="card status-subscribe" aria-labelledby="subscribe-title">
      <h2 id="subscribe-title">Subscribe to Status Updates</h2>
      <p>
        Leave your e-mail address and confirm it: we will e-mail you when an incident opens and when
        it is resolved.
      </p>
      <form className="subscribe-row" onSubmit={onSubmit}>
        <label htmlFor="status-email" className="visually-hidden">
          Email address
        </label>
        <input
          id="status-email"
          type="email"
          className="input"
          placeholder="you@example.com"
          required
          maxLength={254}
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <button type="submit" className="btn btn-primary" disabled={subscribe.isPending}>
          {subscribe.isPending ? "Subscribing..." : "Subscribe"}
        </button>
      </form>
      {subscribe.isSuccess && (
        <p className="muted" role="status">
          {subscribe.data.message}
        </p>
      )}
    </section>
  );
}

/** SPEC §2 /status from GET /api/status: components, 90-day uptime, incidents, subscribe. */
export function StatusPage() {
  const query = useStatusQuery();
  const data = query.data;
  return (
    <div className="static-page">
      <title>System Status · Keepsake</title>
      <header className="static-hero">
        <div className="container">
          <span className="eyebrow">Status</span>
          <h1>System Status</h1>
          {data && <StatusBanner components={data.components} />}
          <div className="status-meta">
            <span>Last checked: {data ? formatDateTime(data.checked_at) : "-"}</span>
            <button
              type="button"
              className="btn btn-secondary btn-sm"
              onClick={() => void query.refetch()}
              disabled={query.isFetching}
            >
              <Icon.Refresh /> {query.isFetching ? "Refreshing..." : "Refresh"}
            </button>
          </div>
        </div>
      </header>
      <div className="container static-body">
        <section className="card status-card" aria-labelledby="services-title">
          <h2 id="services-title">Services</h2>
          {query.isPending ? (
            <Spinner />
          ) : query.isError ? (
            <p className="muted" role="alert">
              The status service cannot be reached right now. Try Refresh in a moment.
            </p>
          ) : (
            data && <Services components={data.components} />
          )}
        </section>

        <section className="card status-card" aria-labelledby="incidents-title">
          <h2 id="incidents-title">Recent Incidents</h2>
          {data ? <Incidents incidents={data.incidents} /> : null}
        </section>

        <Subscribe />
      </div>
    </div>
  );
}
