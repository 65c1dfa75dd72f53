import { useConnectionsStatus, useInstagramAccounts } from "../../api/connections.ts";
import { stoppedAccounts } from "./tier-state.tsx";
import "./connections.css";

/**
 * SPEC §2 header: shown when both Instagram and Google Drive are connected; when access to
 * one of them ended, it names what is paused instead.
 */
export function ReadyForBackupBadge() {
  const status = useConnectionsStatus();
  const data = status.data;
  const accounts = useInstagramAccounts(data?.instagram_needs_reconnect === true);
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
