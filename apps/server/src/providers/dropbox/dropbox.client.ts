import { createRequire } from "node:module";
import type * as DropboxSdk from "dropbox";
import type { files } from "dropbox";
import { CallInTransactionError } from "../../lib/transaction-scope.ts";
import type { PipedChunk } from "../google/drive.client.ts";
import {
  type FetchLike,
  failure,
  PROVIDER_TIMEOUT_MS,
  readJson,
  send,
  sendStream,
} from "../http.ts";
import { ProviderError } from "../provider-error.ts";
import { dropboxContentHash } from "./content-hash.ts";
import { correctOffsetOf, dropboxError } from "./dropbox-error.ts";
import type { DropboxSettings } from "./dropbox-oauth.client.ts";

/** The official SDK, loaded at its first call: a worker whose users never use Dropbox skips it. */
let sdkModule: typeof DropboxSdk | undefined;
const dropboxSdk = (): typeof DropboxSdk => {
  sdkModule ??= createRequire(import.meta.url)("dropbox") as typeof DropboxSdk;
  return sdkModule;
};

/** A file in the app folder, as Keepsake reads it. Paths are relative to the app folder. */
export interface DropboxFile {
  id: string;
  name: string;
  pathLower: string;
  pathDisplay: string;
  size: number;
  /** Dropbox's block SHA-256 (`DropboxContentHasher`). */
  contentHash: string | null;
  clientModified: string | null;
  rev: string | null;
}

export interface DropboxEntry {
  tag: "file" | "folder";
  id: string;
  pathLower: string;
  pathDisplay: string;
  /** Only for files. */
  file: DropboxFile | null;
}

/**
 * Where a new file goes: `add` never replaces another file (a different file there is a
 * `conflict`; the same bytes answer the file already there), `overwrite` replaces it in place
 * (same id; sidecars). `clientModified` is the post's time.
 */
export interface DropboxCommit {
  path: string;
  mode: "add" | "overwrite";
  clientModified?: Date | string;
}

/** A single request: Dropbox's `files/upload` takes at most 150 MB. */
export const DROPBOX_MAX_SINGLE = 150 * 1024 * 1024;

const iso = (t: Date | string | undefined) =>
  t === undefined ? undefined : new Date(t).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The `Dropbox-API-Arg` header: JSON with every non-ASCII character escaped, as Dropbox asks. */
export const headerJson = (value: unknown) =>
  JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );

function toFile(raw: unknown): DropboxFile {
  const f = (raw ?? {}) as Record<string, unknown>;
  if (typeof f.id !== "string" || typeof f.path_lower !== "string")
    throw new ProviderError("dropbox", "unknown", "Dropbox answered a file without id or path");
  return {
    id: f.id,
    name: typeof f.name === "string" ? f.name : "",
    pathLower: f.path_lower,
    pathDisplay: typeof f.path_display === "string" ? f.path_display : f.path_lower,
    size: typeof f.size === "number" ? f.size : 0,
    contentHash: typeof f.content_hash === "string" ? f.content_hash : null,
    clientModified: typeof f.client_modified === "string" ? f.client_modified : null,
    rev: typeof f.rev === "string" ? f.rev : null,
  };
}

function toEntry(raw: files.MetadataReference | Record<string, unknown>): DropboxEntry | null {
  const e = raw as Record<string, unknown>;
  const tag = e[".tag"];
  if (tag !== "file" && tag !== "folder") return null;
  return {
    tag,
    id: String(e.id ?? ""),
    pathLower: String(e.path_lower ?? ""),
    pathDisplay: String(e.path_display ?? e.path_lower ?? ""),
    file: tag === "file" ? toFile(e) : null,
  };
}

/** A failure of the SDK's calls as a ProviderError (its `DropboxResponseError` carries the answer). */
export function fromSdkError(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  const e = err as {
    status?: unknown;
    headers?: { get?: (n: string) => string | null };
    error?: unknown;
  };
  if (typeof e.status !== "number")
    return new ProviderError("dropbox", "unknown", "Dropbox could not be called");
  const classified = dropboxError(e.status, e.error);
  const after = e.headers?.get?.("retry-after");
  if (!after || !/^\d+$/.test(after)) return classified;
  const { status, code, subcode } = classified;
  return new ProviderError("dropbox", classified.kind, classified.message, {
    status,
    code,
    subcode,
    retryAfterMs: Number(after) * 1000,
  });
}

/**
 * Dropbox's files API inside the app folder. The RPC calls (metadata, listings, delete, the
 * account) go through the official `dropbox` SDK, given a fetch that maps Dropbox's hosts to the
 * configured base URLs and goes through `providers/http.ts` (time limits, the transaction guard,
 * network failures classified). Uploads do not: the SDK takes a whole body in memory and sends it
 * through `fetch`, which buffers it again; here each request's body is streamed from its pieces
 * (`sendStream`), as Drive's uploads are.
 */
