import type {
  ConnectionHealth,
  ConnectionStatus,
  GoogleConnectionHealth,
  InstagramConnectionHealth,
  OAuthStatus,
} from "@keepsake/contracts";
import { DESTINATION_LABELS, type DestinationKind } from "@keepsake/contracts";
import type { Clock } from "../lib/clock.ts";
import { googleHealth, instagramHealth, iso, worst } from "./connection-rules.ts";
import type { ConnectionsRepository } from "./connections.repository.ts";
import type { TokenCustody } from "./token-custody.service.ts";

export interface ConnectionHealthDeps {
  repo: Pick<
    ConnectionsRepository,
    "listInstagramAccounts" | "findGoogleConnection" | "updateInstagramAccount"
  > &
    Partial<Pick<ConnectionsRepository, "destinationState">>;
  clock: Clock;
  /** Re-validating a connection asks its provider (and renews the token when due). */
  tokens: Pick<TokenCustody, "validateInstagram" | "validateGoogle">;
}

/**
 * Connection health: what the dashboard and settings show of each connection (status, reasons,
 * the actions to take), re-validation on demand, and the marks of access a provider ended.
 */
export function createConnectionHealthService(deps: ConnectionHealthDeps) {
  const { repo, clock, tokens } = deps;

  async function health(userId: string): Promise<ConnectionHealth> {
    const now = clock.now();
    const accounts = await repo.listInstagramAccounts(userId);
    const g = await repo.findGoogleConnection(userId);
    const ig: InstagramConnectionHealth[] = accounts.map((a) => ({
      account_id: a.id,
      username: a.username,
      connected_via: a.connected_via,
      ...instagramHealth(a, now),
      token_expires_at: iso(a.token_expires_at),
      last_validated_at: iso(a.last_validated_at),
    }));
    const gh: GoogleConnectionHealth | null = g
      ? { email: g.google_email, ...googleHealth(g), last_validated_at: iso(g.last_validated_at) }
      : null;
    return {
      overall: worst([...ig.map((h) => h.status), ...(gh ? [gh.status] : [])]),
      checked_at: now.toISOString(),
      instagram: ig,
      google: gh,
    };
  }

  return {
    health,

    async status(userId: string): Promise<OAuthStatus> {
      const now = clock.now();
      const accounts = await repo.listInstagramAccounts(userId);
      const g = await repo.findGoogleConnection(userId);
      // The account named is the one being backed up: not paused by the plan, access working
      // (else the first not paused, else the first connected).
      const working = (a: (typeof accounts)[number]) =>
        instagramHealth(a, now).status !== "needs_reconnection";
      const named =
        accounts.find((a) => !a.paused_by_plan && working(a)) ??
        accounts.find((a) => !a.paused_by_plan) ??
        accounts[0];
      return {
        instagram_connected: accounts.length > 0,
        instagram_username: named?.username ?? null,
        google_connected: Boolean(g),
        google_email: g?.google_email ?? null,
        instagram_needs_reconnect: accounts.some(
          (a) => instagramHealth(a, now).status === "needs_reconnection",
        ),
        google_needs_reconnect: g ? googleHealth(g).status === "needs_reconnection" : false,
      };
    },

    async connectionStatus(userId: string): Promise<ConnectionStatus> {
      const h = await health(userId);
      const igStates = h.instagram.map((a) => a.status);
      const usable = igStates.some((s) => s !== "needs_reconnection");
      // The storage the accounts use (issue 38): Google Drive unless they chose another.
      const used = new Set<DestinationKind>(
        (await repo.listInstagramAccounts(userId)).map((a) => a.destination ?? "google_drive"),
      );
      if (used.size === 0) used.add("google_drive");
      const actions: string[] = [];
      if (h.instagram.length === 0) actions.push("Connect your Instagram account");
      for (const a of h.instagram) {
        if (a.status === "needs_reconnection") actions.push(`Reconnect @${a.username}`);
      }
      let storageWorks = true;
      if (used.has("google_drive")) {
        if (!h.google) actions.push("Connect your Google Drive");
        else if (h.google.status === "needs_reconnection") actions.push("Reconnect Google Drive");
        storageWorks = h.google !== null && h.google.status !== "needs_reconnection";
      }
      for (const kind of used) {
        if (kind === "google_drive" || !repo.destinationState) continue;
        const d = await repo.destinationState(userId, kind);
        const label = DESTINATION_LABELS[kind];
        if (!d.connected) actions.push(`Connect your ${label}`);
        else if (d.needsReconnection) actions.push(`Reconnect ${label}`);
        if (d.problem !== null) storageWorks = false;
      }
      return {
        ready_for_backup: usable && storageWorks,
        instagram: {
          connected: h.instagram.length > 0,
          status: worst(igStates),
          accounts: h.instagram.length,
          needs_reconnection: igStates.filter((s) => s === "needs_reconnection").length,
        },
        google: {
          connected: h.google !== null,
          status: h.google?.status ?? null,
          email: h.google?.email ?? null,
        },
        actions,
      };
    },

    /** Re-validates every connection of the user with its provider now. */
    async refreshConnections(userId: string): Promise<ConnectionHealth> {
      for (const a of await repo.listInstagramAccounts(userId)) await tokens.validateInstagram(a);
      const g = await repo.findGoogleConnection(userId);
      if (g) await tokens.validateGoogle(g);
      return health(userId);
    },

    /** Marks an account as needing reconnection (e.g. a sync met Graph code 190). */
    async markInstagramNeedsReconnection(accountId: string, reason: string) {
      await repo.updateInstagramAccount(
        accountId,
        { status: "needs_reconnection", status_reason: reason },
        clock.now(),
      );
    },
  };
}

export type ConnectionHealthService = ReturnType<typeof createConnectionHealthService>;
