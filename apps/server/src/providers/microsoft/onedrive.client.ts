import type { PipedChunk } from "../google/drive.client.ts";
import {
  type FetchLike,
  failure,
  PROVIDER_TIMEOUT_MS,
  readJson,
  send as sendRequest,
  sendStream,
} from "../http.ts";
import { ProviderError } from "../provider-error.ts";
import { graphApiError } from "./graph-error.ts";
import type { MicrosoftSettings } from "./microsoft-oauth.client.ts";

/** Upload fragments are multiples of 320 KiB (but for the last), under 60 MiB. */
export const FRAGMENT_UNIT = 320 * 1024;
/** The largest fragment: Graph takes "less than 60 MiB" per request (191 × 320 KiB ≈ 59.7 MiB). */
export const MAX_FRAGMENT = 191 * FRAGMENT_UNIT;
/** A simple upload (`PUT …/content`) is for files up to 4 MB. */
export const MAX_SIMPLE_UPLOAD = 4 * 1000 * 1000;

/** A drive item, as Keepsake reads it. */
export interface DriveItem {
  id: string;
  name: string;
  size: number;
  folder: boolean;
  quickXorHash: string | null;
  /** `fileSystemInfo`: the post's time when Keepsake set it. */
  fileCreated: string | null;
  fileModified: string | null;
  /** The parent's path, as Graph gives it (`/drive/root:/Apps/Keepsake/…`; localised). */
  parentPath: string | null;
  /** A link a person can open (OneDrive's web view). */
  webUrl: string | null;
}

/** What a write does when the name is taken: `fail` (never overwrite) or `replace` (in place). */
export type Conflict = "fail" | "replace";

/** The post's time, kept as the file's file-system times. */
export interface FileTimes {
  created?: Date | string;
  modified?: Date | string;
}

export type RangeProgress =
  | { done: true; item: DriveItem }
  | { done: false /** The next byte the session expects. */; next: number };

export { graphApiError } from "./graph-error.ts";

const iso = (t: Date | string | undefined) =>
  t === undefined ? undefined : new Date(t).toISOString().replace(/\.\d{3}Z$/, "Z");

function toItem(raw: unknown): DriveItem {
  const i = (raw ?? {}) as Record<string, unknown>;
  if (typeof i.id !== "string")
    throw new ProviderError("microsoft", "unknown", "OneDrive answered an item without id");
  const file = i.file as { hashes?: { quickXorHash?: unknown } } | undefined;
  const fsi = (i.fileSystemInfo ?? {}) as Record<string, unknown>;
  const parent = (i.parentReference ?? {}) as Record<string, unknown>;
  return {
    id: i.id,
    name: typeof i.name === "string" ? i.name : "",
    size: typeof i.size === "number" ? i.size : 0,
    folder: i.folder !== undefined,
    quickXorHash: typeof file?.hashes?.quickXorHash === "string" ? file.hashes.quickXorHash : null,
    fileCreated: typeof fsi.createdDateTime === "string" ? fsi.createdDateTime : null,
    fileModified: typeof fsi.lastModifiedDateTime === "string" ? fsi.lastModifiedDateTime : null,
    parentPath: typeof parent.path === "string" ? parent.path : null,
    webUrl: typeof i.webUrl === "string" ? i.webUrl : null,
  };
}

/** `/a/b c.jpg` → `:/a/b%20c.jpg:` (path addressing below the app folder). */
function pathSegment(path: string): string {
  const parts = path.split("/").filter(Boolean);
  if (parts.length === 0) throw new ProviderError("microsoft", "unknown", "An empty OneDrive path");
  return `:/${parts.map(encodeURIComponent).join("/")}:`;
}

/** `0-`, `12345-` or `12345-67890`: the first byte still expected. */
function nextOf(ranges: unknown): number | null {
  if (!Array.isArray(ranges) || ranges.length === 0) return null;
  const m = /^(\d+)-/.exec(String(ranges[0]));
  return m ? Number(m[1]) : null;
}

/**
 * Microsoft Graph's drive items inside the app folder (`/me/drive/special/approot`, whose
 * display name is localised: it is addressed, never named), simple uploads, upload sessions
 * with ranges, times and deletes. HTTP only (there is no official Node client for drive items
 * worth its weight; `@microsoft/microsoft-graph-client` is a thin fetch wrapper).
 */
