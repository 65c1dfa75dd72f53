import { TextWriter, Uint8ArrayReader, ZipReader } from "@zip.js/zip.js";
import { describe, expect, it } from "vitest";
import { DEMO_IG } from "../src/index.ts";
import { json, useHarness } from "./helpers.ts";

const h = useHarness();

async function open(account: string, query = "") {
  const res = await h.get(`/_control/instagram/${account}/export.zip${query}`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/zip");
  const zip = new ZipReader(new Uint8ArrayReader(new Uint8Array(await res.arrayBuffer())));
  const entries = await zip.getEntries();
  const text = async (name: string) => {
    const e = entries.find((x) => x.filename === name);
    if (!e || e.directory) throw new Error(`no ${name}`);
    return e.getData(new TextWriter());
  };
  return { names: entries.map((e) => e.filename), text };
}

describe("Instagram data exports", () => {
  it("lumen.studio's export: newer layout, mis-encoded JSON, archived media the API never returns", async () => {
    const ex = await open(DEMO_IG.business.username);
    expect(ex.names).toContain("your_instagram_activity/media/posts_1.json");
    expect(ex.names).toContain("your_instagram_activity/media/posts_2.json");
    const stories = await ex.text("your_instagram_activity/media/stories.json");
    // Every non-ASCII character is its UTF-8 bytes, each written as \u00XX.
    expect(stories).toContain("Rados\\u00c5\\u0082aw");
    expect(stories).toContain("\\u00f0\\u009f\\u008c\\u0085");
    expect([...stories].every((c) => c.charCodeAt(0) < 0x80)).toBe(true);
    const parsed = JSON.parse(stories) as { ig_stories: { uri: string }[] };
    expect(parsed.ig_stories).toHaveLength(8);
    for (const s of parsed.ig_stories) expect(ex.names).toContain(s.uri);
    const archived = JSON.parse(await ex.text("your_instagram_activity/media/archived_posts.json"));
    expect(archived.ig_archived_post_media).toHaveLength(3);
    // Posts carry the API's media ids in their file names (most of them).
    const { media } = await json<{ media: { id: string }[] }>(
      h.get(`/_control/instagram/${DEMO_IG.business.username}/media`),
    );
    const ids = new Set(media.map((m) => m.id));
    const posts = JSON.parse(await ex.text("your_instagram_activity/media/posts_1.json")) as {
      media: { uri: string }[];
    }[];
    const named = posts.map((p) => /_(\d{15,20})\.jpg$/.exec(p.media[0]?.uri ?? "")?.[1]);
    expect(named.filter((id) => id && ids.has(id)).length).toBeGreaterThan(0);
    // Archived stories are not among what the API returns.
    const storyIds = parsed.ig_stories
      .map((s) => /_(\d{15,20})\.\w+$/.exec(s.uri)?.[1])
      .filter(Boolean);
    expect(storyIds.some((id) => ids.has(id as string))).toBe(false);
    const profile = await ex.text(
      "personal_information/personal_information/personal_information.json",
    );
    expect(profile).toContain('"value": "lumen.studio"');
  });

  it("the older layout, and an HTML export without JSON", async () => {
    const old = await open(DEMO_IG.business.username, "?layout=old");
    expect(old.names).toContain("your_instagram_activity/content/stories.json");
    expect(old.names).toContain("personal_information/personal_information.json");
    const html = await open(DEMO_IG.business.username, "?format=html");
    expect(html.names.some((n) => n.endsWith(".json"))).toBe(false);
    expect(html.names).toContain("your_instagram_activity/media/posts_1.html");
  });

  it("lists every demo account's export on /export", async () => {
    const page = await (await h.get("/export")).text();
    expect(page).toContain("@lumen.studio");
    expect(page).toContain(`/_control/instagram/maya.creates/export.zip`);
  });
});
