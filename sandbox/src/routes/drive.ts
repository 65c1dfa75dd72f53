import { createHash } from "node:crypto";
import {
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../context.ts";
import { sendDriveError } from "../context.ts";
import { parseQuery, QueryError } from "../drive-query.ts";
import { FieldSyntaxError, type FieldTree, parseFields, selectFields } from "../fields.ts";
import type { DriveFile, GoogleUser, TokenRecord, UploadSession } from "../state.ts";
import { query, randomId } from "../util.ts";
import { sendRanged } from "./cdn.ts";
import { DRIVE_FILE_SCOPE, googleAccess } from "./google.ts";

export const FOLDER_MIME = "application/vnd.google-apps.folder";
const CHUNK = 256 * 1024;
const SESSION_TTL = 7 * 86_400_000;
const FILE_KEYS = new Set([
  "kind",
  "id",
  "name",
  "mimeType",
  "description",
  "starred",
  "trashed",
  "explicitlyTrashed",
  "parents",
  "properties",
  "appProperties",
  "version",
  "webViewLink",
  "webContentLink",
  "iconLink",
  "thumbnailLink",
  "createdTime",
  "modifiedTime",
  "modifiedByMeTime",
  "size",
  "quotaBytesUsed",
  "md5Checksum",
  "sha256Checksum",
  "originalFilename",
  "fullFileExtension",
  "fileExtension",
  "headRevisionId",
  "ownedByMe",
  "owners",
  "capabilities",
  "spaces",
]);

interface Auth {
  user: GoogleUser;
  token: TokenRecord;
}

class DriveError extends Error {
  readonly status: number;
  readonly reason: string;
  readonly extra: Record<string, string>;
  constructor(status: number, reason: string, message: string, extra: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.reason = reason;
    this.extra = extra;
  }
}

function invalidParam(name: string, message = "Invalid Value"): DriveError {
  return new DriveError(400, "invalid", message, { locationType: "parameter", location: name });
}

export function usage(ctx: Ctx, user: GoogleUser): number {
  let used = user.quotaFill;
  for (const f of Object.values(ctx.state.driveFiles))
    if (f.ownerSub === user.sub) used += f.size ?? 0;
  return used;
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString();
}

function ext(name: string): string | undefined {
  const i = name.lastIndexOf(".");
  return i > 0 ? name.slice(i + 1) : undefined;
}

export function fileResource(
  base: string,
  f: DriveFile,
  user: GoogleUser | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    kind: "drive#file",
    id: f.id,
    name: f.name,
    mimeType: f.mimeType,
    starred: false,
    trashed: f.trashed,
    explicitlyTrashed: f.trashed,
    parents: f.parents,
    spaces: ["drive"],
    version: "1",
    webViewLink: `${base}/drive/file/${f.id}`,
    iconLink: `${base}/drive/icon/${encodeURIComponent(f.mimeType)}`,
    createdTime: rfc3339(f.createdTime),
    modifiedTime: rfc3339(f.modifiedTime),
    modifiedByMeTime: rfc3339(f.modifiedTime),
    ownedByMe: true,
    quotaBytesUsed: String(f.size ?? 0),
    capabilities: {
      canEdit: true,
      canDelete: true,
      canDownload: f.mimeType !== FOLDER_MIME,
      canTrash: true,
    },
  };
  if (f.description !== undefined) out.description = f.description;
  if (Object.keys(f.properties).length) out.properties = f.properties;
  if (Object.keys(f.appProperties).length) out.appProperties = f.appProperties;
  if (f.mimeType !== FOLDER_MIME) {
    out.size = String(f.size ?? 0);
    if (f.md5) out.md5Checksum = f.md5;
    out.originalFilename = f.name;
    out.headRevisionId = `0B${f.id.slice(0, 10)}`;
    out.webContentLink = `${base}/www.googleapis.com/drive/v3/files/${f.id}?alt=media`;
    const e = ext(f.name);
    if (e) {
      out.fileExtension = e;
      out.fullFileExtension = e;
    }
    if (f.mimeType.startsWith("image/")) out.thumbnailLink = `${base}/drive/thumb/${f.id}`;
  }
  if (user) {
    out.owners = [
      {
        kind: "drive#user",
        displayName: user.name,
        emailAddress: user.email,
        me: true,
        permissionId: user.sub,
      },
    ];
  }
  return out;
}