export function createOneDriveClient(
  settings: Pick<MicrosoftSettings, "graphUrl">,
  options: {
    fetch?: FetchLike;
    recordStreamed?: (failed: boolean) => void;
    now?: () => number;
    timeoutMs?: number;
  } = {},
) {
  const fetchImpl = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const timeout = options.timeoutMs ?? PROVIDER_TIMEOUT_MS * 3;
  const root = `${settings.graphUrl}/v1.0/me/drive/special/approot`;
  const origin = new URL(settings.graphUrl).origin;
  const GRAPH = { provider: "microsoft", label: "OneDrive" } as const;
  const STREAMED = options.recordStreamed ? { ...GRAPH, record: options.recordStreamed } : GRAPH;
  const send = (url: string | URL, init: RequestInit) =>
    sendRequest(url, init, { ...GRAPH, fetch: fetchImpl, timeoutMs: timeout });
  const auth = (token: string, extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${token}`,
    accept: "application/json",
    ...extra,
  });
  async function json(res: Response): Promise<unknown> {
    if (!res.ok) throw await failure(res, graphApiError, now());
    return readJson(res);
  }
  /** The pre-authenticated upload URL must be Graph's (it is sent no token, but bytes). */
  function uploadUrl(url: string): URL {
    const u = new URL(url);
    if (
      u.origin !== origin &&
      !u.hostname.endsWith(".sharepoint.com") &&
      !u.hostname.endsWith(".1drv.com")
    )
      throw new ProviderError("microsoft", "unknown", "Unexpected upload session host");
    return u;
  }

  async function progress(res: Response): Promise<RangeProgress | "gone"> {
    if (res.status === 200 || res.status === 201)
      return { done: true, item: toItem(await readJson(res)) };
    if (res.status === 202 || res.status === 416) {
      const next = nextOf(
        ((await readJson(res)) as { nextExpectedRanges?: unknown })?.nextExpectedRanges,
      );
      if (next !== null) return { done: false, next };
      if (res.status === 202) throw new ProviderError("microsoft", "unknown", "No expected range");
    }
    if (res.status === 404) {
      await res.body?.cancel().catch(() => {});
      return "gone";
    }
    throw await failure(res, graphApiError, now());
  }

  return {
    /** The app folder itself (created on first use); its `name` is whatever OneDrive calls it. */
    async appFolder(token: string): Promise<DriveItem> {
      return toItem(await json(await send(root, { headers: auth(token) })));
    },

    /** The item at `path` below the app folder, or null. */
    async getByPath(token: string, path: string): Promise<DriveItem | null> {
      const res = await send(`${root}${pathSegment(path)}`, { headers: auth(token) });
      if (res.status === 404) {
        await res.body?.cancel().catch(() => {});
        return null;
      }
      return toItem(await json(res));
    },

    /** The children of the folder at `path` ("" is the app folder), every page; none when absent. */
    async listChildren(token: string, path: string): Promise<DriveItem[]> {
      const out: DriveItem[] = [];
      let url: string | null =
        `${root}${path.replace(/^\/+|\/+$/g, "") ? pathSegment(path) : ""}/children?$top=200`;
      while (url) {
        const res: Response = await send(url, { headers: auth(token) });
        if (res.status === 404 && out.length === 0) {
          await res.body?.cancel().catch(() => {});
          return out;
        }
        const page = (await json(res)) as { value?: unknown[]; "@odata.nextLink"?: unknown };
        out.push(...(page.value ?? []).map(toItem));
        const next = page["@odata.nextLink"];
        url = typeof next === "string" && new URL(next).origin === origin ? next : null;
      }
      return out;
    },

    /**
     * Every file below the folder at `path` ("" is the app folder), with its path relative to
     * it: what Keepsake wrote there (Graph keeps no app-private metadata to search by).
     */
    async listTree(token: string, path: string): Promise<{ path: string; item: DriveItem }[]> {
      const out: { path: string; item: DriveItem }[] = [];
      const folders = [path.replace(/\/+$/, "")];
      for (let at = folders.shift(); at !== undefined; at = folders.shift()) {
        for (const item of await this.listChildren(token, at)) {
          const child = `${at}/${item.name}`;
          if (item.folder) folders.push(child);
          else out.push({ path: child, item });
        }
      }
      return out;
    },

    /**
     * Creates the folder `name` in the folder at `parent` ("" is the app folder); a name already
     * taken (409) is answered null: the folder is there (or a file holds its name, which the
     * upload into it then reports).
     */
    async createFolder(token: string, parent: string, name: string): Promise<DriveItem | null> {
      const at = parent.replace(/^\/+|\/+$/g, "") ? pathSegment(parent) : "";
      const res = await send(`${root}${at}/children`, {
        method: "POST",
        headers: auth(token, { "content-type": "application/json" }),
        body: JSON.stringify({ name, folder: {}, "@microsoft.graph.conflictBehavior": "fail" }),
      });
      if (res.status === 409) {
        await res.body?.cancel().catch(() => {});
        return null;
      }
      return toItem(await json(res));
    },

    /** Deletes the item at `path` below the app folder; one already gone is no error. */
    async removeByPath(token: string, path: string): Promise<void> {
      const res = await send(`${root}${pathSegment(path)}`, {
        method: "DELETE",
        headers: auth(token),
      });
      if (res.status === 404 || res.ok) {
        await res.body?.cancel().catch(() => {});
        return;
      }
      throw await failure(res, graphApiError, now());
    },

    async remove(token: string, itemId: string): Promise<void> {
      const res = await send(
        `${settings.graphUrl}/v1.0/me/drive/items/${encodeURIComponent(itemId)}`,
        {
          method: "DELETE",
          headers: auth(token),
        },
      );
      if (res.status === 404 || res.ok) {
        await res.body?.cancel().catch(() => {});
        return;
      }
      throw await failure(res, graphApiError, now());
    },

    /** Sets an item's file-system times (the post's time). */
    async setTimes(token: string, itemId: string, times: FileTimes): Promise<DriveItem> {
      const res = await send(
        `${settings.graphUrl}/v1.0/me/drive/items/${encodeURIComponent(itemId)}`,
        {
          method: "PATCH",
          headers: auth(token, { "content-type": "application/json" }),
          body: JSON.stringify({
            fileSystemInfo: {
              createdDateTime: iso(times.created ?? times.modified),
              lastModifiedDateTime: iso(times.modified ?? times.created),
            },
          }),
        },
      );
      return toItem(await json(res));
    },

    /**
     * One request (`PUT …:/path:/content`, ≤ 4 MB): `replace` rewrites the item in place (same
     * id; sidecars), `fail` refuses a taken name (`conflict`). Times need `setTimes` after. The
     * body is bytes, or a `PipedChunk` written as its pieces arrive (nothing held).
     */
    async putSmall(
      token: string,
      path: string,
      body: Uint8Array | PipedChunk,
      conflict: Conflict,
      contentType = "application/octet-stream",
      signal?: AbortSignal,
    ): Promise<DriveItem> {
      if (body.length > MAX_SIMPLE_UPLOAD)
        throw new Error("A simple upload takes at most 4 MB: use an upload session");
      const u = new URL(`${root}${pathSegment(path)}/content`);
      u.searchParams.set("@microsoft.graph.conflictBehavior", conflict);
      const bytes = body instanceof Uint8Array;
      const res = await sendStream(
        u,
        {
          method: "PUT",
          headers: auth(token, { "content-type": contentType, "content-length": `${body.length}` }),
          body: bytes ? [body] : body.stream,
          timeoutMs: timeout,
          ...(signal ? { signal } : {}),
        },
        STREAMED,
      );
      return toItem(await json(res));
    },

    /** Opens an upload session for `path` with the post's time; answers its upload URL. */
    async createUploadSession(
      token: string,
      path: string,
      conflict: Conflict,
      times: FileTimes = {},
    ): Promise<string> {
      const fileSystemInfo =
        times.created || times.modified
          ? {
              fileSystemInfo: {
                createdDateTime: iso(times.created ?? times.modified),
                lastModifiedDateTime: iso(times.modified ?? times.created),
              },
            }
          : {};
      const res = await send(`${root}${pathSegment(path)}/createUploadSession`, {
        method: "POST",
        headers: auth(token, { "content-type": "application/json" }),
        body: JSON.stringify({
          item: { "@microsoft.graph.conflictBehavior": conflict, ...fileSystemInfo },
        }),
      });
      const out = (await json(res)) as { uploadUrl?: unknown };
      if (typeof out?.uploadUrl !== "string")
        throw new ProviderError("microsoft", "unknown", "OneDrive did not open an upload session");
      return uploadUrl(out.uploadUrl).toString();
    },

    /**
     * Sends bytes `start …` of `total` to the session (no Authorization: the URL is
     * pre-authenticated). Answers the item when the last byte arrived, else the next byte the
     * session expects (resume from there, not from what was sent); "gone" for a dead session.
     */
    async putRange(
      session: string,
      body: readonly Uint8Array[] | PipedChunk,
      start: number,
      total: number,
      signal?: AbortSignal,
    ): Promise<RangeProgress | "gone"> {
      const parts = Array.isArray(body) ? (body as readonly Uint8Array[]) : null;
      const length = parts ? parts.reduce((n, p) => n + p.length, 0) : (body as PipedChunk).length;
      const res = await sendStream(
        uploadUrl(session),
        {
          method: "PUT",
          headers: {
            "content-length": String(length),
            "content-range": `bytes ${start}-${start + length - 1}/${total}`,
          },
          body: parts ?? (body as PipedChunk).stream,
          timeoutMs: timeout,
          ...(signal ? { signal } : {}),
        },
        STREAMED,
      );
      return progress(res);
    },

    /** Where an interrupted session stands: the next byte it expects, or "gone". */
    async sessionStatus(session: string): Promise<number | "gone"> {
      const res = await send(uploadUrl(session), { headers: { accept: "application/json" } });
      if (res.status === 404) {
        await res.body?.cancel().catch(() => {});
        return "gone";
      }
      const body = (await json(res)) as { nextExpectedRanges?: unknown };
      const next = nextOf(body?.nextExpectedRanges);
      if (next === null) throw new ProviderError("microsoft", "unknown", "No expected range");
      return next;
    },

    async cancelSession(session: string): Promise<void> {
      const res = await send(uploadUrl(session), { method: "DELETE" });
      await res.body?.cancel().catch(() => {});
    },
  };
}

export type OneDriveClient = ReturnType<typeof createOneDriveClient>;
