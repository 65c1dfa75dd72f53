import type { InstagramAccount, SyncHealth } from "@keepsake/contracts";
import { AUTO_SYNC_TIERS, SYNC_INTERVAL_MINUTES } from "@keepsake/contracts/sync-messages";
import { FixLink } from "../../components/fix-link.tsx";
import { Link } from "../../lib/navigation.tsx";
import { ReconnectButton } from "./account-controls.tsx";
import { storageLabels, usesDrive } from "./storage-state.ts";

export function isAutoSyncTier(tier: string | null | undefined): boolean {
  return (AUTO_SYNC_TIERS as readonly string[]).includes(tier ?? "");
}

/** "Next sync in 7 minutes" from `next_sync_in` (minutes); "less than a minute" at 0. */
export function nextSyncText(minutes: number | null | undefined): string | null {
  if (minutes === null || minutes === undefined || minutes < 0) return null;
  if (minutes === 0) return "Next sync in less than a minute";
  return `Next sync in ${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/** A connection that stops backups, as the button that fixes it (in Settings). */
export interface MissingConnection {
  label: string;
}

/**
 * What stops backups, from the OAuth status; undefined while it loads. Google Drive only when
 * the accounts use it (the health state lists the destinations they use, issue 38); each other
 * destination they use that is not connected, or whose access ended, with the server's fix.
 */
export function missingConnections(
  status:
    | {
        instagram_connected: boolean;
        google_connected: boolean;
        google_needs_reconnect: boolean;
      }
    | undefined,
  health?: SyncHealth | undefined,
): MissingConnection[] | undefined {
  if (!status) return undefined;
  const missing: MissingConnection[] = [];
  if (!status.instagram_connected) missing.push({ label: "Connect Instagram" });
  if (usesDrive(health)) {
    if (!status.google_connected) missing.push({ label: "Connect Google Drive" });
    else if (status.google_needs_reconnect) missing.push({ label: "Reconnect Google Drive" });
  }
  for (const d of health?.destinations ?? []) {
    if (d.kind === "google_drive" || !d.fix) continue;
    if (d.state === "not_connected" || d.state === "needs_reconnection") {
      missing.push({ label: d.fix.label });
    }
  }
  return missing;
}

/**
 * The accounts whose backups stopped because their access ended (not those a plan paused);
 * undefined while the accounts load. `all`: no other account is being backed up.
 */
export function stoppedAccounts(
  accounts: InstagramAccount[] | undefined,
): { accounts: InstagramAccount[]; all: boolean } | undefined {
  if (!accounts) return undefined;
  const synced = accounts.filter((a) => !a.paused_by_plan);
  const stopped = synced.filter((a) => a.status === "needs_reconnection");
  return { accounts: stopped, all: stopped.length > 0 && stopped.length === synced.length };
}

interface TierStateProps {
  tier: string;
  nextSyncIn: number | null | undefined;
  statsLoading: boolean;
  onStartBackup: () => void;
  backupBusy: boolean;
  /** Connections still to make; undefined while the status loads. */
  missing: MissingConnection[] | undefined;
  /** The plan's post limit left posts out of Drive (free and premium). */
  overLimit: string | null;
  /** Accounts whose access ended (see stoppedAccounts); undefined while they load. */
  stopped: { accounts: InstagramAccount[]; all: boolean } | undefined;
  /** The server's health state: a full Drive or failing backups are named with their fix. */
  health?: SyncHealth | undefined;
}

/** Account states the card names with their fix (broken and paused ones have their own notes). */
const NOTED_ACCOUNT_STATES = new Set(["failing", "token_expiring", "stale", "stories_lost"]);

/**
 * What the health state adds to the card: a full destination (Drive, Dropbox…), failing backups, a token ending, backups
 * a day behind, lost stories, a failed payment, then a provider's limit Keepsake waits out.
 */
export function healthTrouble(health: SyncHealth | undefined) {
  if (!health) return null;
  // A full destination (Drive, Dropbox…): it stops backups when no destination in use works.
  const full = health.destinations.find((d) => d.state === "full");
  if (full) {
    const stops = health.destinations.every((d) => d.state !== "ok" && d.state !== "throttled");
    return { cause: full.cause, fix: full.fix, stops };
  }
  const account = health.accounts.find((a) => NOTED_ACCOUNT_STATES.has(a.state));
  if (account) return { cause: account.cause, fix: account.fix, stops: false };
  // Backups failing in a destination's own words (Dropbox answered an error…): Retry.
  const failing = health.destinations.find((d) => d.state === "failing");
  if (failing) return { cause: failing.cause, fix: failing.fix, stops: false };
  // An answer of an older server may lack the plan.
  const plan = health.plan as SyncHealth["plan"] | undefined;
  if (plan?.state === "payment_failed") return { cause: plan.cause, fix: plan.fix, stops: false };
  const limited =
    health.destinations.find((d) => d.state === "throttled") ??
    health.accounts.find((a) => a.state === "throttled");
  return limited ? { cause: limited.cause, fix: limited.fix, stops: false } : null;
}

/**
 * SPEC §2 header tier state: automatic (premium, pro, agency) or manual (free). Automatic
 * backup is only called active when both connections work; paid plans can also start a
 * backup now (a secondary action beside the schedule).
 */
export function TierState({
  tier,
  nextSyncIn,
  statsLoading,
  onStartBackup,
  backupBusy,
  missing,
  overLimit,
  stopped,
  health,
}: TierStateProps) {
  const trouble = healthTrouble(health);
  const troubleNote = trouble && (
    <div className="tier-state-stopped" data-testid="health-trouble">
      <p className="tier-state-detail">{trouble.cause}</p>
      {trouble.fix && (
        <div className="tier-state-actions">
          <FixLink fix={trouble.fix} className="btn btn-secondary btn-sm" />
        </div>
      )}
    </div>
  );
  const backupButton = (className: string, label: string) => (
    <button
      type="button"
      className={className}
      onClick={onStartBackup}
      disabled={backupBusy}
      aria-busy={backupBusy}
    >
      {backupBusy ? "Backing up..." : label}
    </button>
  );
  const limitNote = overLimit && (
    <p className="tier-state-detail tier-state-limit" data-testid="over-limit">
      {overLimit}{" "}
      <Link to="/pricing" className="tier-state-link">
        Upgrade
      </Link>
    </p>
  );
  // Each account whose access ended says so, with the control that reconnects it right here.
  const stoppedNote = stopped && stopped.accounts.length > 0 && (
    <div className="tier-state-stopped" data-testid="stopped-accounts">
      {stopped.accounts.map((a) => (
        <p key={a.id} className="tier-state-detail">
          Backups of @{a.username} are paused: {a.status_reason ?? "Instagram access ended."}
        </p>
      ))}
      <div className="tier-state-actions">
        {stopped.accounts.map((a) => (
          <ReconnectButton key={a.id} account={a} />
        ))}
      </div>
    </div>
  );
  if (isAutoSyncTier(tier)) {
    if (missing === undefined || stopped === undefined) {
      return <div className="tier-state" data-testid="tier-state" aria-busy="true" />;
    }
    if (missing.length > 0 || stopped.all || trouble?.stops) {
      return (
        <div className="tier-state tier-state-paused" data-testid="tier-state">
          <span className="status-dot status-dot-paused" aria-hidden="true" />
          <div>
            <p className="tier-state-title">Automatic backup paused</p>
            {missing.length > 0 && (
              <p className="tier-state-detail">
                Connect Instagram and {storageLabels(health).join(" and ")} to back up every{" "}
                {SYNC_INTERVAL_MINUTES} minutes.
              </p>
            )}
            {stoppedNote}
            {troubleNote}
            <div className="tier-state-actions">
              {missing.map((m) => (
                <Link key={m.label} to="/settings" className="btn btn-primary btn-sm">
                  {m.label}
                </Link>
              ))}
            </div>
          </div>
        </div>
      );
    }
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
          {stoppedNote}
          {troubleNote}
          {limitNote}
        </div>
        {backupButton("btn btn-secondary btn-sm", "Backup now")}
      </div>
    );
  }
  return (
    <div className="tier-state tier-state-manual" data-testid="tier-state">
      <div>
        <p className="tier-state-title">Manual backup mode</p>
        {stoppedNote}
        {troubleNote}
        {limitNote}
      </div>
      {backupButton("btn btn-primary", "Start Backup")}
    </div>
  );
}
