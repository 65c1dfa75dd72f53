// The billing area's public surface: what other areas and the composition root may import.

export { createBillingRepository } from "./billing.repository.ts";
export { registerBillingRoutes } from "./billing.routes.ts";
export type { BillingService } from "./billing.service.ts";
export { createBillingService } from "./billing.service.ts";
export type { BillingWebhookService } from "./billing-webhook.service.ts";
export { createBillingWebhookService } from "./billing-webhook.service.ts";
export { scopedToPlan } from "./plan-scope.ts";
export {
  accountLimit,
  automaticBackupTiers,
  hasApiAccess,
  hasAutomaticBackups,
  normalizeTier,
  postLimit,
  tierLabel,
} from "./tier-rules.ts";