export function createDropboxClient(
  settings: Pick<DropboxSettings, "apiUrl" | "contentUrl">,
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
  const timeout = options.timeoutMs ?? PROVIDER_TIMEOUT_MS * 3;
  const DROPBOX = { provider: "dropbox", label: "Dropbox" } as const;
  const STREAMED = options.recordStreamed
    ? { ...DROPBOX, record: options.recordStreamed }
    : DROPBOX;

  const hosts: [string, string][] = [
    ["https://api.dropboxapi.com/", `${settings.apiUrl}/`],
    ["https://content.dropboxapi.com/", `${settings.contentUrl}/`],
  ];
  const sdkFetch = (input: string | URL | Request, init?: RequestInit) => {
    let url = String(input);
    for (const [real, configured] of hosts) {
      if (url.startsWith(real)) url = configured + url.slice(real.length);
    }
    return send(url, init ?? {}, { ...DROPBOX, fetch: fetchImpl, timeoutMs: timeout });
  };
  const sdk = (token: string) =>
    new (dropboxSdk().Dropbox)({ accessToken: token, fetch: sdkFetch });
  async function rpc<T>(call: () => Promise<{ result: T }>): Promise<T> {
    try {
      return (await call()).result;
    } catch (err) {
      // A call refused inside a database transaction is a programming error: kept as it is.
      if (err instanceof CallInTransactionError) throw err;
      throw fromSdkError(err);
    }
  }

  /** One content call with a streamed body; answers the parsed JSON result. */
  async function content(
    token: string,
    route: string,
    arg: unknown,
    body: readonly Uint8Array[] | PipedChunk,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const parts = Array.isArray(body) ? (body as readonly Uint8Array[]) : null;
    const length = parts ? parts.reduce((n, p) => n + p.length, 0) : (body as PipedChunk).length;
    const res = await sendStream(
      new URL(`${settings.contentUrl}/2/${route}`),
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/octet-stream",
          "content-length": String(length),
          "dropbox-api-arg": headerJson(arg),
        },
        body: parts ?? (body as PipedChunk).stream,
        timeoutMs: timeout,
        ...(signal ? { signal } : {}),
      },
      STREAMED,
    );
    if (!res.ok) {
      // `incorrect_offset` carries where the session stands: kept on the error for resuming.
      const copy = res.clone();
      const err = await failure(res, dropboxError, now());
      const offset = correctOffsetOf(await readJson(copy));
      throw offset === null ? err : new SessionOffsetError(err, offset);
    }
    return readJson(res);
  }

  const commitArg = (c: DropboxCommit) => ({
    path: c.path,
    mode: { ".tag": c.mode },
    autorename: false,
    mute: true,
    ...(c.clientModified !== undefined ? { client_modified: iso(c.clientModified) } : {}),
  });

  return {
    async account(token: string): Promise<{ accountId: string; email: string }> {
      const a = await rpc(() => sdk(token).usersGetCurrentAccount());
      return { accountId: a.account_id, email: a.email };
    },

    async spaceUsage(token: string): Promise<{ used: number; allocated: number | null }> {
      const u = await rpc(() => sdk(token).usersGetSpaceUsage());
      const allocation = u.allocation as { allocated?: number };
      return { used: u.used, allocated: allocation.allocated ?? null };
    },

    /** A file or folder at `path`, or null when there is none. */
    async getMetadata(token: string, path: string): Promise<DropboxEntry | null> {
      try {
        return toEntry(await rpc(() => sdk(token).filesGetMetadata({ path })));
      } catch (err) {
        if (err instanceof ProviderError && err.kind === "not_found") return null;
        throw err;
      }
    },

    /** Everything under `path` ("" is the app folder), every page; an absent folder is empty. */
    async listFolder(token: string, path: string, recursive = false): Promise<DropboxEntry[]> {
      const client = sdk(token);
      const out: DropboxEntry[] = [];
      let page: files.ListFolderResult;
      try {
        page = await rpc(() => client.filesListFolder({ path, recursive, limit: 2000 }));
      } catch (err) {
        if (err instanceof ProviderError && err.kind === "not_found") return out;
        throw err;
      }
      for (;;) {
        for (const e of page.entries) {
          const entry = toEntry(e);
          if (entry) out.push(entry);
        }
        if (!page.has_more) return out;
        const cursor = page.cursor;
        page = await rpc(() => client.filesListFolderContinue({ cursor }));
      }
    },

    /**
     * Makes the folder at `path` (and its parents, as Dropbox does); one already there is fine
     * (`conflict`). A file in the way is not: its `conflict` is thrown.
     */
    async createFolder(token: string, path: string): Promise<void> {
      try {
        await rpc(() => sdk(token).filesCreateFolderV2({ path, autorename: false }));
      } catch (err) {
        if (!(err instanceof ProviderError && err.code === "conflict")) throw err;
        const there = await this.getMetadata(token, path);
        if (there?.tag !== "folder") throw err;
      }
    },

    /** Deletes a file or folder; one already gone is fine. */
    async remove(token: string, path: string): Promise<void> {
      try {
        await rpc(() => sdk(token).filesDeleteV2({ path }));
      } catch (err) {
        if (err instanceof ProviderError && err.kind === "not_found") return;
        throw err;
      }
    },

    /** Ends the grant (disconnecting): the access token and its refresh token stop working. */
    async revoke(token: string): Promise<void> {
      await rpc(() => sdk(token).authTokenRevoke());
    },

    /**
     * One request (`files/upload`, ≤ 150 MB). With the content hash Dropbox refuses bytes that
     * differ from it (`content_hash_mismatch`, transient); a body piped as it is read has no hash
     * yet (null): the caller compares the answer's with the one it computed while sending.
     */
    async upload(
      token: string,
      commit: DropboxCommit,
      body: readonly Uint8Array[] | PipedChunk,
      contentHash: string | null,
      signal?: AbortSignal,
    ): Promise<DropboxFile> {
      const length = Array.isArray(body)
        ? (body as readonly Uint8Array[]).reduce((n, p) => n + p.length, 0)
        : (body as PipedChunk).length;
      if (length > DROPBOX_MAX_SINGLE)
        throw new Error("files/upload takes at most 150 MB: use an upload session");
      const arg = { ...commitArg(commit), ...(contentHash ? { content_hash: contentHash } : {}) };
      return toFile(await content(token, "files/upload", arg, body, signal));
    },

    /** Opens an upload session (no bytes yet); it lives 7 days. */
    async startSession(token: string): Promise<string> {
      const out = (await content(token, "files/upload_session/start", {}, [])) as {
        session_id?: unknown;
      };
      if (typeof out?.session_id !== "string")
        throw new ProviderError("dropbox", "unknown", "Dropbox did not open an upload session");
      return out.session_id;
    },

    /**
     * Appends bytes at `offset` (4 MiB multiples but for the last). A `SessionOffsetError` says
     * the session holds another offset (`incorrect_offset`).
     */
    async append(
      token: string,
      sessionId: string,
      offset: number,
      body: readonly Uint8Array[] | PipedChunk,
      signal?: AbortSignal,
    ): Promise<void> {
      const arg = { cursor: { session_id: sessionId, offset }, close: false };
      await content(token, "files/upload_session/append_v2", arg, body, signal);
    },

    /**
     * Where a session stands (Dropbox has no status call): an empty append at the offset we
     * believe; `incorrect_offset` answers the real one. Null when the session is gone.
     */
    async sessionOffset(
      token: string,
      sessionId: string,
      believed: number,
    ): Promise<number | null> {
      try {
        await this.append(token, sessionId, believed, []);
        return believed;
      } catch (err) {
        if (err instanceof SessionOffsetError) return err.offset;
        if (err instanceof ProviderError && err.kind === "not_found") return null;
        throw err;
      }
    },

    /**
     * Sends the last bytes, if any, and commits the file. Bytes held (`body` as pieces) go with
     * their content hash, which Dropbox checks against what this call brings, not the whole file
     * (its answer gives the whole file's hash, for the caller to compare).
     */
    async finish(
      token: string,
      sessionId: string,
      offset: number,
      commit: DropboxCommit,
      body: readonly Uint8Array[] | PipedChunk = [],
      signal?: AbortSignal,
    ): Promise<DropboxFile> {
      const held = Array.isArray(body) ? (body as readonly Uint8Array[]) : null;
      const arg = {
        cursor: { session_id: sessionId, offset },
        commit: commitArg(commit),
        ...(held?.some((p) => p.length > 0) ? { content_hash: dropboxContentHash(held) } : {}),
      };
      return toFile(await content(token, "files/upload_session/finish", arg, body, signal));
    },
  };
}

export type DropboxClient = ReturnType<typeof createDropboxClient>;

/** `incorrect_offset`: the session holds `offset` bytes (resume from there). */
export class SessionOffsetError extends ProviderError {
  readonly offset: number;
  constructor(err: ProviderError, offset: number) {
    super("dropbox", err.kind, err.message, { status: err.status, code: err.code });
    this.offset = offset;
  }
}
