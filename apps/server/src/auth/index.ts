// The auth area's public surface: what other areas and the composition root may import.
export { accountMailJob } from "./account-mail.job.ts";
export type { AccountMailService } from "./account-mail.service.ts";
export { createAccountMailService } from "./account-mail.service.ts";
export type { AdminRepository } from "./admin-users.repository.ts";
export { createAdminRepository } from "./admin-users.repository.ts";
export type { AuthGuards } from "./auth.guards.ts";
export { authGuards, principalOf } from "./auth.guards.ts";
export { createAuthRepository } from "./auth.repository.ts";
export { registerAuthRoutes } from "./auth.routes.ts";
export type { AuthService, Principal } from "./auth.service.ts";
export { createAuthService } from "./auth.service.ts";
export { createPlansRepository } from "./plans.repository.ts";
