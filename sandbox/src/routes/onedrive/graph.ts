import { randomBytes } from "node:crypto";
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Ctx, sendGraphApiError } from "../../context.ts";
import type { OneDriveItem, OneDriveSession, OneDriveUser } from "../../state.ts";
import {
  appRoot,
  childNamed,
  childrenOf,
  driveItem,
  GraphApiError,
  itemId,
  mkdir,
  onedriveState,
  resolvePath,
  usedBytes,
  userOf,
} from "./common.ts";
import { quickXorHash } from "./quickxor.ts";

const V1 = "/graph.microsoft.com/v1.0";
/** Upload fragments are multiples of 320 KiB, but for the last; at most 60 MiB each. */
export const FRAGMENT_UNIT = 320 * 1024;
const MAX_FRAGMENT = 60 * 1024 * 1024;
/** A simple upload (`PUT …/content`) takes at most 250 MB. */
const MAX_SIMPLE = 250 * 1000 * 1000;
const SESSION_TTL_MS = 7 * 86_400_000;

async function readBody(req: FastifyRequest, limit: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.raw) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new GraphApiError(413, "requestTooLarge", "The request is too large.");
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

const json = (body: Buffer): Record<string, unknown> => {
  if (body.length === 0) return {};
  try {
    return JSON.parse(body.toString("utf8")) as Record<string, unknown>;
  } catch {
    throw new GraphApiError(400, "BadRequest", "Unable to read JSON request payload.");
  }
};

type Conflict = "fail" | "replace" | "rename";
const conflictOf = (v: unknown, fallback: Conflict): Conflict =>
  v === "fail" || v === "replace" || v === "rename" ? v : fallback;
const timeOf = (v: unknown) =>
  typeof v === "string" && !Number.isNaN(Date.parse(v)) ? Date.parse(v) : undefined;

/** Writes a file's bytes under `parent` as `name` (conflict behaviour as asked); answers it and whether it is new. */
function commitFile(
  ctx: Ctx,
  user: OneDriveUser,
  parent: OneDriveItem,
  wanted: string,
  data: Buffer,
  opts: { conflict: Conflict; fsCreated?: number; fsModified?: number; mimeType?: string },
) {
  let name = wanted;
  let existing = childNamed(user, parent.id, name);
  if (existing && opts.conflict === "fail")
    throw new GraphApiError(409, "nameAlreadyExists", "The specified item name already exists.");
  if (existing?.folder)
    throw new GraphApiError(409, "nameAlreadyExists", "A folder with this name already exists.");
  if (existing && opts.conflict === "rename") {
    const dot = wanted.lastIndexOf(".");
    for (let n = 1; existing; n++) {
      name = dot > 0 ? `${wanted.slice(0, dot)} ${n}${wanted.slice(dot)}` : `${wanted} ${n}`;
      existing = childNamed(user, parent.id, name);
    }
  }
  if (usedBytes(user) - (existing?.size ?? 0) + data.length > user.quotaBytes) {
    throw new GraphApiError(507, "quotaLimitReached", "Insufficient Space Available");
  }
  const blob = `onedrive-${randomBytes(12).toString("hex")}`;
  writeFileSync(join(ctx.blobDir, blob), data);
  if (existing?.blob) rmSync(join(ctx.blobDir, existing.blob), { force: true });
  const now = ctx.now();
  const item: OneDriveItem = {
    id: existing?.id ?? itemId(),
    parent: parent.id,
    name,
    folder: false,
    blob,
    size: data.length,
    quickXorHash: quickXorHash(data),
    mimeType: opts.mimeType ?? "application/octet-stream",
    created: existing?.created ?? now,
    modified: now,
    fsCreated: opts.fsCreated ?? existing?.fsCreated ?? now,
    fsModified: opts.fsModified ?? now,
  };
  user.items[item.id] = item;
  ctx.changed();
  return { item, created: !existing };
}

