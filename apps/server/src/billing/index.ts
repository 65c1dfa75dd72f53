// The billing area's public surface: what other areas and the composition root may import.

export type { BillingModule, PastDue } from "./billing.module.ts";
export { createBillingModule } from "./billing.module.ts";
export type { BillingService } from "./billing.service.ts";
export type { BillingWebhookService } from "./billing-webhook.service.ts";
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
