import { createHmac, timingSafeEqual } from "node:crypto";
import { connectionMessages as m, type OAuthProvider } from "@keepsake/contracts";
import type { Clock } from "../lib/clock.ts";
import { ConnectionError } from "./connection-error.ts";
import type { ConnectionsRepository } from "./connections.repository.ts";
import type { OAuthStateRow } from "./tables.ts";

/**
 * Why a re-consent for an account already connected was started: its comments permission, or
 * its stories (the same account through Facebook Login). The callback's redirect says so.
 */
export interface GrantPurpose {
  kind: "comments" | "stories";
  username: string;
}

/** Who a state is for: the Instagram and Google flows, and the destinations' (issue 38). */
export type StateProvider = OAuthProvider | "dropbox" | "onedrive";

export const STATE_TTL_MS = 10 * 60_000;
const PREFIX = "s1";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * OAuth `state`: `s1.<row id>.<HMAC-SHA256(id, provider)>`. The signature stops forgery and
 * tampering; the row (user, provider, expiry, used_at) makes it user-bound, expiring and
 * single-use. Nothing about the user travels to the provider.
 */
export function createOAuthStates(deps: {
  repo: ConnectionsRepository;
  clock: Clock;
  key: Uint8Array;
}) {
  const { repo, clock } = deps;
  const sign = (id: string, provider: StateProvider) =>
    createHmac("sha256", deps.key).update(`oauth-state:${provider}:${id}`).digest("base64url");

  return {
    async issue(
      userId: string,
      provider: StateProvider,
      accountType: string | null = null,
      purpose: GrantPurpose | null = null,
    ) {
      const now = clock.now();
      await repo.deleteStatesBefore(new Date(now.getTime() - 86_400_000));
      const row = await repo.insertState({
        user_id: userId,
        provider,
        account_type: accountType,
        purpose: purpose?.kind ?? null,
        purpose_username: purpose?.username ?? null,
        created_at: now,
        expires_at: new Date(now.getTime() + STATE_TTL_MS),
      });
      return `${PREFIX}.${row.id}.${sign(row.id, provider)}`;
    },

    /**
     * The PKCE code verifier of a state (RFC 7636, 43 URL-safe characters), derived from its row
     * id with the state key: the consent URL carries its challenge, the callback derives it
     * again from the row it consumed, and nothing secret is stored or sent to the browser.
     */
    codeVerifier(state: string): string {
      const id = state.startsWith(`${PREFIX}.`) ? (state.split(".")[1] ?? state) : state;
      return createHmac("sha256", deps.key).update(`oauth-pkce:${id}`).digest("base64url");
    },

    /**
     * Checks and uses the state. `userId` is the caller when known (POST callbacks); the
     * browser redirect (GET) is bound through the row. Refusals change nothing.
     */
    async consume(state: string, provider: StateProvider, userId?: string): Promise<OAuthStateRow> {
      const invalid = new ConnectionError("bad_request", "invalid_state", m.stateInvalid);
      const [prefix, id, mac, ...rest] = state.split(".");
      if (prefix !== PREFIX || !id || !mac || rest.length > 0 || !UUID.test(id)) throw invalid;
      const expected = Buffer.from(sign(id, provider));
      const given = Buffer.from(mac);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid;
      const row = await repo.findState(id);
      if (!row || row.provider !== provider) throw invalid;
      if (userId && row.user_id !== userId) {
        throw new ConnectionError("forbidden", "invalid_state", m.stateOtherUser);
      }
      if (row.used_at) throw new ConnectionError("bad_request", "invalid_state", m.stateUsed);
      const now = clock.now();
      if (new Date(row.expires_at).getTime() <= now.getTime()) {
        throw new ConnectionError("bad_request", "invalid_state", m.stateExpired);
      }
      const used = await repo.useState(id, now);
      if (!used) throw new ConnectionError("bad_request", "invalid_state", m.stateUsed);
      return used;
    },
  };
}

export type OAuthStates = ReturnType<typeof createOAuthStates>;
