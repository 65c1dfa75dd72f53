import type { ComponentStatus, DestinationKind } from "@keepsake/contracts";

/** The components the status page always lists, in its order. */
export const COMPONENTS = [
  { id: "api", name: "Web app and API" },
  { id: "database", name: "Database" },
  { id: "jobs", name: "Background jobs" },
  { id: "instagram", name: "Instagram API" },
  { id: "google", name: "Google Drive API", destination: "google_drive" },
] as const;
export type CoreComponentId = (typeof COMPONENTS)[number]["id"];

/**
 * The other backup destinations, each judged from its provider's calls as Google is (the
 * component's id is the provider's in provider_call_stats). Listed after the others, and only
 * while Keepsake has called it in the last day (`destinationListedMs`) or it is not operational:
 * a deployment where nobody backs up to Dropbox does not list Dropbox.
 */
export const DESTINATION_COMPONENTS = [
  { id: "dropbox", name: "Dropbox API", destination: "dropbox" },
  { id: "microsoft", name: "Microsoft Graph (OneDrive)", destination: "onedrive" },
  { id: "s3", name: "S3 storage", destination: "s3" },
] as const satisfies readonly { id: string; name: string; destination: DestinationKind }[];
export type DestinationComponentId = (typeof DESTINATION_COMPONENTS)[number]["id"];

export type ComponentId = CoreComponentId | DestinationComponentId;

/** Every component in the page's order; `destination` names the backup destination it serves. */
export const ALL_COMPONENTS: readonly {
  id: ComponentId;
  name: string;
  destination?: DestinationKind;
}[] = [...COMPONENTS, ...DESTINATION_COMPONENTS];

/** The components judged now: every core one, and the destinations that are listed. */
export type LiveComponents = Record<CoreComponentId, Assessment> &
  Partial<Record<DestinationComponentId, Assessment>>;

export const STATUS_RULES = {
  /** Provider calls are judged over this window. */
  providerWindowMs: 15 * 60_000,
  /**
   * A destination other than Google Drive is listed while it has calls this recent (the call
   * counts are kept a day): a day without backups there does not make it flicker in and out.
   */
  destinationListedMs: 86_400_000,
  /** Degraded: at least this many failed calls, and this share of all calls. */
  degradedErrors: 3,
  degradedRate: 0.05,
  /** Down: at least this many failed calls, and this share of all calls. */
  downErrors: 20,
  downRate: 0.5,
  /** No worker heartbeat for this long: background jobs are down. */
  heartbeatStaleMs: 3 * 60_000,
  /** The oldest job ready to run has waited this long: background jobs are degraded. */
  queueAgeDegradedS: 5 * 60,
  /** A database round trip slower than this is degraded. */
  databaseSlowMs: 1000,
  /** A component not operational for longer than this opens an incident. */
  incidentAfterMs: 5 * 60_000,
  uptimeWindowMs: 90 * 86_400_000,
} as const;

export interface Assessment {
  status: ComponentStatus;
  detail: string;
}

export function providerStatus(totals: { calls: number; errors: number } | undefined): Assessment {
  const calls = totals?.calls ?? 0;
  const errors = totals?.errors ?? 0;
  const rate = calls > 0 ? errors / calls : 0;
  const detail =
    calls === 0
      ? "No calls in the last 15 minutes"
      : `${errors} of ${calls} calls failed in the last 15 minutes`;
  if (errors >= STATUS_RULES.downErrors && rate >= STATUS_RULES.downRate) {
    return { status: "down", detail };
  }
  if (errors >= STATUS_RULES.degradedErrors && rate >= STATUS_RULES.degradedRate) {
    return { status: "degraded", detail };
  }
  return { status: "operational", detail };
}

export function jobsStatus(
  lastHeartbeat: Date | null,
  queueAgeS: number | null,
  now: Date,
): Assessment {
  if (!lastHeartbeat || now.getTime() - lastHeartbeat.getTime() > STATUS_RULES.heartbeatStaleMs) {
    return { status: "down", detail: "No worker has reported in the last 3 minutes" };
  }
  if (queueAgeS !== null && queueAgeS > STATUS_RULES.queueAgeDegradedS) {
    return {
      status: "degraded",
      detail: `The oldest waiting job has waited ${formatDuration(queueAgeS * 1000)}`,
    };
  }
  return { status: "operational", detail: "Workers are running and the queue is moving" };
}

const rank: Record<ComponentStatus, number> = { operational: 0, degraded: 1, down: 2 };
export const worse = (a: ComponentStatus, b: ComponentStatus) => (rank[a] >= rank[b] ? a : b);

/** "45 seconds", "12 minutes", "2 hours 5 minutes", "3 days 4 hours". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  if (s < 60) return plural(s, "second");
  const m = Math.floor(s / 60);
  if (m < 60) return plural(m, "minute");
  const h = Math.floor(m / 60);
  if (h < 24)
    return m % 60 ? `${plural(h, "hour")} ${plural(m % 60, "minute")}` : plural(h, "hour");
  const d = Math.floor(h / 24);
  return h % 24 ? `${plural(d, "day")} ${plural(h % 24, "hour")}` : plural(d, "day");
}
