import { createHash } from "node:crypto";
import type {
  DriveClient,
  DriveFile,
  DriveFileMetadata,
} from "../../providers/google/drive.client.ts";
import { ProviderError } from "../../providers/provider-error.ts";
import type { DriveCall } from "./caller.ts";

const cdnBroke = () =>
  new ProviderError("instagram", "network", "The download from the Instagram CDN broke off");

/** A download's reader, whose failures (and a missing body) are the CDN breaking off. */
export function cdnReader(download: Response) {
  if (!download.body) throw cdnBroke();
  const reader = download.body.getReader();
  const read = async () => {
    try {
      return await reader.read();
    } catch {
      throw cdnBroke();
    }
  };
  return { reader, read };
}

/** One multipart request fed from a download as it arrives (`pipeSmall` below). */
export function createPipedSmall(drive: DriveClient) {
  /**
   * A small download of known length piped into one multipart request (its metadata first):
   * nothing is held but the piece in flight, so the memory of small uploads does not grow with
   * their number or size (issue 27). Each try of the request (a retry, a token refresh) reads
   * the download again from its first byte, with a fresh md5; a download that breaks off or
   * differs from its announced length aborts the request before its end, so Drive keeps no
   * file of it.
   */
  async function pipeSmall(args: {
    call: DriveCall;
    meta: DriveFileMetadata;
    contentType: string;
    total: number;
    download: Response;
    reopen: () => Promise<Response>;
    signal?: AbortSignal;
  }): Promise<{ file: DriveFile; md5: string }> {
    const { call, meta, contentType, total, signal } = args;
    let first: Response | null = args.download;
    let md5: string | null = null;
    try {
      const file = await call(async (token) => {
        const download = first ?? (await args.reopen());
        first = null;
        md5 = null;
        const { reader, read } = cdnReader(download);
        async function* media(): AsyncGenerator<Uint8Array> {
          const hash = createHash("md5");
          let position = 0;
          for (;;) {
            const r = await read();
            if (r.done) break;
            position += r.value.length;
            if (position > total) {
              throw new ProviderError(
                "instagram",
                "transient",
                "The Instagram CDN sent more bytes than it announced",
              );
            }
            hash.update(r.value);
            yield r.value;
          }
          if (position < total) {
            throw new ProviderError(
              "instagram",
              "network",
              "The download from the Instagram CDN was cut short",
            );
          }
          md5 = hash.digest("hex");
        }
        try {
          return await drive.multipartStream(
            token,
            meta,
            { stream: media(), length: total },
            contentType,
            signal,
          );
        } finally {
          await reader.cancel().catch(() => {});
        }
      });
      if (md5 === null)
        throw new ProviderError("google", "transient", "Drive answered before the whole file");
      return { file, md5 };
    } finally {
      await (first as Response | null)?.body?.cancel().catch(() => {});
    }
  }

  return pipeSmall;
}
