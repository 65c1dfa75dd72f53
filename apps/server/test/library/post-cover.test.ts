import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostChild } from "../../src/sync/tables.ts";
import { createTestApp, type TestApp } from "../support/app.ts";

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
    const { id: account } = await t.rows.connections.insertInstagramAccount({
      user_id: me.user.id,
      instagram_user_id: "17841400000055001",
      connected_via: "instagram",
      username: "album.cover",
      access_token_encrypted: "not-a-token",
      token_issued_at: new Date(),
    });
    const album = (id: string, children: PostChild[]) =>
      t.rows.sync.insertPosts([
        {
          user_id: me.user.id,
          account_id: account,
          instagram_id: id,
          media_type: "CAROUSEL_ALBUM",
          media_product_type: "FEED",
          caption: id,
          posted_at: new Date(),
          media_url: `${CDN}/${id}.mp4`,
          thumbnail_url: null,
          children: JSON.stringify(children),
        },
      ]);
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
