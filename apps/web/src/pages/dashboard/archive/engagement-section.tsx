import { archiveMessages } from "@keepsake/contracts/archive-messages";
import { lazy, Suspense, useState } from "react";
import { downloadStatsCsv } from "../../../api/archive.ts";
import { BusyButton } from "../../../components/busy-button.tsx";
import { toast } from "../../../lib/toast.ts";

// The chart library is loaded only when the charts are opened (the app shell has a size budget).
const AccountCharts = lazy(() => import("./account-charts.tsx"));

/** The dashboard's "Engagement" card: charts on demand and the stats CSV. */
export function EngagementSection({ accountId }: { accountId: string | undefined }) {
  const [open, setOpen] = useState(false);
  const [downloading, setDownloading] = useState<"history" | "snapshot" | null>(null);
  async function download(view: "history" | "snapshot") {
    setDownloading(view);
    try {
      await downloadStatsCsv(accountId, view);
    } catch {
      toast.error("Failed to download the stats");
    } finally {
      setDownloading(null);
    }
  }
  return (
    <section className="card content-section" aria-labelledby="engagement-heading">
      <div className="content-head engagement-head">
        <h2 id="engagement-heading" className="section-title">
          Engagement
        </h2>
        <div className="engagement-actions">
          <button
            type="button"
            className="btn btn-secondary btn-sm"
            aria-expanded={open}
            onClick={() => setOpen((o) => !o)}
          >
            {open ? "Hide charts" : "Show charts"}
          </button>
          <BusyButton
            busy={downloading === "history"}
            busyLabel="Preparing..."
            onClick={() => download("history")}
          >
            {archiveMessages.downloadStats}
          </BusyButton>
          <BusyButton
            busy={downloading === "snapshot"}
            busyLabel="Preparing..."
            onClick={() => download("snapshot")}
          >
            {archiveMessages.downloadSnapshot}
          </BusyButton>
        </div>
      </div>
      {open && (
        <Suspense fallback={<p className="muted">Loading charts...</p>}>
          <AccountCharts accountId={accountId} />
        </Suspense>
      )}
    </section>
  );
}
