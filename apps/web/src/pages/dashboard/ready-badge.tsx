import { useConnectionsStatus } from "../../api/connections.ts";
import "./connections.css";

/** SPEC §2 header: shown when both Instagram and Google Drive are connected. */
export function ReadyForBackupBadge() {
  const status = useConnectionsStatus();
  const data = status.data;
  if (!data?.instagram_connected || !data.google_connected) return null;
  if (data.instagram_needs_reconnect || data.google_needs_reconnect) {
    return <span className="badge badge-warning ready-badge">Reconnection needed</span>;
  }
  return <span className="badge badge-success ready-badge">✓ Ready for backup</span>;
}
