import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATS_CSV_HEADER } from "../../src/archive/stats-csv.ts";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

const DAY = 86_400_000;

let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
let u: Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;
/** A post read twice: at its first sync, and at a weekly walk after its counters changed. */
let post: { instagram_id: string; likes: number | null; comments: number | null };

const login = async () => {
  const res = await t.call("POST", "/api/auth/login", {
    body: { email: u.user.email, password: u.password },
  });
  u = { ...u, token: res.body.access_token };
};

beforeAll(async () => {
  t = await createSandboxedApp({}, { engineSettings: FAST_ENGINE });
  h = backupHelpers(t);
  u = await h.connectedUser({
    instagram: DEMO_IG.creator.id,
    google: DEMO_GOOGLE.maya.sub,
    tier: "pro",
  });
  // Refresh syncs list the posts (the archive reads their counters) without backing them up.
  await h.syncAndDrain(u.user.id, u.accountId, "refresh");
  post = (
    await t.ctx.db
      .selectFrom("post_metrics")
      .select(["instagram_id", "likes", "comments"])
      .where("account_id", "=", u.accountId)
      .where("likes", "is not", null)
      .orderBy("instagram_id")
      .execute()
  )[0]!;
  await h.control(`/instagram/media/${post.instagram_id}/counters`, {
    body: { like_count: 5001, view_count: 90_210, comments_count: 77 },
  });
  t.clock.advance(8 * DAY);
  await h.syncAndDrain(u.user.id, u.accountId, "refresh");
  await login();
}, 180_000);
afterAll(async () => {
  await t?.close();
});

const postRow = () =>
  t.ctx.db
    .selectFrom("posts")
    .selectAll()
    .where("account_id", "=", u.accountId)
    .where("instagram_id", "=", post.instagram_id)
    .executeTakeFirstOrThrow();

describe("a post's counters", () => {
  it("are its latest reading everywhere: the grid's tile, the detail view's header and the last point of its history", async () => {
    const history = await t.call(
      "GET",
      `/api/archive/posts/${u.accountId}/${post.instagram_id}/history`,
      { token: u.token },
    );
    expect(history.status).toBe(200);
    const readings = history.body.metrics as { at: string; likes: number; views: number }[];
    expect(readings.map((m) => [m.likes, m.views])).toEqual([
      [post.likes, expect.any(Number)],
      [5001, 90_210],
    ]);
    // A sync between two readings lists the post with newer counts (its first page does): what
    // Keepsake shows still agrees with the history, until the next reading is taken.
    await t.ctx.db
      .updateTable("posts")
      .set({ like_count: 6000, comments_count: 1 })
      .where("account_id", "=", u.accountId)
      .where("instagram_id", "=", post.instagram_id)
      .execute();
    const grid = await t.call("GET", `/api/sync/posts?limit=200&account_id=${u.accountId}`, {
      token: u.token,
    });
    expect(grid.status).toBe(200);
    const shown = grid.body.posts.find(
      (p: { instagram_id: string }) => p.instagram_id === post.instagram_id,
    );
    expect(shown).toMatchObject({
      like_count: 5001,
      comments_count: 77,
      view_count: 90_210,
      counted_at: readings[1]?.at,
    });
  });
});

describe("the stats CSV", () => {
  const csv = async (query: string) => {
    const res = await t.call("GET", `/api/archive/stats.csv${query}`, { token: u.token });
    expect(res.status, String(res.body)).toBe(200);
    expect(String(res.headers["content-type"])).toMatch(/^text\/csv/);
    const text = String(res.body);
    const rows = parse(text, { columns: true, relax_column_count: false }) as Record<
      string,
      string
    >[];
    return { text, rows, disposition: String(res.headers["content-disposition"]) };
  };

  it("has one row per post per reading, with its caption, permalink, type and time", async () => {
    // A caption a spreadsheet would run as a formula, with a comma, quotes and a line break.
    const caption = '=HYPERLINK("https://evil.example/?q=1", "click"),\nsecond line';
    await t.ctx.db
      .updateTable("posts")
      .set({ caption })
      .where("account_id", "=", u.accountId)
      .where("instagram_id", "=", post.instagram_id)
      .execute();
    const { text, rows, disposition } = await csv(`?account_id=${u.accountId}`);
    expect(disposition).toContain('filename="keepsake-stats.csv"');
    expect(text.split("\r\n")[0]).toBe(STATS_CSV_HEADER.join(","));
    const readings = await t.ctx.db
      .selectFrom("post_metrics")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("account_id", "=", u.accountId)
      .executeTakeFirstOrThrow();
    expect(rows).toHaveLength(Number(readings.n));

    const row = await postRow();
    const mine = rows.filter((r) => r.instagram_id === post.instagram_id);
    expect(mine.map((r) => [r.reading, r.likes, r.comments, r.views])).toEqual([
      ["at backup", String(post.likes), String(post.comments ?? ""), expect.any(String)],
      ["weekly check", "5001", "77", "90210"],
    ]);
    expect(mine[0]).toMatchObject({
      account: DEMO_IG.creator.username,
      post_id: row.id,
      type: { IMAGE: "photo", VIDEO: "video", CAROUSEL_ALBUM: "carousel" }[row.media_type],
      posted_at: row.posted_at.toISOString(),
      caption: `'${caption}`,
      permalink: row.permalink,
      on_instagram: "yes",
    });
    expect(Date.parse(mine[1]?.read_at ?? "")).toBeGreaterThan(Date.parse(mine[0]?.read_at ?? ""));
    // No cell starts a formula.
    for (const r of rows) {
      for (const v of Object.values(r)) expect(v, JSON.stringify(r)).not.toMatch(/^[=+@]/);
    }
  });

  it("has the current snapshot too: one row per post, its latest reading", async () => {
    const { rows, disposition } = await csv(`?account_id=${u.accountId}&view=snapshot`);
    expect(disposition).toContain('filename="keepsake-stats-snapshot.csv"');
    const posts = await t.ctx.db
      .selectFrom("post_presence")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("account_id", "=", u.accountId)
      .executeTakeFirstOrThrow();
    expect(rows).toHaveLength(Number(posts.n));
    expect(new Set(rows.map((r) => r.instagram_id)).size).toBe(rows.length);
    expect(rows.find((r) => r.instagram_id === post.instagram_id)).toMatchObject({
      reading: "weekly check",
      likes: "5001",
      comments: "77",
      views: "90210",
    });
  });

  it("refuses an unknown view with a clear 4xx", async () => {
    const res = await t.call("GET", "/api/archive/stats.csv?view=everything", { token: u.token });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.detail).toContain("view");
  });
});
