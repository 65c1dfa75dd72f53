import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDriveClient } from "../../src/providers/google/drive.client.ts";
import { backupHelpers, FAST_ENGINE, md5 } from "../support/backup.ts";
import { openExport, type PlanItem, planImport, putImportFile } from "../support/import-export.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

/**
 * Issue 38, the import through the destination seam: imported stories go where the API's
 * stories go (Keepsake / @user / YYYY); what an earlier version filed under YYYY / Stories is
 * recognised by its tags, never uploaded again, never deleted. An import's files record the
 * account of the destination they were written in: connected again as another account
 * mid-import, what is in the first account is asked for again and the item written whole in
 * the new one.
 */
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;

beforeAll(async () => {
  t = await createSandboxedApp({}, { engineSettings: FAST_ENGINE });
  h = backupHelpers(t);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe("imported stories and the Stories folder of earlier versions", () => {
  it("a story already under YYYY/Stories is adopted with its sidecar; new ones go to YYYY", async () => {
    const user = await h.connectedUser({ tier: "pro" });
    const ex = await openExport(t, DEMO_IG.business.username);
    const planned = await planImport(t, user.token, user.accountId, ex);
    expect(planned.status).toBe(200);
    const stories = (planned.body.items as PlanItem[]).filter(
      (i) => i.kind === "story" && i.status === "pending" && i.files.length === 1,
    );
    const [old, fresh] = stories as [PlanItem, PlanItem];
    expect(fresh).toBeDefined();
    const oldFile = old.files[0] as PlanItem["files"][number];
    const oldBytes = await ex.bytes(oldFile.uri);
    const { item_key: oldKey } = await t.ctx.db
      .selectFrom("import_items")
      .select("item_key")
      .where("id", "=", old.id)
      .executeTakeFirstOrThrow();

    // What an earlier version wrote for the old story: Keepsake / @user / YYYY / Stories, its
    // media and its sidecar, tagged as an import does, before it could record them.
    const drive = createDriveClient({ apisUrl: t.ctx.config.providers.google.apisUrl });
    const token = await t.ctx.connections.tokens.googleAccessToken(user.user.id);
    const year = old.taken_at.slice(0, 4);
    let parent = "root";
    const path: string[] = [];
    for (const name of ["Keepsake", `@${DEMO_IG.business.username}`, year, "Stories"]) {
      path.push(name);
      const folder = await drive.createFolder(token, {
        name,
        parents: [parent],
        appProperties: { keepsakeFolder: path.join("/") },
      });
      parent = folder.id;
    }
    const tags = { keepsakePostId: oldKey, keepsakeSource: "instagram-export" };
    const media = await drive.multipart(
      token,
      {
        name: oldFile.name,
        parents: [parent],
        createdTime: old.taken_at,
        modifiedTime: old.taken_at,
        appProperties: { keepsakeMediaId: oldFile.key, ...tags },
      },
      oldBytes,
      "image/jpeg",
    );
    const sidecar = await drive.multipart(
      token,
      {
        name: oldFile.name.replace(/\.\w+$/, "_meta.json"),
        parents: [parent],
        appProperties: { keepsakeMediaId: `${oldKey}_meta`, ...tags },
      },
      Buffer.from("{}"),
      "application/json",
    );
    // The request that wrote them had started the file (and died before recording it).
    await t.rows.import.updateFilesOfItem(old.id, { started_at: new Date() });
    const before = await h.driveFiles();

    const put = (item: PlanItem, bytes: Uint8Array) =>
      putImportFile(t, user.token, item.id, item.files[0]?.key as string, bytes);
    const adopted = await put(old, oldBytes);
    expect(adopted.statusCode, adopted.body).toBe(200);
    expect(adopted.json()).toMatchObject({ drive_file_id: media.id, item_completed: true });
    const oldItem = await t.ctx.db
      .selectFrom("import_items")
      .select(["status", "sidecar_file_id"])
      .where("id", "=", old.id)
      .executeTakeFirstOrThrow();
    expect(oldItem).toEqual({ status: "completed", sidecar_file_id: sidecar.id });
    // Nothing was written again, nothing removed or moved.
    const after = await h.driveFiles();
    expect(after.map((f) => [f.id, f.folder, f.trashed])).toEqual(
      before.map((f) => [f.id, f.folder, f.trashed]),
    );

    // A story imported now goes where the API's stories go, with its sidecar.
    const freshFile = fresh.files[0] as PlanItem["files"][number];
    const freshBytes = await ex.bytes(freshFile.uri);
    const imported = await put(fresh, freshBytes);
    expect(imported.statusCode, imported.body).toBe(200);
    const now = await h.driveFiles();
    const added = now.filter((f) => !before.some((b) => b.id === f.id));
    expect(added.map((f) => f.name).sort()).toEqual(
      [freshFile.name, freshFile.name.replace(/\.\w+$/, "_meta.json")].sort(),
    );
    const want = `Keepsake/@${DEMO_IG.business.username}/${fresh.taken_at.slice(0, 4)}`;
    for (const f of added) expect(f.folder).toBe(want);
    expect(added.find((f) => f.name === freshFile.name)?.md5Checksum).toBe(md5(freshBytes));

    // The same export again: both stories are there; Drive is unchanged.
    const again = await t.call("POST", `/api/import/accounts/${user.accountId}/plan`, {
      token: user.token,
      body: { paths: ex.paths, files: ex.files },
    });
    const statuses = (again.body.items as PlanItem[])
      .filter((i) => i.id === old.id || i.id === fresh.id)
      .map((i) => i.status);
    expect(statuses).toEqual(["completed", "completed"]);
    expect((await h.driveFiles()).map((f) => f.id)).toEqual(now.map((f) => f.id));
  });
});

describe("an import across a change of Google account", () => {
  it("an item half-imported when Drive is connected as another Google account is written whole into that one", async () => {
    const maya = await h.connectedUser({
      tier: "pro",
      instagram: DEMO_IG.creator.id,
      google: DEMO_GOOGLE.maya.sub,
    });
    const ex = await openExport(t, DEMO_IG.creator.username);
    const first = (await planImport(t, maya.token, maya.accountId, ex)).body.items as PlanItem[];
    // An item of several files whose first goes through an upload session (over the 256 KiB
    // of a single request here).
    let item: PlanItem | undefined;
    let bytes: Uint8Array = new Uint8Array();
    for (const i of first) {
      if (i.status !== "pending" || i.files.length < 2 || i.files.some((f) => f.done)) continue;
      bytes = await ex.bytes(i.files[0]?.uri as string);
      if (bytes.length > 300 * 1024) {
        item = i;
        break;
      }
    }
    if (!item) throw new Error("no item of several files, the first over 300 KiB, to import");
    const [one] = item.files as [PlanItem["files"][number]];
    const sent = await putImportFile(t, maya.token, item.id, one.key, bytes);
    expect(sent.statusCode, sent.body).toBe(200);
    expect(JSON.parse(sent.body).item_completed).toBe(false);

    // Sam's Google account now: the file in Maya's Drive is not in Sam's, so it is not done.
    await t.connectDrive(maya.token, DEMO_GOOGLE.sam.sub);
    const again = (await planImport(t, maya.token, maya.accountId, ex)).body.items as PlanItem[];
    const same = again.find((i) => i.id === item.id) as PlanItem;
    expect(same.files.map((f) => f.done)).toEqual(same.files.map(() => false));
    // Sent again, the upload is refused after its session opened (Sam's Drive is full): the
    // file is still not done, and no file id of Maya's Drive is taken for Sam's.
    await h.control("/faults", {
      body: {
        endpoint: "drive.upload.resumable.put",
        error: "drive:storageQuotaExceeded",
        count: 1,
      },
    });
    const refused = await putImportFile(t, maya.token, item.id, one.key, bytes);
    expect(refused.statusCode).not.toBe(200);
    await h.control("/faults", { method: "DELETE" });
    const row = await t.ctx.db
      .selectFrom("import_files")
      .select(["drive_file_id", "owner", "upload_session_uri"])
      .where("item_id", "=", item.id)
      .where("file_key", "=", one.key)
      .executeTakeFirstOrThrow();
    expect(row.drive_file_id).toBeNull();
    expect(row.owner).toBe(DEMO_GOOGLE.sam.sub);
    const third = (await planImport(t, maya.token, maya.accountId, ex)).body.items as PlanItem[];
    expect((third.find((i) => i.id === item.id) as PlanItem).files.map((f) => f.done)).toEqual(
      same.files.map(() => false),
    );
    let completed = false;
    for (const f of same.files) {
      const res = await putImportFile(t, maya.token, item.id, f.key, await ex.bytes(f.uri));
      expect(res.statusCode, res.body).toBe(200);
      completed = JSON.parse(res.body).item_completed;
    }
    expect(completed).toBe(true);
    const keys = same.files.map((f) => f.key);
    const inSam = (await h.driveFiles(DEMO_GOOGLE.sam.email)).filter(
      (f) => !f.trashed && keys.includes(f.appProperties.keepsakeMediaId ?? ""),
    );
    expect(inSam.map((f) => f.appProperties.keepsakeMediaId).sort()).toEqual([...keys].sort());
    const sidecar = (await h.driveFiles(DEMO_GOOGLE.sam.email)).filter(
      (f) =>
        f.name.endsWith("_meta.json") &&
        f.appProperties.keepsakePostId === inSam[0]?.appProperties.keepsakePostId,
    );
    expect(sidecar.length).toBe(1);
    // Maya's Drive keeps the one file it had; the imported post's backup is in Sam's account.
    const inMaya = (await h.driveFiles(DEMO_GOOGLE.maya.email)).filter((f) =>
      keys.includes(f.appProperties.keepsakeMediaId ?? ""),
    );
    expect(inMaya.map((f) => f.appProperties.keepsakeMediaId)).toEqual([one.key]);
    const backup = await t.ctx.db
      .selectFrom("backups as b")
      .innerJoin("posts as p", "p.id", "b.post_id")
      .select(["b.owner", "b.status"])
      .where("p.account_id", "=", maya.accountId)
      .where("p.instagram_id", "=", inSam[0]?.appProperties.keepsakePostId ?? "")
      .executeTakeFirstOrThrow();
    expect(backup).toEqual({ owner: DEMO_GOOGLE.sam.sub, status: "completed" });
  });
});
