import type { Sandbox } from "@keepsake/sandbox";
import type {
  ByteSource,
  DestinationCredentials,
  FileSpec,
  UploadRecorder,
} from "../../src/destinations/destination.ts";
import { createOneDriveDestination } from "../../src/destinations/onedrive.ts";
import { AppError } from "../../src/lib/errors.ts";
import { createMicrosoftOAuthClient } from "../../src/providers/microsoft/microsoft-oauth.client.ts";
import {
  createOneDriveClient,
  FRAGMENT_UNIT,
} from "../../src/providers/microsoft/onedrive.client.ts";
import { ProviderError } from "../../src/providers/provider-error.ts";
import { DEFAULT_ENGINE_SETTINGS } from "../../src/sync/engine-settings.ts";
import {
  consent,
  control,
  microsoftSettings,
  onedriveEmail,
  onedriveUser,
  REDIRECT,
  recordingRetry,
} from "./destinations.ts";

/** The OneDrive destination against the sandbox, with a real token and a credentials stand-in. */
export const FRAGMENT = 4 * FRAGMENT_UNIT;
export const USER = "user-1";

export interface StoredOneDriveFile {
  id: string;
  path: string;
  size: number;
  quick_xor_hash: string;
  file_system_modified: string;
}

export function onedriveHarness(sandbox: () => Sandbox) {
  const oauth = () => createMicrosoftOAuthClient(microsoftSettings(sandbox()));
  const client = () => createOneDriveClient(microsoftSettings(sandbox()));

  /** Connects the demo user through the consent screen; answers a DestinationCredentials. */
  async function credentials() {
    const back = await consent(oauth().authUrl({ redirectUri: REDIRECT, state: "s" }), {
      decision: "allow",
      account: onedriveUser,
    });
    const tokens = await oauth().exchangeCode({ code: back.get("code")!, redirectUri: REDIRECT });
    const held = { access: tokens.accessToken, refresh: tokens.refreshToken!, refreshes: 0 };
    const creds: DestinationCredentials = {
      async accessToken(_userId, kind, options) {
        if (kind !== "onedrive") throw new Error(`asked for ${kind}`);
        if (options?.forceRefresh) {
          held.refreshes++;
          try {
            const fresh = await oauth().refreshAccessToken(held.refresh);
            held.access = fresh.accessToken;
            held.refresh = fresh.refreshToken ?? held.refresh;
          } catch (err) {
            // As the connections area does: a refused refresh means reconnecting.
            if (err instanceof ProviderError && err.kind === "token_invalid")
              throw new AppError("conflict", "Reconnect OneDrive");
            throw err;
          }
        }
        return held.access;
      },
      s3Settings: async () => {
        throw new Error("not S3");
      },
    };
    return { creds, held };
  }

  async function open(options: { unknownLengthLimit?: number } = {}) {
    const { creds, held } = await credentials();
    const waits: number[] = [];
    const destination = createOneDriveDestination({
      client: client(),
      credentials: creds,
      settings: { ...DEFAULT_ENGINE_SETTINGS, ...recordingRetry(waits) },
      clock: { now: () => new Date("2026-01-02T03:04:05Z") },
      fragmentBytes: FRAGMENT,
      ...options,
    });
    return { destination, d: destination.open(USER), held, waits };
  }

  const files = async () =>
    (
      await control<{ users: { email: string; files: StoredOneDriveFile[] }[] }>(
        sandbox(),
        "onedrive/files",
      )
    ).users.find((u) => u.email === onedriveEmail)?.files ?? [];
  const sessions = async () =>
    (await control<{ sessions: { id: string; received: number }[] }>(sandbox(), "onedrive/files"))
      .sessions;
  const calls = async (endpoint: string) =>
    (await control<{ calls: Record<string, number> }>(sandbox(), "calls")).calls[endpoint] ?? 0;

  return { client, oauth, open, files, sessions, calls };
}

/** A download of `data`: its length announced or not; `reopen` counted. */
export function sourceOf(data: Buffer, options: { length?: boolean } = {}) {
  const response = () =>
    options.length === false
      ? new Response(
          new ReadableStream<Uint8Array>({
            start(c) {
              for (let i = 0; i < data.length; i += 100_000)
                c.enqueue(data.subarray(i, i + 100_000));
              c.close();
            },
          }),
        )
      : new Response(data, { headers: { "content-length": String(data.length) } });
  const counts = { reopened: 0 };
  const source: ByteSource = {
    download: response(),
    reopen: async () => {
      counts.reopened++;
      return response();
    },
  };
  return { source, counts };
}

/** A recorder keeping what it was told. */
export function recorderOf() {
  const told: { opened: { ref: string; total: number | null }[]; closed: number } = {
    opened: [],
    closed: 0,
  };
  const recorder: UploadRecorder = {
    opened: async (ref, total) => {
      told.opened.push({ ref, total });
    },
    closed: async () => {
      told.closed++;
    },
  };
  return { recorder, told };
}

export const POSTED = new Date("2024-11-12T13:14:15.000Z");
export const FOLDER = ["Keepsake", "@lumen.studio", "2024"];
export const APP = "/Apps/Keepsake/";

export const specOf = (folderId: string, name: string, mimeType = "video/mp4"): FileSpec => ({
  folderId,
  name,
  mimeType,
  time: POSTED,
  tags: { item: name, post: "p1" },
});

export const noLease = { resume: null, checkLease: () => {} };

/** The failure a promise ends with. */
export async function failureOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a failure");
}
