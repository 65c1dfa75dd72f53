import { randomBytes } from "node:crypto";
import { createDriveClient, FILE_FIELDS } from "../src/providers/google/drive.client.ts";
import { streamRequest } from "../src/providers/http.ts";
import { DEFAULT_ENGINE_SETTINGS } from "../src/sync/engine-settings.ts";

/**
 * The reference copy: each CDN download piped straight into one Drive upload request —
 * multipart for files up to the multipart limit, else a resumable session and one PUT of the
 * whole body — `parallel` at a time. No md5, no records, no retries.
 */
export async function plainPipedCopy(
  sandboxUrl: string,
  token: string,
  urls: string[],
  parallel: number,
) {
  const apis = `${sandboxUrl}/www.googleapis.com`;
  const drive = createDriveClient({ apisUrl: apis });
  let bytes = 0;
  const counted = async function* (body: ReadableStream<Uint8Array>) {
    for await (const piece of body) {
      bytes += piece.length;
      yield piece;
    }
  };
  const copyOne = async (url: string) => {
    const res = await fetch(url);
    const total = Number(res.headers.get("content-length"));
    const body = counted(res.body as ReadableStream<Uint8Array>);
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
    if (answer.status !== 200) throw new Error(`plain copy: Drive answered ${answer.status}`);
    await answer.arrayBuffer();
  };
  const queue = [...urls];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let u = queue.shift(); u; u = queue.shift()) await copyOne(u);
    }),
  );
  return { bytes, seconds: (performance.now() - t0) / 1000 };
}
