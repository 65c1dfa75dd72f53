import { createHash } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { parseQuery, QueryError } from "../../drive-query.ts";
import { selectFields } from "../../fields.ts";
import type { DriveFile } from "../../state.ts";
import { query } from "../../util.ts";
import { sendRanged } from "../cdn.ts";
import { API as api, type Wrap } from "./api.ts";
import { deleteTree } from "./blobs.ts";
import {
  type Auth,
  checkFileFields,
  DriveError,
  FOLDER_MIME,
  fileResource,
  invalidParam,
  newFileFromMetadata,
  parseFieldsParam,
  parseTime,
  renderFile,
  stringMap,
  usage,
  visible,
} from "./resource.ts";

/** About, and file metadata: list, create (folders and empty files), get (and download), update, delete. */
export function registerFiles(app: FastifyInstance, ctx: Ctx, wrap: Wrap): void {
  app.get(
    `${api}/about`,
    wrap("drive.about.get", async (req, reply, auth) => {
      const q = query(req);
      if (!q.fields)
        throw new DriveError(
          400,
          "required",
          "The 'fields' parameter is required for this method.",
          { location: "fields", locationType: "parameter" },
        );
      const used = usage(ctx, auth.user);
      const about = {
        kind: "drive#about",
        user: {
          kind: "drive#user",
          displayName: auth.user.name,
          emailAddress: auth.user.email,
          me: true,
          permissionId: auth.user.sub,
        },
        storageQuota: {
          limit: String(auth.user.quotaLimit),
          usage: String(used),
          usageInDrive: String(used),
          usageInDriveTrash: "0",
        },
      };
      const tree = parseFieldsParam(q.fields, () => undefined);
      return reply.send(selectFields(about, tree ?? null));
    }),
  );

  app.get(
    `${api}/files`,
    wrap("drive.files.list", async (req, reply, auth) => {
      const q = query(req);
      let pred: (f: DriveFile) => boolean = () => true;
      if (q.q) {
        try {
          pred = parseQuery(q.q, auth.user.rootId);
        } catch (e) {
          if (e instanceof QueryError) throw invalidParam("q");
          throw e;
        }
      }
      const pageSize = q.pageSize ? Number(q.pageSize) : 100;
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000)
        throw invalidParam("pageSize");
      const files = Object.values(ctx.state.driveFiles).filter(
        (f) => visible(ctx, auth, f) && pred(f),
      );
      const order = (q.orderBy ?? "createdTime").split(",").map((s) => s.trim().split(/\s+/));
      files.sort((a, b) => {
        for (const [key = "", dir] of order) {
          const sign = dir === "desc" ? -1 : 1;
          let d = 0;
          if (key === "name" || key === "name_natural") d = a.name.localeCompare(b.name);
          else if (key === "createdTime") d = a.createdTime - b.createdTime;
          else if (key === "modifiedTime" || key === "recency") d = a.modifiedTime - b.modifiedTime;
          else if (key === "folder")
            d = Number(b.mimeType === FOLDER_MIME) - Number(a.mimeType === FOLDER_MIME);
          else throw invalidParam("orderBy");
          if (d !== 0) return d * sign;
        }
        return a.id.localeCompare(b.id);
      });
      let offset = 0;
      if (q.pageToken) {
        const decoded = /^p(\d+)$/.exec(Buffer.from(q.pageToken, "base64url").toString());
        if (!decoded) throw invalidParam("pageToken");
        offset = Number(decoded[1]);
      }
      const page = files.slice(offset, offset + pageSize);
      const hasMore = offset + pageSize < files.length;
      const base = ctx.baseUrl(req);
      const full: Record<string, unknown> = {
        kind: "drive#fileList",
        incompleteSearch: false,
        files: page.map((f) => fileResource(base, f, auth.user)),
      };
      if (hasMore) full.nextPageToken = Buffer.from(`p${offset + pageSize}`).toString("base64url");
      if (!q.fields) {
        const out: Record<string, unknown> = {
          kind: "drive#fileList",
          incompleteSearch: false,
          files: page.map((f) => ({
            kind: "drive#file",
            id: f.id,
            name: f.name,
            mimeType: f.mimeType,
          })),
        };
        if (full.nextPageToken) out.nextPageToken = full.nextPageToken;
        return reply.send(out);
      }
      const tree = parseFieldsParam(q.fields, (t) => {
        for (const [key, sub] of t) {
          if (!["kind", "nextPageToken", "incompleteSearch", "files", "*"].includes(key)) {
            throw invalidParam("fields", `Invalid field selection ${key}`);
          }
          if (key === "files") checkFileFields(sub);
        }
      });
      return reply.send(selectFields(full, tree ?? null));
    }),
  );

  app.post(
    `${api}/files`,
    wrap("drive.files.create", async (req, reply, auth) => {
      const meta = (req.body && typeof req.body === "object" ? req.body : {}) as Record<
        string,
        unknown
      >;
      const file = newFileFromMetadata(ctx, auth, meta);
      if (file.mimeType !== FOLDER_MIME) {
        file.size = 0;
        file.md5 = createHash("md5").digest("hex");
      }
      ctx.state.driveFiles[file.id] = file;
      ctx.changed();
      return reply.send(renderFile(ctx.baseUrl(req), file, auth.user, query(req).fields));
    }),
  );

  const getFile = (req: FastifyRequest, auth: Auth): DriveFile => {
    const id = (req.params as { id: string }).id;
    const f = ctx.state.driveFiles[id];
    if (!visible(ctx, auth, f))
      throw new DriveError(404, "notFound", `File not found: ${id}.`, {
        locationType: "parameter",
        location: "fileId",
      });
    return f;
  };

  app.get(
    `${api}/files/:id`,
    wrap("drive.files.get", async (req, reply, auth) => {
      const f = getFile(req, auth);
      const q = query(req);
      if (q.alt === "media") {
        ctx.calls["drive.files.download"] = (ctx.calls["drive.files.download"] ?? 0) + 1;
        if (f.mimeType === FOLDER_MIME) {
          throw new DriveError(
            403,
            "fileNotDownloadable",
            "Only files with binary content can be downloaded. Use Export with Docs Editors files.",
          );
        }
        const path = join(ctx.blobDir, f.id);
        const size = f.size ?? 0;
        reply.type(f.mimeType);
        return sendRanged(req, reply, size, (s, e) =>
          existsSync(path) ? createReadStream(path, { start: s, end: e }) : Buffer.alloc(0),
        );
      }
      return reply.send(renderFile(ctx.baseUrl(req), f, auth.user, q.fields));
    }),
  );

  app.patch(
    `${api}/files/:id`,
    wrap("drive.files.update", async (req, reply, auth) => {
      const f = getFile(req, auth);
      const meta = (req.body && typeof req.body === "object" ? req.body : {}) as Record<
        string,
        unknown
      >;
      const q = query(req);
      if (typeof meta.name === "string") f.name = meta.name;
      if (typeof meta.description === "string") f.description = meta.description;
      if (typeof meta.mimeType === "string" && f.mimeType !== FOLDER_MIME)
        f.mimeType = meta.mimeType;
      if (typeof meta.trashed === "boolean") f.trashed = meta.trashed;
      f.appProperties = stringMap(meta.appProperties, "appProperties", f.appProperties);
      f.properties = stringMap(meta.properties, "properties", f.properties);
      const modified = parseTime(meta.modifiedTime, "modifiedTime");
      f.modifiedTime = modified ?? ctx.now();
      for (const p of (q.removeParents ?? "").split(",").filter(Boolean)) {
        const id = p === "root" ? auth.user.rootId : p;
        f.parents = f.parents.filter((x) => x !== id);
      }
      for (const p of (q.addParents ?? "").split(",").filter(Boolean)) {
        const id = p === "root" ? auth.user.rootId : p;
        if (id !== auth.user.rootId && !visible(ctx, auth, ctx.state.driveFiles[id])) {
          throw new DriveError(404, "notFound", `File not found: ${id}.`);
        }
        if (!f.parents.includes(id)) f.parents.push(id);
      }
      ctx.changed();
      return reply.send(renderFile(ctx.baseUrl(req), f, auth.user, q.fields));
    }),
  );

  app.delete(
    `${api}/files/:id`,
    wrap("drive.files.delete", async (req, reply, auth) => {
      const f = getFile(req, auth);
      deleteTree(ctx, f.id);
      ctx.changed();
      return reply.code(204).send();
    }),
  );
}
