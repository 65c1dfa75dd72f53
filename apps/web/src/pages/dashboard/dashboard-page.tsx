import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useSubscription } from "../../api/billing.ts";
import { useConnectionsStatus, useInstagramAccounts } from "../../api/connections.ts";
import { useSyncHealth } from "../../api/health.ts";
import { syncKeys, useDashboardStats, useNewPostsCheck, useSyncJobs } from "../../api/sync.ts";
import { useAuth } from "../../lib/auth.tsx";
import { overLimitText } from "../../lib/backup-summary.ts";
import { Link } from "../../lib/navigation.tsx";
import { isMultiAccountTier, tierName } from "../../lib/plans.ts";
import { displayName } from "../../lib/user.ts";
import { AccountsPanel } from "./accounts-panel.tsx";
import { EngagementSection } from "./archive/engagement-section.tsx";
import { ConnectionBanner } from "./connection-banner.tsx";
import { ContentGrid } from "./content-grid.tsx";
import { FirstRunCard } from "./first-run-card.tsx";
import { hasNewOrUnbacked, NewPostsBanner } from "./new-posts-banner.tsx";
import { PausedAccountsNotice } from "./paused-accounts-notice.tsx";
import { ReadyForBackupBadge } from "./ready-badge.tsx";
import { RunningJobCard } from "./running-job-card.tsx";
import { StatCards } from "./stat-cards.tsx";
import { otherStorageNeed, usesDrive } from "./storage-state.ts";
import { isAutoSyncTier, missingConnections, stoppedAccounts, TierState } from "./tier-state.tsx";
import { useConnectionRedirect } from "./use-connection-redirect.tsx";
import { useManualBackup } from "./use-manual-backup.ts";
import "./dashboard.css";
import "./content-grid.css";
import "./archive/archive-marks.css";

/** While a sync runs, stats and the visible posts refresh at the backups pace (§9). */
const PENDING_REFRESH_MS = 5_000;
/** Automatic tiers: the next-sync countdown is re-read once a minute. */
const COUNTDOWN_REFRESH_MS = 60_000;
/** Automatic tiers: how often an idle dashboard looks for a scheduled sync that started. */
const IDLE_JOB_POLL_MS = 30_000;

