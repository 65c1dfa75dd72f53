import { createHash, randomBytes, randomUUID } from "node:crypto";
import { accountMessages as m } from "@keepsake/contracts";
import type { JobSender } from "../jobs/job.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import type { ServiceLog } from "../lib/log.ts";
import type { MailService } from "../mail/index.ts";
import { accountMailJob } from "./account-mail.job.ts";
import type { AuthRepository } from "./auth.repository.ts";
import { hashPassword, type Principal, verifyPassword } from "./auth.service.ts";
import type { UserRow } from "./tables.ts";

export interface AccountMailServiceDeps {
  repo: AuthRepository;
  clock: Clock;
  mail: Pick<MailService, "sendToUser">;
  /** Queues the mails of anonymous requests (`account-mail`), sent after the answer. */
  queue: JobSender;
  appUrl: string;
  supportEmail: string;
  limits: {
    /** Account mails (reset, verification) per e-mail address per hour. */
    perAddress: number;
    /** Account mails per client address per hour. */
    perClient: number;
  };
  log?: ServiceLog;
}

export const RESET_TTL_MS = 3_600_000;
export const VERIFY_TTL_MS = 24 * 3_600_000;

const digest = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * The auth area's e-mails: forgot password (no enumeration, single-use hashed tokens valid one
 * hour, limited per address and per client), address verification at registration and on an
 * e-mail change, and changing the password. Sends through the mail area's outbox.
 */
