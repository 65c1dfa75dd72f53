import type { DestinationKind, InstagramAccount } from "@keepsake/contracts";
import { countOf } from "@keepsake/contracts/connections-messages";
import { DESTINATION_LABELS } from "@keepsake/contracts/destination-kinds";
import { useState } from "react";
import { useDestinations, useSetAccountDestination } from "../../api/destinations.ts";
import { ConfirmDialog } from "../../components/modal.tsx";

/**
 * Settings → an Instagram account's card: "Back up to", one of the connected destinations
 * (Google Drive unless chosen otherwise, issue 38). A change asks first: the account's history is
 * copied to the new one, and what the old one holds stays there.
 */
export function AccountDestination({ account }: { account: InstagramAccount }) {
  const destinations = useDestinations();
  const change = useSetAccountDestination();
  const [choice, setChoice] = useState<DestinationKind | null>(null);
  if (!destinations.data) return null;

  const current: DestinationKind = account.destination ?? "google_drive";
  const label = (kind: DestinationKind) =>
    destinations.data.find((d) => d.kind === kind)?.label ?? DESTINATION_LABELS[kind];
  // The connected ones, and the current one even when it is not (it is what the account uses).
  const options = destinations.data.filter((d) => d.connected || d.kind === current);
  if (!options.some((d) => d.kind === current)) {
    options.unshift({
      kind: current,
      label: label(current),
      connected: false,
      account: null,
      needs_reconnect: false,
      status_reason: null,
      accounts_using: 0,
    });
  }
  const currentInfo = destinations.data.find((d) => d.kind === current);
  const id = `destination-${account.id}`;

  return (
    <div className="account-destination">
      <label htmlFor={id} className="account-destination-label">
        Back up to
      </label>
      <select
        id={id}
        className="account-destination-select"
        value={current}
        disabled={change.isPending || options.length < 2}
        onChange={(e) => setChoice(e.target.value as DestinationKind)}
        aria-label={`Back up @${account.username} to`}
      >
        {options.map((d) => (
          <option key={d.kind} value={d.kind}>
            {d.label}
            {d.needs_reconnect ? " (needs reconnecting)" : !d.connected ? " (not connected)" : ""}
          </option>
        ))}
      </select>
      {currentInfo && (!currentInfo.connected || currentInfo.needs_reconnect) && (
        <p className="warning-note connection-warning account-destination-note" role="status">
          {currentInfo.connected
            ? `${currentInfo.label} needs reconnecting: @${account.username} is not backed up until you reconnect it under Storage or choose another destination.`
            : `${currentInfo.label} is not connected: @${account.username} is not backed up until you connect it under Storage or choose another destination.`}
        </p>
      )}
      {options.length < 2 && (
        <p className="muted connected-account-note">
          Connect another destination under Storage to back @{account.username} up there.
        </p>
      )}
      {choice && choice !== current && (
        <ConfirmDialog
          title={`Back up @${account.username} to ${label(choice)}?`}
          confirmLabel={`Switch to ${label(choice)}`}
          busyLabel="Switching..."
          tone="primary"
          busy={change.isPending}
          onCancel={() => setChoice(null)}
          onConfirm={() =>
            change.mutate(
              { accountId: account.id, username: account.username, destination: choice },
              { onSettled: () => setChoice(null) },
            )
          }
        >
          <p>
            {countOf(account.synced_posts_count, "post", "posts")} of @{account.username} will be
            copied to {label(choice)}; what is already in {label(current)} stays there.
          </p>
          <p>New posts are backed up to {label(choice)} from now on.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
