import { createHash } from "node:crypto";
import type { Sandbox } from "@keepsake/sandbox";
import type {
  ByteSource,
  DestinationCredentials,
  FileSpec,
  UploadRecorder,
} from "../../src/destinations/destination.ts";
import { createS3Destination } from "../../src/destinations/index.ts";
import { AppError } from "../../src/lib/errors.ts";
import { createS3Client } from "../../src/providers/s3/s3.client.ts";
import { DEFAULT_ENGINE_SETTINGS } from "../../src/sync/engine-settings.ts";
import { TestClock } from "./clock.ts";
import { control, recordingRetry, s3Settings } from "./destinations.ts";

/** The S3 adapter against the sandbox's store, with the helpers its tests share. */

export const MiB = 1024 * 1024;
export const PREFIX = "keepsake/";
export const POSTED = new Date("2023-07-08T09:10:11.000Z");
export const FOLDER = "Keepsake/@lumen.studio/2023";
export const md5 = (b: Uint8Array) => createHash("md5").update(b).digest("hex");

/**
 * The user's S3 settings as the connections area would answer them: `secrets` says what each
 * read answers in turn (the right secret, a wrong one, or "gone": the user must reconnect).
 */
export function keys(sandbox: Sandbox, secrets: ("right" | "wrong" | "gone")[] = ["right"]) {
  const reads: string[] = [];
  const credentials: Pick<DestinationCredentials, "s3Settings"> = {
    async s3Settings(userId) {
      const which = secrets[Math.min(reads.length, secrets.length - 1)] ?? "right";
      reads.push(userId);
      if (which === "gone") throw new AppError("conflict", "Connect your S3 storage again.");
      const settings = s3Settings(sandbox, PREFIX);
      return which === "wrong" ? { ...settings, secretAccessKey: "not-the-secret" } : settings;
    },
  };
  return { credentials, reads };
}

/** The adapter with 5 MiB parts; `waits` records the backoff's sleeps (none is slept). */
export function s3Destination(
  sandbox: Sandbox,
  opts: { credentials?: Pick<DestinationCredentials, "s3Settings">; attempts?: number } = {},
) {
  const waits: number[] = [];
  const retry = recordingRetry(waits);
  const destination = createS3Destination({
    client: (settings) => createS3Client(settings),
    credentials: opts.credentials ?? keys(sandbox).credentials,
    settings: {
      ...DEFAULT_ENGINE_SETTINGS,
      ...retry,
      backoff: { ...retry.backoff, attempts: opts.attempts ?? retry.backoff.attempts },
    },
    clock: new TestClock(Date.parse("2026-01-02T03:04:05Z")),
    partBytes: 5 * MiB,
  });
  return { destination, session: destination.open("user-1"), waits };
}

export const spec = (name = "photo.jpg", over: Partial<FileSpec> = {}): FileSpec => ({
  folderId: FOLDER,
  name,
  mimeType: "image/jpeg",
  time: POSTED,
  tags: { item: "1790", post: "1790" },
  ...over,
});

/**
 * A CDN download of `data` in 256 KiB pieces, its length told unless `unknownLength`; `at`
 * runs `run` (once) when the stream reaches that offset (e.g. to arm a cut for the next part).
 */
export function source(
  data: Buffer,
  opts: { unknownLength?: boolean; at?: { offset: number; run: () => Promise<unknown> } } = {},
): ByteSource & { opened: number; cancelled: number } {
  let hook = opts.at;
  const make = () => {
    let pos = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(ctrl) {
          if (pos >= data.length) return ctrl.close();
          if (hook && pos >= hook.offset) {
            const run = hook.run;
            hook = undefined;
            await run();
          }
          const end = Math.min(pos + 256 * 1024, data.length);
          ctrl.enqueue(new Uint8Array(data.subarray(pos, end)));
          pos = end;
        },
        cancel() {
          out.cancelled++;
        },
      },
      // Nothing read ahead: the stream is at `offset` when the upload asks for those bytes.
      { highWaterMark: 0 },
    );
    out.opened++;
    return new Response(body, {
      headers: opts.unknownLength ? {} : { "content-length": String(data.length) },
    });
  };
  const out = { opened: 0, cancelled: 0 } as ByteSource & { opened: number; cancelled: number };
  out.download = make();
  out.reopen = async () => make();
  return out;
}

/** Records what the adapter tells the ledger. */
export function recorder() {
  const events: string[] = [];
  const r: UploadRecorder & { events: string[]; ref: string | null } = {
    events,
    ref: null,
    async opened(ref, total) {
      r.ref = ref;
      events.push(`opened ${total}`);
    },
    async closed() {
      events.push("closed");
    },
  };
  return r;
}

/** What the store holds (keys below the bucket, without the prefix), and its open uploads. */
export async function stored(sandbox: Sandbox) {
  const all = await control<{
    objects: { key: string; size: number; etag: string; metadata: Record<string, string> }[];
    uploads: { key: string; parts: { number: number; size: number }[] }[];
  }>(sandbox, "s3/objects");
  return {
    objects: all.objects
      .map((o) => ({ ...o, key: o.key.slice(PREFIX.length) }))
      .sort((a, b) => (a.key < b.key ? -1 : 1)),
    uploads: all.uploads.map((u) => ({ ...u, key: u.key.slice(PREFIX.length) })),
  };
}

export const calls = async (sandbox: Sandbox, endpoint: string) =>
  (await control<{ calls: Record<string, number> }>(sandbox, "calls")).calls[endpoint] ?? 0;

/** The object's bytes, read with the client directly. */
export const read = (sandbox: Sandbox, key: string) =>
  createS3Client(s3Settings(sandbox, PREFIX)).read(key);

export async function failureOf(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    if (err instanceof Error) return err;
    throw err;
  }
  throw new Error("expected a failure");
}
