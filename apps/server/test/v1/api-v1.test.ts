import { randomUUID } from "node:crypto";
import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
type Connected = Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;
let owner: Connected & { key: string };
let other: Connected & { key: string };

async function withKey(u: Connected) {
  const res = await t.call("POST", "/api/api-keys", { token: u.token, body: { name: "test" } });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return { ...u, key: res.body.key as string };
}

const v1 = (method: "GET" | "POST", path: string, key: string, opts: object = {}) =>
  t.call(method, `/api/v1${path}`, { token: key, ...opts });

beforeAll(async () => {
  t = await createSandboxedApp({}, { engineSettings: FAST_ENGINE });
  h = backupHelpers(t);
  owner = await withKey(await h.connectedUser({ tier: "pro" }));
  other = await withKey(
    await h.connectedUser({
      instagram: DEMO_IG.creator.id,
      google: DEMO_GOOGLE.maya.sub,
      tier: "agency",
    }),
  );
  // The owner's posts are listed and recorded as backed up (no Drive traffic needed here).
  await h.listPosts(owner);
  await h.leaveOnlyToBackUp(owner.user.id, new Set());
});
// Each test starts with a fresh rate-limit window for the keys.
beforeEach(() => t.clock.advance(60_000));
afterAll(async () => {
  await t?.close();
});

/** Every page of a listing, following next_cursor. */
async function allPages(path: string, key: string, field: "posts" | "backups", limit: number) {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 500; i++) {
    const sep = path.includes("?") ? "&" : "?";
    const url: string = `${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`;
    const res = await v1("GET", url, key);
    t.clock.advance(1_100); // a paced client stays within 60 requests a minute
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    seen.push(...res.body[field].map((x: { id: string }) => x.id));
    cursor = res.body.next_cursor;
    if (!cursor) return seen;
  }
  throw new Error("no last page");
}

describe("/api/v1 reads", () => {
  it("lists accounts, posts, backups, sync jobs and stats of the key's owner", async () => {
    const accounts = await v1("GET", "/accounts", owner.key);
    expect(accounts.status).toBe(200);
    expect(accounts.body.accounts.map((a: { id: string }) => a.id)).toEqual([owner.accountId]);
    const posts = await v1("GET", "/posts?limit=5", owner.key);
    expect(posts.body.posts).toHaveLength(5);
    expect(posts.body.next_cursor).toEqual(expect.any(String));
    const stats = await v1("GET", "/stats", owner.key);
    expect(stats.body.total_posts).toBeGreaterThan(5);
    expect(stats.body.backed_up_posts).toBe(stats.body.total_posts);
    const jobs = await v1("GET", "/sync-jobs", owner.key);
    expect(jobs.body.sync_jobs.length).toBeGreaterThan(0);
    const backups = await v1("GET", "/backups?status=completed&limit=3", owner.key);
    expect(backups.body.backups).toHaveLength(3);
    expect((await v1("GET", "/backups?status=failed", owner.key)).body.backups).toEqual([]);
  });

  it("filters posts as the dashboard does", async () => {
    const all = await allPages("/posts", owner.key, "posts", 200);
    const images = await v1("GET", "/posts?media_type=image&limit=200", owner.key);
    expect(images.body.posts.length).toBeGreaterThan(0);
    expect(images.body.posts.every((p: { media_type: string }) => p.media_type === "image")).toBe(
      true,
    );
    expect(images.body.posts.length).toBeLessThan(all.length);
    const byAccount = await v1("GET", `/posts?account_id=${owner.accountId}&limit=200`, owner.key);
    expect(byAccount.body.posts).toHaveLength(all.length);
    const bad = await v1("GET", "/posts?media_type=gif", owner.key);
    expect(bad.status).toBe(422);
    expect(typeof bad.body.detail).toBe("string");
    expect((await v1("GET", "/posts?cursor=garbage", owner.key)).status).toBe(422);
    expect((await v1("GET", "/posts?limit=0", owner.key)).status).toBe(422);
  });

  it("pages posts and backups by cursor, unchanged by posts inserted meanwhile", async () => {
    const before = await allPages("/posts", owner.key, "posts", 200);
    const first = await v1("GET", "/posts?limit=3", owner.key);
    // New posts arrive (newer than all, and at the same time as the first page's last post).
    const last = first.body.posts[2];
    await t.rows.sync.insertPosts(
      [new Date(Date.now() + 86_400_000), new Date(last.timestamp)].map((at, i) => ({
        user_id: owner.user.id,
        account_id: owner.accountId,
        instagram_id: `inserted-${i}-${randomUUID()}`,
        media_type: "IMAGE" as const,
        posted_at: at,
        children: "[]",
      })),
    );
    const rest: string[] = [];
    let cursor = first.body.next_cursor as string | null;
    while (cursor) {
      const page = await v1("GET", `/posts?limit=4&cursor=${cursor}`, owner.key);
      rest.push(...page.body.posts.map((p: { id: string }) => p.id));
      cursor = page.body.next_cursor;
    }
    const walked = [...first.body.posts.map((p: { id: string }) => p.id), ...rest];
    expect(new Set(walked).size).toBe(walked.length);
    // Every post present before is met exactly once, in the same order.
    expect(walked.filter((id) => before.includes(id))).toEqual(before);

    t.clock.advance(60_000);
    const backups = await allPages("/backups", owner.key, "backups", 2);
    const total = await t.ctx.db
      .selectFrom("backups")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("user_id", "=", owner.user.id)
      .executeTakeFirstOrThrow();
    expect(backups).toHaveLength(Number(total.n));
    expect(new Set(backups).size).toBe(backups.length);
  });
});