function parseFieldsParam(
  text: string | undefined,
  allowed: (tree: FieldTree) => void,
): FieldTree | undefined {
  if (!text) return undefined;
  let tree: FieldTree;
  try {
    tree = parseFields(text, "(", ")");
  } catch (e) {
    if (e instanceof FieldSyntaxError)
      throw invalidParam("fields", `Invalid field selection ${text}`);
    throw e;
  }
  allowed(tree);
  return tree;
}

function checkFileFields(tree: FieldTree | null): void {
  if (!tree || tree.has("*")) return;
  for (const key of tree.keys())
    if (!FILE_KEYS.has(key)) throw invalidParam("fields", `Invalid field selection ${key}`);
}

function renderFile(
  base: string,
  f: DriveFile,
  user: GoogleUser,
  fieldsText: string | undefined,
): unknown {
  const tree = parseFieldsParam(fieldsText, checkFileFields);
  const full = fileResource(base, f, user);
  if (!tree) return { kind: full.kind, id: full.id, name: full.name, mimeType: full.mimeType };
  return selectFields(full, tree);
}

function parseTime(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const t = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(t))
    throw new DriveError(400, "invalid", `Invalid value for ${field}: ${String(value)}`, {
      location: field,
      locationType: "other",
    });
  return t;
}

function stringMap(
  value: unknown,
  field: string,
  base: Record<string, string> = {},
): Record<string, string> {
  if (value === undefined || value === null) return base;
  if (typeof value !== "object" || Array.isArray(value))
    throw new DriveError(400, "invalid", `Invalid ${field}`);
  const out = { ...base };
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = String(v);
    if (Buffer.byteLength(k) + Buffer.byteLength(String(v ?? "")) > 124) {
      throw new DriveError(
        400,
        "invalid",
        `The limit for ${field} is 124 bytes per key-value pair.`,
      );
    }
  }
  return out;
}

function visible(_ctx: Ctx, auth: Auth, f: DriveFile | undefined): f is DriveFile {
  return f !== undefined && f.ownerSub === auth.user.sub && f.appClientId === auth.token.clientId;
}

function newFileFromMetadata(
  ctx: Ctx,
  auth: Auth,
  meta: Record<string, unknown>,
  contentType?: string,
): DriveFile {
  const now = ctx.now();
  const parentsRaw = meta.parents;
  if (parentsRaw !== undefined && !Array.isArray(parentsRaw))
    throw new DriveError(400, "invalid", "Invalid parents");
  const parents = ((parentsRaw as unknown[] | undefined) ?? ["root"]).map((p) =>
    p === "root" ? auth.user.rootId : String(p),
  );
  for (const p of parents) {
    if (p === auth.user.rootId) continue;
    const parent = ctx.state.driveFiles[p];
    if (!visible(ctx, auth, parent))
      throw new DriveError(404, "notFound", `File not found: ${p}.`, {
        locationType: "parameter",
        location: "fileId",
      });
  }
  const created = parseTime(meta.createdTime, "createdTime");
  const modified = parseTime(meta.modifiedTime, "modifiedTime");
  return {
    id: `1${randomId(24).replace(/[-_]/g, "k")}`,
    ownerSub: auth.user.sub,
    appClientId: auth.token.clientId,
    name: typeof meta.name === "string" && meta.name ? meta.name : "Untitled",
    mimeType:
      typeof meta.mimeType === "string" && meta.mimeType
        ? meta.mimeType
        : (contentType?.split(";")[0] ?? "application/octet-stream"),
    parents,
    appProperties: stringMap(meta.appProperties, "appProperties"),
    properties: stringMap(meta.properties, "properties"),
    description: typeof meta.description === "string" ? meta.description : undefined,
    createdTime: created ?? modified ?? now,
    modifiedTime: modified ?? now,
    trashed: meta.trashed === true,
  };
}

