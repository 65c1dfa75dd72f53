import { COMMENT_WEEKLY_MS, readsInFirstDays } from "../src/comments/cadence.ts";
import { createCommentsClient } from "../src/providers/instagram/comments.client.ts";
import type { backupHelpers } from "../test/support/backup.ts";
import type { SandboxedApp } from "../test/support/sandbox.ts";

const SAMPLE_POSTS = 60;
const DAY_MS = 86_400_000;

/**
 * bench:sync's line on comments (issue 30): Graph calls per read of one post's comments and
 * replies, measured over a sandbox account's posts (demo comment counts, 50 a page), and what the
 * cadence (at backup, 1, 7 and 30 days after posting, then weekly) costs an opted-in account per
 * day at 1,000 and 10,000 posts: every post weekly, plus the milestone reads of a post a day.
 */
export async function commentReadCost(t: SandboxedApp, h: ReturnType<typeof backupHelpers>) {
  const { accounts } = await h.control<{
    accounts: { user_id: string; username: string; access_token: string }[];
  }>("/instagram/accounts", {
    body: {
      count: 1,
      posts: SAMPLE_POSTS,
      scopes: ["instagram_business_basic", "instagram_business_manage_comments"],
    },
  });
  const a = accounts[0]!;
  const { media } = await h.control<{ media: { id: string }[] }>(`/instagram/${a.username}/media`);
  const client = createCommentsClient({
    instagramGraphUrl: t.ctx.config.providers.instagram.graphUrl,
    facebookGraphUrl: t.ctx.config.providers.facebook.graphUrl,
    graphVersion: t.ctx.config.providers.graphVersion,
  });
  let requests = 0;
  let comments = 0;
  for (const m of media) {
    const r = await client.mediaComments({
      host: "instagram",
      token: a.access_token,
      mediaId: m.id,
      accountKey: a.user_id,
      call: (fn) => fn(),
    });
    requests += r.requests;
    comments += r.comments.length;
  }
  const perRead = requests / media.length;
  // A steady account: each post read weekly; one new post a day adds its milestone reads.
  const perDay = (posts: number) => (posts * DAY_MS) / COMMENT_WEEKLY_MS + readsInFirstDays(30);
  const line = (posts: number) =>
    `  ${posts.toLocaleString("en-US")} posts: ${Math.round(perDay(posts)).toLocaleString("en-US")} reads ≈ ${Math.round(perDay(posts) * perRead).toLocaleString("en-US")} Graph calls per account per day`;
  return [
    `Comment reads (opted-in accounts; ${perRead.toFixed(2)} Graph calls per post read, measured over ${media.length} sandbox posts with ${(comments / media.length).toFixed(1)} comments and replies each):`,
    line(1000),
    line(10_000),
  ];
}