export function createAccountMailService(deps: AccountMailServiceDeps) {
  const { repo, clock } = deps;

  async function limited(kind: string, email: string, ip: string) {
    const now = clock.now();
    const hit = await repo.recordMailRequest(
      { kind, email, ip },
      { email: deps.limits.perAddress, ip: deps.limits.perClient },
      new Date(now.getTime() - 3_600_000),
      now,
    );
    if (hit) throw tooMany(hit.limitedSince, now, "Too many requests");
  }

  /** The 429 of an hourly limit whose oldest counted request is `limitedSince`. */
  function tooMany(limitedSince: Date, now: Date, what: string) {
    const seconds = Math.max(
      1,
      Math.ceil((limitedSince.getTime() + 3_600_000 - now.getTime()) / 1000),
    );
    return new AppError(
      "too_many",
      `${what}. Please try again in ${Math.ceil(seconds / 60)} minute(s).`,
      { retryAfterSeconds: seconds },
    );
  }

  async function issue(user: UserRow, purpose: "password_reset" | "verify_email", email: string) {
    const token = randomBytes(32).toString("base64url");
    const now = clock.now();
    const ttl = purpose === "password_reset" ? RESET_TTL_MS : VERIFY_TTL_MS;
    const row = await repo.insertAccountToken({
      user_id: user.id,
      purpose,
      token_hash: digest(token),
      email,
      created_at: now,
      expires_at: new Date(now.getTime() + ttl),
    });
    return { token, id: row.id };
  }

  /**
   * The name a mail may greet with: only a verified address's. An unverified account's name was
   * chosen by whoever registered the address, who need not be its owner (issue 35).
   */
  const greeting = (user: UserRow) => (user.email_verified_at ? user.full_name : null);

  async function sendVerification(
    user: UserRow,
    email: string,
    options: { key?: string; cap?: "registration" } = {},
  ) {
    const { token, id } = await issue(user, "verify_email", email);
    const change = email.toLowerCase() !== user.email.toLowerCase();
    return deps.mail.sendToUser(
      user.id,
      {
        key: options.key ?? `verify-email:${id}`,
        template: "verify-email",
        data: {
          name: change ? user.full_name : greeting(user),
          url: `${deps.appUrl}/verify-email?token=${token}`,
          change,
        },
        ...(options.cap ? { cap: options.cap } : {}),
      },
      { address: email },
    );
  }

  return {
    /**
     * After a registration, whether it created the account or found the address taken: queues
     * the same job either way (the request does the same work), which mails a verification
     * link to a new account or a note to the taken address's owner.
     */
    async afterRegistration(email: string, created: boolean) {
      await deps.queue.send(accountMailJob, {
        kind: "registration",
        email: email.trim().toLowerCase(),
        request: randomUUID(),
        created,
      });
    },

    /** The `account-mail` job of a registration (within the registration mails' hourly cap). */
    async deliverRegistration(email: string, request: string, created: boolean) {
      const user = await repo.findUserByEmail(email);
      if (!user?.is_active) return;
      const queued = created
        ? await sendVerification(user, user.email, {
            key: `verify-email:registration:${request}`,
            cap: "registration",
          })
        : await deps.mail.sendToUser(user.id, {
            // At most one a day per account, however often its address is tried.
            key: `register-taken:${user.id}:${clock.now().toISOString().slice(0, 10)}`,
            template: "register-taken",
            data: {
              loginUrl: `${deps.appUrl}/login`,
              resetUrl: `${deps.appUrl}/forgot-password`,
            },
            cap: "registration",
          });
      if (queued.id === null)
        deps.log?.warn({ skipped: queued.skipped }, "registration mail not sent");
    },

    /** The banner's "Resend": a new link (the earlier ones keep working until they expire). */
    async resendVerification(user: UserRow, ip: string) {
      if (user.email_verified_at) return { message: m.verified };
      await limited("verify", user.email.toLowerCase(), ip);
      await sendVerification(user, user.email);
      return { message: m.verifySent };
    },

    /**
     * Forgot password: the same answer, and the same work, whether or not an account has the
     * address: the request is counted (per address and per client) and a job queued; the job
     * looks the address up and mails a link to an account only (issue 35).
     */
    async requestPasswordReset(email: string, ip: string) {
      const address = email.trim().toLowerCase();
      await limited("reset", address, ip);
      await deps.queue.send(accountMailJob, {
        kind: "password-reset",
        email: address,
        request: randomUUID(),
      });
      return { message: m.resetSent };
    },

    /** The `account-mail` job of a forgot-password request (within the resets' hourly cap). */
    async deliverPasswordReset(email: string, request: string) {
      const user = await repo.findUserByEmail(email);
      if (!user?.is_active) return;
      const { token } = await issue(user, "password_reset", user.email);
      const queued = await deps.mail.sendToUser(user.id, {
        key: `password-reset:${request}`,
        template: "password-reset",
        data: { name: greeting(user), url: `${deps.appUrl}/reset-password?token=${token}` },
        cap: "password-reset",
      });
      if (queued.id === null)
        deps.log?.warn({ skipped: queued.skipped }, "password reset mail not sent");
    },

    /** Sets a new password with a reset link (once, within the hour) and ends every session. */
    async resetPassword(token: string, password: string) {
      const now = clock.now();
      const used = await repo.spendAccountToken(digest(token), "password_reset", now);
      if (!used) throw new AppError("invalid", m.resetInvalid);
      const user = await repo.findUserById(used.user_id);
      if (!user?.is_active) throw new AppError("invalid", m.resetInvalid);
      await repo.updateUser(user.id, {
        password_hash: await hashPassword(password),
        // The link reached the user's inbox: the address is theirs.
        ...(user.email_verified_at === null && used.email.toLowerCase() === user.email.toLowerCase()
          ? { email_verified_at: now }
          : {}),
      });
      // Every other link (resets, e-mail changes) is void: the account's secret changed.
      await repo.voidAccountTokens(user.id, now);
      await repo.revokeUserSessions(user.id, now);
      return { message: m.resetDone };
    },

    /**
     * A verification link: confirms the current address, or completes an e-mail change (the
     * old address is told).
     */
    async verifyEmail(token: string) {
      const now = clock.now();
      const used = await repo.spendAccountToken(digest(token), "verify_email", now);
      if (!used) throw new AppError("invalid", m.verifyInvalid);
      const user = await repo.findUserById(used.user_id);
      if (!user) throw new AppError("invalid", m.verifyInvalid);
      if (used.email.toLowerCase() === user.email.toLowerCase()) {
        if (!user.email_verified_at) await repo.updateUser(user.id, { email_verified_at: now });
        return { message: m.verified };
      }
      const oldEmail = user.email;
      const changed = await repo.changeEmail(user.id, used.email, now);
      if (!changed) throw new AppError("conflict", m.emailTaken);
      // Every other link is void now: reset links to the old address, other new addresses.
      await repo.voidAccountTokens(user.id, now);
      await deps.mail.sendToUser(
        user.id,
        {
          key: `email-changed:${used.id}`,
          template: "email-changed",
          data: { name: user.full_name, newEmail: used.email, supportEmail: deps.supportEmail },
        },
        { address: oldEmail },
      );
      return { message: m.emailChanged };
    },

    /** Settings → Profile: a new address, confirmed by a link sent there (password required). */
    async requestEmailChange(
      user: UserRow,
      input: { email: string; password: string },
      ip: string,
    ) {
      if (!(await verifyPassword(user.password_hash, input.password)))
        throw new AppError("forbidden", m.wrongCurrentPassword);
      const email = input.email.trim().toLowerCase();
      if (email === user.email.toLowerCase()) throw new AppError("invalid", m.emailSame);
      const taken = await repo.findUserByEmail(email);
      if (taken) throw new AppError("conflict", m.emailTaken);
      await limited("verify", email, ip);
      await sendVerification(user, email);
      return {
        message: `We've sent a confirmation link to ${email}. Your address changes once you open it.`,
      };
    },

    /** Settings → Profile: a new password (the current one required); other sessions end. */
    async changePassword(principal: Principal, current: string, next: string) {
      const { user } = principal;
      if (!(await verifyPassword(user.password_hash, current)))
        throw new AppError("forbidden", m.wrongCurrentPassword);
      await repo.updateUser(user.id, { password_hash: await hashPassword(next) });
      // Reset links and pending e-mail changes asked for with the old password end too.
      await repo.voidAccountTokens(user.id, clock.now());
      await repo.revokeOtherSessions(user.id, principal.sessionId, clock.now());
      await deps.mail.sendToUser(user.id, {
        key: `password-changed:${user.id}:${clock.now().toISOString()}`,
        template: "password-changed",
        data: { name: user.full_name, url: `${deps.appUrl}/forgot-password` },
      });
      return { message: m.passwordChanged };
    },
  };
}

export type AccountMailService = ReturnType<typeof createAccountMailService>;
