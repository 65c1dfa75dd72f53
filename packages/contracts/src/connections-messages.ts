// No zod here: the web app's screens take these, and a bundle keeps a module that builds a
// schema (see site-defaults.ts). connections.ts re-exports them for the server.

/** Account limits per tier (SPEC §6, §9). */
export const ACCOUNT_LIMITS = { free: 1, premium: 1, pro: 3, agency: 10 } as const;

/** SPEC §9: a token expiring within this window is "expiring soon". */
export const TOKEN_WARNING_WINDOW_MS = 7 * 86_400_000;

/** Messages shared by the server and the screens (SPEC §5, §8). */
export const connectionMessages = {
  accountLimit: (limit: number, tier: string) =>
    `Account limit reached. You can connect up to ${limit} account(s) with your ${tier} plan.`,
  personalAccount:
    "Only Instagram Professional accounts (Business or Creator) can be backed up. Switch your account to a Professional account in the Instagram app, then connect again.",
  facebookPageRequired:
    "Your Instagram professional account must be linked to a Facebook Page. Link it in Instagram (Settings → Account type and tools → Connect or create a Facebook Page), then connect again.",
  unsupportedAccount:
    "This Instagram account type is not supported. Use a Professional (Business or Creator) account linked to a Facebook Page.",
  instagramCancelled: "Instagram connection was cancelled.",
  facebookCancelled: "Facebook connection was cancelled.",
  googleCancelled: "Google Drive connection was cancelled.",
  drivePermissionRequired:
    "Google Drive permission was not granted. Connect again and tick the box that lets Keepsake see, edit, create and delete only the specific Google Drive files it uses.",
  accountTaken: "This Instagram account is already connected to another Keepsake user.",
  stateInvalid: "Invalid connection request. Please start connecting again.",
  stateExpired: "The connection request expired. Please start connecting again.",
  stateUsed: "This connection request was already used. Please start connecting again.",
  stateOtherUser: "This connection request was started by another user.",
  notConfigured: (provider: string) => `${provider} is not configured on this server.`,
  /** A disconnect that names no account, while several are connected. */
  chooseAccountToDisconnect: (connected: number) =>
    `You have ${connected} Instagram accounts connected. Choose which one to disconnect (account_id).`,
  /**
   * What disconnecting removes: our records, never the files in the user's storage (`where`:
   * the label of the account's destination, Google Drive unless another was chosen).
   */
  disconnected: (usernames: readonly string[], where = "Google Drive") =>
    `${usernames.map((u) => `@${u}`).join(", ")} disconnected: ${usernames.length === 1 ? "its" : "their"} posts and backup records were removed from Keepsake. Files already in your ${where} stay there.`,
} as const;

/** "1 account", "2 accounts": English plural forms (CLDR rules, not "account(s)"). */
export function countOf(n: number, one: string, other: string): string {
  const form = new Intl.PluralRules("en-US").select(n) === "one" ? one : other;
  return `${n.toLocaleString("en-US")} ${form}`;
}

/** Messages of accounts paused by a plan's account limit (after a downgrade). */
export const pausedAccountMessages = {
  notice: (paused: number, limit: number, plan: string) =>
    `${countOf(paused, "Instagram account is", "Instagram accounts are")} paused because your ${plan} plan syncs ${countOf(limit, "account", "accounts")}. Choose which ${limit === 1 ? "account" : "accounts"} to keep, or disconnect the others; paused accounts are not synced.`,
  kept: (kept: string, paused: readonly string[]) =>
    paused.length === 0
      ? `@${kept} is synced again. All your Instagram accounts are synced.`
      : `@${kept} is synced again. Paused now: ${paused.map((u) => `@${u}`).join(", ")}.`,
} as const;
