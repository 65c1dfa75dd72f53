/** Fixed credentials the sandbox accepts; Keepsake uses them in sandbox mode. */
export const SANDBOX_CREDENTIALS = {
  instagram: { clientId: "990011223344556", clientSecret: "sandbox-instagram-app-secret" },
  facebook: { appId: "880011223344556", appSecret: "sandbox-facebook-app-secret" },
  google: {
    clientId: "1234567890-sandbox.apps.googleusercontent.com",
    clientSecret: "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",
  },
  microsoft: {
    clientId: "5f1e7c2a-0b5e-4d3a-9a51-6b0c2f0e5a11",
    clientSecret: "sbx~KeepsakeMicrosoftClientSecret.000",
  },
  dropbox: { appKey: "sbxkeepsakeappkey", appSecret: "sbxkeepsakeappsecret" },
  /** The S3-compatible store at `/s3` (path-style): one access key, SigV4 signed. */
  s3: {
    accessKeyId: "AKIASANDBOXKEEPSAKE1",
    secretAccessKey: "sandbox/keepsake/s3+secret/access/key00",
    region: "us-east-1",
    bucket: "keepsake-demo",
  },
  stripe: {
    secretKey: "sk_test_sandbox_51KeepsakeSandboxSecretKey",
    publishableKey: "pk_test_sandbox_51KeepsakeSandboxPublishableKey",
    webhookSecret: "whsec_sandbox_keepsake_webhook_secret",
  },
} as const;

export type PlanTier = "premium" | "pro" | "agency";
export type BillingInterval = "monthly" | "annual";

/** Stripe price ids the sandbox seeds (SPEC §9 prices). */
export const SANDBOX_PRICES = {
  premium: { monthly: "price_sandbox_premium_monthly", annual: "price_sandbox_premium_annual" },
  pro: { monthly: "price_sandbox_pro_monthly", annual: "price_sandbox_pro_annual" },
  agency: { monthly: "price_sandbox_agency_monthly", annual: "price_sandbox_agency_annual" },
} as const satisfies Record<PlanTier, Record<BillingInterval, string>>;

/** Amounts in cents, per tier and interval. */
export const SANDBOX_PRICE_AMOUNTS: Record<PlanTier, Record<BillingInterval, number>> = {
  premium: { monthly: 999, annual: 9999 },
  pro: { monthly: 2499, annual: 24999 },
  agency: { monthly: 5499, annual: 54999 },
};
