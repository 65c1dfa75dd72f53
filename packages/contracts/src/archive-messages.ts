// No zod here: the web app's screens take these, and a bundle keeps a module that builds a
// schema (see site-defaults.ts). archive.ts re-exports them for the server.

/** The copy of the archive's screens. */
export const archiveMessages = {
  noLongerOnInstagram: "No longer on Instagram",
  restoreUntil: (date: string) =>
    `Instagram keeps deleted posts for 30 days: you can still restore it there until ${date}`,
  restoreWindowOver:
    "Instagram keeps deleted posts for 30 days; that time is over. Your copy stays in your Drive.",
  downloadStats: "Download stats (CSV)",
  downloadSnapshot: "Current counts (CSV)",
} as const;