/** Microsoft Graph's drive items for an app folder, and resumable upload sessions. */
export function registerOneDriveGraph(app: FastifyInstance, ctx: Ctx): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_req, _payload, done) => done(null));

    const guard =
      (endpoint: string, fn: (req: FastifyRequest, reply: FastifyReply) => unknown) =>
      async (req: FastifyRequest, reply: FastifyReply) => {
        if (!(await ctx.enter(req, reply, endpoint))) return reply;
        try {
          return await fn(req, reply);
        } catch (err) {
          if (err instanceof GraphApiError)
            return sendGraphApiError(reply, err.status, err.code, err.message);
          throw err;
        }
      };

    scope.get(
      `${V1}/me`,
      guard("onedrive.me", (req, reply) => {
        const user = userOf(ctx, req, reply);
        if (!user) return reply;
        return {
          id: user.id,
          displayName: user.name,
          mail: user.email,
          userPrincipalName: user.email,
          preferredLanguage: user.locale,
        };
      }),
    );

    scope.get(
      `${V1}/me/drive`,
      guard("onedrive.drive", (req, reply) => {
        const user = userOf(ctx, req, reply);
        if (!user) return reply;
        const used = usedBytes(user);
        return {
          id: user.id,
          driveType: "personal",
          owner: { user: { id: user.id, displayName: user.name } },
          quota: {
            total: user.quotaBytes,
            used,
            remaining: user.quotaBytes - used,
            deleted: 0,
            state: used / user.quotaBytes > 0.99 ? "exceeded" : "normal",
          },
        };
      }),
    );

    // Everything under /me/drive/special/approot and /me/drive/items/{id}, path addressing included.
    scope.route({
      method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
      url: `${V1}/me/drive/*`,
      handler: guard("onedrive.items", async (req, reply) => {
        const user = userOf(ctx, req, reply);
        if (!user) return reply;
        const base = ctx.baseUrl(req);
        const raw = (req.raw.url ?? "").split("?")[0]!.slice(`${V1}/me/drive/`.length);
        // Address: special/approot | items/{id}, then optionally `:/path:` and a trailing action.
        const m = /^(special\/approot|items\/([^/:]+))(?::(\/[^:]*):?)?(?:\/(.*))?$/.exec(raw);
        if (!m) throw new GraphApiError(400, "invalidRequest", "Invalid request");
        const anchor = m[2] ? user.items[decodeURIComponent(m[2])] : appRoot(ctx, user);
        if (!anchor)
          throw new GraphApiError(404, "itemNotFound", "The resource could not be found.");
        const action = m[4] ?? "";
        const q = req.query as Record<string, string>;
        if (m[3] !== undefined) {
          // Path addressing: uploads create missing parents; reads need the item.
          const creating = action === "content" || action === "createUploadSession";
          const r = resolvePath(ctx, user, anchor, m[3], creating);
          if (action === "createUploadSession") {
            const body = json(await readBody(req, 64 * 1024));
            const item = (body.item ?? {}) as Record<string, unknown>;
            const fsi = (item.fileSystemInfo ?? {}) as Record<string, unknown>;
            const conflict = conflictOf(item["@microsoft.graph.conflictBehavior"], "replace");
            if (conflict === "fail" && r.item)
              throw new GraphApiError(
                409,
                "nameAlreadyExists",
                "The specified item name already exists.",
              );
            const session: OneDriveSession = {
              id: randomBytes(24).toString("base64url"),
              userId: user.id,
              parentId: r.parent.id,
              name: r.item?.name ?? r.name,
              conflictBehavior: conflict,
              fsCreated: timeOf(fsi.createdDateTime),
              fsModified: timeOf(fsi.lastModifiedDateTime),
              received: 0,
              blob: `onedrive-session-${randomBytes(8).toString("hex")}`,
              expires: ctx.now() + SESSION_TTL_MS,
            };
            onedriveState(ctx).sessions[session.id] = session;
            ctx.changed();
            return {
              uploadUrl: `${base}/graph.microsoft.com/upload/${session.id}`,
              expirationDateTime: new Date(session.expires).toISOString(),
              nextExpectedRanges: ["0-"],
            };
          }
          if (action === "content" && req.method === "PUT") {
            const data = await readBody(req, MAX_SIMPLE);
            const { item, created } = commitFile(
              ctx,
              user,
              r.parent,
              r.item?.name ?? r.name,
              data,
              {
                conflict: conflictOf(q["@microsoft.graph.conflictBehavior"], "replace"),
                mimeType: String(req.headers["content-type"] ?? "application/octet-stream"),
              },
            );
            return reply.code(created ? 201 : 200).send(driveItem(base, user, item));
          }
          if (!r.item)
            throw new GraphApiError(404, "itemNotFound", "The resource could not be found.");
          return itemAction(req, reply, user, r.item, action, base);
        }
        return itemAction(req, reply, user, anchor, action, base);
      }),
    });

    async function itemAction(
      req: FastifyRequest,
      reply: FastifyReply,
      user: OneDriveUser,
      item: OneDriveItem,
      action: string,
      base: string,
    ) {
      if (action === "" && req.method === "GET") return driveItem(base, user, item);
      if (action === "" && req.method === "PATCH") {
        const body = json(await readBody(req, 64 * 1024));
        const fsi = (body.fileSystemInfo ?? {}) as Record<string, unknown>;
        item.fsCreated = timeOf(fsi.createdDateTime) ?? item.fsCreated;
        item.fsModified = timeOf(fsi.lastModifiedDateTime) ?? item.fsModified;
        if (typeof body.name === "string") item.name = body.name;
        ctx.changed();
        return driveItem(base, user, item);
      }
      if (action === "" && req.method === "DELETE") {
        const drop = (i: OneDriveItem) => {
          for (const c of childrenOf(user, i.id)) drop(c);
          if (i.blob) rmSync(join(ctx.blobDir, i.blob), { force: true });
          delete user.items[i.id];
        };
        drop(item);
        ctx.changed();
        return reply.code(204).send();
      }
      if (action === "children" && req.method === "GET") {
        return { value: childrenOf(user, item.id).map((c) => driveItem(base, user, c)) };
      }
      if (action === "children" && req.method === "POST") {
        const body = json(await readBody(req, 64 * 1024));
        if (typeof body.name !== "string" || !body.folder) {
          throw new GraphApiError(
            400,
            "invalidRequest",
            "A folder needs a name and a folder facet.",
          );
        }
        if (
          childNamed(user, item.id, body.name) &&
          conflictOf(body["@microsoft.graph.conflictBehavior"], "fail") === "fail"
        ) {
          throw new GraphApiError(
            409,
            "nameAlreadyExists",
            "The specified item name already exists.",
          );
        }
        return reply.code(201).send(driveItem(base, user, mkdir(ctx, user, item.id, body.name)));
      }
      if (action === "content" && req.method === "GET") {
        if (item.folder)
          throw new GraphApiError(404, "itemNotFound", "The resource could not be found.");
        return reply.redirect(
          `${base}/onedrive-content/${encodeURIComponent(user.id)}/${encodeURIComponent(item.id)}`,
          302,
        );
      }
      throw new GraphApiError(
        400,
        "invalidRequest",
        `Unsupported request: ${req.method} ${action}`,
      );
    }

    // The pre-authenticated upload URL: no Authorization header (Graph refuses one there).
    const sessionOf = (req: FastifyRequest) => {
      const s = onedriveState(ctx).sessions[(req.params as { id: string }).id];
      if (!s || s.expires <= ctx.now())
        throw new GraphApiError(
          404,
          "itemNotFound",
          "The upload session was not found or has expired.",
        );
      return s;
    };
    const status = (s: OneDriveSession) => ({
      expirationDateTime: new Date(s.expires).toISOString(),
      nextExpectedRanges: [`${s.received}-${s.total !== undefined ? s.total - 1 : ""}`],
    });
    scope.get(
      "/graph.microsoft.com/upload/:id",
      guard("onedrive.upload.status", (req) => status(sessionOf(req))),
    );
    scope.delete(
      "/graph.microsoft.com/upload/:id",
      guard("onedrive.upload.cancel", (req, reply) => {
        const s = sessionOf(req);
        rmSync(join(ctx.blobDir, s.blob), { force: true });
        delete onedriveState(ctx).sessions[s.id];
        ctx.changed();
        return reply.code(204).send();
      }),
    );
    scope.put(
      "/graph.microsoft.com/upload/:id",
      guard("onedrive.upload", async (req, reply) => {
        if (req.headers.authorization) {
          throw new GraphApiError(
            401,
            "unauthenticated",
            "The upload URL is pre-authenticated: send no Authorization header.",
          );
        }
        const s = sessionOf(req);
        const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(req.headers["content-range"] ?? ""));
        if (!range) {
          throw new GraphApiError(
            400,
            "invalidRequest",
            "Content-Range must be bytes start-end/total (the total size is required).",
          );
        }
        const [start, end, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
        if (s.total !== undefined && s.total !== total)
          throw new GraphApiError(400, "invalidRequest", "The total size changed.");
        const length = end - start + 1;
        const last = end === total - 1;
        if (start !== s.received || end < start || end >= total) {
          return reply.code(416).send({
            error: {
              code: "invalidRange",
              message: "The uploaded fragment overlaps or skips bytes; see nextExpectedRanges.",
            },
            nextExpectedRanges: [`${s.received}-`],
          });
        }
        if (length > MAX_FRAGMENT || (!last && length % FRAGMENT_UNIT !== 0)) {
          throw new GraphApiError(
            400,
            "invalidRequest",
            "Fragments must be a multiple of 320 KiB (327,680 bytes), at most 60 MiB, but for the last.",
          );
        }
        const data = await readBody(req, MAX_FRAGMENT);
        if (data.length !== length)
          throw new GraphApiError(400, "invalidRequest", "The body does not match Content-Range.");
        appendFileSync(join(ctx.blobDir, s.blob), data);
        s.total = total;
        s.received += length;
        ctx.changed();
        if (!last) return reply.code(202).send(status(s));
        const user = onedriveState(ctx).users[s.userId]!;
        const parent = user.items[s.parentId];
        if (!parent) throw new GraphApiError(404, "itemNotFound", "The parent folder is gone.");
        const whole = readFileSync(join(ctx.blobDir, s.blob));
        try {
          const { item, created } = commitFile(ctx, user, parent, s.name, whole, {
            conflict: s.conflictBehavior,
            fsCreated: s.fsCreated,
            fsModified: s.fsModified,
          });
          return reply.code(created ? 201 : 200).send(driveItem(ctx.baseUrl(req), user, item));
        } finally {
          rmSync(join(ctx.blobDir, s.blob), { force: true });
          delete onedriveState(ctx).sessions[s.id];
          ctx.changed();
        }
      }),
    );
  });

  app.get("/onedrive-content/:user/:item", async (req, reply) => {
    const p = req.params as { user: string; item: string };
    const item = onedriveState(ctx).users[p.user]?.items[p.item];
    if (!item?.blob)
      return sendGraphApiError(reply, 404, "itemNotFound", "The resource could not be found.");
    return reply
      .type(item.mimeType ?? "application/octet-stream")
      .send(readFileSync(join(ctx.blobDir, item.blob)));
  });
}
