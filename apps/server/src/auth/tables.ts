/**
 * The tables the auth area owns: Keepsake's users (sign-up, log-in, profile flags), their sessions and failed log-ins.
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 */
export const ownedTables = [
  "users",
  "sessions",
  "login_failures",
  "account_tokens",
  "account_mail_requests",
] as const;
