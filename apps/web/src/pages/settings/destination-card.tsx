import type { DestinationInfo } from "@keepsake/contracts";
import { countOf } from "@keepsake/contracts/connections-messages";
import { lazy, Suspense, useState } from "react";
import {
  type OAuthDestination,
  useConnectDestination,
  useDisconnectDestination,
} from "../../api/destinations.ts";
import { ConfirmDialog } from "../../components/modal.tsx";
import { Spinner } from "../../components/spinner.tsx";
import { ConnectionCard } from "./connection-card.tsx";

// The S3 form (and zod/mini with it) loads when it is opened.
const S3Form = lazy(() => import("./s3-form.tsx").then((m) => ({ default: m.S3Form })));

type OtherKind = Exclude<DestinationInfo["kind"], "google_drive">;

const ICONS: Record<OtherKind, string> = { dropbox: "DB", onedrive: "OD", s3: "S3" };

const ABOUT: Record<OtherKind, string> = {
  dropbox: "Your backups are saved in Apps/Keepsake in your own Dropbox.",
  onedrive: "Your backups are saved in Keepsake's app folder in your own OneDrive.",
  s3: "Your backups are saved in a bucket of yours: AWS S3, Cloudflare R2, Backblaze B2 or MinIO.",
};

/** Where the files already written stay, in the disconnect dialog. */
const FILES_STAY: Record<OtherKind, string> = {
  dropbox: "Files already in your Dropbox stay where they are.",
  onedrive: "Files already in your OneDrive stay where they are.",
  s3: "Files already in your bucket stay where they are.",
};

/**
 * Settings → Storage: Dropbox, OneDrive or S3-compatible storage (issue 38), with its state,
 * how many Instagram accounts are backed up there, and Connect, Reconnect or Disconnect.
 */
export function DestinationCard({ destination: d }: { destination: DestinationInfo }) {
  const kind = d.kind as OtherKind;
  const [confirming, setConfirming] = useState(false);
  const [formOpen, setFormOpen] = useState(false);
  const disconnect = useDisconnectDestination();
  const needsAction = !d.connected || d.needs_reconnect;
  const connectLabel = `${d.needs_reconnect ? "Reconnect" : "Connect"} ${d.label}`;

  return (
    <ConnectionCard
      service={kind}
      icon={ICONS[kind] ?? kind.slice(0, 2).toUpperCase()}
      title={d.label}
      heading="h3"
      detail={d.connected ? `Connected as ${d.account ?? d.label}` : ABOUT[kind]}
      connected={d.connected}
      needsReconnect={d.needs_reconnect}
    >
      {d.connected && d.needs_reconnect && (
        <p className="warning-note connection-warning" role="status">
          Backups to {d.label} are paused: {d.status_reason ?? "Keepsake's access ended."}
        </p>
      )}
      {(d.connected || d.accounts_using > 0) && (
        <p className="muted connection-note">
          Used by {countOf(d.accounts_using, "account", "accounts")}
        </p>
      )}
      <div className="connection-card-actions">
        {needsAction &&
          (kind === "s3" ? (
            !formOpen && (
              <button className="btn btn-primary btn-sm" onClick={() => setFormOpen(true)}>
                {connectLabel}
              </button>
            )
          ) : (
            <ConnectButton kind={kind} label={connectLabel} />
          ))}
        {d.connected && (
          <button
            className="btn btn-ghost btn-sm"
            onClick={() => setConfirming(true)}
            aria-label={`Disconnect ${d.label}`}
          >
            Disconnect
          </button>
        )}
      </div>
      {formOpen && (
        <Suspense fallback={<Spinner label="Loading..." />}>
          <S3Form onClose={() => setFormOpen(false)} />
        </Suspense>
      )}
      {confirming && (
        <ConfirmDialog
          title={`Disconnect ${d.label}?`}
          confirmLabel="Disconnect"
          busy={disconnect.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() => disconnect.mutate(d.kind, { onSettled: () => setConfirming(false) })}
        >
          <p>Keepsake will stop saving backups to {d.account ?? d.label} and forget its access.</p>
          <p>
            {d.accounts_using > 0
              ? `${countOf(d.accounts_using, "Instagram account", "Instagram accounts")} backed up to ${d.label} will stop backing up until you choose another destination for ${d.accounts_using === 1 ? "it" : "them"}.`
              : `No Instagram account is backed up to ${d.label} now.`}
          </p>
          <p>{FILES_STAY[kind]}</p>
        </ConfirmDialog>
      )}
    </ConnectionCard>
  );
}

function ConnectButton({ kind, label }: { kind: OAuthDestination; label: string }) {
  const connect = useConnectDestination(kind);
  return (
    <button
      className="btn btn-primary btn-sm"
      onClick={() => connect.mutate()}
      disabled={connect.isPending}
    >
      {label}
    </button>
  );
}
