import { useDestinations } from "../../api/destinations.ts";
import { Spinner } from "../../components/spinner.tsx";
import { DestinationCard } from "./destination-card.tsx";
import { GoogleDriveCard } from "./google-drive-card.tsx";
import "./storage.css";

/**
 * Settings → Connected Accounts → Storage (issue 38): where backups can go. Google Drive's card
 * as before, then every other destination the server offers (Dropbox, OneDrive, S3 storage).
 */
export function StorageSection({
  google,
}: {
  google: { connected: boolean; email: string | null; needsReconnect: boolean };
}) {
  const destinations = useDestinations();
  const list = destinations.data ?? [];
  const drive = list.find((d) => d.kind === "google_drive");
  const others = list.filter((d) => d.kind !== "google_drive");

  return (
    <section className="storage-section" aria-labelledby="storage-title">
      <h2 id="storage-title" className="storage-title">
        Storage
      </h2>
      <p className="muted storage-intro">
        Where your backups are saved. Each Instagram account is backed up to one of these: Google
        Drive unless you choose another on its card.
      </p>
      <div className="connection-cards">
        <GoogleDriveCard
          connected={google.connected}
          email={google.email}
          needsReconnect={google.needsReconnect}
          usedBy={drive?.accounts_using}
        />
        {others.map((d) => (
          <DestinationCard key={d.kind} destination={d} />
        ))}
      </div>
      {destinations.isPending && <Spinner label="Loading storage..." />}
      {destinations.isLoadingError && (
        <p className="form-error storage-error">
          Could not load your other storage destinations.{" "}
          <button className="btn btn-ghost btn-sm" onClick={() => destinations.refetch()}>
            Try again
          </button>
        </p>
      )}
    </section>
  );
}
