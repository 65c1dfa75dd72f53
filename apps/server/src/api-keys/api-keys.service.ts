import { createHash, randomBytes } from "node:crypto";
import {
  API_KEY_PREFIX,
  type ApiKey,
  type ApiKeysResponse,
  type CreatedApiKey,
  MAX_API_KEYS,
  apiKeyMessages as m,
  type SubscriptionTier,
} from "@keepsake/contracts";
import { hasApiAccess } from "../billing/index.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import type { ApiKeysRepository } from "./api-keys.repository.ts";
import type { ApiKeyRow } from "./tables.ts";

export interface ApiKeysServiceDeps {
  repo: ApiKeysRepository;
  clock: Clock;
  /** The owner's current plan. */
  userTier(userId: string): Promise<string>;
}

/** Characters of a key kept for display: `ks_live_` and 4 more. */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 4;
/** A key's last use is written at most this often (it is a hint, not an audit log). */
const TOUCH_EVERY_MS = 60_000;
/** How long an Idempotency-Key replays its first answer. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

/** Keys are 256 random bits: a fast hash is enough, and lets a lookup use an index. */
export const hashApiKey = (key: string) => createHash("sha256").update(key).digest("hex");

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

function toApiKey(r: ApiKeyRow): ApiKey {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    created_at: iso(r.created_at) as string,
    last_used_at: iso(r.last_used_at),
  };
}

/** Who calls the public API: the key's owner, and which key. */
export interface ApiCaller {
  userId: string;
  keyId: string;
  tier: SubscriptionTier;
}

export function createApiKeysService(deps: ApiKeysServiceDeps) {
  const { repo, clock } = deps;

  async function requireAccess(userId: string) {
    if (!hasApiAccess(await deps.userTier(userId))) throw new AppError("forbidden", m.noAccess);
  }

  return {
    async list(userId: string): Promise<ApiKeysResponse> {
      const [rows, tier] = await Promise.all([repo.listLive(userId), deps.userTier(userId)]);
      return { keys: rows.map(toApiKey), api_access: hasApiAccess(tier), limit: MAX_API_KEYS };
    },

    async create(userId: string, name: string): Promise<CreatedApiKey> {
      await requireAccess(userId);
      const key = `${API_KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
      const row = await repo.insertWithin(
        {
          user_id: userId,
          name,
          prefix: key.slice(0, DISPLAY_PREFIX_LENGTH),
          key_hash: hashApiKey(key),
          now: clock.now(),
        },
        MAX_API_KEYS,
      );
      if (!row) throw new AppError("conflict", m.limitReached);
      return { ...toApiKey(row), key };
    },

    async revoke(userId: string, id: string) {
      if (!(await repo.revoke(userId, id, clock.now())))
        throw new AppError("not_found", m.notFound);
      return { message: m.revoked };
    },

    /** The caller of a key; 401 for an unknown or revoked key, 403 once the plan lacks API access. */
    async authenticate(key: string): Promise<ApiCaller> {
      const unauthorized = () =>
        new AppError("unauthenticated", m.invalid, { challenge: 'Bearer error="invalid_token"' });
      if (!key.startsWith(API_KEY_PREFIX) || key.length > 200) throw unauthorized();
      const found = await repo.findByHash(hashApiKey(key));
      if (!found?.is_active) throw unauthorized();
      if (!hasApiAccess(found.subscription_tier)) {
        throw new AppError("forbidden", m.planLacksAccess);
      }
      const now = clock.now();
      const last = found.last_used_at ? new Date(found.last_used_at).getTime() : 0;
      if (now.getTime() - last >= TOUCH_EVERY_MS) await repo.touch(found.id, now);
      return { userId: found.user_id, keyId: found.id, tier: found.subscription_tier };
    },

    /**
     * Runs `work` once per (user, Idempotency-Key) within a day: a repeat with the same request
     * answers the stored first answer; with a different request, 422.
     */
    async idempotent<T>(
      userId: string,
      key: string | undefined,
      request: unknown,
      work: () => Promise<T>,
    ): Promise<T> {
      if (!key) return work();
      const fingerprint = createHash("sha256").update(JSON.stringify(request)).digest("hex");
      const since = new Date(clock.now().getTime() - IDEMPOTENCY_WINDOW_MS);
      const replay = async () => {
        const stored = await repo.findIdempotent(userId, key, since);
        if (!stored) return undefined;
        if (stored.fingerprint !== fingerprint)
          throw new AppError("invalid", m.idempotencyMismatch);
        return stored.response as T;
      };
      const first = await replay();
      if (first !== undefined) return first;
      const result = await work();
      const saved = await repo.saveIdempotent({
        user_id: userId,
        idempotency_key: key,
        fingerprint,
        status_code: 202,
        response: result,
        now: clock.now(),
        expiredBefore: since,
      });
      return saved ? result : ((await replay()) ?? result);
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
