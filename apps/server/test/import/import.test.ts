import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { exportMessages } from "@keepsake/contracts/instagram-export";
import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApp } from "../support/app.ts";
import { backupHelpers, FAST_ENGINE, md5 } from "../support/backup.ts";
import {
  type OpenedExport,
  openExport as openExport_,
  type PlanItem,
  planImport,
  putImportFile,
} from "../support/import-export.ts";
import { peerApps } from "../support/peers.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";
import { until } from "../support/wait.ts";

/**
 * Issue 31: Instagram's data export imported into Drive through Keepsake — the plan (what the
 * browser sends of the ZIP), each media file streamed from the request body, exactly once.
 */
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
let user: Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;
let base: string;

const CHUNK = 256 * 1024;
/** The creator's account, connected by one test and used by the next. */
let creator: typeof user | undefined;

const openExport = (account: string, query = "") => openExport_(t, account, query);
const plan = (token: string, accountId: string, ex: Pick<OpenedExport, "paths" | "files">) =>
  planImport(t, token, accountId, ex);
const put = (token: string, itemId: string, key: string, body: Uint8Array, via: TestApp = t) =>
  putImportFile(via, token, itemId, key, body);

beforeAll(async () => {
  t = await createSandboxedApp({}, { engineSettings: { ...FAST_ENGINE, chunkBytes: CHUNK } });
  h = backupHelpers(t);
  user = await h.connectedUser({ tier: "pro" });
  // Keepsake knows the account's posts from the API (nothing backed up yet).
  expect((await h.listPosts(user)).result.outcome).toBe("done");
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe("import of Instagram's data export", () => {
  it("previews the export: archived stories and posts to import, the API's posts recognised, captions repaired", async () => {
    const ex = await openExport(DEMO_IG.business.username);
    const res = await plan(user.token, user.accountId, ex);
    expect(res.status).toBe(200);
    const byKind = Object.fromEntries(
      (res.body.summary as { kind: string }[]).map((s) => [s.kind, s]),
    );
    expect(res.body.layout).toBe("new");
    expect(byKind.story).toMatchObject({ total: 8, already: 0, to_import: 8, over_limit: 0 });
    expect(byKind.archived_post).toMatchObject({ total: 3, already: 0, to_import: 3 });
    // The posts and reels the API returned: by the media id in their file names, or (two of
    // them without one) by time within 2 s and caption.
    expect(byKind.post).toMatchObject({ total: 8, already: 8, to_import: 0 });
    expect(byKind.reel).toMatchObject({ total: 2, already: 2, to_import: 0 });
    const captions = (res.body.items as PlanItem[]).map((i) => i.caption);
    expect(captions).toContain("Rosé tones with Radosław at the studio 🌅");
    expect(captions).toContain("Łódź, Kraków, Zürich — three cities in one week ✨");
    expect(res.body.first_at < res.body.last_at).toBe(true);
    expect(res.body.limit_note).toContain("no post limit");
  });

  it("refuses an HTML export, saying how to ask for JSON", async () => {
    const ex = await openExport(DEMO_IG.business.username, "?format=html");
    const res = await plan(user.token, user.accountId, ex);
    expect(res.status).toBe(422);
    expect(res.body.detail).toBe(exportMessages.html);
    expect(res.body.detail).toContain("Format: JSON");
  });

  it("refuses the export of another account than the one chosen", async () => {
    const recorded = () =>
      t.ctx.db
        .selectFrom("import_items")
        .select("id")
        .where("account_id", "=", user.accountId)
        .execute();
    const before = (await recorded()).length;
    const ex = await openExport(DEMO_IG.creator.username);
    const res = await plan(user.token, user.accountId, ex);
    expect(res.status).toBe(422);
    expect(res.body.detail).toBe(exportMessages.wrongAccount("maya.creates", "lumen.studio"));
    expect((await recorded()).length).toBe(before);
  });

  it("imports every archived story and post once, with sidecars and original times; a second import adds nothing", async () => {
    const ex = await openExport(DEMO_IG.business.username);
    const first = await plan(user.token, user.accountId, ex);
    const pending = (first.body.items as PlanItem[]).filter((i) => i.status === "pending");
    expect(pending.length).toBe(11);
    for (const item of pending) {
      for (const f of item.files) {
        const res = await put(user.token, item.id, f.key, await ex.bytes(f.uri));
        expect(res.statusCode, res.body).toBe(200);
      }
    }
    const files = await h.driveFiles();
    const stories = files.filter(
      (f) =>
        !f.isFolder &&
        f.name.includes("_story_") &&
        f.appProperties.keepsakeSource === "instagram-export",
    );
    // 8 stories and their sidecars, in Keepsake/@lumen.studio/YYYY, where the API's stories go.
    expect(stories.length).toBe(16);
    expect(files.some((f) => f.folder.endsWith("/Stories"))).toBe(false);
    for (const item of pending.filter((i) => i.kind === "story")) {
      const media = stories.find((f) => f.name === item.files[0]?.name);
      expect(media, item.files[0]?.name).toBeDefined();
      expect(media?.folder).toBe(`Keepsake/@lumen.studio/${item.taken_at.slice(0, 4)}`);
      expect(media?.createdTime).toBe(item.taken_at);
      expect(media?.md5Checksum).toBe(md5(await ex.bytes(item.files[0]?.uri as string)));
      expect(media?.appProperties.keepsakeSource).toBe("instagram-export");
      const sidecar = stories.find(
        (f) =>
          f.name.endsWith("_meta.json") &&
          f.appProperties.keepsakePostId === media?.appProperties.keepsakePostId,
      );
      const content = JSON.parse(await h.driveContent(sidecar?.id as string));
      expect(content).toMatchObject({
        source: "instagram-export",
        username: "lumen.studio",
        timestamp: item.taken_at,
        caption: item.caption,
      });
    }
    // Archived posts: Keepsake/@lumen.studio/YYYY, a carousel of two with _1 and _2.
    const carousel = files.filter((f) => /_carousel_\d+_[12]\.jpg$/.test(f.name));
    expect(carousel.length).toBe(2);
    const count = files.length;

    // The same export again: everything is there, nothing is sent, nothing is added.
    const again = await plan(user.token, user.accountId, ex);
    expect(again.status).toBe(200);
    const byKind = Object.fromEntries(
      (again.body.summary as { kind: string }[]).map((s) => [s.kind, s]),
    );
    expect(byKind.story).toMatchObject({ already: 8, to_import: 0 });
    expect(byKind.archived_post).toMatchObject({ already: 3, to_import: 0 });
    const story = pending.find((i) => i.kind === "story") as PlanItem;
    const repeat = await put(
      user.token,
      story.id,
      story.files[0]?.key as string,
      await ex.bytes(story.files[0]?.uri as string),
    );
    expect(repeat.statusCode).toBe(200);
    // The other layout of the same account's export holds the same items (same media ids).
    const older = await openExport(DEMO_IG.business.username, "?layout=old");
    const third = await plan(user.token, user.accountId, older);
    expect(third.body.layout).toBe("old");
    expect(
      (third.body.summary as { to_import: number }[]).reduce((n, s) => n + s.to_import, 0),
    ).toBe(0);
    expect((await h.driveFiles()).length).toBe(count);
  });

  it("an upload cut off mid-file resumes its Drive session on the next try: one file, intact", async () => {
    const other = await h.connectedUser({
      tier: "pro",
      instagram: DEMO_IG.creator.id,
      google: "104000000000000000002",
    });
    creator = other;
    const ex = await openExport(DEMO_IG.creator.username);
    const first = await plan(other.token, other.accountId, ex);
    const items = first.body.items as PlanItem[];
    const archived = items.find((i) => i.kind === "archived_post" && i.files.length === 1);
    if (!archived) throw new Error("no archived post");
    const file = archived.files[0] as PlanItem["files"][number];
    const bytes = await ex.bytes(file.uri);
    expect(bytes.length).toBeGreaterThan(CHUNK + 16 * 1024);

    // The browser sends part of the file, then the tab is closed.
    const uploadsBefore = (
      await h.control<{ uploads: { upload_id: string }[] }>("/drive/uploads")
    ).uploads.map((u) => u.upload_id);
    const req = request(`${base}/api/import/items/${archived.id}/files/${file.key}`, {
      method: "PUT",
      headers: {
        authorization: `Bearer ${other.token}`,
        "content-type": "application/octet-stream",
        "content-length": String(bytes.length),
      },
    });
    req.on("error", () => {});
    req.write(bytes.subarray(0, CHUNK + 8 * 1024));
    // Drive holds the first whole chunk before the cut.
    const session = (await until(
      async () =>
        (
          await h.control<{ uploads: { upload_id: string; received: number }[] }>("/drive/uploads")
        ).uploads.find((u) => !uploadsBefore.includes(u.upload_id) && u.received >= CHUNK),
      (u) => u !== undefined,
      20_000,
    )) as { upload_id: string };
    req.destroy();
    await until(
      () =>
        t.ctx.db
          .selectFrom("import_files")
          .select(["lease_until", "upload_session_uri"])
          .where("item_id", "=", archived.id)
          .executeTakeFirstOrThrow(),
      (row) => row.lease_until === null && row.upload_session_uri !== null,
      20_000,
    );

    // Chosen again: the recorded session continues from Drive's 256 KiB.
    const again = await put(other.token, archived.id, file.key, bytes);
    expect(again.statusCode, again.body).toBe(200);
    expect(JSON.parse(again.body).item_completed).toBe(true);
    const { uploads } = await h.control<{
      uploads: { upload_id: string; file_id: string | null }[];
    }>("/drive/uploads");
    const fresh = uploads.filter((u) => !uploadsBefore.includes(u.upload_id));
    expect(fresh.map((u) => u.upload_id)).toEqual([session.upload_id]);
    const inDrive = (await h.driveFiles("maya.chen@example.com")).filter(
      (f) => f.appProperties.keepsakeMediaId === file.key,
    );
    expect(inDrive.length).toBe(1);
    expect(inDrive[0]?.md5Checksum).toBe(md5(bytes));
    expect(inDrive[0]?.name).toBe(file.name);
  });

  it("the same file sent at once through four processes (each its own pool): one upload, one file in Drive", async () => {
    // The creator's account and Drive, connected by the test before.
    const sam = creator as NonNullable<typeof creator>;
    const ex = await openExport(DEMO_IG.creator.username);
    const items = (await plan(sam.token, sam.accountId, ex)).body.items as PlanItem[];
    const item = items.find((i) => i.status === "pending" && i.files.length === 1);
    if (!item) throw new Error("no pending item with one file");
    const file = item.files[0] as PlanItem["files"][number];
    const bytes = await ex.bytes(file.uri);
    const uploadsBefore = (await h.control<{ uploads: { upload_id: string }[] }>("/drive/uploads"))
      .uploads.length;
    const peers = await peerApps(t, 3);
    try {
      const senders = [t, ...peers.apps, t, ...peers.apps];
      const answers = await Promise.all(
        senders.map((via) => put(sam.token, item.id, file.key, bytes, via)),
      );
      // One takes the file; the others find it taken (409, try again) or already done (200).
      for (const a of answers) expect([200, 409], a.body).toContain(a.statusCode);
      expect(answers.some((a) => a.statusCode === 200)).toBe(true);
    } finally {
      await peers.close();
    }
    const inDrive = (await h.driveFiles(DEMO_GOOGLE.maya.email)).filter(
      (f) => f.appProperties.keepsakeMediaId === file.key,
    );
    expect(inDrive.length).toBe(1);
    expect(inDrive[0]?.md5Checksum).toBe(md5(bytes));
    // Small files go up in one request; at most one upload session was opened for it.
    const uploadsAfter = (await h.control<{ uploads: unknown[] }>("/drive/uploads")).uploads.length;
    expect(uploadsAfter - uploadsBefore).toBeLessThanOrEqual(1);
  });

  it("a file Drive created before Keepsake recorded it is adopted, not uploaded again", async () => {
    const ex = await openExport(DEMO_IG.business.username);
    const items = (await plan(user.token, user.accountId, ex)).body.items as PlanItem[];
    const story = items.find((i) => i.kind === "story") as PlanItem;
    const key = story.files[0]?.key as string;
    // As if the process died between Drive's answer and the record of the file.
    await t.rows.import.updateFilesOfItem(story.id, { drive_file_id: null });
    await t.rows.import.updateItem(story.id, {
      status: "pending",
      sidecar_file_id: null,
      completed_at: null,
    });
    const before = (await h.driveFiles()).length;
    const res = await put(user.token, story.id, key, await ex.bytes(story.files[0]?.uri as string));
    expect(res.statusCode, res.body).toBe(200);
    expect((await h.driveFiles()).length).toBe(before);
  });

  it("applies the plan's post limit: on Free, items beyond the newest 100 posts are not imported", async () => {
    // The same user on Free, their earlier imports forgotten: 152 posts from the API already.
    await t.setTier(user.user.id, "free");
    await t.rows.import.deleteItemsOfAccount(user.accountId);
    const free = user;
    const ex = await openExport(DEMO_IG.business.username);
    const res = await plan(free.token, free.accountId, ex);
    expect(res.status).toBe(200);
    const items = res.body.items as PlanItem[];
    const story = items.find((i) => i.kind === "story") as PlanItem;
    expect(story.status).toBe("over_limit");
    expect(res.body.limit_note).toContain("limit of 100 posts");
    const refused = await put(
      free.token,
      story.id,
      story.files[0]?.key as string,
      await ex.bytes(story.files[0]?.uri as string),
    );
    expect(refused.statusCode).toBe(409);
    expect(JSON.parse(refused.body).detail).toContain("Upgrade to import it");
  });
});