describe("/api/v1 isolation", () => {
  it("shows another user's key nothing of the owner's, on every route", async () => {
    const ownerPost = (await v1("GET", "/posts?limit=1", owner.key)).body.posts[0];
    const sees = async (path: string) => (await v1("GET", path, other.key)).body;
    expect((await sees("/accounts")).accounts.map((a: { id: string }) => a.id)).toEqual([
      other.accountId,
    ]);
    expect((await sees("/posts")).posts).toEqual([]);
    expect((await sees(`/posts?account_id=${owner.accountId}`)).posts).toEqual([]);
    expect((await sees("/backups")).backups).toEqual([]);
    expect((await sees(`/backups?account_id=${owner.accountId}`)).backups).toEqual([]);
    expect((await sees("/sync-jobs")).sync_jobs).toEqual([]);
    expect((await sees("/stats")).total_posts).toBe(0);
    // The owner's cursor does not open the owner's rows to someone else.
    const cursor = (await v1("GET", "/posts?limit=1", owner.key)).body.next_cursor;
    expect((await sees(`/posts?cursor=${cursor}`)).posts).toEqual([]);
    const start = await v1("POST", "/sync", other.key, { body: { account_id: owner.accountId } });
    expect(start.status).toBe(404);
    const retry = await v1("POST", `/backups/${ownerPost.id}/retry`, other.key);
    expect(retry.status).toBe(404);
    expect((await v1("POST", "/backups/not-an-id/retry", other.key)).status).toBe(404);
  });
});

describe("/api/v1 writes", () => {
  it("starts a sync once per Idempotency-Key", async () => {
    const headers = { "idempotency-key": `k-${randomUUID()}` };
    const first = await v1("POST", "/sync", other.key, { headers, body: {} });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.body.already_running).toBe(false);
    const again = await v1("POST", "/sync", other.key, { headers, body: {} });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    const jobs = await t.ctx.db
      .selectFrom("sync_jobs")
      .select("id")
      .where("user_id", "=", other.user.id)
      .execute();
    expect(jobs).toHaveLength(1);
    const changed = await v1("POST", "/sync", other.key, {
      headers,
      body: { account_id: other.accountId },
    });
    expect(changed.status).toBe(422);
    // Without a key, a second start finds the running sync instead of starting another.
    const plain = await v1("POST", "/sync", other.key, { body: {} });
    expect(plain.body).toMatchObject({ already_running: true });
    expect(plain.body.sync_job.id).toBe(first.body.sync_job.id);
    // The other user's key with the same Idempotency-Key is another request altogether.
    const ownerStart = await v1("POST", "/sync", owner.key, { headers, body: {} });
    expect(ownerStart.status).toBe(202);
    expect(ownerStart.body.sync_job.id).not.toBe(first.body.sync_job.id);
  });

  it("retries a failed backup", async () => {
    const [b] = await t.rows.backups.updateBackups(
      {
        userId: owner.user.id,
        postId: (await h.backups(owner.user.id))[0]?.post_id as string,
      },
      { status: "failed", error_message: "boom" },
    );
    const failed = await v1("GET", "/backups?status=failed", owner.key);
    expect(
      failed.body.backups.map((x: { instagram_post_id: string }) => x.instagram_post_id),
    ).toEqual([b?.post_id]);
    const retry = await v1("POST", `/backups/${b?.post_id}/retry`, owner.key);
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body.backup.status).toBe("pending");
  });
});
