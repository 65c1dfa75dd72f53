import { DropboxContentHasher } from "../../providers/dropbox/content-hash.ts";
import type {
  DropboxClient,
  DropboxCommit,
  DropboxFile,
} from "../../providers/dropbox/dropbox.client.ts";
import { hashMismatch } from "../../providers/dropbox/dropbox-upload.ts";
import { ProviderError } from "../../providers/provider-error.ts";
import type { DestinationCall } from "../caller.ts";
import { cdnReader } from "../google-drive/piped-small.ts";

const cutShort = () =>
  new ProviderError("instagram", "network", "The download from the Instagram CDN was cut short");

export const tooLong = () =>
  new ProviderError(
    "instagram",
    "transient",
    "The Instagram CDN sent more bytes than it announced",
  );

/**
 * A download of known length piped into one `files/upload` (as Drive's `pipeSmall`): nothing is
 * held but the piece in flight. Dropbox's content hash is computed as the bytes are sent (none
 * goes up front) and compared with the answer's; a file holding other bytes is removed and the
 * request fails as `content_hash_mismatch` (transient). Each try (a retry, a token refresh)
 * reads the download again from its first byte (`open`). A download that breaks off or differs
 * from its announced length aborts the request before its end, so Dropbox keeps no file of it.
 */
export function pipeSmall(
  client: DropboxClient,
  call: DestinationCall,
  commit: DropboxCommit,
  total: number,
  open: () => Promise<Response>,
  signal?: AbortSignal,
): Promise<DropboxFile> {
  return call(async (token) => {
    const { reader, read } = cdnReader(await open());
    let hash: string | null = null;
    async function* media(): AsyncGenerator<Uint8Array> {
      const hasher = new DropboxContentHasher();
      let position = 0;
      for (;;) {
        const r = await read();
        if (r.done) break;
        position += r.value.length;
        if (position > total) throw tooLong();
        hasher.update(r.value);
        // The last piece waits for the download's end: once it is sent the request is whole
        // and Dropbox would keep a file of a download that goes on past its announced length.
        if (position === total && !(await read()).done) throw tooLong();
        yield r.value;
      }
      if (position < total) throw cutShort();
      hash = hasher.digest();
    }
    let file: DropboxFile;
    try {
      file = await client.upload(token, commit, { stream: media(), length: total }, null, signal);
    } finally {
      await reader.cancel().catch(() => {});
    }
    if (hash === null)
      throw new ProviderError("dropbox", "transient", "Dropbox answered before the whole file");
    if (file.contentHash !== hash) {
      // `add` answers an existing file only when it holds the bytes sent: this one is new.
      if (commit.mode === "add") await client.remove(token, file.id);
      throw hashMismatch();
    }
    return file;
  });
}
