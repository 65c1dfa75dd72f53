import type { FastifyInstance } from "fastify";
import { logOf, type ModuleBase } from "../area-module.ts";
import type { JobSender } from "../jobs/job.ts";
import type { Secrets } from "../lib/secrets.ts";
import type { MailService } from "../mail/index.ts";
import { type AccountMailService, createAccountMailService } from "./account-mail.service.ts";
import { type AdminRepository, createAdminRepository } from "./admin-users.repository.ts";
import { type AuthGuards, authGuards } from "./auth.guards.ts";
import { type AuthRepository, createAuthRepository } from "./auth.repository.ts";
import { registerAuthRoutes } from "./auth.routes.ts";
import { type AuthService, type AuthServiceDeps, createAuthService } from "./auth.service.ts";

/** Users, sessions and the guards; built before the mail area, which reads users' addresses. */
export interface AuthModule {
  auth: AuthService;
  guards: AuthGuards;
  repo: AuthRepository;
  /** The users list, flag toggles and `make-admin` (the admin area, the CLI). */
  adminUsers: AdminRepository;
  /** What other areas read of a user's address (mail, notifications). */
  users: {
    address(userId: string): Promise<{ email: string; verified: boolean } | null>;
    emailVerified(userId: string): Promise<boolean>;
  };
}

export function createAuthModule(
  deps: ModuleBase & {
    secrets: Secrets;
    /** The connections area's social accounts, shown with the profile. */
    socialAccounts: NonNullable<AuthServiceDeps["socialAccounts"]>;
  },
): AuthModule {
  const repo = createAuthRepository(deps.db);
  const auth = createAuthService({
    repo,
    clock: deps.clock,
    jwtSecret: deps.secrets.jwtSecret,
    config: deps.config,
    socialAccounts: deps.socialAccounts,
  });
  return {
    auth,
    guards: authGuards(auth),
    repo,
    adminUsers: createAdminRepository(deps.db),
    users: {
      async address(userId) {
        const user = await repo.findUserById(userId);
        return user ? { email: user.email, verified: user.email_verified_at !== null } : null;
      },
      async emailVerified(userId) {
        return (await repo.findUserById(userId))?.email_verified_at != null;
      },
    },
  };
}

/**
 * The auth area's second step, after the mail area: forgot password, address verification,
 * e-mail and password changes; and the auth routes, which use both steps.
 */
export function createAccountMailModule(
  deps: ModuleBase & { auth: AuthModule; mail: MailService; queue: JobSender },
) {
  const { config } = deps;
  const accountMail: AccountMailService = createAccountMailService({
    repo: deps.auth.repo,
    clock: deps.clock,
    mail: deps.mail,
    queue: deps.queue,
    appUrl: config.appUrl,
    supportEmail: config.SUPPORT_EMAIL,
    limits: {
      perAddress: config.ACCOUNT_MAIL_MAX_PER_HOUR,
      perClient: config.ACCOUNT_MAIL_MAX_PER_HOUR * 4,
    },
    ...logOf(deps),
  });
  return {
    accountMail,
    routes(app: FastifyInstance, guards: AuthGuards) {
      registerAuthRoutes(app, { auth: deps.auth.auth, accountMail, guards });
    },
  };
}