function checkQuota(ctx: Ctx, user: GoogleUser, adding: number): void {
  if (usage(ctx, user) + adding > user.quotaLimit) {
    throw new DriveError(
      403,
      "storageQuotaExceeded",
      "The user's Drive storage quota has been exceeded.",
    );
  }
}

async function readAll(req: FastifyRequest, limit: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.raw) {
    size += (chunk as Buffer).length;
    if (size > limit)
      throw new DriveError(
        413,
        "uploadTooLarge",
        "Request entity too large; use a resumable upload.",
      );
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

function parseMultipart(
  body: Buffer,
  contentType: string,
): { meta: Record<string, unknown>; media: Buffer; mediaType?: string } {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary) throw new DriveError(400, "badContent", "Missing multipart boundary");
  const delim = Buffer.from(`--${boundary}`);
  const parts: Buffer[] = [];
  let pos = body.indexOf(delim);
  while (pos >= 0) {
    const start = pos + delim.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const nextPos = body.indexOf(delim, start);
    if (nextPos < 0) break;
    parts.push(body.subarray(start, nextPos));
    pos = nextPos;
  }
  const parsed = parts.map((p) => {
    const headerEnd = p.indexOf("\r\n\r\n");
    const sep = headerEnd >= 0 ? 4 : 2;
    const end = headerEnd >= 0 ? headerEnd : p.indexOf("\n\n");
    const headers = p.subarray(0, end).toString();
    let content = p.subarray(end + sep);
    if (content.subarray(-2).toString() === "\r\n") content = content.subarray(0, -2);
    else if (content.subarray(-1).toString() === "\n") content = content.subarray(0, -1);
    const ct = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim();
    const b64 = /content-transfer-encoding:\s*base64/i.test(headers);
    return { ct, content: b64 ? Buffer.from(content.toString(), "base64") : content };
  });
  if (parsed.length !== 2)
    throw new DriveError(
      400,
      "badContent",
      "Multipart upload needs exactly a metadata part and a media part",
    );
  let meta: Record<string, unknown>;
  try {
    meta = JSON.parse(parsed[0]!.content.toString() || "{}") as Record<string, unknown>;
  } catch {
    throw new DriveError(400, "parseError", "Parse Error");
  }
  return { meta, media: parsed[1]!.content, mediaType: parsed[1]!.ct };
}

async function md5File(path: string): Promise<string> {
  const hash = createHash("md5");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex");
}

function parseContentRange(
  header: string | undefined,
):
  | { kind: "none" }
  | { kind: "query"; total?: number }
  | { kind: "chunk"; start: number; end: number; total?: number }
  | { kind: "bad" } {
  if (header === undefined) return { kind: "none" };
  const q = /^bytes \*\/(\d+|\*)$/.exec(header.trim());
  if (q) return { kind: "query", total: q[1] === "*" ? undefined : Number(q[1]) };
  const c = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header.trim());
  if (!c) return { kind: "bad" };
  const start = Number(c[1]);
  const end = Number(c[2]);
  if (end < start) return { kind: "bad" };
  return { kind: "chunk", start, end, total: c[3] === "*" ? undefined : Number(c[3]) };
}

