import { createHash } from "node:crypto";
import { Dropbox, DropboxAuth, type DropboxResponseError } from "dropbox";
import { describe, expect, it } from "vitest";
import { SANDBOX_CREDENTIALS } from "../src/index.ts";
import { contentHash, DEMO_DROPBOX } from "../src/routes/dropbox/index.ts";
import { useHarness } from "./helpers.ts";

/** Dropbox, spoken to with the official `dropbox` SDK, as Keepsake's integration would. */
const h = useHarness();
const D = SANDBOX_CREDENTIALS.dropbox;
const MiB = 1024 * 1024;
const REDIRECT = "http://127.0.0.1:9/api/oauth/dropbox/callback";

/** The SDK's requests go to the real hosts; the sandbox serves each under its host's prefix. */
const sandboxFetch: typeof fetch = (input, init) => {
  const url = String(input)
    .replace(/^https:\/\/dropbox\.com\//, `${h.url}/www.dropbox.com/`)
    .replace(/^https:\/\/([a-z]+\.dropbox(?:api)?\.com)\//, `${h.url}/$1/`);
  return fetch(url, init);
};
const bytes = (n: number, seed = 5) => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 13 + seed) & 0xff;
  return b;
};

/** Walks the consent page for a demo account and trades the code for tokens. */
async function connect(account: string = DEMO_DROPBOX.jordan.accountId) {
  const auth = new DropboxAuth({
    clientId: D.appKey,
    clientSecret: D.appSecret,
    fetch: sandboxFetch,
  });
  const url = String(
    await auth.getAuthenticationUrl(REDIRECT, "st4te", "code", "offline", [
      "files.content.write",
      "files.content.read",
    ]),
  );
  const page = await sandboxFetch(url);
  expect(page.status).toBe(200);
  const form = new URL(url.replace(/^https:\/\/dropbox\.com\//, "https://www.dropbox.com/"));
  const body = new URLSearchParams({
    ...Object.fromEntries(form.searchParams),
    decision: "allow",
    account,
  });
  const res = await fetch(`${h.url}/www.dropbox.com/oauth2/authorize`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: body.toString(),
    redirect: "manual",
  });
  const back = new URL(String(res.headers.get("location")));
  expect(back.searchParams.get("state")).toBe("st4te");
  const tokens = (await auth.getAccessTokenFromCode(REDIRECT, back.searchParams.get("code")!))
    .result as {
    access_token: string;
    refresh_token: string;
    expires_in: number;
    account_id: string;
  };
  return {
    auth,
    tokens,
    dbx: new Dropbox({ accessToken: tokens.access_token, fetch: sandboxFetch }),
  };
}

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    const e = err as DropboxResponseError<{ error_summary: string }>;
    return { status: e.status, summary: e.error?.error_summary };
  }
  throw new Error("expected a failure");
}

describe("OAuth", () => {
  it("code for short-lived access and refresh tokens; refreshing after expiry works", async () => {
    const { tokens } = await connect();
    expect(tokens).toMatchObject({ expires_in: 14400, account_id: DEMO_DROPBOX.jordan.accountId });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    await h.ctl("clock", { advance_seconds: 4 * 3600 + 5 });
    const stale = new Dropbox({ accessToken: tokens.access_token, fetch: sandboxFetch });
    expect(await failure(stale.usersGetCurrentAccount())).toEqual({
      status: 401,
      summary: "expired_access_token/.",
    });
    const auth = new DropboxAuth({
      clientId: D.appKey,
      clientSecret: D.appSecret,
      refreshToken: tokens.refresh_token,
      fetch: sandboxFetch,
    });
    await auth.refreshAccessToken();
    const fresh = new Dropbox({ accessToken: auth.getAccessToken(), fetch: sandboxFetch });
    expect((await fresh.usersGetCurrentAccount()).result.email).toBe(DEMO_DROPBOX.jordan.email);
  });
});

