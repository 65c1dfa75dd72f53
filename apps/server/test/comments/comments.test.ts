import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backupPostJob } from "../../src/backups/jobs/backup-post.job.ts";
import { nextCommentRead } from "../../src/comments/cadence.ts";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
beforeAll(async () => {
  t = await createSandboxedApp({}, { engineSettings: FAST_ENGINE });
  h = backupHelpers(t);
});
afterAll(async () => {
  await t?.close();
});

type SandboxComment = { id: string; text: string; replies: string[] };
const sandboxComments = (mediaId: string) =>
  h.control<{ comments_count: number; comments: SandboxComment[] }>(
    `/instagram/media/${mediaId}/comments`,
  );

/** What the queued refresh-comments jobs do: batches until nothing is due. */
async function refreshAll(accountId: string) {
  let read = 0;
  for (;;) {
    const r = await t.ctx.comments.refreshAccount(accountId);
    read += r.read;
    if (r.stopped) return { read, stopped: r.stopped };
    if (!r.more) return { read };
  }
}

/** Every comment read is due now (the cadence's next read, brought forward). */
const dueNow = (accountId: string) =>
  t.rows.comments.updateReadsOfAccount(accountId, {
    next_read_at: new Date(t.clock.now().getTime() - 1000),
  });

/** A user whose account has only `count` image posts backed up (the rest recorded as done). */
async function backedUp(count: number) {
  const u = await h.connectedUser({ instagram: DEMO_IG.business.id });
  await h.listPosts(u);
  const images = (await h.media())
    .filter((m) => m.media_type === "IMAGE" && m.media_product_type === "FEED")
    .slice(0, count);
  await h.leaveOnlyToBackUp(u.user.id, new Set(images.map((m) => m.id)));
  await h.syncAndDrain(u.user.id, u.accountId);
  const posts = await t.ctx.db
    .selectFrom("posts")
    .select(["id", "instagram_id"])
    .where("account_id", "=", u.accountId)
    .where(
      "instagram_id",
      "in",
      images.map((m) => m.id),
    )
    .execute();
  return { ...u, posts, images };
}

let firstPostId = "";

