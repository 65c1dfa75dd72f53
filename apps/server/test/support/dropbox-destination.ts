import type { Sandbox } from "@keepsake/sandbox";
import type {
  ByteSource,
  DestinationCredentials,
  FileSpec,
  UploadRecorder,
} from "../../src/destinations/destination.ts";
import { createDropboxDestination } from "../../src/destinations/dropbox.ts";
import { AppError } from "../../src/lib/errors.ts";
import { createDropboxClient } from "../../src/providers/dropbox/dropbox.client.ts";
import { createDropboxOAuthClient } from "../../src/providers/dropbox/dropbox-oauth.client.ts";
import { DEFAULT_ENGINE_SETTINGS } from "../../src/sync/engine-settings.ts";
import {
  consent,
  control,
  dropboxAccount,
  dropboxEmail,
  dropboxSettings,
  pieces,
  REDIRECT,
  recordingRetry,
} from "./destinations.ts";

/** The Dropbox destination against a sandbox, with a real grant from its OAuth. */

export const USER = "00000000-0000-4000-8000-000000000001";
export const NOW = new Date("2026-01-02T03:04:05.000Z");

/** Connects the demo account through the consent page; answers its tokens. */
export async function connectDropbox(sandbox: Sandbox) {
  const oauth = createDropboxOAuthClient(dropboxSettings(sandbox));
  const { url, codeVerifier } = oauth.authUrl({ redirectUri: REDIRECT, state: "s" });
  const back = await consent(url, { decision: "allow", account: dropboxAccount });
  const code = back.get("code") ?? "";
  return oauth.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier });
}

/**
 * What the connections area does for the adapter, in small: answers the access token, refreshes
 * it with the refresh token when asked (counted), and says "reconnect" (an AppError) when the
 * refresh is refused or `refuse` is set. `staleRefresh` answers the same token on a refresh.
 */
export function testCredentials(
  sandbox: Sandbox,
  tokens: { accessToken: string; refreshToken: string | null },
) {
  const oauth = createDropboxOAuthClient(dropboxSettings(sandbox));
  const state = { token: tokens.accessToken, refreshes: 0, refuse: false, staleRefresh: false };
  const credentials: Pick<DestinationCredentials, "accessToken"> = {
    async accessToken(userId, kind, options) {
      if (userId !== USER || kind !== "dropbox") throw new Error(`asked for ${userId} ${kind}`);
      if (state.refuse) throw new AppError("conflict", "Dropbox is not connected");
      if (options?.forceRefresh) {
        state.refreshes++;
        if (state.staleRefresh) return state.token;
        try {
          state.token = (await oauth.refreshAccessToken(tokens.refreshToken ?? "")).accessToken;
        } catch {
          throw new AppError("conflict", "Dropbox refused the refresh: reconnect Dropbox");
        }
      }
      return state.token;
    },
  };
  return { credentials, state };
}

/** The adapter, its retries recorded (nothing sleeps), with the sandbox's Dropbox. */
export async function dropboxDestination(sandbox: Sandbox) {
  const tokens = await connectDropbox(sandbox);
  const { credentials, state } = testCredentials(sandbox, tokens);
  const waits: number[] = [];
  const client = createDropboxClient(dropboxSettings(sandbox));
  const destination = createDropboxDestination({
    client,
    credentials,
    // Piped appends of 8 MiB (64 MiB in production): a 20 MiB file takes three.
    settings: { ...DEFAULT_ENGINE_SETTINGS, chunkBytes: 8 * 1024 * 1024, ...recordingRetry(waits) },
    clock: { now: () => NOW },
  });
  return { destination, d: destination.open(USER), client, tokens, credentials: state, waits };
}

/** A download of `data` (with its length, unless `unknownLength`), and the same again on reopen. */
export function sourceOf(
  data: Buffer,
  options: {
    unknownLength?: boolean;
    opened?: { count: number };
    /** The first read waits here before it yields the bytes from `offset` on. */
    pause?: { offset: number; until: Promise<unknown> };
    /** Told when the first read has yielded every byte. */
    read?: () => void;
  } = {},
): ByteSource {
  let first = true;
  async function* paced() {
    const { pause, read } = first ? options : {};
    first = false;
    let at = 0;
    for await (const piece of pieces(data)) {
      if (pause && at <= pause.offset && pause.offset < at + piece.length) {
        yield piece.subarray(0, pause.offset - at);
        await pause.until;
        yield piece.subarray(pause.offset - at);
      } else yield piece;
      at += piece.length;
    }
    read?.();
  }
  const response = () => {
    if (options.opened) options.opened.count++;
    return new Response(ReadableStream.from(paced()), {
      headers: options.unknownLength ? {} : { "content-length": String(data.length) },
    });
  };
  return { download: response(), reopen: async () => response() };
}

/** A recorder that keeps what it is told, in order. */
export function recording() {
  const events: ({ opened: string; total: number | null } | "closed")[] = [];
  const recorder: UploadRecorder = {
    opened: async (ref, total) => {
      events.push({ opened: ref, total });
    },
    closed: async () => {
      events.push("closed");
    },
  };
  const lastRef = () => {
    const opened = events.filter((e) => e !== "closed");
    return opened[opened.length - 1]?.opened ?? null;
  };
  return { recorder, events, lastRef };
}

export const spec = (folderId: string, name: string, time: Date | null = null): FileSpec => ({
  folderId,
  name,
  mimeType: "application/octet-stream",
  time,
  tags: { item: name, post: "p1" },
});

interface Listing {
  accounts: {
    email: string;
    files: { path: string; size: number; content_hash: string; client_modified: string }[];
  }[];
  sessions: { id: string; size: number }[];
}

/** The demo account's files as the sandbox holds them (paths under /Apps/Keepsake, sorted), and open sessions. */
export async function stored(sandbox: Sandbox) {
  const l = await control<Listing>(sandbox, "dropbox/files");
  const files = l.accounts.find((a) => a.email === dropboxEmail)?.files ?? [];
  return {
    files: files
      .map(({ path, size, content_hash, client_modified }) => ({
        path,
        size,
        content_hash,
        client_modified,
      }))
      .sort((x, y) => (x.path < y.path ? -1 : 1)),
    sessions: l.sessions,
  };
}

/** How many calls the sandbox received at a Dropbox route (`files/upload`…). */
export async function calls(sandbox: Sandbox, route: string): Promise<number> {
  const c = await control<{ calls: Record<string, number> }>(sandbox, "calls");
  return c.calls[`dropbox.${route}`] ?? 0;
}
