// The accounts area's public surface: what other areas and the composition root may import.
export { createAccountsModule } from "./accounts.module.ts";
export type { AccountsService } from "./accounts.service.ts";