describe("comments, for those who opt in", () => {
  it("missing permission, then paging with replies, Drive file, a removed comment kept and marked, opt-out", async () => {
    const u = await backedUp(1);
    const post = u.posts[0]!;
    firstPostId = post.id;
    // More than a page of comments, and a comment with more than a page of replies.
    for (let i = 0; i < 55; i++)
      await h.control("/instagram/comments", {
        body: { media_id: post.instagram_id, text: `c${i}` },
      });
    const first = (await sandboxComments(post.instagram_id)).comments[0]!;
    for (let i = 0; i < 52; i++)
      await h.control("/instagram/comments", {
        body: { media_id: post.instagram_id, text: `r${i}`, parent_id: first.id },
      });
    const onInstagram = await sandboxComments(post.instagram_id);
    const total = onInstagram.comments_count;
    expect(total).toBeGreaterThanOrEqual(107);

    // Turning it on asks for the comments permission and schedules the backed-up post.
    const on = await t.call("PUT", `/api/comments/settings/${u.accountId}`, {
      token: u.token,
      body: { enabled: true },
    });
    expect(on.status).toBe(200);
    expect(on.body.auth_url).toContain("instagram_business_manage_comments");
    expect(on.body.setting.enabled).toBe(true);

    // Before consent the token lacks it: Instagram refuses (#10); nothing is read, it says so.
    const refused = await refreshAll(u.accountId);
    expect(refused.stopped).toBe("permission");
    const settings = await t.call("GET", "/api/comments/settings", { token: u.token });
    expect(settings.body.accounts[0]).toMatchObject({ enabled: true, permission_missing: true });

    await t.land(
      await t.consent(on.body.auth_url, { decision: "allow", account: DEMO_IG.business.id }),
    );
    const read = await refreshAll(u.accountId);
    expect(read).toEqual({ read: 1 });
    const kept = await t.call("GET", `/api/comments/posts/${post.id}`, { token: u.token });
    expect(kept.status).toBe(200);
    const all = kept.body.comments.flatMap((c: { replies: unknown[] }) => [c, ...c.replies]);
    expect(all).toHaveLength(total);
    const withReplies = kept.body.comments.find((c: { id: string }) => c.id === first.id);
    expect(withReplies.replies).toHaveLength(first.replies.length + 52);
    expect(
      (await t.call("GET", "/api/comments/settings", { token: u.token })).body.accounts[0],
    ).toMatchObject({ permission_missing: false, kept_comments: total });

    // The _comments.json beside the sidecar, same naming scheme.
    const files = await h.driveFiles();
    const meta = files.find((f) => f.name.endsWith(`_${post.instagram_id}_meta.json`))!;
    const file = files.find((f) => f.name.endsWith(`_${post.instagram_id}_comments.json`))!;
    expect(file.name).toBe(meta.name.replace("_meta.json", "_comments.json"));
    expect(file.folder).toBe(meta.folder);
    const content = JSON.parse(await h.driveContent(file.id));
    expect(content.comments.length).toBe(kept.body.comments.length);

    // Removed on Instagram: kept, marked, and the file rewritten in place.
    const gone = onInstagram.comments[3]!;
    await h.control(`/instagram/comments/${gone.id}`, { method: "DELETE" });
    await dueNow(u.accountId);
    expect(await refreshAll(u.accountId)).toEqual({ read: 1 });
    const after = await t.call("GET", `/api/comments/posts/${post.id}`, { token: u.token });
    const marked = after.body.comments.find((c: { id: string }) => c.id === gone.id);
    expect(marked.removed_at).not.toBeNull();
    expect(
      after.body.comments.filter((c: { removed_at: string | null }) => c.removed_at),
    ).toHaveLength(1);
    const files2 = (await h.driveFiles()).filter((f) => f.name === file.name);
    expect(files2.map((f) => f.id)).toEqual([file.id]);
    const rewritten = JSON.parse(await h.driveContent(file.id));
    const inFile = rewritten.comments.find((c: { id: string }) => c.id === gone.id);
    expect(inFile.removed_on_instagram_at).not.toBeNull();

    // Drive connected again as Maya's Google account: the post is copied there, and its
    // comments file is written there too, beside the new sidecar; Jordan's stays as it was.
    await t.connectDrive(u.token, DEMO_GOOGLE.maya.sub);
    await dueNow(u.accountId);
    expect(await refreshAll(u.accountId)).toEqual({ read: 0 });
    await h.drain(u.user.id);
    await dueNow(u.accountId);
    expect(await refreshAll(u.accountId)).toEqual({ read: 1 });
    const inMaya = await h.driveFiles(DEMO_GOOGLE.maya.email);
    const mayaMeta = inMaya.find((f) => f.name === meta.name)!;
    const mayaFile = inMaya.find((f) => f.name === file.name)!;
    expect(mayaFile.folder).toBe(mayaMeta.folder);
    expect(JSON.parse(await h.driveContent(mayaFile.id)).comments.length).toBe(
      after.body.comments.length,
    );
    expect((await h.driveFiles()).filter((f) => f.name === file.name).map((f) => f.id)).toEqual([
      file.id,
    ]);

    // Turning it off stops the reads and says what stays.
    const off = await t.call("PUT", `/api/comments/settings/${u.accountId}`, {
      token: u.token,
      body: { enabled: false },
    });
    expect(off.body.message).toContain("stay in your Drive");
    await h.control("/calls", { method: "DELETE" });
    await dueNow(u.accountId);
    expect(await refreshAll(u.accountId)).toMatchObject({ stopped: "disabled" });
    await t.ctx.comments.afterSync(u.accountId);
    expect((await h.calls())["ig.comments"] ?? 0).toBe(0);
    // What was kept is still shown.
    const still = await t.call("GET", `/api/comments/posts/${post.id}`, { token: u.token });
    expect(still.body.enabled).toBe(false);
    expect(still.body.comments.length).toBe(after.body.comments.length);
  }, 120_000);

  it("another user's post answers 404", async () => {
    const other = await t.signUp();
    const res = await t.call("GET", `/api/comments/posts/${firstPostId}`, {
      token: other.token,
    });
    expect(res.status).toBe(404);
  });

  it("a backup that ends schedules the post's first read and queues it, only where comments are kept and not for a story", async () => {
    /** A new account (a post and its stories): syncs, then runs each backup job as a worker. */
    async function backUp(keep: boolean) {
      const { u, account } = await h.userWithAccount(1);
      await t.connectDrive(u.token, DEMO_GOOGLE.jordan.sub);
      await t.rows.sync.deleteSyncJobsOfUser(u.user.id);
      // Turned on; and for the account that does not keep them, turned off again.
      for (const enabled of keep ? [true] : [true, false]) {
        const set = await t.call("PUT", `/api/comments/settings/${account.id}`, {
          token: u.token,
          body: { enabled },
        });
        expect(set.status).toBe(200);
      }
      const started = await t.ctx.sync.runs.start(u.user.id, account.id);
      await t.ctx.syncEngine.run(
        { accountId: account.id, syncJobId: started.sync_job.id, kind: "manual", mode: "backup" },
        { retryCount: 0, retryLimit: 3 },
      );
      const jobs = `${t.ctx.queueSchema}.job WHERE name = 'refresh-comments' AND data->>'accountId' = $1`;
      await t.ctx.pool.query(`DELETE FROM ${jobs}`, [account.id]);
      const posts = await t.ctx.db
        .selectFrom("posts")
        .select(["id", "media_product_type"])
        .where("account_id", "=", account.id)
        .execute();
      const feed = posts.find((p) => p.media_product_type !== "STORY")!;
      const story = posts.find((p) => p.media_product_type === "STORY")!;
      const readOf = async (postId: string) => {
        await backupPostJob.handler({ postId }, t.ctx, { id: postId, retryCount: 0 });
        const backup = (await h.backups(u.user.id)).find((b) => b.post_id === postId);
        expect(backup?.status).toBe("completed");
        return t.ctx.db
          .selectFrom("comment_reads")
          .selectAll()
          .where("post_id", "=", postId)
          .executeTakeFirst();
      };
      const queuedReads = async () =>
        Number(
          (await t.ctx.pool.query(`SELECT count(*) AS n FROM ${jobs}`, [account.id])).rows[0].n,
        );
      const storyRead = await readOf(story.id);
      const queuedAfterStory = await queuedReads();
      const feedRead = await readOf(feed.id);
      return { feedRead, storyRead, queuedAfterStory, queued: await queuedReads() };
    }

    const kept = await backUp(true);
    expect(kept.storyRead).toBeUndefined();
    expect(kept.queuedAfterStory).toBe(0);
    expect(kept.feedRead?.next_read_at.getTime()).toBe(t.clock.now().getTime());
    expect(kept.queued).toBe(1);

    const notKept = await backUp(false);
    expect(notKept.feedRead).toBeUndefined();
    expect(notKept.queued).toBe(0);
  });

  it("cadence: at backup, then 1, 7 and 30 days after posting, then weekly", () => {
    const posted = new Date("2026-01-01T00:00:00Z");
    const day = 86_400_000;
    const at = (ms: number) => new Date(posted.getTime() + ms);
    expect(nextCommentRead(posted, at(3_600_000)).getTime()).toBe(at(day).getTime());
    expect(nextCommentRead(posted, at(day)).getTime()).toBe(at(7 * day).getTime());
    expect(nextCommentRead(posted, at(8 * day)).getTime()).toBe(at(30 * day).getTime());
    expect(nextCommentRead(posted, at(40 * day)).getTime()).toBe(at(47 * day).getTime());
  });
});

