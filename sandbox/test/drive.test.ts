import { createHash } from "node:crypto";
import { request } from "node:http";
import { Readable } from "node:stream";
import { type drive_v3, drive as driveApi } from "@googleapis/drive";
import { OAuth2Client } from "google-auth-library";
import { describe, expect, it, vi } from "vitest";
import { SANDBOX_CREDENTIALS as C, DEMO_GOOGLE } from "../src/index.ts";
import { type DriveError, googleTokens, json, useHarness } from "./helpers.ts";

const h = useHarness();

/** Fields of a Drive file resource these tests read. */
interface DriveFile {
  id: string;
  name: string;
  size: string;
  md5Checksum: string;
}

/** A row of the control API's `drive/files` listing. */
interface ControlDriveFile {
  id: string;
  ownerEmail: string;
  folder: string;
  name: string;
  size: number;
  md5Checksum: string;
  description?: string;
}

const J = DEMO_GOOGLE.jordan;
const FOLDER = "application/vnd.google-apps.folder";
const KiB = 1024;
const at = () => ({ rootUrl: `${h.url}/www.googleapis.com/` });
const md5 = (b: Buffer) => createHash("md5").update(b).digest("hex");
const bytes = (n: number, seed = 7) => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
};

/**
 * Note: googleapis-common's *global* `rootUrl` keeps only the origin of the URL (the host prefix is lost)
 * and does not rewrite upload URLs, so the root URL is passed per request, as Keepsake must do too.
 */
async function officialDrive(sub: string = J.sub): Promise<drive_v3.Drive> {
  const t = await googleTokens(h, sub);
  const auth = new OAuth2Client({
    clientId: C.google.clientId,
    clientSecret: C.google.clientSecret,
    endpoints: { oauth2TokenUrl: `${h.url}/oauth2.googleapis.com/token` },
  });
  auth.setCredentials({ refresh_token: t.refresh_token });
  return driveApi({ version: "v3", auth });
}

async function token(sub: string = J.sub, drive = true): Promise<string> {
  return (await googleTokens(h, sub, drive)).access_token;
}

