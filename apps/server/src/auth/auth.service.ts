import { randomUUID } from "node:crypto";
import { adminMessages, type RegisterRequest, type User } from "@keepsake/contracts";
import type { Config } from "../config.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import type { AuthRepository } from "./auth.repository.ts";
import type { UserRow } from "./tables.ts";

/** What the profile says about the user's connected accounts (filled in by connections). */
export type SocialAccountsLoader = (
  userId: string,
) => Promise<{ accounts: User["social_accounts"]; tokenExpiresAt: Date | null }>;

export interface AuthServiceDeps {
  repo: AuthRepository;
  clock: Clock;
  jwtSecret: Uint8Array;
  config: Pick<
    Config,
    | "ACCESS_TOKEN_TTL_MINUTES"
    | "SESSION_TTL_DAYS"
    | "LOGIN_MAX_FAILURES"
    | "LOGIN_FAILURE_WINDOW_SECONDS"
    | "REGISTER_MAX_PER_HOUR"
    | "REGISTER_GLOBAL_MAX_PER_HOUR"
    | "ACCOUNT_MAIL_MAX_PER_HOUR"
  >;
  socialAccounts?: SocialAccountsLoader;
}

export interface Principal {
  user: UserRow;
  sessionId: string;
}

const INCORRECT = "Incorrect email or password";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isUuid = (v: unknown): v is string => typeof v === "string" && UUID.test(v);
const ISSUER = "keepsake";

// argon2id (the library's default algorithm) with OWASP's suggested memory and passes.
const HASH_OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/**
 * argon2 (a native addon: about 4 MiB of a process) loads with the first password an API
 * process hashes or checks; a worker never loads it.
 */
const argon2 = () => import("@node-rs/argon2");

/** A new password's argon2id hash (the same parameters as registration). */
export const hashPassword = async (password: string) =>
  (await argon2()).hash(password, HASH_OPTIONS);

/** Whether `password` is the one `passwordHash` was made from. */
export const verifyPassword = async (passwordHash: string, password: string) =>
  (await argon2()).verify(passwordHash, password);

/** jose loads with the first token an API process signs or checks; a worker never loads it. */
const jose = () => import("jose");

/** How many verified tokens an API process remembers (a few bytes each). */
const VERIFIED_TOKENS_KEPT = 10_000;

/**
 * Verifies access tokens (signature, issuer, expiry) and remembers the ones that passed until
 * they expire, so a client's requests after the first skip the HMAC. The session row is still
 * read on every request: a logout or deactivation takes effect at once.
 */
function tokenVerifier(secret: Uint8Array, clock: Clock) {
  const verified = new Map<string, { sessionId: string; userId: string; expiresAtMs: number }>();
  return async (token: string) => {
    const nowMs = clock.now().getTime();
    const known = verified.get(token);
    if (known && known.expiresAtMs > nowMs) return known;
    try {
      const { jwtVerify } = await jose();
      const { payload } = await jwtVerify(token, secret, {
        issuer: ISSUER,
        algorithms: ["HS256"],
        currentDate: clock.now(),
      });
      // Ids are UUIDs; anything else (a token signed elsewhere with our secret) is not ours.
      if (!isUuid(payload.sid) || !isUuid(payload.sub)) throw new Error();
      const entry = {
        sessionId: payload.sid,
        userId: payload.sub,
        expiresAtMs: (payload.exp ?? 0) * 1000,
      };
      if (verified.size >= VERIFIED_TOKENS_KEPT) {
        const oldest = verified.keys().next().value;
        if (oldest !== undefined) verified.delete(oldest);
      }
      verified.set(token, entry);
      return entry;
    } catch {
      throw new AppError("unauthenticated", "Could not validate credentials");
    }
  };
}

