/**
 * The tables the sync area owns: What Instagram listed (posts), the sync runs, each account's sync state, the posts' counters.
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 */
export const ownedTables = ["posts", "sync_jobs", "account_sync_state", "post_counts"] as const;
/**
 * Read, never written, by the account directory (`account-directory.repository.ts`): the
 * accounts (connections/) with their owners' plan and state (auth/), joined to the sync state.
 */
export const readsTables = ["instagram_accounts", "users"] as const;
