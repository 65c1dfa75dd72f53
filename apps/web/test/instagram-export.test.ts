import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  ExportRefusedError,
  exportJsonPaths,
  exportMessages,
  mediaIdOf,
  readInstagramExport,
  repairText,
} from "@keepsake/contracts/instagram-export";
import { describe, expect, it } from "vitest";

/**
 * The export parser the import screen and the server share (issue 31), on fixtures of both
 * layouts: `your_instagram_activity/content/` (older exports) and `…/media/` (newer ones).
 */
const FIXTURES = join(import.meta.dirname, "fixtures", "instagram-export");

function fixture(layout: "old" | "new") {
  const dir = layout === "old" ? "content" : "media";
  const personal =
    layout === "old"
      ? "personal_information/personal_information.json"
      : "personal_information/personal_information/personal_information.json";
  const names = ["posts_1", "posts_2", "stories", "reels", "archived_posts"];
  const files = new Map<string, string>([
    [personal, readFileSync(join(FIXTURES, layout, "personal_information.json"), "utf8")],
    ...names.map(
      (n) =>
        [
          `your_instagram_activity/${dir}/${n}.json`,
          readFileSync(join(FIXTURES, layout, `${n}.json`), "utf8"),
        ] as [string, string],
    ),
  ]);
  const media = [
    "media/posts/202406/447000001_1234567890123456_n_17912345678901234.jpg",
    "media/stories/202311/447000005_4444_n_17800000000000001.jpg",
  ];
  return {
    paths: [...files.keys(), ...media, "your_instagram_activity/likes/liked_posts.json"],
    readText: async (p: string) => {
      const text = files.get(p);
      if (text === undefined) throw new Error(`no ${p}`);
      return text;
    },
  };
}

describe("repairText", () => {
  it("turns UTF-8 bytes written as \\u00XX back into the text", () => {
    expect(repairText(JSON.parse('"Rados\\u00c5\\u0082aw"'))).toBe("Radosław");
    expect(repairText(JSON.parse('"Caf\\u00c3\\u00a9 \\u00f0\\u009f\\u008c\\u0085"'))).toBe(
      "Café 🌅",
    );
    expect(
      repairText(JSON.parse('"\\u00f0\\u009f\\u0087\\u00a8\\u00f0\\u009f\\u0087\\u00ad"')),
    ).toBe("🇨🇭");
  });

  it("keeps text that is already right, or is not UTF-8 bytes", () => {
    expect(repairText("plain ascii")).toBe("plain ascii");
    expect(repairText("Radosław 🌅")).toBe("Radosław 🌅");
    // Latin-1 "é" alone is not valid UTF-8: kept as it is.
    expect(repairText("café")).toBe("café");
  });
});

describe("readInstagramExport", () => {
  for (const layout of ["new", "old"] as const) {
    it(`reads the ${layout === "new" ? "newer" : "older"} layout: posts (_1, _2), stories, reels, archived posts`, async () => {
      const parsed = await readInstagramExport(fixture(layout), "radosław.studio");
      expect(parsed.layout).toBe(layout);
      expect(parsed.username).toBe("radosław.studio");
      const kinds = parsed.items.map((i) => i.kind);
      expect(kinds.filter((k) => k === "post")).toHaveLength(3);
      expect(kinds.filter((k) => k === "story")).toHaveLength(2);
      expect(kinds.filter((k) => k === "reel")).toHaveLength(1);
      expect(kinds.filter((k) => k === "archived_post")).toHaveLength(1);
      // Newest first.
      expect(parsed.items[0]?.taken_at).toBe("2024-06-10T06:13:20.000Z");
      const first = parsed.items[0];
      expect(first?.caption).toBe("Café crème with Radosław 🌅");
      expect(first?.media[0]).toMatchObject({
        media_id: "17912345678901234",
        media_type: "IMAGE",
      });
      const carousel = parsed.items.find((i) => i.media.length === 2);
      expect(carousel?.caption).toBe("Carousel — Łódź");
      expect(carousel?.media.map((m) => m.media_type)).toEqual(["IMAGE", "VIDEO"]);
      const noId = parsed.items.find((i) => i.caption === "No id in this name");
      expect(noId?.media[0]?.media_id).toBeNull();
      const story = parsed.items.find((i) => i.kind === "story" && i.caption);
      expect(story?.caption).toBe("Zürich 🇨🇭");
      const archived = parsed.items.find((i) => i.kind === "archived_post");
      expect(archived?.caption).toBe("Archived naïve sketch");
    });
  }

  it("names only the JSON files it reads", () => {
    expect(exportJsonPaths(fixture("new").paths)).toHaveLength(6);
    expect(mediaIdOf("media/stories/202311/447000005_4444_n_17800000000000001.jpg")).toBe(
      "17800000000000001",
    );
    expect(mediaIdOf("media/posts/202301/447000004_3333_n.jpg")).toBeNull();
  });

  it("refuses an HTML export with how to request JSON", async () => {
    const html = {
      paths: [
        "personal_information/personal_information/personal_information.html",
        "your_instagram_activity/media/posts_1.html",
        "your_instagram_activity/media/stories.html",
      ],
      readText: async () => "<html></html>",
    };
    await expect(readInstagramExport(html, "x")).rejects.toThrow(exportMessages.html);
    await expect(readInstagramExport(html, "x")).rejects.toBeInstanceOf(ExportRefusedError);
  });

  it("refuses the export of another account", async () => {
    await expect(readInstagramExport(fixture("new"), "lumen.studio")).rejects.toThrow(
      exportMessages.wrongAccount("radosław.studio", "lumen.studio"),
    );
  });

  it("refuses a ZIP that is not an Instagram export", async () => {
    await expect(
      readInstagramExport({ paths: ["photos/a.jpg"], readText: async () => "" }, "x"),
    ).rejects.toThrow(exportMessages.notAnExport);
  });
});