export function registerDrive(app: FastifyInstance, ctx: Ctx): void {
  const api = "/www.googleapis.com/drive/v3";
  const uploadPath = "/www.googleapis.com/upload/drive/v3/files";

  const authorize = (req: FastifyRequest): Auth => {
    if (!req.headers.authorization && !query(req).access_token) {
      throw new DriveError(
        401,
        "required",
        "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
        {
          locationType: "header",
          location: "Authorization",
        },
      );
    }
    const access = googleAccess(ctx, req);
    if (!access.ok)
      throw new DriveError(401, "authError", "Invalid Credentials", {
        locationType: "header",
        location: "Authorization",
      });
    if (
      !access.token.scopes.includes(DRIVE_FILE_SCOPE) &&
      !access.token.scopes.includes("https://www.googleapis.com/auth/drive")
    ) {
      throw new DriveError(
        403,
        "insufficientPermissions",
        "Request had insufficient authentication scopes.",
      );
    }
    return { user: access.user, token: access.token };
  };

  const wrap =
    (
      endpoint: string,
      fn: (req: FastifyRequest, reply: FastifyReply, auth: Auth) => Promise<unknown>,
    ) =>
    async (req: FastifyRequest, reply: FastifyReply) => {
      if (!(await ctx.enter(req, reply, endpoint))) return reply;
      try {
        const auth = authorize(req);
        return await fn(req, reply, auth);
      } catch (e) {
        if (e instanceof DriveError) {
          if (reply.sent) return reply;
          return sendDriveError(reply, e.status, e.reason, e.message, e.extra);
        }
        throw e;
      }
    };

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

  // ---------- uploads: raw bodies, streamed ----------
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_req, _payload, done) => done(null));

    scope.post(
      uploadPath,
      wrap("drive.upload", async (req, reply, auth) => {
        const q = query(req);
        const base = ctx.baseUrl(req);
        const type = q.uploadType;
        const contentType = req.headers["content-type"] ?? "";
        if (type === "multipart") {
          ctx.calls["drive.upload.multipart"] = (ctx.calls["drive.upload.multipart"] ?? 0) + 1;
          const body = await readAll(req, 6 * 1024 * 1024);
          const { meta, media, mediaType } = parseMultipart(body, contentType);
          const file = newFileFromMetadata(ctx, auth, meta, mediaType);
          checkQuota(ctx, auth.user, media.length);
          await storeBlob(ctx, file, media);
          return reply.send(renderFile(base, file, auth.user, q.fields));
        }
        if (type === "media") {
          const media = await readAll(req, 6 * 1024 * 1024);
          const file = newFileFromMetadata(ctx, auth, {}, contentType);
          checkQuota(ctx, auth.user, media.length);
          await storeBlob(ctx, file, media);
          return reply.send(renderFile(base, file, auth.user, q.fields));
        }
        if (type === "resumable") {
          ctx.calls["drive.upload.resumable.start"] =
            (ctx.calls["drive.upload.resumable.start"] ?? 0) + 1;
          const raw = await readAll(req, 1024 * 1024);
          let meta: Record<string, unknown> = {};
          if (raw.length) {
            try {
              meta = JSON.parse(raw.toString()) as Record<string, unknown>;
            } catch {
              throw new DriveError(400, "parseError", "Parse Error");
            }
          }
          const xType = req.headers["x-upload-content-type"] as string | undefined;
          const xLength = req.headers["x-upload-content-length"] as string | undefined;
          const total = xLength !== undefined ? Number(xLength) : undefined;
          if (total !== undefined && (!Number.isInteger(total) || total < 0))
            throw new DriveError(400, "invalid", "Invalid X-Upload-Content-Length");
          // Validate now (parents, times) so errors surface before any bytes are sent.
          newFileFromMetadata(ctx, auth, meta, xType);
          if (total !== undefined) checkQuota(ctx, auth.user, total);
          const id = `AUy${randomId(40).replace(/[-_]/g, "q")}`;
          const session: UploadSession = {
            id,
            ownerSub: auth.user.sub,
            appClientId: auth.token.clientId,
            metadata: { ...meta, __fields: q.fields },
            contentType: xType,
            total,
            received: 0,
            createdAt: ctx.now(),
            expiresAt: ctx.now() + SESSION_TTL,
          };
          ctx.state.uploads[id] = session;
          ctx.changed();
          return reply
            .header("location", `${base}${uploadPath}?uploadType=resumable&upload_id=${id}`)
            .header("x-guploader-uploadid", id)
            .send();
        }
        throw invalidParam("uploadType");
      }),
    );

    const putChunk = async (req: FastifyRequest, reply: FastifyReply) => {
      if (!(await ctx.enter(req, reply, "drive.upload.resumable.put"))) return reply;
      const q = query(req);
      const session = q.upload_id ? ctx.state.uploads[q.upload_id] : undefined;
      const drain = () => req.raw.resume();
      const socket = req.raw.socket;
      if (!session || session.expiresAt <= ctx.now()) {
        drain();
        if (session) delete ctx.state.uploads[session.id];
        return sendDriveError(
          reply,
          404,
          "notFound",
          "Upload session not found or expired. Start a new upload.",
        );
      }
      const user = ctx.state.googleUsers[session.ownerSub]!;
      const base = ctx.baseUrl(req);
      const fields = session.metadata.__fields as string | undefined;
      if (session.fileId) {
        drain();
        const file = ctx.state.driveFiles[session.fileId];
        if (!file)
          return sendDriveError(
            reply,
            404,
            "notFound",
            "Upload session not found or expired. Start a new upload.",
          );
        return reply.send(renderFile(base, file, user, fields));
      }
      const part = join(ctx.blobDir, `${session.id}.part`);
      const finish = async () => {
        const file = newFileFromMetadata(
          ctx,
          { user, token: { clientId: session.appClientId } as TokenRecord },
          session.metadata,
          session.contentType,
        );
        try {
          checkQuota(ctx, user, session.received);
        } catch (e) {
          rmSync(part, { force: true });
          delete ctx.state.uploads[session.id];
          throw e;
        }
        if (!existsSync(part)) await storeBlob(ctx, file, Buffer.alloc(0));
        else {
          file.size = statSync(part).size;
          if (ctx.corruptUploads > 0 && file.size > 0) {
            const fd = openSync(part, "r+");
            const first = Buffer.alloc(1);
            readSync(fd, first, 0, 1, 0);
            writeSync(fd, corruptIfAsked(ctx, first), 0, 1, 0);
            closeSync(fd);
          }
          file.md5 = await md5File(part);
          renameSync(part, join(ctx.blobDir, file.id));
          ctx.state.driveFiles[file.id] = file;
        }
        session.fileId = file.id;
        ctx.changed();
        return reply.code(200).send(renderFile(base, file, user, fields));
      };
      const incomplete = () => {
        if (session.received > 0) reply.header("range", `bytes=0-${session.received - 1}`);
        return reply.code(308).header("content-length", "0").send();
      };
      try {
        const range = parseContentRange(req.headers["content-range"]);
        const length = Number(req.headers["content-length"] ?? 0);
        if (range.kind === "bad") {
          drain();
          throw new DriveError(400, "badRequest", "Failed to parse Content-Range header.");
        }
        if (range.kind === "query") {
          drain();
          if (range.total !== undefined) {
            if (session.total !== undefined && session.total !== range.total) {
              throw new DriveError(
                400,
                "badRequest",
                "Content-Range total does not match the upload size.",
              );
            }
            session.total = range.total;
          }
          if (session.total !== undefined && session.received === session.total)
            return await finish();
          return incomplete();
        }
        const start = range.kind === "chunk" ? range.start : 0;
        const total = range.kind === "chunk" ? range.total : length;
        const chunkLength = range.kind === "chunk" ? range.end - range.start + 1 : length;
        if (
          range.kind === "chunk" &&
          req.headers["content-length"] !== undefined &&
          chunkLength !== length
        ) {
          drain();
          throw new DriveError(
            400,
            "badRequest",
            "Content-Range does not match the request body length.",
          );
        }
        if (total !== undefined && session.total !== undefined && total !== session.total) {
          drain();
          throw new DriveError(
            400,
            "badRequest",
            "Content-Range total does not match the upload size.",
          );
        }
        if (total !== undefined) session.total = total;
        if (start > session.received) {
          drain();
          throw new DriveError(
            400,
            "badRequest",
            `Invalid request. According to the Content-Range header, the upload offset is ${start} byte(s), which exceeds already uploaded size of ${session.received} byte(s).`,
          );
        }
        const isFinal = session.total !== undefined && start + chunkLength === session.total;
        if (!isFinal && chunkLength < CHUNK) {
          drain();
          throw new DriveError(
            400,
            "badRequest",
            `Invalid request. The number of bytes uploaded is required to be equal or greater than 262144, except for the final request (it's recommended to be the exact multiple of 262144). The received request contained ${chunkLength} bytes, which does not meet this requirement.`,
          );
        }
        if (session.total !== undefined && start + chunkLength > session.total) {
          drain();
          throw new DriveError(
            400,
            "badRequest",
            "Content-Range exceeds the declared upload size.",
          );
        }
        const cutIndex = ctx.cuts.findIndex(
          (c) =>
            c.remaining > 0 &&
            (!c.uploadId || c.uploadId === session.id) &&
            c.afterBytes >= session.received &&
            c.afterBytes < start + chunkLength,
        );
        const cut = cutIndex >= 0 ? ctx.cuts[cutIndex] : undefined;
        if (cut) {
          cut.remaining--;
          if (cut.remaining <= 0) ctx.cuts.splice(cutIndex, 1);
        }
        const stopAt = cut ? cut.afterBytes : start + chunkLength;
        let position = start;
        const out = createWriteStream(part, { flags: "a" });
        let cutHappened = false;
        /** Only whole 256 KiB blocks survive an interrupted request. */
        const keepWholeBlocks = () => {
          const written = existsSync(part) ? statSync(part).size : 0;
          const kept = Math.max(session.received, Math.floor(written / CHUNK) * CHUNK);
          truncateSync(part, Math.min(kept, written));
          session.received = Math.min(kept, written);
          ctx.changed();
        };
        try {
          for await (const chunk of req.raw) {
            let buf = chunk as Buffer;
            const chunkStart = position;
            position += buf.length;
            if (position <= session.received) continue;
            if (chunkStart < session.received) buf = buf.subarray(session.received - chunkStart);
            const room = stopAt - Math.max(chunkStart, session.received);
            if (buf.length > room) buf = buf.subarray(0, Math.max(0, room));
            if (buf.length && !out.write(buf)) await new Promise((r) => out.once("drain", r));
            const reached = Math.max(chunkStart, session.received) + buf.length;
            if (cut && reached >= stopAt) {
              cutHappened = true;
              break;
            }
          }
        } catch (e) {
          // The client went away mid-body (e.g. its process was killed).
          await new Promise<void>((resolve) => out.end(() => resolve()));
          keepWholeBlocks();
          throw e;
        } finally {
          if (!out.writableEnded) {
            await new Promise<void>((resolve, reject) =>
              out.end((err?: Error | null) => (err ? reject(err) : resolve())),
            );
          }
        }
        const written = existsSync(part) ? statSync(part).size : 0;
        if (cutHappened) {
          keepWholeBlocks();
          socket.destroy();
          reply.hijack();
          return reply;
        }
        if (written < start + chunkLength) {
          // Client sent fewer bytes than announced (aborted).
          keepWholeBlocks();
          return incomplete();
        }
        if (isFinal) {
          session.received = written;
          return await finish();
        }
        // Non-final chunks commit whole 256 KiB blocks only.
        const committed = Math.floor(written / CHUNK) * CHUNK;
        truncateSync(part, committed);
        session.received = committed;
        ctx.changed();
        return incomplete();
      } catch (e) {
        if (e instanceof DriveError)
          return sendDriveError(reply, e.status, e.reason, e.message, e.extra);
        throw e;
      }
    };
    scope.put(uploadPath, putChunk);
    scope.post(`${uploadPath}/resumable`, putChunk);
  });
}

/** Flips the first byte of a stored upload when the control API asked for a corrupt one. */
function corruptIfAsked(ctx: Ctx, data: Buffer): Buffer {
  if (ctx.corruptUploads <= 0 || data.length === 0) return data;
  ctx.corruptUploads--;
  const out = Buffer.from(data);
  out[0] = (out[0] as number) ^ 0xff;
  return out;
}

async function storeBlob(ctx: Ctx, file: DriveFile, sent: Buffer): Promise<void> {
  const data = corruptIfAsked(ctx, sent);
  const { writeFile } = await import("node:fs/promises");
  await writeFile(join(ctx.blobDir, file.id), data);
  file.size = data.length;
  file.md5 = createHash("md5").update(data).digest("hex");
  ctx.state.driveFiles[file.id] = file;
  ctx.changed();
}

export function deleteTree(ctx: Ctx, id: string): void {
  for (const child of Object.values(ctx.state.driveFiles)) {
    if (child.parents.includes(id)) deleteTree(ctx, child.id);
  }
  delete ctx.state.driveFiles[id];
  rmSync(join(ctx.blobDir, id), { force: true });
}
