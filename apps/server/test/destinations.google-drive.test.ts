import { DEMO_GOOGLE } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  classifyDestinationError,
  type DestinationSession,
  type FileSpec,
} from "../src/destinations/destination.ts";
import { GoogleRevokedError } from "../src/destinations/google-drive/caller.ts";
import { createDestinations } from "../src/destinations/module.ts";
import { ProviderError } from "../src/providers/provider-error.ts";
import { backupHelpers, FAST_ENGINE, md5 } from "./support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "./support/sandbox.ts";

/**
 * Issue 38: Google Drive behind the destination seam, against the sandbox's Drive — folders,
 * tags, times, the md5 check on every write (new files and replacements), and the one copy kept
 * of an item found twice.
 */
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
let d: DestinationSession;
const sub = DEMO_GOOGLE.jordan.sub;

beforeAll(async () => {
  t = await createSandboxedApp({}, { engineSettings: FAST_ENGINE });
  h = backupHelpers(t);
  const user = await h.connectedUser();
  const { googleDrive } = createDestinations({
    apisUrl: t.ctx.config.providers.google.apisUrl,
    connections: t.ctx.connections.tokens,
    folders: t.ctx.syncRepos.folders,
    settings: t.ctx.engine,
    clock: t.ctx.clock,
  });
  expect(googleDrive.capabilities).toMatchObject({
    verifiedHash: "md5",
    chunkQuantumBytes: 256 * 1024,
    lengthRequiredUpFront: false,
    setsModifiedTime: true,
    findsByTags: true,
  });
  d = googleDrive.open(user.user.id);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const corruptNext = () => h.control("/drive/corrupt", { body: { count: 1 } });
const named = async (name: string) => (await h.driveFiles()).filter((f) => f.name === name);

async function spec(name: string, item: string): Promise<FileSpec> {
  const folder = await d.ensureFolder(sub, ["Keepsake", "@seam.test", "2021"]);
  return {
    folderId: folder.id,
    name,
    mimeType: "application/json",
    time: new Date("2021-06-01T10:00:00.000Z"),
    description: "a caption",
    tags: { item, post: "p1" },
  };
}

describe("Google Drive through the destination seam", () => {
  it("makes a folder path once; forgotten, finds it again by its tag (adopted)", async () => {
    const path = ["Keepsake", "@seam.test", "2020"];
    const first = await d.ensureFolder(sub, path);
    expect(first.adopted).toBe(false);
    const folders = (await h.driveFiles()).filter((f) => f.isFolder && f.name === "2020");
    expect(folders.map((f) => [f.id, f.folder, f.appProperties.keepsakeFolder])).toEqual([
      [first.id, "Keepsake/@seam.test", "Keepsake/@seam.test/2020"],
    ]);
    await d.forgetFolder(sub, path);
    const again = await d.ensureFolder(sub, path);
    expect(again).toMatchObject({ id: first.id, adopted: true });
  });

  it("writes a file with its tags, times and description, and refuses one Drive stored differently", async () => {
    const bytes = Buffer.from(JSON.stringify({ hello: "seam" }));
    const s = await spec("seam_meta.json", "i1_meta");
    await corruptNext();
    const refused = await d.putBytes(s, bytes).catch((err: unknown) => err);
    expect(classifyDestinationError(refused)).toEqual({ kind: "transient" });
    expect(await named("seam_meta.json")).toEqual([]);

    const stored = await d.putBytes(s, bytes);
    expect(stored).toMatchObject({ hash: md5(bytes), size: bytes.length, folderId: s.folderId });
    expect(stored.tags).toEqual({ item: "i1_meta", post: "p1" });
    const [listed] = await named("seam_meta.json");
    expect(listed).toMatchObject({
      id: stored.id,
      folder: "Keepsake/@seam.test/2021",
      createdTime: "2021-06-01T10:00:00.000Z",
      description: "a caption",
      appProperties: { keepsakeMediaId: "i1_meta", keepsakePostId: "p1" },
    });
    expect((await d.findItem("i1_meta")).map((f) => f.id)).toEqual([stored.id]);
  });

  it("replaces a file's content in place, and says so when Drive stored it differently", async () => {
    const s = await spec("seam_comments.json", "i2_comments");
    const first = await d.putBytes(s, Buffer.from("[]"));
    const next = Buffer.from('[{"text":"hi"}]');
    await corruptNext();
    const refused = await d.replace(first.id, next, "application/json").catch((e: unknown) => e);
    expect(classifyDestinationError(refused)).toEqual({ kind: "transient" });
    const replaced = await d.replace(first.id, next, "application/json");
    expect(replaced).toMatchObject({ id: first.id, hash: md5(next) });
    expect(await h.driveContent(first.id)).toBe(next.toString());
    expect(classifyDestinationError(await d.replace("gone", next, "x/y").catch((e) => e))).toEqual({
      kind: "not_found",
    });
  });

  it("finds a post's files by item; of two copies of one item one is kept, the other removed", async () => {
    const s = await spec("seam_twice.jpg", "i3");
    const copies = [
      await d.putBytes(s, Buffer.from("one")),
      await d.putBytes(s, Buffer.from("two")),
    ];
    const found = await d.findPostFiles("p1");
    expect([...found.keys()].sort()).toEqual(["i1_meta", "i2_comments", "i3"]);
    const kept = found.get("i3")?.id;
    expect(copies.map((c) => c.id)).toContain(kept);
    expect((await named("seam_twice.jpg")).map((f) => f.id)).toEqual([kept]);
  });

  it("classifies failures as the engine, alerts and status page act on them", () => {
    const google = (kind: ProviderError["kind"], retryAfterMs: number | null = null) =>
      new ProviderError("google", kind, "x", { retryAfterMs });
    expect(classifyDestinationError(new GoogleRevokedError("x"))).toEqual({ kind: "revoked" });
    expect(classifyDestinationError(google("token_invalid"))).toEqual({ kind: "revoked" });
    expect(classifyDestinationError(google("quota"))).toEqual({ kind: "quota_full" });
    expect(classifyDestinationError(google("throttled", 3000))).toEqual({
      kind: "throttled",
      retryAfterMs: 3000,
    });
    expect(classifyDestinationError(google("network"))).toEqual({ kind: "transient" });
    expect(classifyDestinationError(google("permission"))).toEqual({ kind: "permanent" });
    // Instagram's failures (its CDN included) are never the destination's.
    expect(classifyDestinationError(new ProviderError("instagram", "not_found", "x"))).toBeNull();
    expect(classifyDestinationError(new Error("bug"))).toBeNull();
  });
});
