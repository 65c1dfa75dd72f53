import type { InstagramAccount } from "@keepsake/contracts";
import { TOKEN_WARNING_WINDOW_MS } from "@keepsake/contracts/connections-messages";
import { DESTINATION_LABELS } from "@keepsake/contracts/destination-kinds";
import { useState } from "react";
import {
  useDeleteAccount,
  useInstagramAccounts,
  useRefreshProfile,
} from "../../api/connections.ts";
import { Spinner } from "../../components/spinner.tsx";
import { formatCount } from "../../lib/format.ts";
import {
  AccountStateBadge,
  DisconnectAccountDialog,
  ReconnectButton,
} from "./account-controls.tsx";
import { AddAccount } from "./add-account.tsx";
import { AccountLoginSummary } from "./login-tradeoffs.tsx";
import { StoriesNeedFacebookNote } from "./stories-note.tsx";
import "./connections.css";

export { limitNotice } from "./add-account.tsx";

/** True when the token ends within the SPEC §9 warning window (7 days). */
export function tokenExpiresSoon(tokenExpiresAt: string | null, now = Date.now()): boolean {
  if (!tokenExpiresAt) return false;
  return Date.parse(tokenExpiresAt) - now <= TOKEN_WARNING_WINDOW_MS;
}

const date = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "-");

/**
 * SPEC §2 accounts panel (pro and agency): 'All Accounts' and one card per account. The
 * selection (null = all) belongs to the dashboard, which filters its content with it.
 */
export function AccountsPanel({
  selectedAccountId,
  onSelect,
}: {
  selectedAccountId: string | null;
  onSelect: (accountId: string | null) => void;
}) {
  const accounts = useInstagramAccounts();
  const refresh = useRefreshProfile();
  const remove = useDeleteAccount();
  const [confirming, setConfirming] = useState<InstagramAccount | null>(null);

  if (accounts.isPending) return <Spinner label="Loading accounts..." />;
  if (accounts.isLoadingError) {
    return (
      <p className="form-error" role="alert">
        Could not load your Instagram accounts.
      </p>
    );
  }
  const data = accounts.data;

  return (
    <section className="accounts-panel" aria-labelledby="accounts-panel-title">
      <div className="accounts-panel-head">
        <h2 id="accounts-panel-title">Instagram Accounts</h2>
        <span className="muted">
          {data.accounts.length} of {data.limit} connected
        </span>
        <AddAccount data={data} />
      </div>
      <div className="accounts-grid">
        <button
          className={`account-card account-card-all${selectedAccountId === null ? " account-card-selected" : ""}`}
          aria-pressed={selectedAccountId === null}
          onClick={() => onSelect(null)}
        >
          <span className="account-avatar account-avatar-all" aria-hidden="true">
            ★
          </span>
          <strong>All Accounts</strong>
          <span className="muted">
            {data.accounts.length} account{data.accounts.length === 1 ? "" : "s"}
          </span>
        </button>
        {data.accounts.map((a) => (
          <article
            key={a.id}
            className={`account-card${selectedAccountId === a.id ? " account-card-selected" : ""}`}
            aria-label={`@${a.username}`}
          >
            <button
              className="account-card-select"
              aria-pressed={selectedAccountId === a.id}
              onClick={() => onSelect(a.id)}
            >
              {a.profile_picture_url ? (
                <img className="account-avatar" src={a.profile_picture_url} alt="" />
              ) : (
                <span className="account-avatar" aria-hidden="true">
                  {a.username.charAt(0).toUpperCase()}
                </span>
              )}
              <span className="account-names">
                <strong>@{a.username}</strong>
                {a.display_name && <span className="muted">{a.display_name}</span>}
              </span>
            </button>
            <AccountStateBadge account={a} />
            <dl className="account-stats">
              <div>
                <dt>Followers</dt>
                <dd>{formatCount(a.follower_count)}</dd>
              </div>
              <div>
                <dt title="Feed posts on Instagram, from the profile (stories not counted)">
                  On Instagram
                </dt>
                <dd>{formatCount(a.posts_count)}</dd>
              </div>
              <div>
                <dt title="Posts and stories Keepsake has read from Instagram">In Keepsake</dt>
                <dd>
                  {formatCount(a.synced_posts_count)}
                  {a.synced_stories_count > 0 && (
                    <span className="account-stat-note">
                      {" "}
                      incl. {formatCount(a.synced_stories_count)}{" "}
                      {a.synced_stories_count === 1 ? "story" : "stories"}
                    </span>
                  )}
                </dd>
              </div>
              <div>
                <dt title="Of those in Keepsake, the ones saved to their destination">Backed up</dt>
                <dd>{formatCount(a.backed_up_posts_count)}</dd>
              </div>
            </dl>
            <AccountLoginSummary account={a} />
            <p className="account-meta muted" data-testid="account-destination">
              Backed up to {DESTINATION_LABELS[a.destination]}
            </p>
            <p className="account-meta muted">
              Connected {date(a.connected_at)} · Last sync {date(a.last_sync)} · Syncs every 10m
            </p>
            {a.status === "needs_reconnection" ? (
              <p className="warning-note account-warning" role="status">
                Backups of @{a.username} are paused: {a.status_reason ?? "Instagram access ended."}
              </p>
            ) : (
              tokenExpiresSoon(a.token_expires_at) && (
                <p className="warning-note account-warning" role="status">
                  Token expires soon
                </p>
              )
            )}
            <StoriesNeedFacebookNote account={a} />
            <div className="account-actions">
              {a.status === "needs_reconnection" && <ReconnectButton account={a} />}
              <button
                className="btn btn-secondary btn-sm"
                onClick={() => refresh.mutate(a.id)}
                disabled={refresh.isPending && refresh.variables === a.id}
                aria-label={`Refresh profile of @${a.username}`}
              >
                Refresh profile
              </button>
              <button
                className="btn btn-ghost btn-sm"
                onClick={() => setConfirming(a)}
                aria-label={`Disconnect @${a.username}`}
              >
                Disconnect
              </button>
            </div>
          </article>
        ))}
      </div>
      {confirming && (
        <DisconnectAccountDialog
          account={confirming}
          others={data.accounts.length - 1}
          busy={remove.isPending}
          onCancel={() => setConfirming(null)}
          onConfirm={() =>
            remove.mutate(confirming.id, {
              onSuccess: () => {
                if (selectedAccountId === confirming.id) onSelect(null);
              },
              onSettled: () => setConfirming(null),
            })
          }
        />
      )}
    </section>
  );
}