/** A just-created account's profile, read from nothing but its row: no accounts, unverified. */
function newAccountProfile(row: {
  id: string;
  email: string;
  full_name: string | null;
  subscription_tier: User["subscription_tier"];
  created_at: Date | string;
}): User {
  return {
    id: row.id,
    email: row.email,
    full_name: row.full_name,
    is_admin: false,
    is_active: true,
    subscription_tier: row.subscription_tier,
    token_expires_at: null,
    created_at: new Date(row.created_at).toISOString(),
    social_accounts: [],
    email_verified: false,
    pending_email: null,
  };
}

export function createAuthService(deps: AuthServiceDeps) {
  const { repo, clock, config } = deps;
  const verifyToken = tokenVerifier(deps.jwtSecret, clock);
  // Verified against when the e-mail is unknown, so both failures take as long. Made on first
  // use: a worker never signs anyone in and should not spend argon2's 19 MiB at start.
  let dummy: Promise<string> | null = null;
  const dummyHash = () => {
    dummy ??= hashPassword("keepsake-timing-equaliser");
    return dummy;
  };

  async function issueToken(userId: string, sessionId: string): Promise<string> {
    const now = Math.floor(clock.now().getTime() / 1000);
    const { SignJWT } = await jose();
    return new SignJWT({ sid: sessionId })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(userId)
      .setIssuer(ISSUER)
      .setIssuedAt(now)
      .setExpirationTime(now + config.ACCESS_TOKEN_TTL_MINUTES * 60)
      .sign(deps.jwtSecret);
  }

  function sessionExpiry(): Date {
    return new Date(clock.now().getTime() + config.SESSION_TTL_DAYS * 86_400_000);
  }

  /**
   * Reserves a sign-in attempt within the e-mail's and the client address's failure limits, or
   * answers 429. The reservation counts as a failure until the password proves right.
   */
  async function reserveAttempt(email: string, ip: string): Promise<string> {
    const now = clock.now();
    const windowMs = config.LOGIN_FAILURE_WINDOW_SECONDS * 1000;
    const since = new Date(now.getTime() - windowMs);
    const limits = { email: config.LOGIN_MAX_FAILURES, ip: config.LOGIN_MAX_FAILURES * 4 };
    const r = await repo.reserveLoginAttempt({ email, ip }, limits, since, now);
    if ("id" in r) return r.id;
    const retryAfter = Math.max(
      1,
      Math.ceil((r.blockedSince.getTime() + windowMs - now.getTime()) / 1000),
    );
    throw new AppError(
      "too_many",
      `Too many failed sign-in attempts. Try again in ${Math.ceil(retryAfter / 60)} minute(s).`,
      { retryAfterSeconds: retryAfter },
    );
  }

  return {
    /**
     * Registers a new account, limited per address, per client and for everyone together (429).
     * A taken address gets the same answer as a new one, after the same work (limits, argon2,
     * one INSERT … ON CONFLICT DO NOTHING): a 201 with a new account's profile, built the same
     * way, with an id that belongs to nobody; `created` tells the caller which it was, so the
     * owner of a taken address is mailed instead (issue 35). Signing in afterwards is where the
     * two differ: only the new account's password works.
     */
    async register(
      input: RegisterRequest,
      ip: string,
    ): Promise<{ profile: User; created: boolean }> {
      const now = clock.now();
      const email = input.email.trim().toLowerCase();
      const hit = await repo.recordMailRequest(
        { kind: "register", email, ip },
        {
          email: config.ACCOUNT_MAIL_MAX_PER_HOUR,
          ip: config.REGISTER_MAX_PER_HOUR,
          all: config.REGISTER_GLOBAL_MAX_PER_HOUR,
        },
        new Date(now.getTime() - 3_600_000),
        now,
      );
      if (hit) {
        const seconds = Math.max(
          1,
          Math.ceil((hit.limitedSince.getTime() + 3_600_000 - now.getTime()) / 1000),
        );
        throw new AppError(
          "too_many",
          `Too many sign-ups. Please try again in ${Math.ceil(seconds / 60)} minute(s).`,
          { retryAfterSeconds: seconds },
        );
      }
      const password_hash = await hashPassword(input.password);
      const user = await repo.insertUser({
        email: input.email,
        full_name: input.full_name,
        password_hash,
      });
      const row = user ?? {
        id: randomUUID(),
        email: input.email,
        full_name: input.full_name,
        subscription_tier: "free" as const,
        created_at: now,
      };
      return { profile: newAccountProfile(row), created: user !== undefined };
    },

    async login(
      input: { email: string; password: string },
      client: { ip: string; userAgent: string | null },
    ): Promise<string> {
      const email = input.email.trim().toLowerCase();
      const attempt = await reserveAttempt(email, client.ip);
      const user = await repo.findUserByEmail(email);
      const ok = await verifyPassword(user?.password_hash ?? (await dummyHash()), input.password);
      // A wrong password keeps its reservation: it is the failure the limits count.
      if (!user || !ok) throw new AppError("unauthenticated", INCORRECT);
      if (!user.is_active) {
        await repo.releaseLoginAttempt(attempt);
        throw new AppError("forbidden", adminMessages.deactivatedLogin);
      }
      const windowStart = new Date(
        clock.now().getTime() - config.LOGIN_FAILURE_WINDOW_SECONDS * 1000,
      );
      // The e-mail's failures, this attempt's reservation among them, and expired ones.
      await repo.clearLoginFailures(email, windowStart);
      const session = await repo.insertSession({
        user_id: user.id,
        expires_at: sessionExpiry(),
        user_agent: client.userAgent?.slice(0, 300) ?? null,
        ip: client.ip,
      });
      return issueToken(user.id, session.id);
    },

    /** The principal behind a bearer token, or a 401 that says why. */
    async authenticate(token: string): Promise<Principal> {
      const { sessionId, userId } = await verifyToken(token);
      const row = await repo.findLiveSession(sessionId, clock.now());
      if (!row || row.id !== userId) throw new AppError("unauthenticated", "Session has ended");
      if (!row.is_active) throw new AppError("unauthenticated", "Account is deactivated");
      const { session_id, session_expires_at: _, ...user } = row;
      return { user, sessionId: session_id };
    },

    async logout(principal: Principal) {
      await repo.revokeSession(principal.sessionId, clock.now());
    },

    /** A fresh access token for the same live session, whose lifetime is extended. */
    async refresh(principal: Principal): Promise<string> {
      await repo.extendSession(principal.sessionId, sessionExpiry());
      return issueToken(principal.user.id, principal.sessionId);
    },

    async updateProfile(userId: string, fullName: string): Promise<UserRow> {
      const user = await repo.updateUser(userId, { full_name: fullName });
      if (!user) throw new AppError("not_found", "User not found");
      return user;
    },

    /** Confirms a destructive request with the signed-in user's password. */
    async verifyPassword(user: UserRow, password: string) {
      if (!(await verifyPassword(user.password_hash, password))) {
        throw new AppError("forbidden", adminMessages.wrongPassword);
      }
    },

    async revokeAllSessions(userId: string) {
      await repo.revokeUserSessions(userId, clock.now());
    },

    /** SPEC §3 User. */
    async profile(user: UserRow): Promise<User> {
      const social = deps.socialAccounts
        ? await deps.socialAccounts(user.id)
        : { accounts: [], tokenExpiresAt: null };
      return {
        id: user.id,
        email: user.email,
        full_name: user.full_name,
        is_admin: user.is_admin,
        is_active: user.is_active,
        subscription_tier: user.subscription_tier,
        token_expires_at: social.tokenExpiresAt?.toISOString() ?? null,
        created_at: new Date(user.created_at).toISOString(),
        social_accounts: social.accounts,
        email_verified: user.email_verified_at !== null,
        pending_email: await repo.pendingEmail(user.id, user.email, clock.now()),
      };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
