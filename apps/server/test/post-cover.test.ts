import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "./support/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const CDN = "http://cdn.test";

describe("an album whose cover is a video", () => {
  it("answers the first image child, else the video child's thumbnail, as its thumbnail", async () => {
    const me = await t.signUp();
    const { rows } = await t.ctx.pool.query<{ id: string }>(
      `INSERT INTO instagram_accounts
         (user_id, instagram_user_id, connected_via, username, access_token_encrypted, token_issued_at)
       VALUES ($1, '17841400000055001', 'instagram', 'album.cover', 'not-a-token', now()) RETURNING id`,
      [me.user.id],
    );
    const account = rows[0]!.id;
    const album = (id: string, children: object[]) =>
      t.ctx.pool.query(
        `INSERT INTO posts (user_id, account_id, instagram_id, media_type, media_product_type,
                            caption, posted_at, media_url, thumbnail_url, children)
         VALUES ($1, $2, $3, 'CAROUSEL_ALBUM', 'FEED', $3, now(), $4, NULL, $5)`,
        [me.user.id, account, id, `${CDN}/${id}.mp4`, JSON.stringify(children)],
      );
    await album("mixed", [
      { id: "c1", media_type: "VIDEO", media_url: `${CDN}/c1.mp4`, thumbnail_url: `${CDN}/c1.jpg` },
      { id: "c2", media_type: "IMAGE", media_url: `${CDN}/c2.jpg`, thumbnail_url: null },
    ]);
    await album("videos", [
      { id: "v1", media_type: "VIDEO", media_url: `${CDN}/v1.mp4`, thumbnail_url: `${CDN}/v1.jpg` },
    ]);
    const res = await t.call("GET", "/api/sync/posts", { token: me.token });
    const byId = Object.fromEntries(
      res.body.posts.map((p: { instagram_id: string; thumbnail_url: string | null }) => [
        p.instagram_id,
        p.thumbnail_url,
      ]),
    );
    expect(byId).toEqual({ mixed: `${CDN}/c2.jpg`, videos: `${CDN}/v1.jpg` });
  });
});
