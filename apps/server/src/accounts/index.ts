// The accounts area's public surface: what other areas and the composition root may import.
export { registerAccountRoutes } from "./accounts.routes.ts";
export type { AccountsService } from "./accounts.service.ts";
export { createAccountsService } from "./accounts.service.ts";
