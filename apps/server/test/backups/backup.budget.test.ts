import { DEMO_IG } from "@keepsake/sandbox";
import { sql } from "kysely";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { coverUrl } from "../../src/backups/naming.ts";
import type { PostRow } from "../../src/sync/tables.ts";
import { backupHelpers, FAST_ENGINE, md5, requests } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

const MiB = 1024 * 1024;
const CHUNK = MiB;
/** Not a multiple of the chunk: the last chunk is short. */
const LARGE_VIDEO = 6 * MiB + 12_345;

let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
let user: Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;
const used = new Set<string>();

beforeAll(async () => {
  t = await createSandboxedApp(
    {},
    {
      sandbox: { largeVideoBytes: LARGE_VIDEO },
      // Production's small-file rule (multipart up to 5 MiB); 1 MiB chunks keep the video short.
      engineSettings: { ...FAST_ENGINE, multipartMaxBytes: 5 * MiB, chunkBytes: CHUNK },
    },
  );
  h = backupHelpers(t);
  user = await h.connectedUser({ tier: "pro" });
  await h.listPosts(user);
});
afterAll(async () => {
  await t?.close();
});
beforeEach(async () => {
  await h.control("/faults", { method: "DELETE" });
});

const posts = () =>
  t.ctx.db
    .selectFrom("posts")
    .selectAll()
    .where("user_id", "=", user.user.id)
    .where("media_product_type", "is distinct from", "STORY")
    .orderBy("posted_at", "desc")
    .execute();
const year = (p: PostRow) => new Date(p.posted_at).getUTCFullYear();

/** A post not used by another test yet. */
async function pick(ok: (p: PostRow) => boolean): Promise<PostRow> {
  const p = (await posts()).find((x) => !used.has(x.instagram_id) && ok(x));
  if (!p) throw new Error("no such post in the demo account");
  used.add(p.instagram_id);
  return p;
}

/** Queues a backup the way the retry endpoint does and runs one attempt of it. */
async function attempt(postId: string, retryCount = 0) {
  if (retryCount === 0) await t.ctx.backups.retry(user.user.id, postId);
  return t.ctx.backupEngine.run(postId, { retryCount, retryLimit: 5 });
}

/** Backs up another image post of the same year, so that year's folders exist. */
async function steadyState(p: PostRow) {
  const other = await pick((x) => x.media_type === "IMAGE" && year(x) === year(p));
  expect((await attempt(other.id)).outcome).toBe("completed");
  await h.control("/calls", { method: "DELETE" });
}

async function copiesOf(key: string) {
  return (await h.driveFiles()).filter(
    (f) => !f.trashed && f.appProperties.keepsakeMediaId === key,
  );
}

describe("Drive requests per post at steady state (the sandbox counts each request once)", () => {
  it("a single image costs 2: the media and the sidecar, each created with its metadata", async () => {
    const image = await pick((p) => p.media_type === "IMAGE" && p.caption !== null);
    await steadyState(image);
    expect(await attempt(image.id)).toMatchObject({ outcome: "completed", duplicate: false });
    const calls = await h.calls();
    expect(requests(calls, "drive.")).toEqual({ "drive.upload": 2 });
    expect(calls["drive.upload.multipart"]).toBe(2);
    expect(requests(calls, "ig.")).toEqual({});

    // Time, caption and appProperties were set by the request that created the file.
    const [file] = await copiesOf(image.instagram_id);
    expect(file).toMatchObject({
      description: image.caption,
      appProperties: { keepsakeMediaId: image.instagram_id, keepsakePostId: image.instagram_id },
    });
    expect(new Date(file!.createdTime).toISOString()).toBe(new Date(image.posted_at).toISOString());
    const all = await h.control<{ files: { id: string; modifiedTime: string }[] }>("/drive/files");
    const listed = all.files.find((f) => f.id === file!.id);
    expect(new Date(listed!.modifiedTime).toISOString()).toBe(
      new Date(image.posted_at).toISOString(),
    );
  });

  it("a carousel of n images costs n + 1", async () => {
    const carousel = await pick(
      (p) =>
        p.media_type === "CAROUSEL_ALBUM" &&
        p.children.length >= 2 &&
        p.children.every((c) => c.media_type === "IMAGE"),
    );
    await steadyState(carousel);
    expect((await attempt(carousel.id)).outcome).toBe("completed");
    expect(requests(await h.calls(), "drive.")).toEqual({
      "drive.upload": carousel.children.length + 1,
    });
  });

  it("a large video costs ⌈size / chunk⌉ + 2, plus one for its cover image", async () => {
    const large = (await h.media()).find((m) => m.video_bytes === LARGE_VIDEO)!;
    const video = await pick((p) => p.instagram_id === large.id);
    expect(coverUrl(video)).not.toBeNull();
    await steadyState(video);
    expect((await attempt(video.id)).outcome).toBe("completed");
    expect(requests(await h.calls(), "drive.")).toEqual({
      // The session start, the cover and the sidecar; then the chunks.
      "drive.upload": 3,
      "drive.upload.resumable.put": Math.ceil(LARGE_VIDEO / CHUNK),
    });
    const [file] = await copiesOf(video.instagram_id);
    expect(file?.size).toBe(LARGE_VIDEO);
  });
});

