import {
  compactExportJson,
  exportJsonPaths,
  exportPlanPaths,
} from "@keepsake/contracts/instagram-export";
import { DEMO_IG } from "@keepsake/sandbox";
import { TextWriter, Uint8ArrayReader, Uint8ArrayWriter, ZipReader } from "@zip.js/zip.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDriveClient } from "../src/providers/google/drive.client.ts";
import { backupHelpers, FAST_ENGINE, md5 } from "./support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "./support/sandbox.ts";

/**
 * Issue 38: imported stories go where the API's stories go (Keepsake / @user / YYYY). What an
 * earlier version filed under YYYY / Stories is recognised by its tags: never uploaded again,
 * never deleted.
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

/** The business account's export, as the browser sends its plan, and its files' bytes. */
async function openExport() {
  const res = await fetch(
    `${t.sandbox.url}/_control/instagram/${DEMO_IG.business.username}/export.zip`,
  );
  expect(res.status).toBe(200);
  const zip = new ZipReader(new Uint8ArrayReader(new Uint8Array(await res.arrayBuffer())));
  const entries = await zip.getEntries();
  const byPath = new Map(entries.map((e) => [e.filename, e]));
  const paths = exportPlanPaths(entries.map((e) => e.filename));
  const files = [];
  for (const path of exportJsonPaths(paths)) {
    const entry = byPath.get(path);
    if (entry && !entry.directory)
      files.push({ path, text: compactExportJson(await entry.getData(new TextWriter())) });
  }
  return {
    paths,
    files,
    async bytes(path: string) {
      const entry = byPath.get(path);
      if (!entry || entry.directory) throw new Error(`no ${path}`);
      return entry.getData(new Uint8ArrayWriter());
    },
  };
}

type PlanItem = {
  id: string;
  kind: string;
  status: string;
  taken_at: string;
  files: { key: string; uri: string; name: string }[];
};

describe("imported stories and the Stories folder of earlier versions", () => {
  it("a story already under YYYY/Stories is adopted with its sidecar; new ones go to YYYY", async () => {
    const user = await h.connectedUser({ tier: "pro" });
    const ex = await openExport();
    const planned = await t.call("POST", `/api/import/accounts/${user.accountId}/plan`, {
      token: user.token,
      body: { paths: ex.paths, files: ex.files },
    });
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
      t.app.inject({
        method: "PUT",
        url: `/api/import/items/${item.id}/files/${encodeURIComponent(item.files[0]?.key as string)}`,
        headers: {
          authorization: `Bearer ${user.token}`,
          "content-type": "application/octet-stream",
        },
        payload: Buffer.from(bytes),
      });
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