describe("files in the app folder", () => {
  it("upload, metadata with content_hash and client_modified, download, list, no overwrite in add mode", async () => {
    const { dbx } = await connect();
    const data = bytes(300_000);
    const up = await dbx.filesUpload({
      path: "/Keepsake/@lumen.studio/2026/2026-05-01_photo_1.jpg",
      contents: data,
      mode: { ".tag": "add" },
      client_modified: "2026-05-01T10:00:00Z",
    });
    expect(up.result).toMatchObject({
      size: 300_000,
      content_hash: contentHash(data),
      client_modified: "2026-05-01T10:00:00Z",
    });
    const meta = await dbx.filesGetMetadata({
      path: "/keepsake/@LUMEN.studio/2026/2026-05-01_photo_1.jpg",
    });
    expect(meta.result).toMatchObject({
      ".tag": "file",
      path_display: "/Keepsake/@lumen.studio/2026/2026-05-01_photo_1.jpg",
    });
    const down = await dbx.filesDownload({
      path: "/Keepsake/@lumen.studio/2026/2026-05-01_photo_1.jpg",
    });
    expect(Buffer.from((down.result as unknown as { fileBinary: Buffer }).fileBinary)).toEqual(
      data,
    );
    const list = await dbx.filesListFolder({ path: "", recursive: true, limit: 2 });
    expect(list.result.has_more).toBe(true);
    const more = await dbx.filesListFolderContinue({ cursor: list.result.cursor });
    expect([...list.result.entries, ...more.result.entries].map((e) => e.path_display)).toEqual([
      "/Keepsake",
      "/Keepsake/@lumen.studio",
      "/Keepsake/@lumen.studio/2026",
      "/Keepsake/@lumen.studio/2026/2026-05-01_photo_1.jpg",
    ]);
    // A second add of other bytes at the same path conflicts; of the same bytes, answers the file.
    expect(
      await failure(
        dbx.filesUpload({
          path: "/Keepsake/@lumen.studio/2026/2026-05-01_photo_1.jpg",
          contents: bytes(10),
        }),
      ),
    ).toEqual({ status: 409, summary: "path/conflict/file/." });
    const again = await dbx.filesUpload({
      path: "/Keepsake/@lumen.studio/2026/2026-05-01_photo_1.jpg",
      contents: data,
    });
    expect(again.result.id).toBe(up.result.id);
    expect(await failure(dbx.filesGetMetadata({ path: "/nope.jpg" }))).toEqual({
      status: 409,
      summary: "path/not_found/.",
    });
  });

  it("an upload session: offsets checked, each call's content hash verified against its own bytes", async () => {
    const { dbx } = await connect();
    const data = bytes(9 * MiB + 123);
    const start = await dbx.filesUploadSessionStart({ contents: data.subarray(0, 4 * MiB) });
    const session_id = start.result.session_id;
    expect(
      await failure(
        dbx.filesUploadSessionAppendV2({
          cursor: { session_id, offset: 0 },
          contents: data.subarray(4 * MiB, 8 * MiB),
        }),
      ),
    ).toEqual({ status: 409, summary: "incorrect_offset/." });
    await dbx.filesUploadSessionAppendV2({
      cursor: { session_id, offset: 4 * MiB },
      contents: data.subarray(4 * MiB, 8 * MiB),
    });
    const bad = await failure(
      dbx.filesUploadSessionFinish({
        cursor: { session_id, offset: 8 * MiB },
        commit: { path: "/video.mp4", mode: { ".tag": "add" } },
        contents: data.subarray(8 * MiB),
        content_hash: createHash("sha256").update("wrong").digest("hex"),
      }),
    );
    expect(bad).toEqual({ status: 409, summary: "content_hash_mismatch/." });
    // The hash a call carries is that of the bytes it sends, not the whole file's (the
    // answer's content_hash is the whole file's).
    const s2 = (
      await dbx.filesUploadSessionStart({
        contents: data.subarray(0, 8 * MiB),
        content_hash: contentHash(data.subarray(0, 8 * MiB)),
      })
    ).result.session_id;
    const commit = {
      path: "/video.mp4",
      mode: { ".tag": "add" as const },
      client_modified: "2026-04-02T08:30:00Z",
    };
    const whole = await failure(
      dbx.filesUploadSessionFinish({
        cursor: { session_id: s2, offset: 8 * MiB },
        commit,
        contents: data.subarray(8 * MiB),
        content_hash: contentHash(data),
      }),
    );
    expect(whole).toEqual({ status: 409, summary: "content_hash_mismatch/." });
    const done = await dbx.filesUploadSessionFinish({
      cursor: { session_id: s2, offset: 8 * MiB },
      commit,
      contents: data.subarray(8 * MiB),
      content_hash: contentHash(data.subarray(8 * MiB)),
    });
    expect(done.result).toMatchObject({ size: data.length, content_hash: contentHash(data) });
  });

  it("too many writes, a full Dropbox and a revoked grant answer as Dropbox does", async () => {
    const { dbx } = await connect();
    await h.ctl("faults", {
      endpoint: "dropbox.files/upload",
      error: "dropbox:too_many_write_operations",
      retry_after: 2,
    });
    const limited = await failure(dbx.filesUpload({ path: "/a.json", contents: "{}" }));
    expect(limited).toEqual({ status: 429, summary: "too_many_write_operations/." });
    await h.ctl("dropbox/quota", { email: DEMO_DROPBOX.jordan.email, bytes: 10 });
    expect(await failure(dbx.filesUpload({ path: "/b.bin", contents: bytes(100) }))).toEqual({
      status: 409,
      summary: "path/insufficient_space/.",
    });
    await dbx.authTokenRevoke();
    expect(await failure(dbx.filesUpload({ path: "/c.json", contents: "{}" }))).toEqual({
      status: 401,
      summary: "invalid_access_token/.",
    });
  });
});
