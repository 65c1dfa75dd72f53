import type { InstagramAccount } from "@keepsake/contracts";
import { countOf } from "@keepsake/contracts/connections-messages";
import { useState } from "react";
import {
  useConnect,
  useConnectionsStatus,
  useDisconnectInstagram,
  useInstagramAccounts,
} from "../../api/connections.ts";
import { Spinner } from "../../components/spinner.tsx";
import { useAuth } from "../../lib/auth.tsx";
import { Link } from "../../lib/navigation.tsx";
import { isMultiAccountTier } from "../../lib/plans.ts";
import {
  AccountStateBadge,
  accountState,
  DisconnectAccountDialog,
  loginLabel,
  ReconnectButton,
} from "../dashboard/account-controls.tsx";
import { AddAccount } from "../dashboard/add-account.tsx";
import { AccountLoginSummary, LoginTradeoffs } from "../dashboard/login-tradeoffs.tsx";
import { StoriesNeedFacebookNote } from "../dashboard/stories-note.tsx";
import { AccountDestination } from "./account-destination.tsx";
import { ConnectionCard } from "./connection-card.tsx";
import { KeepComments } from "./keep-comments.tsx";
import { StorageSection } from "./storage-section.tsx";

/**
 * SPEC §2 /settings → Connected Accounts: the Instagram card (every connected account with its
 * state, where it is backed up, and its own Reconnect and Disconnect), then Storage: Google Drive
 * and the other destinations (issue 38).
 */
export function ConnectedAccountsTab() {
  const status = useConnectionsStatus();
  if (status.isPending) return <Spinner label="Loading..." />;
  if (status.isLoadingError) {
    return (
      <p className="form-error" role="alert">
        Could not load your connections.{" "}
        <button className="btn btn-ghost btn-sm" onClick={() => status.refetch()}>
          Try again
        </button>
      </p>
    );
  }
  return (
    <>
      <div className="connection-cards">
        <InstagramCard
          connected={status.data.instagram_connected}
          username={status.data.instagram_username}
          needsReconnect={status.data.instagram_needs_reconnect}
        />
      </div>
      <StorageSection
        google={{
          connected: status.data.google_connected,
          email: status.data.google_email,
          needsReconnect: status.data.google_needs_reconnect,
        }}
      />
    </>
  );
}

function InstagramCard({
  connected,
  username,
  needsReconnect,
}: {
  connected: boolean;
  username: string | null;
  needsReconnect: boolean;
}) {
  const { user } = useAuth();
  // Pro and agency add accounts with a choice of login; free and premium connect one here.
  const multi = isMultiAccountTier(user?.subscription_tier);
  const accounts = useInstagramAccounts(connected || multi);
  const connectInstagram = useConnect("instagram");
  const connectFacebook = useConnect("facebook");
  const disconnect = useDisconnectInstagram();
  const [confirming, setConfirming] = useState<InstagramAccount | null>(null);
  const list: InstagramAccount[] = accounts.data?.accounts ?? [];

  return (
    <ConnectionCard
      service="instagram"
      icon="IG"
      title="Instagram"
      detail={
        !connected
          ? "Connect your Instagram Professional (Business or Creator) account."
          : list.length > 0
            ? `${countOf(list.length, "account", "accounts")} connected`
            : `@${username ?? ""}`
      }
      connected={connected}
      needsReconnect={needsReconnect}
    >
      {list.length > 0 && (
        <ul className="connected-accounts" aria-label="Connected Instagram accounts">
          {list.map((a) => (
            <ConnectedAccountRow
              key={a.id}
              account={a}
              limit={accounts.data?.limit ?? list.length}
              onDisconnect={() => setConfirming(a)}
            />
          ))}
        </ul>
      )}
      <div className="connection-card-actions">
        {multi ? (
          <>
            {accounts.data && <AddAccount data={accounts.data} />}
            <Link to="/dashboard" className="btn btn-secondary btn-sm">
              Manage Accounts
            </Link>
          </>
        ) : (
          !connected && (
            // Each login with what it gives, before anyone leaves for a consent screen.
            <div className="login-choices">
              <div className="login-choice">
                <button
                  className="btn btn-primary btn-sm"
                  onClick={() => connectInstagram.mutate()}
                  disabled={connectInstagram.isPending}
                >
                  Connect Instagram
                </button>
                <LoginTradeoffs via="instagram" />
              </div>
              <div className="login-choice">
                <button
                  className="btn btn-secondary btn-sm"
                  onClick={() => connectFacebook.mutate()}
                  disabled={connectFacebook.isPending}
                >
                  Connect via Facebook
                </button>
                <LoginTradeoffs via="facebook" />
              </div>
            </div>
          )
        )}
      </div>
      {!connected && !multi && (
        <p className="muted connection-note">
          Personal accounts cannot be backed up. Use “Connect via Facebook” if your Instagram
          account is linked to a Facebook Page.
        </p>
      )}
      {confirming && (
        <DisconnectAccountDialog
          account={confirming}
          others={list.length - 1}
          busy={disconnect.isPending}
          onCancel={() => setConfirming(null)}
          onConfirm={() =>
            disconnect.mutate(confirming.id, { onSettled: () => setConfirming(null) })
          }
        />
      )}
    </ConnectionCard>
  );
}

/** One connected account: its name, how it was connected, its state and its own controls. */
function ConnectedAccountRow({
  account: a,
  limit,
  onDisconnect,
}: {
  account: InstagramAccount;
  limit: number;
  onDisconnect: () => void;
}) {
  const state = accountState(a);
  return (
    <li className="connected-account" aria-label={`@${a.username}`}>
      <div className="connected-account-head">
        <strong>@{a.username}</strong>
        <span className="muted">via {loginLabel(a)}</span>
        <AccountStateBadge account={a} />
      </div>
      {state === "reconnect" && (
        <p className="warning-note connection-warning" role="status">
          Backups of @{a.username} are paused: {a.status_reason ?? "Instagram access ended."}
        </p>
      )}
      {state === "paused" && (
        <p className="muted connected-account-note">
          Not synced: your plan syncs {countOf(limit, "account", "accounts")}. Keep it on the{" "}
          <Link to="/dashboard">dashboard</Link>, or disconnect another account.
        </p>
      )}
      <AccountLoginSummary account={a} />
      <StoriesNeedFacebookNote account={a} />
      <AccountDestination account={a} />
      <KeepComments accountId={a.id} username={a.username} />
      <div className="connection-card-actions">
        {state === "reconnect" && <ReconnectButton account={a} />}
        <Link
          to={`/settings?tab=import&account=${encodeURIComponent(a.id)}`}
          className="btn btn-ghost btn-sm"
          aria-label={`Import the data export of @${a.username}`}
        >
          Import export
        </Link>
        <button
          className="btn btn-ghost btn-sm"
          onClick={onDisconnect}
          aria-label={`Disconnect @${a.username}`}
        >
          Disconnect
        </button>
      </div>
    </li>
  );
}
