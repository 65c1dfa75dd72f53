import client from "prom-client";

/**
 * This process's Prometheus metrics: Node's defaults, HTTP durations (API), provider calls and
 * backups (wherever they run: a worker serves them on METRICS_PORT). The API's /metrics adds
 * what it reads from the database at each scrape (queues, sync lag: http/metrics.ts).
 */
export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

export const httpDuration = new client.Histogram({
  name: "keepsake_http_request_duration_seconds",
  help: "HTTP request duration by method, route and status",
  labelNames: ["method", "route", "status"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const providerCalls = new client.Counter({
  name: "keepsake_provider_calls_total",
  help: "Calls to Instagram/Facebook, Google, Dropbox, Microsoft (OneDrive) and S3 storage by provider and kind (drive.upload.chunk is one resumable upload chunk)",
  labelNames: ["provider", "kind"] as const,
  registers: [registry],
});

export const providerErrors = new client.Counter({
  name: "keepsake_provider_errors_total",
  help: "Provider calls that failed on the provider's side (5xx, 429, no answer) by provider and kind",
  labelNames: ["provider", "kind"] as const,
  registers: [registry],
});

export const backupsFinished = new client.Counter({
  name: "keepsake_backups_total",
  help: "Backup attempts by outcome (completed, failed, retry, deferred) and reason",
  labelNames: ["outcome", "reason"] as const,
  registers: [registry],
});

export const importPlansOpen = new client.Gauge({
  name: "keepsake_import_plans_open",
  help: "Import plans this process has taken in (their body being sent or read) and not yet answered: at most one per user",
  registers: [registry],
});

/**
 * What a provider call does, from its URL (the real hosts, or the sandbox's path prefixes named
 * after them): oauth, graph, cdn, drive.api, drive.download, drive.upload.multipart,
 * drive.upload.resumable.start, drive.upload.chunk, dropbox.api, dropbox.content, onedrive.api,
 * onedrive.upload, other. S3's calls (the AWS SDK's, no fetch) are counted as `s3.<Operation>`
 * (providers/s3/s3-call-counter.ts).
 */
export function providerCallKind(url: string, method: string): string {
  let where: string;
  let query: URLSearchParams;
  try {
    const u = new URL(url);
    where = `${u.host}${u.pathname}`;
    query = u.searchParams;
  } catch {
    return "other";
  }
  if (where.includes("/upload/drive/")) {
    if (method.toUpperCase() === "PUT") return "drive.upload.chunk";
    return query.get("uploadType") === "resumable"
      ? "drive.upload.resumable.start"
      : "drive.upload.multipart";
  }
  if (where.includes("/drive/v3/")) {
    return query.get("alt") === "media" ? "drive.download" : "drive.api";
  }
  if (
    /oauth2\.googleapis\.com|accounts\.google\.com|openidconnect\.googleapis\.com|\/oauth2\//.test(
      where,
    ) ||
    /access_token|\/oauth\//.test(where)
  ) {
    return "oauth";
  }
  if (/graph\.(instagram|facebook)\.com/.test(where)) return "graph";
  if (where.includes("content.dropboxapi.com")) return "dropbox.content";
  if (where.includes("api.dropboxapi.com")) return "dropbox.api";
  // Graph's upload sessions: on graph.microsoft.com in the sandbox, SharePoint or 1drv for real.
  if (
    where.includes("graph.microsoft.com/upload/") ||
    /\.sharepoint\.com|\.1drv\.com|api\.onedrive\.com/.test(where)
  ) {
    return "onedrive.upload";
  }
  if (where.includes("graph.microsoft.com")) return "onedrive.api";
  if (/cdninstagram|fbcdn|scontent/.test(where)) return "cdn";
  return "other";
}
