import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { DEMO_GOOGLE } from "../src/index.ts";
import {
  bytes,
  type ControlDriveFile,
  driveHelpers,
  FOLDER,
  J,
  KiB,
  md5,
} from "./drive-helpers.ts";
import { type DriveError, json, useHarness } from "./helpers.ts";

const h = useHarness();
const { at, officialDrive, token } = driveHelpers(h);

describe("Drive v3 with the official client", () => {
  it("creates a folder, uploads, lists by appProperties and reads back md5Checksum", async () => {
    const drive = await officialDrive();
    const folder = await drive.files.create(
      {
        requestBody: { name: "Keepsake", mimeType: FOLDER, appProperties: { keepsakeRoot: "1" } },
        fields: "id,name,mimeType,appProperties",
      },
      at(),
    );
    expect(folder.data.mimeType).toBe(FOLDER);
    const content = bytes(300 * KiB);
    const created = await drive.files.create(
      {
        requestBody: {
          name: "2026-06-01_image_179.jpg",
          parents: [folder.data.id!],
          appProperties: { keepsakeMediaId: "179" },
          createdTime: "2026-06-01T10:00:00.000Z",
          modifiedTime: "2026-06-01T10:00:00.000Z",
          description: "Golden hour ✨",
        },
        media: { mimeType: "image/jpeg", body: Readable.from([content]) },
        fields:
          "id,name,size,md5Checksum,createdTime,modifiedTime,description,parents,appProperties",
      },
      at(),
    );
    expect(created.data.size).toBe(String(content.length));
    expect(created.data.md5Checksum).toBe(md5(content));
    expect(created.data.createdTime).toBe("2026-06-01T10:00:00.000Z");
    const list = await drive.files.list(
      {
        q: `appProperties has { key='keepsakeMediaId' and value='179' } and trashed = false and '${folder.data.id}' in parents`,
        fields: "nextPageToken,files(id,name,size,md5Checksum,appProperties)",
      },
      at(),
    );
    expect(list.data.files).toHaveLength(1);
    expect(list.data.files![0]!.md5Checksum).toBe(md5(content));
    expect(list.data.nextPageToken).toBeUndefined();
    const got = await drive.files.get(
      { fileId: created.data.id!, fields: "md5Checksum,size" },
      at(),
    );
    expect(got.data).toEqual({ md5Checksum: md5(content), size: String(content.length) });
    const media = await drive.files.get(
      { fileId: created.data.id!, alt: "media" },
      { responseType: "arraybuffer", ...at() },
    );
    expect(Buffer.from(media.data as unknown as ArrayBuffer)).toEqual(content);
    const listing = await h.ctl<{ files: ControlDriveFile[] }>("drive/files");
    const row = listing.files.find((f) => f.id === created.data.id);
    expect(row).toMatchObject({
      ownerEmail: J.email,
      folder: "Keepsake",
      name: "2026-06-01_image_179.jpg",
      size: content.length,
      md5Checksum: md5(content),
      description: "Golden hour ✨",
    });
    await drive.files.delete({ fileId: folder.data.id! }, at());
    expect((await h.ctl<{ files: ControlDriveFile[] }>("drive/files")).files).toHaveLength(0);
  });

  it("pages lists and applies fields; without fields a file has kind,id,name,mimeType", async () => {
    const drive = await officialDrive();
    for (const name of ["a", "b", "c"])
      await drive.files.create({ requestBody: { name, mimeType: FOLDER } }, at());
    const p1 = await drive.files.list(
      { pageSize: 2, q: "name = 'a' or name = 'b' or name = 'c'" },
      at(),
    );
    expect(p1.data.files).toHaveLength(2);
    expect(Object.keys(p1.data.files![0]!).sort()).toEqual(["id", "kind", "mimeType", "name"]);
    const p2 = await drive.files.list(
      {
        pageSize: 2,
        pageToken: p1.data.nextPageToken!,
        q: "name = 'a' or name = 'b' or name = 'c'",
      },
      at(),
    );
    expect(p2.data.files).toHaveLength(1);
    expect(p2.data.nextPageToken).toBeUndefined();
    const escaped = await drive.files.create(
      { requestBody: { name: "it's", mimeType: FOLDER } },
      at(),
    );
    const found = await drive.files.list({ q: "name = 'it\\'s'", fields: "files(id)" }, at());
    expect(found.data.files).toEqual([{ id: escaped.data.id }]);
    await expect(drive.files.list({ q: "bogus ~ 1" }, at())).rejects.toMatchObject({ status: 400 });
    await expect(drive.files.get({ fileId: "nope" }, at())).rejects.toMatchObject({ status: 404 });
  });

  it("only shows a user the files of this app and user (drive.file)", async () => {
    const jordan = await officialDrive(J.sub);
    await jordan.files.create({ requestBody: { name: "mine", mimeType: FOLDER } }, at());
    const maya = await officialDrive(DEMO_GOOGLE.maya.sub);
    const seen = await maya.files.list({ q: "name = 'mine'" }, at());
    expect(seen.data.files).toEqual([]);
  });

  it("answers 401 without or with a bad token and 403 when drive.file was not granted", async () => {
    const none = await fetch(`${h.url}/www.googleapis.com/drive/v3/files`);
    expect(none.status).toBe(401);
    expect((await json<DriveError>(none)).error.errors[0]!.reason).toBe("required");
    const bad = await fetch(`${h.url}/www.googleapis.com/drive/v3/files`, {
      headers: { authorization: "Bearer ya29.nope" },
    });
    expect((await json<DriveError>(bad)).error.errors[0]!.reason).toBe("authError");
    const noDrive = await token(J.sub, false);
    const res = await fetch(`${h.url}/www.googleapis.com/drive/v3/files`, {
      headers: { authorization: `Bearer ${noDrive}` },
    });
    expect(res.status).toBe(403);
    expect((await json<DriveError>(res)).error.errors[0]!.reason).toBe("insufficientPermissions");
  });
});

describe("Drive quota", () => {
  it("storageQuotaExceeded on multipart and on resumable start once the drive is full", async () => {
    const tok = await token();
    await h.ctl("drive/quota", { email: J.email, fill: true });
    const init = await fetch(
      `${h.url}/www.googleapis.com/upload/drive/v3/files?uploadType=resumable`,
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${tok}`,
          "content-type": "application/json",
          "x-upload-content-length": "1000",
        },
        body: JSON.stringify({ name: "x" }),
      },
    );
    expect(init.status).toBe(403);
    expect((await json<DriveError>(init)).error.errors[0]!.reason).toBe("storageQuotaExceeded");
    const drive = await officialDrive();
    await expect(
      drive.files.create(
        { requestBody: { name: "y" }, media: { mimeType: "text/plain", body: "hello" } },
        at(),
      ),
    ).rejects.toMatchObject({ status: 403 });
    const about = await json<{ storageQuota: { limit: string; usage: string } }>(
      fetch(`${h.url}/www.googleapis.com/drive/v3/about?fields=storageQuota`, {
        headers: { authorization: `Bearer ${tok}` },
      }),
    );
    expect(about.storageQuota.usage).toBe(about.storageQuota.limit);
    await h.ctl("drive/quota", { email: J.email, free_bytes: 10_000 });
    const ok = await drive.files.create(
      {
        requestBody: { name: "y" },
        media: { mimeType: "text/plain", body: "hello" },
        fields: "size",
      },
      at(),
    );
    expect(ok.data.size).toBe("5");
  });
});
