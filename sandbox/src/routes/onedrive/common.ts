import { randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { sendGraphApiError } from "../../errors.ts";
import type { OneDriveItem, OneDriveUser } from "../../state.ts";
import { checkToken } from "../../tokens.ts";
import { bearer } from "../../util.ts";

export const APP_FOLDER = "Keepsake";
/** The app folder's parent, as OneDrive names it in the user's language. */
const APPS_NAME: Record<string, string> = {
  "en-US": "Apps",
  "fr-FR": "Applications",
  "de-DE": "Apps",
};

export const DEMO_ONEDRIVE = {
  jordan: {
    id: "8f0c1d2e3a4b5c6d",
    email: "jordan.lee@example.com",
    name: "Jordan Lee",
    locale: "en-US",
  },
  camille: {
    id: "1a2b3c4d5e6f7081",
    email: "camille.martin@example.com",
    name: "Camille Martin",
    locale: "fr-FR",
  },
} as const;

export class GraphApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const itemId = () =>
  `${randomBytes(8).toString("hex").toUpperCase()}!${randomBytes(2).readUInt16BE()}`;

export function onedriveState(ctx: Ctx) {
  if (!ctx.state.onedrive) {
    const users: Record<string, OneDriveUser> = {};
    for (const d of Object.values(DEMO_ONEDRIVE)) {
      const rootId = itemId();
      const now = ctx.now();
      const root: OneDriveItem = {
        id: rootId,
        parent: null,
        name: "root",
        folder: true,
        created: now,
        modified: now,
        fsCreated: now,
        fsModified: now,
      };
      users[d.id] = { ...d, quotaBytes: 5 * 1024 ** 3, rootId, items: { [rootId]: root } };
    }
    ctx.state.onedrive = { users, sessions: {} };
    ctx.changed();
  }
  return ctx.state.onedrive;
}

export function userOf(ctx: Ctx, req: FastifyRequest, reply: FastifyReply): OneDriveUser | null {
  const check = checkToken(ctx, bearer(req), "microsoft");
  const user = check.ok ? onedriveState(ctx).users[check.token.subject] : undefined;
  if (!user) {
    reply.header("www-authenticate", 'Bearer realm="", error="invalid_token"');
    sendGraphApiError(
      reply,
      401,
      "InvalidAuthenticationToken",
      !check.ok && check.reason === "expired"
        ? "Lifetime validation failed, the token is expired."
        : "Access token validation failure.",
    );
    return null;
  }
  return user;
}

export const childrenOf = (user: OneDriveUser, parent: string) =>
  Object.values(user.items).filter((i) => i.parent === parent);

export function childNamed(user: OneDriveUser, parent: string, name: string) {
  const lower = name.toLowerCase();
  return childrenOf(user, parent).find((i) => i.name.toLowerCase() === lower);
}

export function mkdir(ctx: Ctx, user: OneDriveUser, parent: string, name: string): OneDriveItem {
  const existing = childNamed(user, parent, name);
  if (existing) {
    if (!existing.folder) throw new GraphApiError(409, "nameAlreadyExists", "Name already exists");
    return existing;
  }
  const now = ctx.now();
  const item: OneDriveItem = {
    id: itemId(),
    parent,
    name,
    folder: true,
    created: now,
    modified: now,
    fsCreated: now,
    fsModified: now,
  };
  user.items[item.id] = item;
  ctx.changed();
  return item;
}

/** The app folder (`/drive/special/approot`), created on first use under the localised "Apps". */
export function appRoot(ctx: Ctx, user: OneDriveUser): OneDriveItem {
  const apps = mkdir(ctx, user, user.rootId, APPS_NAME[user.locale] ?? "Apps");
  return mkdir(ctx, user, apps.id, APP_FOLDER);
}

export function pathOf(user: OneDriveUser, item: OneDriveItem): string {
  const names: string[] = [];
  let at: OneDriveItem | undefined = item;
  while (at?.parent) {
    names.unshift(at.name);
    at = user.items[at.parent];
  }
  return `/${names.join("/")}`;
}

/** Walks a path below `from`; `create` makes missing folders (uploads create their parents). */
export function resolvePath(
  ctx: Ctx,
  user: OneDriveUser,
  from: OneDriveItem,
  path: string,
  create: boolean,
) {
  const parts = path
    .split("/")
    .filter(Boolean)
    .map((p) => decodeURIComponent(p));
  let at = from;
  for (const [i, name] of parts.entries()) {
    const last = i === parts.length - 1;
    const next = childNamed(user, at.id, name);
    if (next) {
      at = next;
      continue;
    }
    if (!create || last) return { parent: at, name, item: undefined };
    at = mkdir(ctx, user, at.id, name);
  }
  return { parent: user.items[at.parent ?? ""] ?? at, name: at.name, item: at };
}

export function usedBytes(user: OneDriveUser): number {
  let n = 0;
  for (const i of Object.values(user.items)) n += i.size ?? 0;
  return n;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** A driveItem as Graph answers it. */
export function driveItem(base: string, user: OneDriveUser, item: OneDriveItem) {
  const parent = item.parent ? user.items[item.parent] : undefined;
  const out: Record<string, unknown> = {
    id: item.id,
    name: item.name,
    size: item.folder
      ? childrenOf(user, item.id).reduce((n, c) => n + (c.size ?? 0), 0)
      : item.size,
    createdDateTime: iso(item.created),
    lastModifiedDateTime: iso(item.modified),
    webUrl: `${base}/onedrive?item=${encodeURIComponent(item.id)}`,
    fileSystemInfo: {
      createdDateTime: iso(item.fsCreated),
      lastModifiedDateTime: iso(item.fsModified),
    },
    parentReference: parent
      ? {
          driveId: user.id,
          driveType: "personal",
          id: parent.id,
          path: `/drive/root:${pathOf(user, parent) === "/" ? "" : pathOf(user, parent)}`,
        }
      : { driveId: user.id, driveType: "personal" },
  };
  if (item.folder) out.folder = { childCount: childrenOf(user, item.id).length };
  else {
    out.file = {
      mimeType: item.mimeType ?? "application/octet-stream",
      hashes: { quickXorHash: item.quickXorHash },
    };
    out["@microsoft.graph.downloadUrl"] =
      `${base}/onedrive-content/${encodeURIComponent(user.id)}/${encodeURIComponent(item.id)}`;
  }
  return out;
}
