import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Dropbox, type DropboxResponseError } from "dropbox";
import { describe, expect, it } from "vitest";
import { SANDBOX_CREDENTIALS } from "../src/index.ts";
import { contentHash, DEMO_DROPBOX } from "../src/routes/dropbox/index.ts";
import { json, useHarness } from "./helpers.ts";

/** The control API's Dropbox faults (cuts, corruption, revoked grants), seen through the SDK. */
const dataDir = mkdtempSync(join(tmpdir(), "keepsake-sandbox-dropbox-"));
const h = useHarness({ dataDir });
const D = SANDBOX_CREDENTIALS.dropbox;
/** The Dropbox blobs on disk, by kind: `in` (bodies being received), `part`, files. */
const blobs = () => {
  const names = readdirSync(join(dataDir, "drive")).filter((f) => f.startsWith("dropbox-"));
  return {
    in: names.filter((f) => f.startsWith("dropbox-in-")).length,
    part: names.filter((f) => f.startsWith("dropbox-part-")).length,
    file: names.filter((f) => !/^dropbox-(in|part)-/.test(f)).length,
  };
};
const MiB = 1024 * 1024;
const REDIRECT = "http://127.0.0.1:9/api/oauth/dropbox/callback";

const sandboxFetch: typeof fetch = (input, init) =>
  fetch(String(input).replace(/^https:\/\/([a-z]+\.dropbox(?:api)?\.com)\//, `${h.url}/$1/`), init);
const bytes = (n: number, seed = 9) => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
};

/** Consent for Jordan, then the code for tokens (client secret). */
async function connect() {
  const consent = await fetch(`${h.url}/www.dropbox.com/oauth2/authorize`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_id: D.appKey,
      redirect_uri: REDIRECT,
      token_access_type: "offline",
      decision: "allow",
      account: DEMO_DROPBOX.jordan.accountId,
    }).toString(),
    redirect: "manual",
  });
  const code = new URL(String(consent.headers.get("location"))).searchParams.get("code")!;
  const tokens = await json<{ access_token: string; refresh_token: string }>(
    fetch(`${h.url}/api.dropboxapi.com/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        client_id: D.appKey,
        client_secret: D.appSecret,
        redirect_uri: REDIRECT,
      }).toString(),
    }),
  );
  return { tokens, dbx: new Dropbox({ accessToken: tokens.access_token, fetch: sandboxFetch }) };
}

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    const e = err as DropboxResponseError<{ error_summary: string; error: unknown }>;
    if (e.status === undefined) return { network: true };
    return { status: e.status, summary: e.error?.error_summary, error: e.error?.error };
  }
  throw new Error("expected a failure");
}

describe("Dropbox faults", () => {
  it("a cut mid-append keeps nothing of it; the same offset is sent again", async () => {
    const { dbx } = await connect();
    const data = bytes(8 * MiB + 10);
    const { session_id } = (await dbx.filesUploadSessionStart({ contents: Buffer.alloc(0) }))
      .result;
    await h.ctl("dropbox/cut", { after_bytes: MiB });
    const cursor = { session_id, offset: 0 };
    expect(
      await failure(
        dbx.filesUploadSessionAppendV2({ cursor, contents: data.subarray(0, 4 * MiB) }),
      ),
    ).toEqual({ network: true });
    const sessions = await h.ctl<{ sessions: { id: string; size: number }[] }>("dropbox/files");
    expect(sessions.sessions).toEqual([expect.objectContaining({ id: session_id, size: 0 })]);
    await dbx.filesUploadSessionAppendV2({ cursor, contents: data.subarray(0, 4 * MiB) });
    const done = await dbx.filesUploadSessionFinish({
      cursor: { session_id, offset: 4 * MiB },
      commit: { path: "/v.mp4", mode: { ".tag": "add" } },
      contents: data.subarray(4 * MiB),
      content_hash: contentHash(data.subarray(4 * MiB)),
    });
    expect(done.result).toMatchObject({ size: data.length, content_hash: contentHash(data) });
  });

  it("a body is written as it arrives: what is refused or cut leaves no blob behind", async () => {
    const { dbx } = await connect();
    const before = blobs();
    const data = bytes(8 * MiB + 7);
    const { session_id } = (await dbx.filesUploadSessionStart({ contents: Buffer.alloc(0) }))
      .result;
    const block = (n: number) => data.subarray(n * 4 * MiB, (n + 1) * 4 * MiB);
    // Refused once arrived: a wrong content hash, a wrong offset; cut: mid-body.
    expect(
      await failure(
        dbx.filesUploadSessionAppendV2({
          cursor: { session_id, offset: 0 },
          contents: block(0),
          content_hash: contentHash(Buffer.from("other bytes")),
        }),
      ),
    ).toMatchObject({ status: 409, summary: "content_hash_mismatch/." });
    expect(
      await failure(
        dbx.filesUploadSessionAppendV2({ cursor: { session_id, offset: 5 }, contents: block(0) }),
      ),
    ).toMatchObject({ status: 409, summary: "incorrect_offset/." });
    await h.ctl("dropbox/cut", { after_bytes: MiB });
    expect(
      await failure(
        dbx.filesUploadSessionAppendV2({ cursor: { session_id, offset: 0 }, contents: block(0) }),
      ),
    ).toEqual({ network: true });
    // The sandbox handles the cut request on its side after the client has let go.
    await new Promise((r) => setTimeout(r, 100));
    expect(blobs()).toEqual(before);

    await dbx.filesUploadSessionAppendV2({ cursor: { session_id, offset: 0 }, contents: block(0) });
    await dbx.filesUploadSessionAppendV2({
      cursor: { session_id, offset: 4 * MiB },
      contents: data.subarray(4 * MiB),
    });
    expect(blobs()).toEqual({ ...before, part: before.part + 2 });
    const commit = { path: "/Keepsake/whole.bin", mode: { ".tag": "add" as const } };
    const done = await dbx.filesUploadSessionFinish({
      cursor: { session_id, offset: data.length },
      commit,
      contents: Buffer.alloc(0),
    });
    expect(done.result).toMatchObject({ size: data.length, content_hash: contentHash(data) });
    // A one-request upload refused for its path (other content there) keeps nothing either.
    expect(
      await failure(
        dbx.filesUpload({ path: commit.path, mode: commit.mode, contents: Buffer.from("other") }),
      ),
    ).toMatchObject({ status: 409, summary: "path/conflict/file/." });
    expect(blobs()).toEqual({ ...before, file: before.file + 1 });
  });

  it("a lost answer: the append was stored, and incorrect_offset says where to go on", async () => {
    const { dbx } = await connect();
    const data = bytes(4 * MiB + 5);
    const { session_id } = (await dbx.filesUploadSessionStart({ contents: Buffer.alloc(0) }))
      .result;
    await h.ctl("dropbox/cut", { after_bytes: 0, lose_answer: true });
    const cursor = { session_id, offset: 0 };
    const chunk = data.subarray(0, 4 * MiB);
    expect(await failure(dbx.filesUploadSessionAppendV2({ cursor, contents: chunk }))).toEqual({
      network: true,
    });
    expect(await failure(dbx.filesUploadSessionAppendV2({ cursor, contents: chunk }))).toEqual({
      status: 409,
      summary: "incorrect_offset/.",
      error: { ".tag": "incorrect_offset", correct_offset: 4 * MiB },
    });
  });

  it("a corrupted commit: refused when the hash is sent, else answered with another hash", async () => {
    const { dbx } = await connect();
    const data = bytes(1000);
    await h.ctl("dropbox/corrupt", { count: 2 });
    expect(
      await failure(
        dbx.filesUpload({ path: "/a.bin", contents: data, content_hash: contentHash(data) }),
      ),
    ).toMatchObject({ status: 409, summary: "content_hash_mismatch/." });
    const stored = await dbx.filesUpload({ path: "/b.bin", contents: data });
    expect(stored.result.content_hash).not.toBe(contentHash(data));
    const clean = await dbx.filesUpload({ path: "/c.bin", contents: data });
    expect(clean.result.content_hash).toBe(contentHash(data));
  });

  it("a revoked grant: calls answer 401 and the refresh token is refused", async () => {
    const { dbx, tokens } = await connect();
    const revoked = await h.ctl<{ revoked: number }>("tokens/revoke", {
      dropbox_email: DEMO_DROPBOX.jordan.email,
    });
    expect(revoked.revoked).toBe(2);
    expect(await failure(dbx.usersGetCurrentAccount())).toMatchObject({ status: 401 });
    const refresh = await fetch(`${h.url}/api.dropboxapi.com/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: D.appKey,
        client_secret: D.appSecret,
      }).toString(),
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("a finish that cannot write (a full Dropbox) keeps the session: finished again with an empty body", async () => {
    const { dbx } = await connect();
    const data = bytes(4 * MiB + 10);
    const { session_id } = (
      await dbx.filesUploadSessionStart({ contents: data.subarray(0, 4 * MiB) })
    ).result;
    await h.ctl("dropbox/quota", { email: DEMO_DROPBOX.jordan.email, bytes: MiB });
    const commit = { path: "/Keepsake/v.mp4", mode: { ".tag": "add" as const } };
    expect(
      await failure(
        dbx.filesUploadSessionFinish({
          cursor: { session_id, offset: 4 * MiB },
          commit,
          contents: data.subarray(4 * MiB),
        }),
      ),
    ).toMatchObject({
      status: 409,
      summary: "path/insufficient_space/.",
      error: { ".tag": "path", upload_session_id: session_id },
    });
    const held = await h.ctl<{ sessions: { id: string; size: number }[] }>("dropbox/files");
    expect(held.sessions).toEqual([expect.objectContaining({ id: session_id, size: data.length })]);
    await h.ctl("dropbox/quota", { email: DEMO_DROPBOX.jordan.email, bytes: 10 * MiB });
    const done = await dbx.filesUploadSessionFinish({
      cursor: { session_id, offset: data.length },
      commit,
      contents: Buffer.alloc(0),
    });
    expect(done.result).toMatchObject({ size: data.length, content_hash: contentHash(data) });
    const after = await h.ctl<{ sessions: unknown[] }>("dropbox/files");
    expect(after.sessions).toEqual([]);
  });

  it("throttling with Retry-After, a full quota, and the listing of what was written", async () => {
    const { dbx } = await connect();
    await h.ctl("faults", {
      endpoint: "dropbox.files/upload_session/append_v2",
      error: "dropbox:too_many_write_operations",
      retry_after: 3,
    });
    const { session_id } = (await dbx.filesUploadSessionStart({ contents: Buffer.alloc(0) }))
      .result;
    const res = await fetch(`${h.url}/content.dropboxapi.com/2/files/upload_session/append_v2`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${(dbx as unknown as { auth: { getAccessToken(): string } }).auth.getAccessToken()}`,
        "content-type": "application/octet-stream",
        "dropbox-api-arg": JSON.stringify({ cursor: { session_id, offset: 0 } }),
      },
      body: bytes(10),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("3");
    await dbx.filesUpload({ path: "/Keepsake/x.jpg", contents: bytes(10) });
    await h.ctl("dropbox/quota", { email: DEMO_DROPBOX.jordan.email, bytes: 15 });
    expect(await failure(dbx.filesUpload({ path: "/y.jpg", contents: bytes(10) }))).toMatchObject({
      status: 409,
      summary: "path/insufficient_space/.",
    });
    const listing = await h.ctl<{
      accounts: { email: string; files: { path: string; size: number }[] }[];
    }>("dropbox/files");
    const jordan = listing.accounts.find((a) => a.email === DEMO_DROPBOX.jordan.email);
    expect(jordan?.files).toEqual([
      expect.objectContaining({ path: "/Apps/Keepsake/Keepsake/x.jpg", size: 10 }),
    ]);
  });
});
