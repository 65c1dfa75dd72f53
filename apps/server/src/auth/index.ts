// The auth area's public surface: what other areas and the composition root may import.
export { accountMailJob } from "./account-mail.job.ts";
export type { AccountMailService } from "./account-mail.service.ts";
export type { AdminRepository } from "./admin-users.repository.ts";
export { createAdminRepository } from "./admin-users.repository.ts";
export type { AuthGuards } from "./auth.guards.ts";
export { principalOf } from "./auth.guards.ts";
export { createAccountMailModule, createAuthModule } from "./auth.module.ts";
export { createAuthRepository } from "./auth.repository.ts";
export type { AuthService, Principal } from "./auth.service.ts";
export { createPlansRepository } from "./plans.repository.ts";