/** SPEC §2 "/dashboard". */
export function DashboardPage() {
  const { user, refreshUser } = useAuth();
  const queryClient = useQueryClient();
  const tier = user?.subscription_tier ?? "free";
  const auto = isAutoSyncTier(tier);
  const isFree = tier === "free";
  const hasAccountsPanel = isMultiAccountTier(tier);
  // The accounts panel's selection (pro/agency): null is All Accounts.
  const [selectedAccountId, setSelectedAccountId] = useState<string | null>(null);
  const redirect = useConnectionRedirect();
  // Same cached query as the panel; a selected account that was disconnected falls back to all.
  const accounts = useInstagramAccounts(hasAccountsPanel);
  const accountId =
    selectedAccountId !== null && accounts.data?.accounts.some((a) => a.id === selectedAccountId)
      ? selectedAccountId
      : undefined;

  // SPEC §2: the profile is refreshed on dashboard load.
  const refreshedOnce = useRef(false);
  useEffect(() => {
    if (refreshedOnce.current) return;
    refreshedOnce.current = true;
    void refreshUser();
  }, [refreshUser]);

  const connections = useConnectionsStatus(user !== null);
  // The server's health state: the first-run step, Connect or Reconnect (issue 36).
  const health = useSyncHealth({ enabled: user !== null });
  const nextStep = health.data?.next_step ?? null;
  const instagramConnected = connections.data?.instagram_connected === true;
  // Google Drive is asked for only when an account is backed up there (issue 38: the health
  // state lists the destinations the accounts use); the others are named from that state.
  const driveUsed = usesDrive(health.data);
  const googleConnected = connections.data?.google_connected === true;
  const otherStorage = otherStorageNeed(health.data);
  // Accounts whose access ended are named in the tier card, with their Reconnect (every plan).
  const igNeedsReconnect = connections.data?.instagram_needs_reconnect === true;
  const accountList = useInstagramAccounts(igNeedsReconnect);
  const stopped = igNeedsReconnect
    ? stoppedAccounts(accountList.data?.accounts)
    : { accounts: [], all: false };

  // Another destination not connected: the server's answer names it (with where to connect it).
  const backup = useManualBackup(
    connections.data
      ? { instagramConnected, googleConnected: googleConnected || !driveUsed }
      : undefined,
    tier,
  );

  const jobs = useSyncJobs(1, { idlePollMs: auto ? IDLE_JOB_POLL_MS : false });
  const latestJob = jobs.data?.[0];
  const runningJob = latestJob?.status === "running" ? latestJob : undefined;

  // While a sync runs, the numbers and tiles follow at the backups pace.
  const syncing = runningJob !== undefined || backup.isWaiting;
  const bothConnected = instagramConnected && (driveUsed ? googleConnected : otherStorage === null);
  const stats = useDashboardStats({
    refetchInterval:
      bothConnected && syncing ? PENDING_REFRESH_MS : auto ? COUNTDOWN_REFRESH_MS : false,
  });
  // Pending also counts posts that wait for the next backup; only a running one changes tiles.
  const live = bothConnected && syncing;

  // A sync that ends (manual or scheduled) changes the stats and the tiles.
  const lastJobState = useRef<string | undefined>(undefined);
  useEffect(() => {
    const state = latestJob ? `${latestJob.id}:${latestJob.status}` : undefined;
    const previous = lastJobState.current;
    lastJobState.current = state;
    if (previous !== undefined && previous !== state && latestJob?.status !== "running") {
      void queryClient.invalidateQueries({ queryKey: syncKeys.all });
    }
  }, [latestJob, queryClient]);

  const newPosts = useNewPostsCheck(
    isFree && instagramConnected,
    live ? PENDING_REFRESH_MS : undefined,
  );
  // Instagram without a working Drive: nothing is read into Keepsake yet (banner and grid agree).
  // Accounts backed up elsewhere only: the same, for their destination (Dropbox, OneDrive, S3).
  const driveMissing = driveUsed
    ? instagramConnected && (!googleConnected || connections.data?.google_needs_reconnect === true)
    : instagramConnected && otherStorage !== null;
  const storageReconnect = driveUsed
    ? connections.data?.google_needs_reconnect === true
    : otherStorage?.reconnect === true;
  const storageLabel = driveUsed ? undefined : otherStorage?.label;
  const subscription = useSubscription(user !== null);

  if (!user) return null;
  return (
    <div className="container page dashboard">
      <title>Dashboard · Keepsake</title>
      {redirect.banner && (
        <ConnectionBanner message={redirect.banner} onDismiss={redirect.dismiss} />
      )}
      <header className="dashboard-header">
        <div className="dashboard-identity">
          <h1 className="page-title">{displayName(user)}</h1>
          {user.full_name?.trim() && <p className="page-subtitle">{user.email}</p>}
          <ReadyForBackupBadge />
          <Link
            to="/settings?tab=subscription"
            className="badge plan-badge"
            data-testid="plan-badge"
          >
            {tierName(tier)} plan
          </Link>
          {subscription.data?.status === "past_due" && (
            <Link
              to="/settings?tab=subscription"
              className="badge badge-danger plan-badge"
              data-testid="past-due"
            >
              Payment past due: update your card
            </Link>
          )}
        </div>
        <TierState
          tier={tier}
          nextSyncIn={stats.data?.next_sync_in}
          statsLoading={stats.isPending}
          onStartBackup={() => void backup.start()}
          backupBusy={backup.isBusy}
          missing={missingConnections(connections.data, health.data)}
          overLimit={stats.data ? overLimitText(stats.data, tier) : null}
          stopped={stopped}
          health={health.data}
        />
      </header>

      {nextStep && (
        <FirstRunCard
          step={nextStep}
          onStartBackup={() => void backup.start()}
          backupBusy={backup.isBusy}
          running={health.data?.state === "syncing" || runningJob !== undefined}
        />
      )}

      <PausedAccountsNotice />

      <StatCards stats={stats.data} isLoading={stats.isPending} isError={stats.isError} />

      {runningJob && <RunningJobCard job={runningJob} progress={stats.data?.sync_progress} />}

      {hasAccountsPanel && (
        <AccountsPanel selectedAccountId={accountId ?? null} onSelect={setSelectedAccountId} />
      )}

      {isFree && newPosts.data && hasNewOrUnbacked(newPosts.data) && (
        <NewPostsBanner
          check={newPosts.data}
          onCheckAgain={() => void newPosts.refetch()}
          checking={newPosts.isFetching}
          onBackupNow={() => void backup.start()}
          backupBusy={backup.isBusy}
          driveMissing={driveMissing}
          driveNeedsReconnect={storageReconnect}
          storageLabel={storageLabel}
        />
      )}

      {instagramConnected && (
        <ContentGrid
          accountId={hasAccountsPanel ? accountId : undefined}
          live={live}
          awaitingDrive={
            driveMissing
              ? {
                  onInstagram: newPosts.data?.new_posts_count ?? null,
                  reconnect: storageReconnect,
                  label: storageLabel,
                }
              : undefined
          }
        />
      )}
      {instagramConnected && !driveMissing && (
        <EngagementSection accountId={hasAccountsPanel ? accountId : undefined} />
      )}
    </div>
  );
}