describe("stories through Instagram Login", () => {
  const flag = async (token: string) =>
    (await t.call("GET", "/api/accounts/instagram-accounts", { token })).body.accounts[0]
      .stories_need_facebook_login as boolean;

  it("refused (unsupported or permission) marks the account, never a failed sync; served clears it; transient is not a refusal", async () => {
    const u = await h.connectedUser({ instagram: DEMO_IG.creator.id });
    await h.listPosts(u);
    await h.leaveOnlyToBackUp(u.user.id, new Set());
    await h.control("/instagram/stories", { body: { account: DEMO_IG.creator.username } });

    await h.control("/instagram/stories-login", { body: { mode: "unsupported" } });
    const refused = await h.syncAndDrain(u.user.id, u.accountId);
    expect(refused.job?.status).toBe("completed");
    expect(await flag(u.token)).toBe(true);

    await h.control("/instagram/stories-login", { body: { mode: "permission" } });
    expect((await h.syncAndDrain(u.user.id, u.accountId)).job?.status).toBe("completed");
    expect(await flag(u.token)).toBe(true);

    await h.control("/instagram/stories-login", { body: { mode: "served" } });
    const served = await h.syncAndDrain(u.user.id, u.accountId);
    expect(served.job?.status).toBe("completed");
    expect(await flag(u.token)).toBe(false);
    const stories = await t.ctx.db
      .selectFrom("posts")
      .select("id")
      .where("account_id", "=", u.accountId)
      .where("media_product_type", "=", "STORY")
      .execute();
    expect(stories.length).toBeGreaterThan(0);

    // A transient failure is retried, not taken for a refusal.
    await h.control("/faults", { body: { endpoint: "ig.stories", count: 20, error: "http:503" } });
    const transient = await h.syncAndDrain(u.user.id, u.accountId);
    expect(transient.result.outcome).toBe("retry");
    expect(await flag(u.token)).toBe(false);
    await h.control("/faults", { method: "DELETE" });
  }, 120_000);
});
