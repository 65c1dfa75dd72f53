import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type AccountType = "BUSINESS" | "MEDIA_CREATOR" | "PERSONAL";
export type MediaType = "IMAGE" | "VIDEO" | "CAROUSEL_ALBUM";
export type ProductType = "FEED" | "REELS" | "STORY" | "AD";

export interface ImageAsset {
  kind: "image";
  width: number;
  height: number;
  seed: number;
}
export interface VideoAsset {
  kind: "video";
  width: number;
  height: number;
  /** Exact file size; 0 means "the configured large video size". */
  bytes: number;
  seed: number;
}
export type Asset = ImageAsset | VideoAsset;

export interface IgAccount {
  /** App-scoped id (what the token response calls user_id). */
  id: string;
  /** Instagram professional account id (ig-user-id, `user_id` in /me). */
  userId: string;
  username: string;
  name: string;
  accountType: AccountType;
  biography: string;
  website: string;
  followersCount: number;
  followsCount: number;
  avatar: ImageAsset;
  /** Pagination slots, in API order (pinned first, then newest first). Ghost slots are never returned. */
  media: string[];
  stories: string[];
}

export interface IgMedia {
  id: string;
  ownerId: string;
  mediaType: MediaType;
  productType?: ProductType;
  caption?: string;
  timestamp: number;
  likeCount?: number;
  commentsCount: number;
  shortcode: string;
  asset?: Asset;
  thumbnail?: ImageAsset;
  children?: string[];
  /** media_url withheld (copyrighted audio). */
  withheld?: boolean;
  /** Occupies a pagination slot but is filtered out of every answer. */
  ghost?: boolean;
  pinned?: boolean;
  parentId?: string;
  /** Counters set through the control API (else derived from the id; absent when likes are hidden). */
  counters?: { views: number; saves: number; shares: number; reposts: number };
  /** Deleted or archived by its owner: gone from every list and unreadable by id (100/33). */
  removed?: "deleted" | "archived";
  /** Top-level comment ids, newest first; made on first use from `commentsCount` (demo/comments.ts). */
  commentIds?: string[];
}

/** A comment (or a reply: `parentId`) on a media object. */
export interface IgComment {
  id: string;
  mediaId: string;
  parentId?: string;
  username: string;
  fromId: string;
  text: string;
  timestamp: number;
  likeCount: number;
  hidden: boolean;
  /** Reply ids, oldest first. */
  replies: string[];
}

/** Whether a media object is left out of every answer (a ghost slot, or deleted/archived). */
export const unlisted = (m: IgMedia | undefined) => m === undefined || !!m.ghost || !!m.removed;

export interface FbPage {
  id: string;
  name: string;
  category: string;
  /** ig-user-id of the linked professional account. */
  instagramUserId?: string;
}
export interface FbUser {
  id: string;
  name: string;
  email: string;
  pages: FbPage[];
}

export interface GoogleUser {
  sub: string;
  email: string;
  name: string;
  givenName: string;
  familyName: string;
  rootId: string;
  quotaLimit: number;
  /** Extra bytes counted as used (the "fill quota" control). */
  quotaFill: number;
}

export type TokenProvider = "instagram" | "facebook" | "google" | "dropbox" | "microsoft";
export type TokenKind = "short" | "long" | "page" | "access" | "refresh";
export interface TokenRecord {
  token: string;
  provider: TokenProvider;
  kind: TokenKind;
  /** IG account id, FB user id or Google sub. */
  subject: string;
  clientId: string;
  scopes: string[];
  issuedAt: number;
  expiresAt: number | null;
  revoked?: { subcode: number; message: string };
  /** Google: the refresh token that minted this access token. */
  parent?: string;
  pageId?: string;
  /** Google refresh tokens die after six months without use. */
  lastUsedAt?: number;
}

export interface AuthCode {
  code: string;
  provider: TokenProvider;
  subject: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  issuedAt: number;
  expiresAt: number;
  used: boolean;
  offline?: boolean;
}

export interface DriveFile {
  id: string;
  ownerSub: string;
  appClientId: string;
  name: string;
  mimeType: string;
  parents: string[];
  size?: number;
  md5?: string;
  appProperties: Record<string, string>;
  properties: Record<string, string>;
  description?: string;
  createdTime: number;
  modifiedTime: number;
  trashed: boolean;
}

export interface UploadSession {
  id: string;
  ownerSub: string;
  appClientId: string;
  metadata: Record<string, unknown>;
  contentType?: string;
  total?: number;
  received: number;
  /**
   * Bytes the server has read of the request in progress (0 when none): a test sees a body
   * arrive before it cuts the connection. Not stored; only whole blocks are kept (`received`).
   */
  inFlight?: number;
  createdAt: number;
  expiresAt: number;
  fileId?: string;
}

export interface S3Object {
  key: string;
  /** The blob's file name under the blob folder. */
  blob: string;
  size: number;
  /** Quoted like S3's: the md5 of a single PUT, `md5(part md5s)-N` of a multipart upload. */
  etag: string;
  contentType: string;
  /** `x-amz-meta-*` headers, without the prefix. */
  metadata: Record<string, string>;
  /** Checksums S3 keeps when the upload gave one (`crc32`, `sha256`, `sha1`), base64. */
  checksums: Record<string, string>;
  lastModified: number;
}

