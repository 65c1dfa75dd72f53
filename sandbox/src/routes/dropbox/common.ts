import { createHash, randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { sendDropboxError } from "../../errors.ts";
import type { DropboxAccount, DropboxEntry, DropboxSession } from "../../state.ts";
import { checkToken } from "../../tokens.ts";
import { bearer } from "../../util.ts";

/** The block size of Dropbox's content hash. */
export const BLOCK = 4 * 1024 * 1024;
/** The most one request may carry (Dropbox: 150 MB). */
export const MAX_REQUEST_BYTES = 150 * 1024 * 1024;

/** A route's own error: 409 with its tagged union (what the SDK hands back as `error`). */
export class DropboxRouteError extends Error {
  readonly summary: string;
  readonly error: unknown;
  readonly status: number;
  constructor(summary: string, error: unknown, status = 409) {
    super(summary);
    this.summary = summary;
    this.error = error;
    this.status = status;
  }
}

/** A call Dropbox cannot read (bad arguments): 400 with a plain-text explanation. */
export class DropboxBadInput extends Error {}

export const DEMO_DROPBOX = {
  jordan: {
    accountId: "dbid:AABjordanLeeSandbox0000000000000001",
    email: "jordan.lee@example.com",
    name: "Jordan Lee",
  },
  maya: {
    accountId: "dbid:AABmayaChenSandbox00000000000000002",
    email: "maya.chen@example.com",
    name: "Maya Chen",
  },
} as const;

export function dropboxState(ctx: Ctx) {
  if (!ctx.state.dropbox) {
    const accounts: Record<string, DropboxAccount> = {};
    for (const [i, d] of Object.values(DEMO_DROPBOX).entries()) {
      accounts[d.accountId] = { ...d, quotaBytes: (i === 0 ? 2 : 1) * 1024 ** 3, entries: {} };
    }
    ctx.state.dropbox = { accounts, sessions: {} };
    ctx.changed();
  }
  return ctx.state.dropbox;
}

/** Dropbox's content hash: SHA-256 of the SHA-256 of each 4 MiB block, hex. */
export function contentHash(data: Buffer): string {
  const hasher = contentHasher();
  hasher.update(data);
  return hasher.digest();
}

/** Dropbox's content hash over pieces as they come (a 4 MiB block may span several). */
export function contentHasher() {
  const outer = createHash("sha256");
  let block = createHash("sha256");
  let inBlock = 0;
  return {
    update(piece: Uint8Array) {
      for (let at = 0; at < piece.length; ) {
        const take = Math.min(BLOCK - inBlock, piece.length - at);
        block.update(piece.subarray(at, at + take));
        inBlock += take;
        at += take;
        if (inBlock === BLOCK) {
          outer.update(block.digest());
          block = createHash("sha256");
          inBlock = 0;
        }
      }
    },
    digest(): string {
      if (inBlock > 0) outer.update(block.digest());
      return outer.digest("hex");
    },
  };
}

export const newId = (prefix: string) => `${prefix}${randomBytes(12).toString("base64url")}`;

/** The account a bearer token stands for, or the 401 Dropbox sends. */
export function accountOf(
  ctx: Ctx,
  req: FastifyRequest,
  reply: FastifyReply,
): DropboxAccount | null {
  const check = checkToken(ctx, bearer(req), "dropbox");
  if (!check.ok) {
    const tag = check.reason === "expired" ? "expired_access_token" : "invalid_access_token";
    sendDropboxError(reply, 401, tag, { ".tag": tag });
    return null;
  }
  const account = dropboxState(ctx).accounts[check.token.subject];
  if (!account) {
    sendDropboxError(reply, 401, "invalid_access_token", { ".tag": "invalid_access_token" });
    return null;
  }
  return account;
}

/** A path inside the app folder: `/a/b.jpg` (or `id:…`); answers its lower-cased key. */
export function pathKey(account: DropboxAccount, path: unknown): string {
  if (typeof path !== "string") throw new DropboxBadInput("missing required field 'path'");
  if (path === "") return "";
  if (path.startsWith("id:")) {
    const entry = Object.entries(account.entries).find(([, e]) => e.id === path);
    if (!entry) throw lookupNotFound();
    return entry[0];
  }
  if (!path.startsWith("/") || path.endsWith("/") || path.includes("//")) {
    throw new DropboxBadInput(
      `'path' value '${path}' did not match pattern '(/(.|[\\r\\n])*)?|id:.*'`,
    );
  }
  return path.toLowerCase();
}

export const lookupNotFound = () =>
  new DropboxRouteError("path/not_found", { ".tag": "path", path: { ".tag": "not_found" } });

export function usedBytes(account: DropboxAccount): number {
  let n = 0;
  for (const e of Object.values(account.entries)) n += e.size ?? 0;
  return n;
}

/** Folders a new file's path needs, created as Dropbox does (implicitly). */
export function ensureParents(ctx: Ctx, account: DropboxAccount, display: string): void {
  const parts = display.split("/").slice(1, -1);
  let path = "";
  for (const part of parts) {
    path += `/${part}`;
    const key = path.toLowerCase();
    const existing = account.entries[key];
    if (existing?.tag === "file") {
      throw new DropboxRouteError("path/conflict/folder", {
        ".tag": "path",
        reason: { ".tag": "conflict", conflict: { ".tag": "file" } },
        upload_session_id: "",
      });
    }
    account.entries[key] ??= { id: newId("id:"), tag: "folder", pathDisplay: path };
  }
  void ctx;
}

/** A file or folder as Dropbox's metadata answers describe it. */
export function metadata(key: string, e: DropboxEntry) {
  const name = e.pathDisplay.split("/").pop() ?? "";
  if (e.tag === "folder") {
    return { ".tag": "folder", name, id: e.id, path_lower: key, path_display: e.pathDisplay };
  }
  const iso = (ms: number | undefined) => new Date(ms ?? 0).toISOString().replace(/\.\d{3}Z$/, "Z");
  return {
    ".tag": "file",
    name,
    id: e.id,
    client_modified: iso(e.clientModified),
    server_modified: iso(e.serverModified),
    rev: e.rev,
    size: e.size,
    path_lower: key,
    path_display: e.pathDisplay,
    is_downloadable: true,
    content_hash: e.contentHash,
  };
}

export type { DropboxSession };
