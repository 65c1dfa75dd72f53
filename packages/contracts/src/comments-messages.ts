// No zod here: the web app's screens take these, and a bundle keeps a module that builds a
// schema (see site-defaults.ts). comments.ts re-exports them for the server.

export const commentMessages = {
  turnedOn: (username: string) =>
    `Comments of @${username} will be kept. Allow Keepsake to read them on Instagram to finish.`,
  turnedOff: (username: string, kept: number) =>
    `Keepsake no longer reads the comments of @${username}. ${kept === 1 ? "The comment" : `The ${kept} comments`} already kept stay in your Drive (the posts' _comments.json files) and here.`,
  permissionMissing:
    "Instagram has not allowed Keepsake to read comments yet. Turn comments on again to grant it.",
  facebookStories: (username: string) =>
    `Instagram does not give @${username}'s stories to Keepsake through Instagram Login. Its posts are backed up; to back up its stories too, connect it with Facebook Login (a Facebook Page linked to the account).`,
} as const;