export interface S3Part {
  number: number;
  blob: string;
  size: number;
  etag: string;
  md5: string;
  lastModified: number;
}

export interface S3Upload {
  id: string;
  key: string;
  contentType: string;
  metadata: Record<string, string>;
  initiated: number;
  parts: Record<string, S3Part>;
}

export interface S3Bucket {
  name: string;
  created: number;
  /** Bytes the bucket may hold (a full disk on MinIO, a storage cap on B2); none = unlimited. */
  quotaBytes?: number;
  objects: Record<string, S3Object>;
  uploads: Record<string, S3Upload>;
}

export interface DropboxEntry {
  /** `id:…`, stable across renames. */
  id: string;
  tag: "file" | "folder";
  /** As the user wrote it, inside the app folder (`/Keepsake/…` is `/Apps/Keepsake/Keepsake/…`). */
  pathDisplay: string;
  blob?: string;
  size?: number;
  contentHash?: string;
  rev?: string;
  clientModified?: number;
  serverModified?: number;
}

export interface DropboxAccount {
  accountId: string;
  email: string;
  name: string;
  quotaBytes: number;
  /** By lower-cased path inside the app folder. */
  entries: Record<string, DropboxEntry>;
}

export interface DropboxSession {
  id: string;
  accountId: string;
  concurrent: boolean;
  closed: boolean;
  /** Bytes received, by offset (a concurrent session's chunks may arrive in any order). */
  chunks: Record<string, string>;
  size: number;
  createdAt: number;
}

export interface OneDriveItem {
  id: string;
  /** The parent item's id (the drive's root has none). */
  parent: string | null;
  name: string;
  folder: boolean;
  blob?: string;
  size?: number;
  quickXorHash?: string;
  mimeType?: string;
  created: number;
  modified: number;
  /** `fileSystemInfo`: the times the client gave (the post's time), else the server's. */
  fsCreated: number;
  fsModified: number;
}

export interface OneDriveUser {
  id: string;
  email: string;
  name: string;
  /** The app folder's parent is named for the user's language ("Apps", "Applications"…). */
  locale: string;
  quotaBytes: number;
  rootId: string;
  items: Record<string, OneDriveItem>;
}

export interface OneDriveSession {
  id: string;
  userId: string;
  parentId: string;
  name: string;
  conflictBehavior: "fail" | "replace" | "rename";
  fsCreated?: number;
  fsModified?: number;
  total?: number;
  /** Contiguous bytes received so far (fragments must arrive in order here). */
  received: number;
  blob: string;
  expires: number;
}

export interface StripeObject {
  id: string;
  object: string;
  [key: string]: unknown;
}

export interface WebhookDelivery {
  at: number;
  status: number | null;
  error?: string;
}
export interface StripeEventRecord {
  event: StripeObject;
  deliveries: WebhookDelivery[];
  delivered: boolean;
}

export interface SandboxState {
  version: 1;
  seq: number;
  igAccounts: Record<string, IgAccount>;
  media: Record<string, IgMedia>;
  /** Comments and replies by id (absent in state saved before comments existed). */
  comments?: Record<string, IgComment>;
  fbUsers: Record<string, FbUser>;
  googleUsers: Record<string, GoogleUser>;
  tokens: Record<string, TokenRecord>;
  codes: Record<string, AuthCode>;
  /** Google scopes granted per `${sub}|${clientId}`. */
  googleGrants: Record<string, string[]>;
  driveFiles: Record<string, DriveFile>;
  uploads: Record<string, UploadSession>;
  stripe: {
    customers: Record<string, StripeObject>;
    subscriptions: Record<string, StripeObject>;
    checkoutSessions: Record<string, StripeObject>;
    portalSessions: Record<string, StripeObject>;
    invoices: Record<string, StripeObject>;
    events: StripeEventRecord[];
    webhookUrl?: string;
  };
  /** Dropbox: its demo accounts' app folders and open upload sessions. */
  dropbox?: { accounts: Record<string, DropboxAccount>; sessions: Record<string, DropboxSession> };
  /** OneDrive (Microsoft Graph): users' drives and open upload sessions. */
  onedrive?: { users: Record<string, OneDriveUser>; sessions: Record<string, OneDriveSession> };
  /** The S3-compatible store's buckets (absent in state saved before it existed). */
  s3?: Record<string, S3Bucket>;
  /** RSA key (PKCS8/SPKI PEM) that signs Google id_tokens. */
  idTokenKey?: { privatePem: string; publicPem: string; kid: string };
  clockOffsetMs: number;
}

export class Store {
  state: SandboxState;
  private readonly file: string | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(dataDir: string | undefined, seed: () => SandboxState) {
    this.file = dataDir ? join(dataDir, "state.json") : undefined;
    if (dataDir) mkdirSync(dataDir, { recursive: true });
    let loaded: SandboxState | undefined;
    if (this.file) {
      try {
        const parsed = JSON.parse(readFileSync(this.file, "utf8")) as SandboxState;
        if (parsed.version === 1) loaded = parsed;
      } catch {
        loaded = undefined;
      }
    }
    this.state = loaded ?? seed();
    if (!loaded) this.saveNow();
  }

  /** Persist soon (debounced); cheap to call after every mutation. */
  changed(): void {
    if (!this.file || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.saveNow();
    }, 100);
    this.timer.unref();
  }

  saveNow(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (!this.file) return;
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.state));
    renameSync(tmp, this.file);
  }
}
