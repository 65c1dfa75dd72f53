import { createHash } from "node:crypto";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BackupItem } from "../../src/backups/naming.ts";
import type { DriveCall } from "../../src/destinations/google-drive/caller.ts";
import { createUploader, type UploadLedger } from "../../src/destinations/google-drive/upload.ts";
import { createDriveClient } from "../../src/providers/google/drive.client.ts";
import { DEFAULT_ENGINE_SETTINGS } from "../../src/sync/engine-settings.ts";

/**
 * A small file of known length goes to Drive as its download arrives (issue 27): the memory a
 * small upload holds is the piece in flight, not the whole file (nor a copy of it).
 */

const PIECE = 64 * 1024;
const PIECES = 16;

/** A Drive stand-in: multipart uploads, counted as they arrive; answers with the body's md5. */
let server: http.Server;
let apisUrl: string;
const requests: { received: number; complete: boolean }[] = [];
let onBytes: () => void = () => {};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const r = { received: 0, complete: false };
    requests.push(r);
    const parts: Buffer[] = [];
    req.on("error", () => {});
    req.on("data", (d: Buffer) => {
      parts.push(d);
      r.received += d.length;
      onBytes();
    });
    req.on("end", () => {
      r.complete = true;
      const body = Buffer.concat(parts);
      const boundary = /boundary=(\S+)/.exec(req.headers["content-type"] ?? "")?.[1] ?? "";
      const start = body.indexOf("\r\n\r\n", body.indexOf(`--${boundary}`, 1)) + 4;
      const end = body.lastIndexOf(`\r\n--${boundary}--`);
      const md5 = createHash("md5").update(body.subarray(start, end)).digest("hex");
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({ id: `file${requests.length}`, md5Checksum: md5, size: end - start }),
      );
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  apisUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server?.closeAllConnections();
  server?.close();
});

function upload() {
  return createUploader({
    drive: createDriveClient({ apisUrl }),
    settings: { ...DEFAULT_ENGINE_SETTINGS, sleep: async () => {} },
  });
}
const call: DriveCall = (fn) => fn("token");
const ledger = {
  record: async (_item: BackupItem, file: { id: string; md5Checksum: string | null }) => file,
} as unknown as UploadLedger;
const item = { key: "m1", kind: "media", name: "m1.jpg" } as unknown as BackupItem;

/** A CDN download of `PIECES` pieces whose next piece waits for `gate` (given the piece's index). */
function download(gate: (index: number) => Promise<void>, pieces = PIECES): Response {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      if (i === pieces) return c.close();
      await gate(i);
      c.enqueue(new Uint8Array(PIECE).fill(i));
      i++;
    },
  });
  return new Response(body, { headers: { "content-length": String(PIECE * PIECES) } });
}

/** Resolves once Drive has received `n` bytes of the latest request. */
function driveHolds(n: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if ((requests.at(-1)?.received ?? 0) >= n) {
        onBytes = () => {};
        resolve();
      }
    };
    onBytes = check;
    check();
  });
}

describe("a small file of known length", () => {
  it("is sent in one request while it downloads: each piece reaches Drive before the next is read", async () => {
    const before = requests.length;
    const res = download(async (i) => {
      // The pieces before this one must be in Drive already (with the multipart head, more than
      // i pieces' worth of bytes): an uploader that read the whole file first would wait here.
      if (i > 0) await driveHolds(i * PIECE);
    });
    const file = await upload()({
      call,
      ledger,
      item,
      meta: { name: "m1.jpg", mimeType: "image/jpeg" },
      resume: null,
      download: res,
      reopen: () => Promise.reject(new Error("no second download")),
      checkLease: () => {},
    });
    expect(requests.length - before).toBe(1);
    const expected = createHash("md5");
    for (let i = 0; i < PIECES; i++) expected.update(new Uint8Array(PIECE).fill(i));
    expect(file).toMatchObject({ md5Checksum: expected.digest("hex") });
  });

  it("cut short: the request is aborted before its end, so Drive makes no file of it", async () => {
    const before = requests.length;
    const res = download(async () => {}, PIECES / 2);
    await expect(
      upload()({
        call,
        ledger,
        item,
        meta: { name: "m2.jpg", mimeType: "image/jpeg" },
        resume: null,
        download: res,
        reopen: () => Promise.reject(new Error("no second download")),
        checkLease: () => {},
      }),
    ).rejects.toThrow(/cut short/);
    expect(requests.length - before).toBeLessThanOrEqual(1);
    expect(requests.slice(before).every((r) => !r.complete)).toBe(true);
  });
});
