import { useConnectionsStatus, useInstagramAccounts } from "../../api/connections.ts";
import { useSyncHealth } from "../../api/health.ts";
import { stoppedAccounts } from "./tier-state.tsx";
import "./connections.css";

/**
 * SPEC §2 header: shown when both Instagram and Google Drive are connected; when something
 * stops backups it names it instead. The server's health state decides (issue 36: never
 * "ready" while a connection is broken or Drive is full); until it has answered, the
 * connection status does.
 */
export function ReadyForBackupBadge() {
  const status = useConnectionsStatus();
  const health = useSyncHealth();
  const data = status.data;
  const accounts = useInstagramAccounts(data?.instagram_needs_reconnect === true);
  const h = health.data;
  if (h) {
    if (h.state === "setup") return null;
    const good = h.state === "ready" || h.state === "syncing";
    return (
      <span
        className={`badge ${good ? "badge-success" : "badge-warning"} ready-badge`}
        data-testid="health-badge"
        data-state={h.state}
        title={h.cause ?? undefined}
      >
        {good ? "✓ Ready for backup" : h.headline}
      </span>
    );
  }
  if (!data?.instagram_connected || !data.google_connected) return null;
  if (data.google_needs_reconnect) {
    return (
      <span className="badge badge-warning ready-badge">
        Backups paused: reconnect Google Drive
      </span>
    );
  }
  if (data.instagram_needs_reconnect) {
    const stopped = stoppedAccounts(accounts.data?.accounts)?.accounts ?? [];
    return (
      <span className="badge badge-warning ready-badge">
        {stopped.length > 0
          ? `Backups paused for ${stopped.map((a) => `@${a.username}`).join(", ")}`
          : "Reconnection needed"}
      </span>
    );
  }
  return <span className="badge badge-success ready-badge">✓ Ready for backup</span>;
}
