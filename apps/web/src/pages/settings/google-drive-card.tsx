import { countOf } from "@keepsake/contracts/connections-messages";
import { useState } from "react";
import { useConnect, useDisconnectGoogle } from "../../api/connections.ts";
import { ConfirmDialog } from "../../components/modal.tsx";
import { ConnectionCard } from "./connection-card.tsx";
import { DriveNoticeModal } from "./drive-notice-modal.tsx";

/** SPEC §2 /settings: the Google Drive card, first under Storage. */
export function GoogleDriveCard({
  connected,
  email,
  needsReconnect,
  usedBy,
}: {
  connected: boolean;
  email: string | null;
  needsReconnect: boolean;
  /** How many Instagram accounts are backed up to Drive; undefined until known. */
  usedBy?: number | undefined;
}) {
  const connect = useConnect("google");
  const disconnect = useDisconnectGoogle();
  const [notice, setNotice] = useState(false);
  const [confirming, setConfirming] = useState(false);

  return (
    <ConnectionCard
      service="drive"
      icon="GD"
      title="Google Drive"
      heading="h3"
      detail={connected ? email : "Your backups are saved in a Keepsake folder in your own Drive."}
      connected={connected}
      needsReconnect={needsReconnect}
    >
      {connected && usedBy !== undefined && (
        <p className="muted connection-note">Used by {countOf(usedBy, "account", "accounts")}</p>
      )}
      <div className="connection-card-actions">
        {(!connected || needsReconnect) && (
          <button className="btn btn-primary btn-sm" onClick={() => setNotice(true)}>
            {needsReconnect ? "Reconnect Google Drive" : "Connect Google Drive"}
          </button>
        )}
        {connected && (
          <button className="btn btn-ghost btn-sm" onClick={() => setConfirming(true)}>
            Disconnect
          </button>
        )}
      </div>
      {notice && (
        <DriveNoticeModal
          busy={connect.isPending}
          onCancel={() => setNotice(false)}
          onContinue={() => connect.mutate(undefined, { onError: () => setNotice(false) })}
        />
      )}
      {confirming && (
        <ConfirmDialog
          title="Disconnect Google Drive?"
          confirmLabel="Disconnect"
          busy={disconnect.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() => disconnect.mutate(undefined, { onSettled: () => setConfirming(false) })}
        >
          <p>Keepsake will stop saving backups to {email} and give up its access to your Drive.</p>
          <p>Files already in your Google Drive stay where they are.</p>
        </ConfirmDialog>
      )}
    </ConnectionCard>
  );
}
