import type { InstagramAccount } from "@keepsake/contracts";
import { countOf } from "@keepsake/contracts/connections-messages";
import { DESTINATION_LABELS } from "@keepsake/contracts/destination-kinds";
import { useConnect } from "../../api/connections.ts";
import { ConfirmDialog } from "../../components/modal.tsx";

/** How an account was connected, as the button that connects it again is labelled. */
export const loginLabel = (a: Pick<InstagramAccount, "connected_via">) =>
  a.connected_via === "facebook" ? "Facebook Login" : "Instagram Login";

export type AccountState = "active" | "paused" | "reconnect";

/** What Keepsake does with the account now: backs it up, waits for a reconnect, or not (plan). */
export function accountState(a: Pick<InstagramAccount, "status" | "paused_by_plan">): AccountState {
  if (a.status === "needs_reconnection") return "reconnect";
  if (a.paused_by_plan) return "paused";
  return "active";
}

const STATE_BADGE: Record<AccountState, { label: string; className: string }> = {
  active: { label: "Active", className: "badge badge-success" },
  paused: { label: "Paused by plan", className: "badge" },
  reconnect: { label: "Needs reconnection", className: "badge badge-warning" },
};

export function AccountStateBadge({ account }: { account: InstagramAccount }) {
  const badge = STATE_BADGE[accountState(account)];
  return (
    <span className={`${badge.className} account-state`} data-testid="account-state">
      {badge.label}
    </span>
  );
}

/**
 * Reconnects one account through the login it was connected with (Instagram Login or
 * Facebook Login); the server allows it at the plan's limit too.
 */
export function ReconnectButton({
  account,
  className = "btn btn-primary btn-sm",
}: {
  account: InstagramAccount;
  className?: string;
}) {
  const connect = useConnect(account.connected_via);
  return (
    <button
      type="button"
      className={className}
      onClick={() => connect.mutate()}
      disabled={connect.isPending}
      title={`Reconnect with ${loginLabel(account)}`}
    >
      Reconnect @{account.username}
    </button>
  );
}

/** What disconnecting one account removes (our records) and keeps (Drive, other accounts). */
export function DisconnectAccountDialog({
  account,
  others,
  busy,
  onCancel,
  onConfirm,
}: {
  account: InstagramAccount;
  /** How many other accounts stay connected. */
  others: number;
  busy: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const records = account.synced_posts_count;
  return (
    <ConfirmDialog
      title={`Disconnect @${account.username}?`}
      confirmLabel="Disconnect"
      busy={busy}
      onCancel={onCancel}
      onConfirm={onConfirm}
    >
      <p>
        Keepsake will stop backing up @{account.username} and delete from Keepsake{" "}
        {records > 0
          ? `its ${countOf(records, "post", "posts")} (stories included) and their backup records`
          : "its posts and backup records"}
        .
      </p>
      <p>
        Files already in your {DESTINATION_LABELS[account.destination ?? "google_drive"]} stay where
        they are.
      </p>
      {others > 0 && (
        <p>
          Your other{" "}
          {others === 1 ? "Instagram account keeps its" : "Instagram accounts keep their"} posts and
          backup records.
        </p>
      )}
    </ConfirmDialog>
  );
}