describe("the cover image of a video or of a carousel that opens with a video", () => {
  it("is backed up as a JPEG beside the media, byte for byte, and named in the sidecar", async () => {
    const withCover = await pick(
      (p) =>
        p.media_type === "CAROUSEL_ALBUM" &&
        p.children[0]?.media_type === "VIDEO" &&
        p.children[0].thumbnail_url !== null,
    );
    expect((await attempt(withCover.id)).outcome).toBe("completed");
    const [cover] = await copiesOf(`${withCover.instagram_id}_cover`);
    expect(cover?.name).toMatch(new RegExp(`_carousel_${withCover.instagram_id}_cover\\.jpg$`));
    const original = new Uint8Array(
      await (await fetch(withCover.children[0]!.thumbnail_url!)).arrayBuffer(),
    );
    expect(cover?.md5Checksum).toBe(md5(original));
    const [meta] = await copiesOf(`${withCover.instagram_id}_meta`);
    const token = await t.ctx.connections.tokens.googleAccessToken(user.user.id);
    const body = (await (
      await fetch(`${t.sandbox.url}/www.googleapis.com/drive/v3/files/${meta!.id}?alt=media`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { cover: unknown; files: unknown[] };
    expect(body.cover).toEqual({ name: cover!.name, id: cover!.id });
    expect(body.files).toHaveLength(withCover.children.length);
  });

  it("is not made for an image post", async () => {
    const image = await pick((p) => p.media_type === "IMAGE");
    expect((await attempt(image.id)).outcome).toBe("completed");
    expect(await copiesOf(`${image.instagram_id}_cover`)).toHaveLength(0);
  });
});

describe("exactly once, with no lookup on a first attempt", () => {
  it("a crash between Drive's answer and our record: the retry finds the file by appProperties", async () => {
    const image = await pick((p) => p.media_type === "IMAGE");
    await steadyState(image);
    // The database refuses to record the image's Drive id, as if the worker died right then.
    await sql`
      CREATE OR REPLACE FUNCTION refuse_record() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'worker died'; END $$`.execute(t.ctx.db);
    await sql
      .raw(
        `CREATE TRIGGER refuse_record BEFORE INSERT OR UPDATE ON backup_files FOR EACH ROW
         WHEN (NEW.item_key = '${image.instagram_id}' AND NEW.drive_file_id IS NOT NULL)
         EXECUTE FUNCTION refuse_record()`,
      )
      .execute(t.ctx.db);
    try {
      expect((await attempt(image.id)).outcome).toBe("retry");
    } finally {
      await sql`DROP TRIGGER refuse_record ON backup_files`.execute(t.ctx.db);
    }
    // The first attempt uploaded without looking.
    expect(requests(await h.calls(), "drive.")).toEqual({ "drive.upload": 1 });
    expect(await copiesOf(image.instagram_id)).toHaveLength(1);

    await h.control("/calls", { method: "DELETE" });
    expect((await attempt(image.id, 1)).outcome).toBe("completed");
    // The retry looked once, found the media, and uploaded only the sidecar.
    expect(requests(await h.calls(), "drive.")).toEqual({
      "drive.files.list": 1,
      "drive.upload": 1,
    });
    expect(await copiesOf(image.instagram_id)).toHaveLength(1);
    const row = await t.ctx.db
      .selectFrom("backup_files")
      .selectAll()
      .where("item_key", "=", image.instagram_id)
      .executeTakeFirstOrThrow();
    expect(row.drive_file_id).toBe((await copiesOf(image.instagram_id))[0]!.id);
  });
});

describe("md5", () => {
  it("a small file Drive stored differently is removed and uploaded again", async () => {
    const image = await pick((p) => p.media_type === "IMAGE");
    await h.control("/drive/corrupt", { body: { count: 1 } });
    expect((await attempt(image.id)).outcome).toBe("retry");
    expect(await copiesOf(image.instagram_id)).toHaveLength(0);
    expect((await attempt(image.id, 1)).outcome).toBe("completed");
    const [file] = await copiesOf(image.instagram_id);
    const fresh = await t.ctx.syncRepos.posts.findPost(image.id);
    const original = new Uint8Array(await (await fetch(fresh!.media_url!)).arrayBuffer());
    expect(file?.md5Checksum).toBe(md5(original));
  });

  it("a resumable upload Drive finished with another md5 is removed and uploaded again", async () => {
    // A reel of 12–24 MiB: larger than the multipart limit, so it goes through a session.
    const big = new Set(
      (await h.media())
        .filter((m) => (m.video_bytes ?? 0) > 5 * MiB && m.video_bytes !== LARGE_VIDEO)
        .map((m) => m.id),
    );
    const video = await pick((p) => big.has(p.instagram_id) && p.media_url !== null);
    await h.control("/drive/corrupt", { body: { count: 1 } });
    const first = await attempt(video.id);
    expect(first.outcome).toBe("retry");
    expect(await copiesOf(video.instagram_id)).toHaveLength(0);
    expect((await h.calls())["drive.upload.resumable.start"]).toBeGreaterThan(0);
    expect((await attempt(video.id, 1)).outcome).toBe("completed");
    const [file] = await copiesOf(video.instagram_id);
    const fresh = await t.ctx.syncRepos.posts.findPost(video.id);
    const original = new Uint8Array(await (await fetch(fresh!.media_url!)).arrayBuffer());
    expect(file?.md5Checksum).toBe(md5(original));
  });
});

describe("an account disconnected and connected again", () => {
  it("its posts are found in Drive, not uploaded twice", async () => {
    const image = await pick((p) => p.media_type === "IMAGE");
    expect((await attempt(image.id)).outcome).toBe("completed");
    const gone = await t.call(
      "DELETE",
      `/api/oauth/instagram/disconnect?account_id=${user.accountId}`,
      {
        token: user.token,
      },
    );
    expect(gone.status).toBeLessThan(300);
    t.clock.advance(60_000);
    await t.connectInstagram(user.token, DEMO_IG.business.id);
    const account = await t.ctx.db
      .selectFrom("instagram_accounts")
      .select("id")
      .where("user_id", "=", user.user.id)
      .executeTakeFirstOrThrow();
    user = { ...user, accountId: account.id };
    await h.listPosts(user);
    const again = await t.ctx.db
      .selectFrom("posts")
      .selectAll()
      .where("account_id", "=", account.id)
      .where("instagram_id", "=", image.instagram_id)
      .executeTakeFirstOrThrow();
    await h.control("/calls", { method: "DELETE" });
    expect(await attempt(again.id)).toMatchObject({ outcome: "completed", duplicate: true });
    expect(requests(await h.calls(), "drive.")).toEqual({ "drive.files.list": 1 });
    expect(await copiesOf(image.instagram_id)).toHaveLength(1);
    expect(await copiesOf(`${image.instagram_id}_meta`)).toHaveLength(1);
  });
});
