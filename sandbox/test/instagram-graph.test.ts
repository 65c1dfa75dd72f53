import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DEMO_IG } from "../src/index.ts";
import {
  type GraphError,
  type GraphPage,
  harness,
  type IgMediaItem,
  igLongToken,
  json,
  useHarness,
} from "./helpers.ts";

const h = useHarness();

const B = DEMO_IG.business;

describe("Instagram Graph", () => {
  it("answers /me with the requested fields on v25.0, v26.0 and unversioned; rejects unknown fields", async () => {
    const token = await igLongToken(h, B.id);
    const fields =
      "user_id,username,name,account_type,profile_picture_url,followers_count,follows_count,media_count";
    for (const v of ["v25.0/", "v26.0/", ""]) {
      const res = await h.get(`/graph.instagram.com/${v}me?fields=${fields}&access_token=${token}`);
      const me = (await res.json()) as Record<string, unknown>;
      expect(me.user_id).toBe(B.userId);
      expect(me.username).toBe("lumen.studio");
      expect(me.account_type).toBe("BUSINESS");
      expect(me.media_count).toBe(152);
      expect(res.headers.get("x-app-usage")).toMatch(/call_count/);
      expect(JSON.parse(res.headers.get("x-business-use-case-usage")!)[B.userId][0].type).toBe(
        "instagram",
      );
    }
    const bearer = await h.get(`/graph.instagram.com/v25.0/me?fields=id`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(((await bearer.json()) as { id: string }).id).toBe(B.id);
    const bad = await h.get(`/graph.instagram.com/v25.0/me?fields=nope&access_token=${token}`);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(100);
    const old = await h.get(`/graph.instagram.com/v12.0/me?access_token=${token}`);
    expect(old.status).toBe(400);
  });

  it("paginates with cursors: short pages keep next, the end has no next", async () => {
    const token = await igLongToken(h, B.id);
    const expected = (
      (await h.ctl(`instagram/${B.username}/media`)) as { media: { id: string; pinned: boolean }[] }
    ).media;
    for (const limit of [1, 25, 100]) {
      let url: string | undefined =
        `${h.url}/graph.instagram.com/v25.0/me/media?fields=id,timestamp&limit=${limit}&access_token=${token}`;
      const seen: string[] = [];
      let shortWithNext = 0;
      let pages = 0;
      let last: { data: unknown[]; paging?: { next?: string } } | undefined;
      while (url) {
        const page = (await (await fetch(url)).json()) as {
          data: { id: string }[];
          paging?: { next?: string };
        };
        pages++;
        if (page.paging?.next && page.data.length < limit) shortWithNext++;
        seen.push(...page.data.map((d) => d.id));
        last = page;
        url = page.paging?.next;
      }
      expect(seen).toEqual(expected.map((m) => m.id));
      expect(shortWithNext).toBeGreaterThan(0);
      expect(last?.paging?.next).toBeUndefined();
      expect(pages).toBeGreaterThan(1);
    }
    // The pinned post comes first although it is older than the next one.
    expect(expected[0]!.pinned).toBe(true);
  });

  it("walks backwards with before/previous", async () => {
    const token = await igLongToken(h, B.id);
    const p1 = await json<GraphPage<{ id: string }>>(
      h.get(`/graph.instagram.com/v25.0/me/media?limit=5&access_token=${token}`),
    );
    const p2 = await json<GraphPage<{ id: string }>>(fetch(p1.paging!.next!));
    expect(p2.paging!.previous).toBeDefined();
    const back = await json<GraphPage<{ id: string }>>(fetch(p2.paging!.previous!));
    expect(back.data.map((d) => d.id)).toEqual(p1.data.map((d) => d.id));
    expect(p1.paging!.previous).toBeUndefined();
  });

  it("selects fields, nests children, withholds media_url for some reels", async () => {
    const token = await igLongToken(h, B.id);
    const all: IgMediaItem[] = [];
    let url: string | undefined =
      `${h.url}/graph.instagram.com/v25.0/me/media?fields=id,caption,media_type,media_product_type,media_url,thumbnail_url,permalink,shortcode,timestamp,like_count,comments_count,children{id,media_type,media_url,thumbnail_url}&limit=100&access_token=${token}`;
    while (url) {
      const page: GraphPage<IgMediaItem> = await json(fetch(url));
      all.push(...page.data);
      url = page.paging?.next;
    }
    const carousel = all.find((m) => m.media_type === "CAROUSEL_ALBUM")!;
    const children = carousel.children!.data;
    expect(children.length).toBeGreaterThanOrEqual(2);
    expect(children.length).toBeLessThanOrEqual(10);
    expect(carousel.media_url).toBe(children[0]!.media_url);
    expect(all.some((m) => m.media_type === "VIDEO" && m.media_product_type === "REELS")).toBe(
      true,
    );
    expect(
      all.filter((m) => m.media_type === "VIDEO" && m.media_url === undefined).length,
    ).toBeGreaterThanOrEqual(1);
    expect(
      all.filter((m) => m.media_type === "IMAGE").every((m) => m.thumbnail_url === undefined),
    ).toBe(true);
    expect(all.some((m) => m.like_count === undefined)).toBe(true);
    expect(all[0]!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/);
    const single = await json<{ id: string; media_type: string }>(
      h.get(`/graph.instagram.com/v25.0/${carousel.id}?fields=id,media_type&access_token=${token}`),
    );
    expect(single).toEqual({ id: carousel.id, media_type: "CAROUSEL_ALBUM" });
    const kids = await json<GraphPage<IgMediaItem>>(
      h.get(
        `/graph.instagram.com/v25.0/${carousel.id}/children?fields=id,media_type,media_url&access_token=${token}`,
      ),
    );
    expect(kids.data.map((k) => k.id)).toEqual(children.map((k) => k.id));
    const missing = await json<GraphError>(
      h.get(`/graph.instagram.com/v25.0/123/children?access_token=${token}`),
    );
    expect(missing.error.error_subcode).toBe(33);
  });

  it("lists only stories from the last 24 hours", async () => {
    const token = await igLongToken(h, B.id);
    const stories = async () =>
      (
        await json<GraphPage<IgMediaItem>>(
          h.get(
            `/graph.instagram.com/v25.0/${B.userId}/stories?fields=id,media_type,media_product_type,timestamp&access_token=${token}`,
          ),
        )
      ).data;
    const live = await stories();
    expect(live.length).toBeGreaterThanOrEqual(3);
    expect(live.every((s) => s.media_product_type === "STORY")).toBe(true);
    const added = await h.ctl<{ created: { id: string }[] }>("instagram/stories", {
      account: B.username,
      count: 2,
    });
    expect((await stories()).length).toBe(live.length + 2);
    await h.ctl("clock", { advance_seconds: 86_401 });
    expect((await stories()).length).toBe(0);
    expect(added.created).toHaveLength(2);
  });

  it("refuses media for a personal account but still answers /me", async () => {
    const token = await igLongToken(h, DEMO_IG.personal.id);
    const me = await json<{ account_type: string }>(
      h.get(`/graph.instagram.com/v25.0/me?fields=account_type&access_token=${token}`),
    );
    expect(me.account_type).toBe("PERSONAL");
    const media = await json<GraphError>(
      h.get(`/graph.instagram.com/v25.0/me/media?access_token=${token}`),
    );
    expect(media.error.code).toBe(10);
  });

  it("throttles with code 80002 once the business-use-case budget is spent", async () => {
    const token = await igLongToken(h, B.id);
    await h.ctl("graph/usage", { buc_budget_per_day: 4 });
    const statuses: number[] = [];
    let usage = 0;
    for (let i = 0; i < 5; i++) {
      const res = await h.get(`/graph.instagram.com/v25.0/me?access_token=${token}`);
      statuses.push(res.status);
      usage = JSON.parse(res.headers.get("x-business-use-case-usage")!)[B.userId][0].call_count;
      if (res.status !== 200) expect((await json<GraphError>(res)).error.code).toBe(80002);
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses[4]).toBe(403);
    expect(usage).toBe(100);
  });

  it("reports the app's calls of the last hour and the account's calls of the last day", async () => {
    const token = await igLongToken(h, B.id);
    await h.ctl("graph/usage", { app_budget_per_hour: 10, buc_budget_per_day: 20 });
    const usage = async () => {
      const res = await h.get(`/graph.instagram.com/v25.0/me?access_token=${token}`);
      expect(res.status).toBe(200);
      return {
        app: JSON.parse(res.headers.get("x-app-usage")!).call_count,
        buc: JSON.parse(res.headers.get("x-business-use-case-usage")!)[B.userId][0].call_count,
      };
    };
    await usage();
    expect(await usage()).toEqual({ app: 20, buc: 10 });
    // An hour on, the app's window holds this call alone; the account's day holds all three.
    await h.ctl("clock", { advance_seconds: 3601 });
    expect(await usage()).toEqual({ app: 10, buc: 15 });
    // A day after the first two calls, they are gone from the account's day too.
    await h.ctl("clock", { advance_seconds: 86_400 - 3601 + 1 });
    expect(await usage()).toEqual({ app: 10, buc: 10 });
  });
});

describe("Instagram CDN", () => {
  async function firstImageAndVideo(token: string) {
    const page = await json<GraphPage<IgMediaItem>>(
      h.get(
        `/graph.instagram.com/v25.0/me/media?fields=media_type,media_url&limit=40&access_token=${token}`,
      ),
    );
    const image = page.data.find((m) => m.media_type === "IMAGE")!.media_url as string;
    const video = page.data.find((m) => m.media_type === "VIDEO" && m.media_url)!
      .media_url as string;
    return { image, video };
  }

  it("serves real JPEG and MP4 bytes with ranges", async () => {
    const token = await igLongToken(h, B.id);
    const { image, video } = await firstImageAndVideo(token);
    const img = Buffer.from(await (await fetch(image)).arrayBuffer());
    expect(img.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    const vid = await fetch(video);
    expect(vid.headers.get("content-type")).toBe("video/mp4");
    const bytes = Buffer.from(await vid.arrayBuffer());
    expect(bytes.subarray(4, 8).toString()).toBe("ftyp");
    const part = await fetch(video, { headers: { range: "bytes=100-199" } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(bytes.subarray(100, 200));
  });

  it("URLs expire with the clock and with the expire-all control", async () => {
    const token = await igLongToken(h, B.id);
    const { image } = await firstImageAndVideo(token);
    expect((await fetch(image)).status).toBe(200);
    await h.ctl("cdn/expire", {});
    const gone = await fetch(image);
    expect(gone.status).toBe(403);
    expect(await gone.text()).toBe("URL signature expired");
    const fresh = (await firstImageAndVideo(token)).image;
    expect((await fetch(fresh)).status).toBe(200);
    await h.ctl("clock", { advance_seconds: 4 * 86_400 });
    const old = await fetch(fresh);
    expect(old.status).toBe(403);
    expect(await old.text()).toBe("URL signature expired");
    const tampered = await fetch(fresh.replace(/oh=[^&]+/, "oh=00_bad"));
    expect(await tampered.text()).toBe("Bad URL hash");
  });

  it("gives the same bytes for the same media across restarts", async () => {
    const token = await igLongToken(h, B.id);
    const { image, video } = await firstImageAndVideo(token);
    const md5 = async (u: string) =>
      createHash("md5")
        .update(Buffer.from(await (await fetch(u)).arrayBuffer()))
        .digest("hex");
    const before = [await md5(image), await md5(video)];
    const other = await harness();
    try {
      const t2 = await igLongToken(other, B.id);
      const again = await (async () => {
        const page = await json<GraphPage<IgMediaItem>>(
          other.get(
            `/graph.instagram.com/v25.0/me/media?fields=media_type,media_url&limit=40&access_token=${t2}`,
          ),
        );
        return [
          page.data.find((m) => m.media_type === "IMAGE")!.media_url as string,
          page.data.find((m) => m.media_type === "VIDEO" && m.media_url)!.media_url as string,
        ];
      })();
      expect(new URL(again[0]!).pathname).toBe(new URL(image).pathname);
      expect([await md5(again[0]!), await md5(again[1]!)]).toEqual(before);
    } finally {
      await other.sb.close();
    }
  });
});
