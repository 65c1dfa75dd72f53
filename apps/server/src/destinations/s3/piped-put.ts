import { createHash } from "node:crypto";
import { ProviderError } from "../../providers/provider-error.ts";
import type { S3DestinationClient, S3Write } from "../../providers/s3/s3.client.ts";
import { S3KeyTakenError } from "../../providers/s3/s3-upload.ts";
import type { DestinationCall } from "../caller.ts";

const cdnBroke = () =>
  new ProviderError("instagram", "network", "The download from the Instagram CDN broke off");

/**
 * A download's bytes as they arrive, exactly `total` of them: one that breaks off or is cut
 * short throws `network`, one longer than announced `transient` (before its extra bytes).
 */
async function* media(reader: ReadableStreamDefaultReader<Uint8Array>, total: number) {
  let position = 0;
  for (;;) {
    let r: Awaited<ReturnType<typeof reader.read>>;
    try {
      r = await reader.read();
    } catch {
      throw cdnBroke();
    }
    if (r.done) break;
    position += r.value.length;
    if (position > total)
      throw new ProviderError(
        "instagram",
        "transient",
        "The Instagram CDN sent more bytes than it announced",
      );
    yield r.value;
  }
  if (position < total)
    throw new ProviderError(
      "instagram",
      "network",
      "The download from the Instagram CDN was cut short",
    );
}

/** The md5 (hex) of a whole download, read piece by piece (nothing held). */
async function md5Of(download: Response, total: number): Promise<string> {
  if (!download.body) throw cdnBroke();
  const reader = download.body.getReader();
  const hash = createHash("md5");
  try {
    for await (const piece of media(reader, total)) hash.update(piece);
  } finally {
    await reader.cancel().catch(() => {});
  }
  return hash.digest("hex");
}

/**
 * A download of known length that fits one part, piped into one PutObject as it arrives
 * (`putStream`: its md5 computed on the way and checked against the ETag), so nothing is held
 * but the piece in flight. Each try of the request (the caller's retries, keys read again)
 * reads the download again from its first byte. A download that breaks off or differs from its
 * length aborts the request before its end, so S3 keeps no object of it. A key already taken
 * (`If-None-Match: *`) throws `S3KeyTakenError` with the md5 of the bytes, read once more (a
 * retry after a kill, or another file of the same name: rare) to compare with what is there.
 */
export async function pipePut(args: {
  call: DestinationCall<S3DestinationClient>;
  key: string;
  write: S3Write;
  total: number;
  download: Response;
  reopen: () => Promise<Response>;
  /** Runs before each try sends a byte (a lost claim throws there). */
  beforePut: () => void;
}): Promise<{ etag: string; size: number }> {
  const { key, write, total } = args;
  let first: Response | null = args.download;
  try {
    const { etag } = await args.call(async (c) => {
      const download = first ?? (await args.reopen());
      first = null;
      if (!download.body) throw cdnBroke();
      const reader = download.body.getReader();
      try {
        args.beforePut();
        return await c.putStream(key, media(reader, total), total, write);
      } finally {
        await reader.cancel().catch(() => {});
      }
    });
    return { etag, size: total };
  } catch (err) {
    if (err instanceof ProviderError && err.code === "exists" && !write.overwrite)
      throw new S3KeyTakenError(key, {
        etag: await md5Of(await args.reopen(), total),
        size: total,
      });
    throw err;
  } finally {
    await (first as Response | null)?.body?.cancel().catch(() => {});
  }
}