async function startResumable(
  tok: string,
  total?: number,
  meta: Record<string, unknown> = { name: "clip.mp4" },
): Promise<string> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${tok}`,
    "content-type": "application/json; charset=UTF-8",
    "x-upload-content-type": "video/mp4",
  };
  if (total !== undefined) headers["x-upload-content-length"] = String(total);
  const res = await fetch(
    `${h.url}/www.googleapis.com/upload/drive/v3/files?uploadType=resumable&fields=id,name,size,md5Checksum`,
    { method: "POST", headers, body: JSON.stringify(meta) },
  );
  expect(res.status).toBe(200);
  return res.headers.get("location")!;
}

function put(session: string, body: Buffer, range: string): Promise<Response> {
  return fetch(session, { method: "PUT", headers: { "content-range": range }, body });
}

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

describe("Drive resumable upload protocol", () => {
  it("308 with Range for chunks, 200 with the file at the end", async () => {
    const tok = await token();
    const data = bytes(600 * KiB);
    const session = await startResumable(tok, data.length);
    const r1 = await put(
      session,
      data.subarray(0, 256 * KiB),
      `bytes 0-${256 * KiB - 1}/${data.length}`,
    );
    expect(r1.status).toBe(308);
    expect(r1.headers.get("range")).toBe(`bytes=0-${256 * KiB - 1}`);
    const r2 = await put(
      session,
      data.subarray(256 * KiB),
      `bytes ${256 * KiB}-${data.length - 1}/${data.length}`,
    );
    expect(r2.status).toBe(200);
    expect(await r2.json()).toEqual({
      id: expect.any(String),
      name: "clip.mp4",
      size: String(data.length),
      md5Checksum: md5(data),
    });
    // The session keeps answering with the file.
    const again = await put(session, Buffer.alloc(0), `bytes */${data.length}`);
    expect(again.status).toBe(200);
  });

  it("refuses non-final chunks under 256 KiB and commits only whole 256 KiB blocks", async () => {
    const tok = await token();
    const data = bytes(1024 * KiB);
    const session = await startResumable(tok, data.length);
    const small = await put(
      session,
      data.subarray(0, 100 * KiB),
      `bytes 0-${100 * KiB - 1}/${data.length}`,
    );
    expect(small.status).toBe(400);
    const odd = await put(
      session,
      data.subarray(0, 300 * KiB),
      `bytes 0-${300 * KiB - 1}/${data.length}`,
    );
    expect(odd.status).toBe(308);
    expect(odd.headers.get("range")).toBe(`bytes=0-${256 * KiB - 1}`);
    // Resume from the server's Range (re-sending overlap is fine).
    const rest = await put(
      session,
      data.subarray(256 * KiB),
      `bytes ${256 * KiB}-${data.length - 1}/${data.length}`,
    );
    expect(rest.status).toBe(200);
    expect((await json<DriveFile>(rest)).md5Checksum).toBe(md5(data));
  });

  it("a gap beyond the received bytes is an error", async () => {
    const tok = await token();
    const data = bytes(800 * KiB);
    const session = await startResumable(tok, data.length);
    const gap = await put(
      session,
      data.subarray(512 * KiB),
      `bytes ${512 * KiB}-${data.length - 1}/${data.length}`,
    );
    expect(gap.status).toBe(400);
  });

  it("after a cut connection, a status query tells where to resume", async () => {
    const tok = await token();
    const data = bytes(1024 * KiB, 3);
    const session = await startResumable(tok, data.length);
    const status0 = await put(session, Buffer.alloc(0), `bytes */${data.length}`);
    expect(status0.status).toBe(308);
    expect(status0.headers.get("range")).toBeNull();
    await h.ctl("drive/cut", { after_bytes: 600 * KiB });
    await expect(put(session, data, `bytes 0-${data.length - 1}/${data.length}`)).rejects.toThrow();
    const status = await put(session, Buffer.alloc(0), `bytes */${data.length}`);
    expect(status.status).toBe(308);
    expect(status.headers.get("range")).toBe(`bytes=0-${512 * KiB - 1}`);
    const from = 512 * KiB;
    const done = await put(
      session,
      data.subarray(from),
      `bytes ${from}-${data.length - 1}/${data.length}`,
    );
    expect(done.status).toBe(200);
    expect((await json<DriveFile>(done)).md5Checksum).toBe(md5(data));
  });

  it("a client that dies mid-chunk leaves only whole blocks, and the upload resumes cleanly", async () => {
    const tok = await token();
    const data = bytes(1024 * KiB, 5);
    const session = await startResumable(tok, data.length);
    // Announce the whole file, send 300 KiB, then vanish (as a killed worker would).
    const req = request(session, {
      method: "PUT",
      headers: {
        "content-range": `bytes 0-${data.length - 1}/${data.length}`,
        "content-length": String(data.length),
      },
    });
    req.on("error", () => {});
    await new Promise<void>((resolve) => req.write(data.subarray(0, 300 * KiB), () => resolve()));
    // Let the server read the bytes in flight first (a reset discards what it has not read):
    // the control API shows how much of the open request it has read.
    await vi.waitFor(
      async () => {
        const { uploads } = await h.ctl<{ uploads: { upload_id: string; in_flight: number }[] }>(
          "drive/uploads",
          undefined,
          "GET",
        );
        const open = uploads.find((u) => session.includes(u.upload_id));
        expect(open?.in_flight).toBeGreaterThanOrEqual(300 * KiB);
      },
      { timeout: 3000, interval: 20 },
    );
    req.destroy();
    // The server keeps the whole 256 KiB units it received before the cut.
    await vi.waitFor(
      async () => {
        const res = await put(session, Buffer.alloc(0), `bytes */${data.length}`);
        expect(res.headers.get("range")).toBe(`bytes=0-${256 * KiB - 1}`);
      },
      { timeout: 3000, interval: 50 },
    );
    const from = 256 * KiB;
    const done = await put(
      session,
      data.subarray(from),
      `bytes ${from}-${data.length - 1}/${data.length}`,
    );
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({ size: String(data.length), md5Checksum: md5(data) });
  });

  it("sessions expire after a week (404: start again)", async () => {
    const tok = await token();
    const session = await startResumable(tok, 10);
    await h.ctl("clock", { advance_seconds: 7 * 86_400 + 1 });
    const res = await put(session, bytes(10), "bytes 0-9/10");
    expect(res.status).toBe(404);
    const other = await startResumable(await token(), 10);
    await h.ctl("drive/uploads/expire", {});
    expect((await put(other, bytes(10), "bytes 0-9/10")).status).toBe(404);
  });

  it("unknown total: the last chunk declares it", async () => {
    const tok = await token();
    const data = bytes(300 * KiB);
    const session = await startResumable(tok);
    const r1 = await put(session, data.subarray(0, 256 * KiB), `bytes 0-${256 * KiB - 1}/*`);
    expect(r1.status).toBe(308);
    const r2 = await put(
      session,
      data.subarray(256 * KiB),
      `bytes ${256 * KiB}-${data.length - 1}/${data.length}`,
    );
    expect(r2.status).toBe(200);
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
