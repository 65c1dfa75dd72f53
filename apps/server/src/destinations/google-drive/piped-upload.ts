import { createHash } from "node:crypto";
import type { DriveClient, DriveFile } from "../../providers/google/drive.client.ts";
import { isRetryable, ProviderError, retryAfterOf } from "../../providers/provider-error.ts";
import { abortableSleep, backoffDelay } from "../../providers/retry.ts";
import type { EngineSettings } from "../../sync/index.ts";
import { UploadSessionGoneError as SessionGoneError } from "../destination.ts";
import type { DriveCall } from "./caller.ts";

/** The resumable session is gone (expired or unknown): the item starts over. */
export { UploadSessionGoneError as SessionGoneError } from "../destination.ts";

/** An open resumable session and how many bytes Drive holds. */
export interface OpenSession {
  uri: string;
  total: number | null;
  received: number;
}

/** A chunk request was tried again after its body had been sent (a token refresh). */
class BodySpent extends Error {}

const cutShort = () =>
  new ProviderError("instagram", "network", "The download from the Instagram CDN was cut short");
const cdnBroke = () =>
  new ProviderError("instagram", "network", "The download from the Instagram CDN broke off");

/**
 * A download of known length piped into a resumable session, chunk by chunk: each chunk
 * request's body is the download's next bytes as they arrive, so nothing is held but the
 * sockets' buffers, whatever the file's size or the chunk's (issue 13), and the download runs
 * at the upload's pace. Every byte is hashed once, as it is read.
 *
 * Bytes that were sent are not kept, so when a chunk request breaks off, Drive is asked how
 * much it holds and the download starts again (a fresh md5 over every byte) and skips that
 * much. Drive's answer ends each pass: the file, with the md5 of what was read.
 */
export function createPipedUpload(deps: {
  drive: DriveClient;
  settings: Pick<EngineSettings, "backoff" | "sleep" | "random">;
  chunkBytes: number;
}) {
  const { drive, settings: s, chunkBytes } = deps;

  /** One read of the download from its first byte: skip what Drive holds, send the rest. */
  async function pass(args: {
    call: DriveCall;
    uri: string;
    total: number;
    held: number;
    download: Response;
    checkLease: () => void;
    signal?: AbortSignal;
  }): Promise<{ file: DriveFile; md5: string }> {
    const { call, uri, total, held, download, checkLease, signal } = args;
    if (!download.body) throw cdnBroke();
    const reader = download.body.getReader();
    const md5 = createHash("md5");
    let carry: Uint8Array | null = null;
    /** The next bytes of the download (hashed once, when read), or null at its end. */
    const next = async (): Promise<Uint8Array | null> => {
      if (carry) {
        const c = carry;
        carry = null;
        return c;
      }
      let r: Awaited<ReturnType<typeof reader.read>>;
      try {
        r = await reader.read();
      } catch {
        throw cdnBroke();
      }
      if (r.done) return null;
      md5.update(r.value);
      return r.value;
    };
    /** Consumes exactly `n` bytes, handing each piece to `use` (a piece never crosses `n`). */
    async function* take(n: number): AsyncGenerator<Uint8Array> {
      let left = n;
      while (left > 0) {
        const p = await next();
        if (!p) throw cutShort();
        if (p.length > left) {
          carry = p.subarray(left);
          yield p.subarray(0, left);
          left = 0;
        } else {
          left -= p.length;
          yield p;
        }
      }
    }

    try {
      for await (const _ of take(held)) {
        // Drive holds these bytes already: read for the md5 only.
      }
      let offset = held;
      let file: DriveFile | null = null;
      while (offset < total) {
        checkLease();
        const length = Math.min(chunkBytes, total - offset);
        let sent = false;
        const r = await call(
          (t) => {
            if (sent) throw new BodySpent();
            sent = true;
            return drive.putChunk(t, uri, { stream: take(length), length }, offset, total, signal);
          },
          { retry: false },
        );
        if (r === "gone") throw new SessionGoneError();
        if (r.done) {
          if (offset + length !== total) {
            throw new ProviderError("google", "transient", "Drive finished the upload early");
          }
          file = r.file;
          break;
        }
        if (r.received !== offset + length) {
          // Drive kept less than was sent: the rest goes again, from a fresh read.
          throw new ProviderError("google", "network", "Drive kept part of a chunk");
        }
        offset = r.received;
      }
      if ((await next()) !== null) {
        throw new ProviderError(
          "instagram",
          "transient",
          "The Instagram CDN sent more bytes than it announced",
        );
      }
      if (!file) {
        // Every byte was already in Drive (a resumed session): the status query finishes it.
        const st = await call((t) => drive.status(t, uri, total));
        if (st === "gone") throw new SessionGoneError();
        if (!st.done)
          throw new ProviderError("google", "transient", "Drive did not finish the upload");
        file = st.file;
      }
      return { file, md5: md5.digest("hex") };
    } finally {
      await reader.cancel().catch(() => {});
    }
  }

  /**
   * Sends the download into `session` (bytes Drive holds are skipped). A pass that breaks off
   * is followed, after a backoff, by Drive's count of what it holds and a fresh download from
   * `reopen`; after the engine's number of attempts the last failure is thrown. Aborting
   * `signal` (the worker shuts down) breaks the chunk request in flight off and ends the retries:
   * `checkLease` throws.
   */
  return async function pipe(args: {
    call: DriveCall;
    session: OpenSession;
    total: number;
    download: Response;
    reopen: () => Promise<Response>;
    checkLease: () => void;
    signal?: AbortSignal;
  }): Promise<{ file: DriveFile; md5: string }> {
    const { call, session, total, reopen, checkLease, signal } = args;
    const sleep = abortableSleep(s.sleep, signal);
    let held = session.received;
    let download = args.download;
    for (let attempt = 0; ; attempt++) {
      try {
        return await pass({
          call,
          uri: session.uri,
          total,
          held,
          download,
          checkLease,
          ...(signal ? { signal } : {}),
        });
      } catch (err) {
        const broke = err instanceof BodySpent || isRetryable(err);
        if (!broke || attempt + 1 >= s.backoff.attempts) throw err;
        checkLease();
        await sleep(retryAfterOf(err) ?? backoffDelay(attempt, s.backoff, s.random));
        const st = await call((t) => drive.status(t, session.uri, total));
        if (st === "gone") throw new SessionGoneError();
        held = st.done ? total : st.received;
        download = await reopen();
      }
    }
  };
}
