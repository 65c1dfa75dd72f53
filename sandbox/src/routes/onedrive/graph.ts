import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { sendGraphApiError } from "../../errors.ts";
import type { OneDriveItem, OneDriveSession, OneDriveUser } from "../../state.ts";
import {
  appRoot,
  childNamed,
  childrenOf,
  driveItem,
  GraphApiError,
  mkdir,
  onedriveState,
  resolvePath,
  usedBytes,
  userOf,
} from "./common.ts";
import {
  commitFile,
  conflictOf,
  json,
  MAX_SIMPLE,
  readBody,
  SESSION_TTL_MS,
  timeOf,
} from "./files.ts";
import { registerUploadUrl } from "./upload.ts";

const V1 = "/graph.microsoft.com/v1.0";

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

    registerUploadUrl(scope, ctx, guard);
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
