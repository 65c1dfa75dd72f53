import { type FetchLike, failure, jsonObject, send } from "../http.ts";
import { graphError, ProviderError } from "../provider-error.ts";

/**
 * What every Graph reader shares (media, stories, comments): the host an account is read
 * through, its usage headers, and one GET that keeps to that host, adds the token, reports the
 * usage and turns an error answer into a ProviderError (throttled: when access comes back).
 */

/** Which Graph host an account is read through (how it was connected). */
export type GraphHost = "instagram" | "facebook";

/** The usage headers of one Graph answer, in percent (throttled at 100). */
export interface GraphUsage {
  appPercent: number;
  accountPercent: number;
  /** Minutes until the account may call again; 0 when not throttled. */
  regainMinutes: number;
}

/** A Graph number, whole (null when absent or not a number). */
export const graphInt = (v: unknown): number | null =>
  typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : null;

/** Highest percentages of `X-App-Usage` and `X-Business-Use-Case-Usage`. */
export function parseUsageHeaders(headers: Headers): GraphUsage | null {
  const app = headers.get("x-app-usage");
  const buc = headers.get("x-business-use-case-usage");
  if (!app && !buc) return null;
  let appPercent = 0;
  let accountPercent = 0;
  let regainMinutes = 0;
  try {
    if (app) {
      const a = JSON.parse(app) as Record<string, unknown>;
      appPercent = Math.max(
        graphInt(a.call_count) ?? 0,
        graphInt(a.total_cputime) ?? 0,
        graphInt(a.total_time) ?? 0,
      );
    }
    if (buc) {
      const b = JSON.parse(buc) as Record<string, unknown>;
      for (const entries of Object.values(b)) {
        for (const e of Array.isArray(entries) ? entries : []) {
          const u = e as Record<string, unknown>;
          accountPercent = Math.max(
            accountPercent,
            graphInt(u.call_count) ?? 0,
            graphInt(u.total_cputime) ?? 0,
            graphInt(u.total_time) ?? 0,
          );
          regainMinutes = Math.max(regainMinutes, graphInt(u.estimated_time_to_regain_access) ?? 0);
        }
      }
    }
  } catch {
    return null;
  }
  return { appPercent, accountPercent, regainMinutes };
}

/** Where the Graph API is (both hosts) and which version is asked for. */
export interface GraphSettings {
  instagramGraphUrl: string;
  facebookGraphUrl: string;
  graphVersion: string;
}

export interface GraphOptions {
  fetch?: FetchLike;
  /** Called with the usage headers of every Graph answer. */
  onUsage?: (accountKey: string, usage: GraphUsage) => void;
  now?: () => number;
}

/** The versioned base URL of each host, and the GET of one Graph URL (a `next` link included). */
export function createGraphGet(settings: GraphSettings, options: GraphOptions = {}) {
  const fetchImpl = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const base = (host: GraphHost) =>
    `${host === "instagram" ? settings.instagramGraphUrl : settings.facebookGraphUrl}/${settings.graphVersion}`;

  async function get(
    host: GraphHost,
    url: string,
    token: string,
    accountKey: string,
  ): Promise<Record<string, unknown>> {
    const u = new URL(url);
    const origin = new URL(base(host)).origin;
    if (u.origin !== origin) {
      throw new ProviderError(host, "unknown", "Graph pointed to an unexpected host");
    }
    if (!u.searchParams.has("access_token")) u.searchParams.set("access_token", token);
    const res = await send(
      u,
      { headers: { accept: "application/json" } },
      { provider: host, fetch: fetchImpl },
    );
    const usage = parseUsageHeaders(res.headers);
    if (usage) options.onUsage?.(accountKey, usage);
    if (!res.ok) {
      const regain = usage && usage.regainMinutes > 0 ? usage.regainMinutes * 60_000 : null;
      throw await failure(res, (status, body) => graphError(host, status, body), now(), regain);
    }
    return jsonObject(res, host);
  }

  return { base, get };
}
