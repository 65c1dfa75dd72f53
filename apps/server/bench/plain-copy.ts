import { randomBytes } from "node:crypto";
import { createDriveClient, FILE_FIELDS } from "../src/providers/google/drive.client.ts";
import { streamRequest } from "../src/providers/http.ts";
import { DEFAULT_ENGINE_SETTINGS } from "../src/sync/engine-settings.ts";

/** A download's body, its bytes counted as they pass. */
export type CountedBody = AsyncIterable<Uint8Array>;

/** Copies one download (its body, of `total` bytes) into a destination, as file number `n`. */
export type PlainCopyOne = (body: CountedBody, total: number, n: number) => Promise<void>;

/** The answer of a plain copy's request, which must be one of `ok`; its body read and dropped. */
export async function expectAnswer(answer: Response, ok: number[], what: string) {
  if (!ok.includes(answer.status)) throw new Error(`plain copy: ${what} answered ${answer.status}`);
  await answer.arrayBuffer();
}

/**
 * The reference copy: each CDN download piped straight into the destination by `copyOne`,
 * `parallel` at a time. No hash check, no records, no retries, no Keepsake logic.
 */
export async function plainPipedCopy(urls: string[], parallel: number, copyOne: PlainCopyOne) {
  let bytes = 0;
  const counted = async function* (body: ReadableStream<Uint8Array>) {
    for await (const piece of body) {
      bytes += piece.length;
      yield piece;
    }
  };
  const queue = urls.map((url, n) => ({ url, n }));
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const res = await fetch(next.url);
        const total = Number(res.headers.get("content-length"));
        await copyOne(counted(res.body as ReadableStream<Uint8Array>), total, next.n);
      }
    }),
  );
  return { bytes, seconds: (performance.now() - t0) / 1000 };
}

/**
 * Google Drive: one upload request per file — multipart up to the multipart limit, else a
 * resumable session and one PUT of the whole body.
 */
export function drivePlainCopy(sandboxUrl: string, token: string): PlainCopyOne {
  const apis = `${sandboxUrl}/www.googleapis.com`;
  const drive = createDriveClient({ apisUrl: apis });
  return async (body, total) => {
    let answer: Response;
    if (total <= DEFAULT_ENGINE_SETTINGS.multipartMaxBytes) {
      const boundary = `plain_${randomBytes(8).toString("hex")}`;
      const head = Buffer.from(
        `--${boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${JSON.stringify({ name: "plain-copy" })}\r\n--${boundary}\r\nContent-Type: application/octet-stream\r\n\r\n`,
      );
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      const u = new URL(`${apis}/upload/drive/v3/files`);
      u.search = new URLSearchParams({ uploadType: "multipart", fields: FILE_FIELDS }).toString();
      answer = await streamRequest(u, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": `multipart/related; boundary=${boundary}`,
          "content-length": String(head.length + total + tail.length),
        },
        body: (async function* () {
          yield head;
          yield* body;
          yield tail;
        })(),
        timeoutMs: 120_000,
      });
    } else {
      const session = await drive.startResumable(
        token,
        { name: "plain-copy" },
        "application/octet-stream",
        total,
      );
      answer = await streamRequest(new URL(session), {
        method: "PUT",
        headers: {
          authorization: `Bearer ${token}`,
          "content-range": `bytes 0-${total - 1}/${total}`,
          "content-length": String(total),
        },
        body,
        timeoutMs: 120_000,
      });
    }
    await expectAnswer(answer, [200], "Drive");
  };
}
