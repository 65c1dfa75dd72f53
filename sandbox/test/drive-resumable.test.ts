import { request } from "node:http";
import { describe, expect, it, vi } from "vitest";
import { bytes, type DriveFile, driveHelpers, KiB, md5 } from "./drive-helpers.ts";
import { json, useHarness } from "./helpers.ts";

const h = useHarness();
const { token, startResumable, put } = driveHelpers(h);

/** The session (by its URL) as the control API lists it. */
async function upload(session: string) {
  const { uploads } = await h.ctl<{
    uploads: { upload_id: string; in_flight: number; requests: number }[];
  }>("drive/uploads", undefined, "GET");
  return uploads.find((u) => session.includes(u.upload_id));
}

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
        const open = await upload(session);
        expect(open?.in_flight).toBeGreaterThanOrEqual(300 * KiB);
        expect(open?.requests).toBe(1);
      },
      { timeout: 3000, interval: 20 },
    );
    req.destroy();
    // Once the server has finished with the broken-off request, it has kept the whole 256 KiB
    // units it received before the cut.
    await vi.waitFor(async () => expect((await upload(session))?.requests).toBe(0), {
      timeout: 3000,
      interval: 20,
    });
    const status = await put(session, Buffer.alloc(0), `bytes */${data.length}`);
    expect(status.headers.get("range")).toBe(`bytes=0-${256 * KiB - 1}`);
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
