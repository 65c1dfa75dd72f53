import { randomBytes } from "node:crypto";
import {
  type FetchLike,
  failure,
  PROVIDER_TIMEOUT_MS,
  readJson,
  send as sendRequest,
  sendStream,
} from "../http.ts";
import { googleError, ProviderError } from "../provider-error.ts";

export const FOLDER_MIME = "application/vnd.google-apps.folder";
/** Resumable chunks must be multiples of this, except the last. */
export const RESUMABLE_QUANTUM = 256 * 1024;
export const FILE_FIELDS =
  "id,name,mimeType,size,md5Checksum,appProperties,parents,createdTime,modifiedTime,description,trashed,webViewLink";
/** What an upload's answer carries: enough to record the file and check its md5. */
export const UPLOAD_FIELDS = "id,md5Checksum,size,webViewLink";

export interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  size: number | null;
  md5Checksum: string | null;
  appProperties: Record<string, string>;
  parents: string[];
  createdTime: string | null;
  trashed: boolean;
  webViewLink: string | null;
}

/** What Drive stores about a new file. */
export interface DriveFileMetadata {
  name: string;
  mimeType?: string;
  parents?: string[];
  description?: string;
  createdTime?: string;
  modifiedTime?: string;
  appProperties?: Record<string, string>;
}

/** The state of a resumable session after a request. */
export type UploadProgress =
  | { done: true; file: DriveFile }
  | { done: false /** Bytes the server holds: the next chunk starts here. */; received: number };

function toFile(raw: unknown): DriveFile {
  const f = (raw ?? {}) as Record<string, unknown>;
  if (typeof f.id !== "string")
    throw new ProviderError("google", "unknown", "Drive returned a file without id");
  return {
    id: f.id,
    name: typeof f.name === "string" ? f.name : "",
    mimeType: typeof f.mimeType === "string" ? f.mimeType : "",
    size: typeof f.size === "string" || typeof f.size === "number" ? Number(f.size) : null,
    md5Checksum: typeof f.md5Checksum === "string" ? f.md5Checksum : null,
    appProperties: (f.appProperties as Record<string, string> | undefined) ?? {},
    parents: Array.isArray(f.parents) ? f.parents.map(String) : [],
    createdTime: typeof f.createdTime === "string" ? f.createdTime : null,
    trashed: f.trashed === true,
    webViewLink: typeof f.webViewLink === "string" ? f.webViewLink : null,
  };
}

/** `bytes=0-N` → N + 1; no header means nothing arrived. */
export function receivedFromRange(range: string | null): number {
  const m = range ? /bytes=(\d+)-(\d+)/.exec(range) : null;
  return m ? Number(m[2]) + 1 : 0;
}

