import { AUTO_SYNC_TIERS, SYNC_INTERVAL_MINUTES } from "@keepsake/contracts";

export function isAutoSyncTier(tier: string | null | undefined): boolean {
  return (AUTO_SYNC_TIERS as readonly string[]).includes(tier ?? "");
}

/** "Next sync in 7 minutes" from `next_sync_in` (minutes); "less than a minute" at 0. */
export function nextSyncText(minutes: number | null | undefined): string | null {
  if (minutes === null || minutes === undefined || minutes < 0) return null;
  if (minutes === 0) return "Next sync in less than a minute";
  return `Next sync in ${minutes} minute${minutes === 1 ? "" : "s"}`;
}

interface TierStateProps {
  tier: string;
  nextSyncIn: number | null | undefined;
  statsLoading: boolean;
  onStartBackup: () => void;
  backupBusy: boolean;
}

/** SPEC §2 header tier state: automatic (premium, pro, agency) or manual (free). */
export function TierState({
  tier,
  nextSyncIn,
  statsLoading,
  onStartBackup,
  backupBusy,
}: TierStateProps) {
  if (isAutoSyncTier(tier)) {
    const next = nextSyncText(nextSyncIn);
    return (
      <div className="tier-state tier-state-auto" data-testid="tier-state">
        <span className="status-dot status-dot-live" aria-hidden="true" />
        <div>
          <p className="tier-state-title">Automatic Backup Active</p>
          <p className="tier-state-detail">
            backed up every {SYNC_INTERVAL_MINUTES} minutes
            {next ? (
              <>
                {" · "}
                <span data-testid="next-sync">{next}</span>
              </>
            ) : statsLoading ? (
              <span className="skeleton skeleton-inline" aria-hidden="true" />
            ) : null}
          </p>
        </div>
      </div>
    );
  }
  return (
    <div className="tier-state tier-state-manual" data-testid="tier-state">
      <p className="tier-state-title">Manual backup mode</p>
      <button
        type="button"
        className="btn btn-primary"
        onClick={onStartBackup}
        disabled={backupBusy}
        aria-busy={backupBusy}
      >
        {backupBusy ? "Backing up..." : "Start Backup"}
      </button>
    </div>
  );
}
