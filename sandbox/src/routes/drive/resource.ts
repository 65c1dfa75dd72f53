import type { Ctx } from "../../context.ts";
import { FieldSyntaxError, type FieldTree, parseFields, selectFields } from "../../fields.ts";
import type { DriveFile, GoogleUser, TokenRecord } from "../../state.ts";
import { randomId } from "../../util.ts";

export const FOLDER_MIME = "application/vnd.google-apps.folder";
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

export interface Auth {
  user: GoogleUser;
  token: TokenRecord;
}

export class DriveError extends Error {
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

export function invalidParam(name: string, message = "Invalid Value"): DriveError {
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

export function parseFieldsParam(
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

export function checkFileFields(tree: FieldTree | null): void {
  if (!tree || tree.has("*")) return;
  for (const key of tree.keys())
    if (!FILE_KEYS.has(key)) throw invalidParam("fields", `Invalid field selection ${key}`);
}

export function renderFile(
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

export function parseTime(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const t = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(t))
    throw new DriveError(400, "invalid", `Invalid value for ${field}: ${String(value)}`, {
      location: field,
      locationType: "other",
    });
  return t;
}

export function stringMap(
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

export function visible(_ctx: Ctx, auth: Auth, f: DriveFile | undefined): f is DriveFile {
  return f !== undefined && f.ownerSub === auth.user.sub && f.appClientId === auth.token.clientId;
}

export function newFileFromMetadata(
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

export function checkQuota(ctx: Ctx, user: GoogleUser, adding: number): void {
  if (usage(ctx, user) + adding > user.quotaLimit) {
    throw new DriveError(
      403,
      "storageQuotaExceeded",
      "The user's Drive storage quota has been exceeded.",
    );
  }
}
