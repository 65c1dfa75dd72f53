import { useSyncHealth } from "../../api/health.ts";
import "./connections.css";

/** The badge's words before the server's health state is known (issue 36). */
export const HEALTH_PENDING = {
  loading: "Checking backups...",
  unknown: "Backup status unavailable",
} as const;

/**
 * SPEC §2 header: shown when both Instagram and Google Drive are connected; when something
 * stops backups it names it instead. Only the server's health state decides (issue 36: never
 * "ready" while a connection is broken or Drive is full): until it has answered, the badge is
 * neutral, never "Ready", and if it cannot be read the badge says so.
 */
export function ReadyForBackupBadge() {
  const health = useSyncHealth();
  const h = health.data;
  if (!h) {
    const state = health.isError ? "unknown" : "loading";
    return (
      <span
        className="badge ready-badge ready-badge-pending"
        data-testid="health-badge"
        data-state={state}
        aria-busy={state === "loading"}
      >
        {HEALTH_PENDING[state]}
      </span>
    );
  }
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