const quote = (v: string) => `'${v.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

/** Media bytes at `buffer[start, start + length)`, with free room before and after them. */
export interface MediaInRoom {
  buffer: Buffer;
  start: number;
  length: number;
}

/** A multipart body: in the media's own buffer when its room fits the head and tail. */
function multipartBody(head: Buffer, media: Uint8Array | MediaInRoom, tail: Buffer): Buffer {
  if (media instanceof Uint8Array) return Buffer.concat([head, media, tail]);
  const { buffer, start, length } = media;
  const end = start + length;
  if (head.length > start || end + tail.length > buffer.length)
    return Buffer.concat([head, buffer.subarray(start, end), tail]);
  head.copy(buffer, start - head.length);
  tail.copy(buffer, end);
  return buffer.subarray(start - head.length, end + tail.length);
}

/** Google Drive v3: folders, multipart and resumable uploads, list, get, delete. HTTP only. */
export function createDriveClient(
  settings: { apisUrl: string },
  options: {
    fetch?: FetchLike;
    /** Told the outcome of each streamed upload request, which does not go through `fetch`. */
    recordStreamed?: (failed: boolean) => void;
    now?: () => number;
    timeoutMs?: number;
  } = {},
) {
  const fetchImpl = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const api = `${settings.apisUrl}/drive/v3`;
  const upload = `${settings.apisUrl}/upload/drive/v3/files`;
  const origin = new URL(settings.apisUrl).origin;
  const timeout = options.timeoutMs ?? PROVIDER_TIMEOUT_MS * 3;

  const DRIVE = { provider: "google", label: "Google Drive" } as const;
  const send = (url: string | URL, init: RequestInit) =>
    sendRequest(url, init, { ...DRIVE, fetch: fetchImpl, timeoutMs: timeout });
  const STREAMED = options.recordStreamed ? { ...DRIVE, record: options.recordStreamed } : DRIVE;

  /** A multipart upload's URL and the parts around its media: the metadata first, then the end. */
  function multipartFrame(meta: DriveFileMetadata, contentType: string) {
    const boundary = `keepsake_${randomBytes(12).toString("hex")}`;
    const head = Buffer.from(
      `--${boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${JSON.stringify(meta)}\r\n` +
        `--${boundary}\r\nContent-Type: ${contentType}\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const u = new URL(upload);
    u.search = new URLSearchParams({ uploadType: "multipart", fields: UPLOAD_FIELDS }).toString();
    return { boundary, head, tail, u };
  }

  async function fail(res: Response): Promise<never> {
    throw await failure(res, googleError, now());
  }

  async function json(res: Response): Promise<unknown> {
    if (!res.ok) await fail(res);
    return readJson(res);
  }

  const auth = (token: string, extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${token}`,
    ...extra,
  });

  function sessionUrl(uri: string): URL {
    const u = new URL(uri, settings.apisUrl);
    if (u.origin !== origin)
      throw new ProviderError("google", "unknown", "Unexpected upload session host");
    return u;
  }

  async function progress(res: Response): Promise<UploadProgress | "gone"> {
    if (res.status === 200 || res.status === 201)
      return { done: true, file: toFile(await readJson(res)) };
    if (res.status === 308) {
      await res.body?.cancel().catch(() => {});
      return { done: false, received: receivedFromRange(res.headers.get("range")) };
    }
    if (res.status === 404 || res.status === 410) {
      await res.body?.cancel().catch(() => {});
      return "gone";
    }
    return fail(res);
  }

  return {
    async list(token: string, q: string, pageSize = 100): Promise<DriveFile[]> {
      const out: DriveFile[] = [];
      let pageToken: string | undefined;
      do {
        const u = new URL(`${api}/files`);
        u.search = new URLSearchParams({
          q,
          fields: `nextPageToken,files(${FILE_FIELDS})`,
          pageSize: String(pageSize),
          orderBy: "createdTime",
          ...(pageToken ? { pageToken } : {}),
        }).toString();
        const body = (await json(await send(u, { headers: auth(token) }))) as {
          files?: unknown[];
          nextPageToken?: string;
        };
        out.push(...(body.files ?? []).map(toFile));
        pageToken = body.nextPageToken;
      } while (pageToken);
      return out;
    },

    /** Files (not trashed) tagged with `appProperties[key] = value`, oldest first. */
    findByAppProperty(token: string, key: string, value: string, extra: string[] = []) {
      const q = [
        `appProperties has { key=${quote(key)} and value=${quote(value)} }`,
        "trashed = false",
        ...extra,
      ].join(" and ");
      return this.list(token, q);
    },

    async get(token: string, id: string): Promise<DriveFile> {
      const u = new URL(`${api}/files/${encodeURIComponent(id)}`);
      u.searchParams.set("fields", FILE_FIELDS);
      return toFile(await json(await send(u, { headers: auth(token) })));
    },

    async remove(token: string, id: string): Promise<void> {
      const res = await send(`${api}/files/${encodeURIComponent(id)}`, {
        method: "DELETE",
        headers: auth(token),
      });
      if (res.status === 404) return;
      if (!res.ok) await fail(res);
      await res.body?.cancel().catch(() => {});
    },

    async createFolder(
      token: string,
      meta: Omit<DriveFileMetadata, "mimeType">,
    ): Promise<DriveFile> {
      const u = new URL(`${api}/files`);
      u.searchParams.set("fields", "id");
      const res = await send(u, {
        method: "POST",
        headers: auth(token, { "content-type": "application/json; charset=UTF-8" }),
        body: JSON.stringify({ ...meta, mimeType: FOLDER_MIME }),
      });
      return toFile(await json(res));
    },

    /** One request with the metadata and the bytes (small files). */
    /**
     * One request with the metadata and the media. Media given as a `MediaInRoom` is sent from
     * that buffer, the multipart head and tail written into its room around it: no copy of the
     * body is made (the backup engine reuses such buffers, issue 27).
     */
    async multipart(
      token: string,
      meta: DriveFileMetadata,
      media: Uint8Array | MediaInRoom,
      contentType: string,
    ): Promise<DriveFile> {
      const { boundary, head, tail, u } = multipartFrame(meta, contentType);
      const res = await send(u, {
        method: "POST",
        headers: auth(token, { "content-type": `multipart/related; boundary=${boundary}` }),
        body: multipartBody(head, media, tail),
      });
      return toFile(await json(res));
    },

    /**
     * `multipart` with the media streamed: the request's body is the multipart head, then the
     * media's `length` bytes as `media.stream` yields them, then the tail, each piece written as
     * it comes (nothing is gathered into one buffer). A failure of the stream aborts the request,
     * so Drive makes no file of a partial body.
     */
    async multipartStream(
      token: string,
      meta: DriveFileMetadata,
      media: PipedChunk,
      contentType: string,
      signal?: AbortSignal,
    ): Promise<DriveFile> {
      const { boundary, head, tail, u } = multipartFrame(meta, contentType);
      async function* body(): AsyncGenerator<Uint8Array> {
        yield head;
        yield* media.stream;
        yield tail;
      }
      const res = await sendStream(
        u,
        {
          method: "POST",
          headers: {
            ...auth(token),
            "content-type": `multipart/related; boundary=${boundary}`,
            "content-length": String(head.length + media.length + tail.length),
          },
          body: body(),
          timeoutMs: timeout,
          ...(signal ? { signal } : {}),
        },
        STREAMED,
      );
      return toFile(await json(res));
    },

    /** Replaces a file's content in place (same id): `PATCH upload/drive/v3/files/{id}?uploadType=media`. */
    async replaceFileMedia(
      token: string,
      fileId: string,
      media: Uint8Array,
      contentType: string,
    ): Promise<DriveFile> {
      const u = new URL(`${upload}/${encodeURIComponent(fileId)}`);
      u.search = new URLSearchParams({ uploadType: "media", fields: UPLOAD_FIELDS }).toString();
      const res = await send(u, {
        method: "PATCH",
        headers: auth(token, { "content-type": contentType }),
        body: media,
      });
      return toFile(await json(res));
    },

    /** Opens a resumable session; returns its URI (valid about a week). */
    async startResumable(
      token: string,
      meta: DriveFileMetadata,
      contentType: string,
      total: number | null,
    ): Promise<string> {
      const u = new URL(upload);
      u.search = new URLSearchParams({ uploadType: "resumable", fields: UPLOAD_FIELDS }).toString();
      const res = await send(u, {
        method: "POST",
        headers: auth(token, {
          "content-type": "application/json; charset=UTF-8",
          "x-upload-content-type": contentType,
          ...(total !== null ? { "x-upload-content-length": String(total) } : {}),
        }),
        body: JSON.stringify(meta),
      });
      if (!res.ok) await fail(res);
      await res.body?.cancel().catch(() => {});
      const location = res.headers.get("location");
      if (!location)
        throw new ProviderError("google", "unknown", "Drive did not return an upload session");
      return sessionUrl(location).toString();
    },

    /**
     * Sends bytes `start …` of the upload: `parts` in order, written as they are (no copy into
     * one buffer) through a streamed request, or a `PipedChunk` written as its pieces arrive. Non-final chunks must be multiples of 256 KiB;
     * the answer says how much the server really holds (resume from there).
     */
    async putChunk(
      token: string,
      session: string,
      parts: readonly Uint8Array[] | PipedChunk,
      start: number,
      total: number | null,
      signal?: AbortSignal,
    ): Promise<UploadProgress | "gone"> {
      const length =
        "length" in parts && !Array.isArray(parts)
          ? (parts as PipedChunk).length
          : (parts as readonly Uint8Array[]).reduce((n, p) => n + p.length, 0);
      const body = Array.isArray(parts) ? parts : (parts as PipedChunk).stream;
      const range =
        length === 0
          ? `bytes */${total ?? "*"}`
          : `bytes ${start}-${start + length - 1}/${total ?? "*"}`;
      const res = await sendStream(
        sessionUrl(session),
        {
          method: "PUT",
          headers: { ...auth(token), "content-range": range, "content-length": String(length) },
          body,
          timeoutMs: timeout,
          ...(signal ? { signal } : {}),
        },
        STREAMED,
      );
      return progress(res);
    },

    /** Asks where an interrupted session stands: done, continue from `received`, or gone. */
    async status(
      token: string,
      session: string,
      total: number | null,
    ): Promise<UploadProgress | "gone"> {
      const res = await send(sessionUrl(session), {
        method: "PUT",
        headers: auth(token, { "content-range": `bytes */${total ?? "*"}`, "content-length": "0" }),
      });
      return progress(res);
    },
  };
}

export type DriveClient = ReturnType<typeof createDriveClient>;

/** A chunk whose bytes are produced while it is sent (piped from a download). */
export interface PipedChunk {
  stream: AsyncIterable<Uint8Array>;
  length: number;
}
