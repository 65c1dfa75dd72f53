import { type Sandbox, startSandbox } from "@keepsake/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CallInTransactionError, withinTransactionScope } from "../../src/lib/transaction-scope.ts";
import { dropboxContentHash } from "../../src/providers/dropbox/content-hash.ts";
import { createDropboxClient } from "../../src/providers/dropbox/dropbox.client.ts";
import {
  createDropboxOAuthClient,
  DROPBOX_SCOPES,
} from "../../src/providers/dropbox/dropbox-oauth.client.ts";
import {
  type DropboxSessionState,
  uploadThroughSession,
} from "../../src/providers/dropbox/dropbox-upload.ts";
import { ProviderError } from "../../src/providers/provider-error.ts";
import { withBackoff } from "../../src/providers/retry.ts";
import {
  bytes,
  consent,
  control,
  dropboxAccount,
  dropboxEmail,
  dropboxSettings,
  pieces,
  REDIRECT,
  recordingRetry,
} from "../support/destinations.ts";

/** The Dropbox client against the sandbox's Dropbox: OAuth, upload sessions, faults. */
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  await sandbox.reset();
});

const MiB = 1024 * 1024;
const POSTED = "2025-03-04T05:06:07Z";
const oauth = () => createDropboxOAuthClient(dropboxSettings(sandbox));
const client = () => createDropboxClient(dropboxSettings(sandbox));

async function connect() {
  const o = oauth();
  const { url, codeVerifier } = o.authUrl({ redirectUri: REDIRECT, state: "s&t=1" });
  const back = await consent(url, { decision: "allow", account: dropboxAccount });
  expect(back.get("state")).toBe("s&t=1");
  return o.exchangeCode({ code: back.get("code")!, redirectUri: REDIRECT, codeVerifier });
}

const failureOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    if (err instanceof ProviderError) return err;
    throw err;
  }
  throw new Error("expected a failure");
};
const appends = async () =>
  (await control<{ calls: Record<string, number> }>(sandbox, "calls")).calls[
    "dropbox.files/upload_session/append_v2"
  ] ?? 0;

describe("Dropbox OAuth", () => {
  it("asks for the app folder's scopes with PKCE; refreshes short-lived tokens", async () => {
    const { url } = oauth().authUrl({ redirectUri: REDIRECT, state: "x" });
    const q = new URL(url).searchParams;
    expect(q.get("scope")).toBe(DROPBOX_SCOPES.join(" "));
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("token_access_type")).toBe("offline");
    const tokens = await connect();
    expect(tokens).toMatchObject({ expiresIn: 14400, accountId: dropboxAccount });
    expect((await client().account(tokens.accessToken)).email).toBe(dropboxEmail);

    await control(sandbox, "clock", { advance_seconds: 4 * 3600 + 1 });
    const stale = await failureOf(client().account(tokens.accessToken));
    expect(stale).toMatchObject({ kind: "token_invalid", code: "expired_access_token" });
    const fresh = await oauth().refreshAccessToken(tokens.refreshToken!);
    expect((await client().account(fresh.accessToken)).accountId).toBe(dropboxAccount);
  });

  it("a wrong PKCE verifier is refused", async () => {
    const { url } = oauth().authUrl({ redirectUri: REDIRECT, state: "x" });
    const back = await consent(url, { decision: "allow", account: dropboxAccount });
    const err = await failureOf(
      oauth().exchangeCode({ code: back.get("code")!, redirectUri: REDIRECT, codeVerifier: "no" }),
    );
    expect(err).toMatchObject({ kind: "token_invalid", code: "invalid_grant" });
  });
});

describe("Dropbox files", () => {
  it("a full upload: session recorded before its first byte, hash checked, post time kept, found and replaced in place", async () => {
    const { accessToken: t } = await connect();
    const data = bytes(9 * MiB + 321);
    const told: { state: DropboxSessionState; held: number }[] = [];
    const file = await uploadThroughSession(client(), t, {
      commit: {
        path: "/Keepsake/@lumen.studio/2025/video.mp4",
        mode: "add",
        clientModified: POSTED,
      },
      source: pieces(data),
      onSession: async (state) => {
        const s = await control<{ sessions: { id: string; size: number }[] }>(
          sandbox,
          "dropbox/files",
        );
        told.push({ state, held: s.sessions.find((x) => x.id === state.sessionId)?.size ?? -1 });
      },
    });
    expect(told[0]).toEqual({ state: { sessionId: expect.any(String), offset: 0 }, held: 0 });
    expect(told.map((x) => x.state.offset)).toEqual([0, 8 * MiB]);
    expect(file).toMatchObject({
      size: data.length,
      contentHash: dropboxContentHash(data),
      clientModified: POSTED,
    });
    const found = await client().getMetadata(t, "/keepsake/@lumen.studio/2025/VIDEO.mp4");
    expect(found?.file?.id).toBe(file.id);
    expect(await client().getMetadata(t, "/Keepsake/nope.jpg")).toBeNull();

    // A sidecar: one request, then replaced in place (same id, new content).
    const one = Buffer.from('{"caption":"one"}');
    const side = { path: "/Keepsake/@lumen.studio/2025/video.json", mode: "overwrite" } as const;
    const first = await client().upload(t, side, [one], dropboxContentHash(one));
    const two = Buffer.from('{"caption":"two, longer"}');
    const second = await client().upload(t, side, [two], dropboxContentHash(two));
    expect(second).toMatchObject({ id: first.id, size: two.length });
    const all = await client().listFolder(t, "", true);
    expect(all.filter((e) => e.tag === "file").map((e) => e.pathDisplay)).toEqual([
      "/Keepsake/@lumen.studio/2025/video.json",
      "/Keepsake/@lumen.studio/2025/video.mp4",
    ]);
    // `add` never replaces another file.
    const clash = await failureOf(
      client().upload(t, { path: side.path, mode: "add" }, [one], dropboxContentHash(one)),
    );
    expect(clash.code).toBe("conflict");
    await client().remove(t, side.path);
    await client().remove(t, side.path);
    expect(await client().getMetadata(t, side.path)).toBeNull();
    expect(await client().listFolder(t, "/Keepsake/none")).toEqual([]);
  });

  it("cuts: a broken append is sent again, one whose answer was lost is not sent twice", async () => {
    const { accessToken: t } = await connect();
    const data = bytes(20 * MiB + 5, 3);
    await control(sandbox, "dropbox/cut", { after_bytes: MiB });
    await control(sandbox, "dropbox/cut", { after_bytes: MiB, lose_answer: true });
    const before = await appends();
    const file = await uploadThroughSession(client(), t, {
      commit: { path: "/Keepsake/big.mp4", mode: "add", clientModified: POSTED },
      source: pieces(data),
    });
    expect(file).toMatchObject({ size: data.length, contentHash: dropboxContentHash(data) });
    // The first append twice (cut, then answer lost), two probes of the offset, the second append.
    expect((await appends()) - before).toBe(5);
    const listing = await control<{ accounts: { email: string; files: unknown[] }[] }>(
      sandbox,
      "dropbox/files",
    );
    expect(listing.accounts.find((a) => a.email === dropboxEmail)?.files).toHaveLength(1);
  });

  it("a restart resumes the recorded session from the offset Dropbox holds", async () => {
    const { accessToken: t } = await connect();
    const data = bytes(20 * MiB + 5, 4);
    let recorded: DropboxSessionState | null = null;
    const onSession = (s: DropboxSessionState) => {
      recorded = s;
    };
    const commit = { path: "/Keepsake/resumed.mp4", mode: "add" as const };
    async function* breaksOff() {
      yield* pieces(data.subarray(0, 10 * MiB));
      throw new ProviderError("instagram", "network", "The download broke off");
    }
    await expect(
      uploadThroughSession(client(), t, { commit, source: breaksOff(), onSession }),
    ).rejects.toThrow("broke off");
    expect(recorded).toEqual({ sessionId: expect.any(String), offset: 8 * MiB });
    const before = await appends();
    const file = await uploadThroughSession(client(), t, {
      commit,
      source: pieces(data),
      session: recorded,
      onSession,
    });
    expect(file).toMatchObject({ size: data.length, contentHash: dropboxContentHash(data) });
    expect((await appends()) - before).toBe(2); // the probe, then 8 MiB; the rest with finish
  });

  it("of known length every byte is piped in appends of pipeBytes, the last shorter, and the finish carries none; a longer media is refused", async () => {
    const { accessToken: t } = await connect();
    const data = bytes(20 * MiB + 5, 5);
    const before = await appends();
    const file = await uploadThroughSession(client(), t, {
      commit: { path: "/Keepsake/piped.mp4", mode: "add" },
      source: pieces(data),
      length: data.length,
      pipeBytes: 16 * MiB,
    });
    expect(file).toMatchObject({ size: data.length, contentHash: dropboxContentHash(data) });
    expect((await appends()) - before).toBe(2); // 16 MiB, then 4 MiB + 5 bytes
    const longer = await failureOf(
      uploadThroughSession(client(), t, {
        commit: { path: "/Keepsake/longer.mp4", mode: "add" },
        source: pieces(data),
        length: data.length - 1,
        pipeBytes: 16 * MiB,
      }),
    );
    expect(longer.message).toContain("longer than its length");
    expect(await client().getMetadata(t, "/Keepsake/longer.mp4")).toBeNull();
  });

  it("folders: made with their parents, one already there is fine, a file in the way is not", async () => {
    const { accessToken: t } = await connect();
    await client().createFolder(t, "/Keepsake/@lumen.studio/2025");
    await client().createFolder(t, "/Keepsake/@lumen.studio/2025");
    expect((await client().listFolder(t, "", true)).map((e) => [e.tag, e.pathDisplay])).toEqual([
      ["folder", "/Keepsake"],
      ["folder", "/Keepsake/@lumen.studio"],
      ["folder", "/Keepsake/@lumen.studio/2025"],
    ]);
    const one = Buffer.from("x");
    await client().upload(t, { path: "/Keepsake/f", mode: "add" }, [one], dropboxContentHash(one));
    expect(await failureOf(client().createFolder(t, "/Keepsake/f"))).toMatchObject({
      code: "conflict",
    });
  });

  it("beforeFinish: told the hash before the finish, it can move the commit or answer a file already there", async () => {
    const { accessToken: t } = await connect();
    const data = bytes(9 * MiB, 6);
    const told: string[] = [];
    const moved = await uploadThroughSession(client(), t, {
      commit: { path: "/Keepsake/v.mp4", mode: "add" },
      source: pieces(data),
      beforeFinish: (_s, hash) => {
        told.push(hash);
        return { path: "/Keepsake/v (2).mp4", mode: "add" };
      },
    });
    expect(told).toEqual([dropboxContentHash(data)]);
    expect(moved.pathDisplay).toBe("/Keepsake/v (2).mp4");
    const finishes = (await control<{ calls: Record<string, number> }>(sandbox, "calls")).calls[
      "dropbox.files/upload_session/finish"
    ];
    const adopted = await uploadThroughSession(client(), t, {
      commit: { path: "/Keepsake/v.mp4", mode: "add" },
      source: pieces(data),
      beforeFinish: () => moved,
    });
    expect(adopted.id).toBe(moved.id);
    const after = (await control<{ calls: Record<string, number> }>(sandbox, "calls")).calls;
    expect(after["dropbox.files/upload_session/finish"]).toBe(finishes);
    expect((await client().listFolder(t, "/Keepsake")).map((e) => e.pathDisplay)).toEqual([
      "/Keepsake/v (2).mp4",
    ]);
  });

  it("a corrupted upload is detected by the content hash", async () => {
    const { accessToken: t } = await connect();
    const data = bytes(5 * MiB);
    await control(sandbox, "dropbox/corrupt", { count: 2 });
    const err = await failureOf(
      uploadThroughSession(client(), t, {
        commit: { path: "/Keepsake/c.mp4", mode: "add" },
        source: pieces(data),
      }),
    );
    expect(err).toMatchObject({ kind: "transient", code: "content_hash_mismatch" });
    const small = Buffer.from("sidecar");
    const err2 = await failureOf(
      client().upload(
        t,
        { path: "/Keepsake/c.json", mode: "overwrite" },
        [small],
        dropboxContentHash(small),
      ),
    );
    expect(err2).toMatchObject({ kind: "transient", code: "content_hash_mismatch" });
    // No file is left: the session's, stored other than sent, was found by the answer's hash
    // and removed (its folder stays, as in Dropbox); the small one was refused.
    const left = await client().listFolder(t, "", true);
    expect(left.filter((e) => e.tag === "file")).toEqual([]);
  });

  it("a full Dropbox is quota; too many writes waits as asked; a revoked grant is token_invalid", async () => {
    const { accessToken: t, refreshToken } = await connect();
    const one = Buffer.from("x".repeat(100));
    const commit = { path: "/Keepsake/a.json", mode: "overwrite" } as const;
    await control(sandbox, "dropbox/quota", { email: dropboxEmail, bytes: 50 });
    const full = await failureOf(client().upload(t, commit, [one], dropboxContentHash(one)));
    expect(full).toMatchObject({ kind: "quota", code: "insufficient_space" });
    await control(sandbox, "dropbox/quota", { email: dropboxEmail, bytes: 10 * MiB });

    await control(sandbox, "faults", {
      endpoint: "dropbox.files/upload",
      error: "dropbox:too_many_write_operations",
      retry_after: 2,
    });
    const waits: number[] = [];
    const file = await withBackoff(
      () => client().upload(t, commit, [one], dropboxContentHash(one)),
      recordingRetry(waits),
    );
    expect(waits).toEqual([2000]);
    expect(file.size).toBe(100);

    // The SDK's calls go through the HTTP layer, which refuses to call inside a transaction.
    await expect(
      withinTransactionScope(() => client().getMetadata(t, commit.path)),
    ).rejects.toThrow(CallInTransactionError);
    await control(sandbox, "tokens/revoke", { dropbox_email: dropboxEmail });
    expect(await failureOf(client().getMetadata(t, commit.path))).toMatchObject({
      kind: "token_invalid",
      code: "invalid_access_token",
    });
    expect(await failureOf(oauth().refreshAccessToken(refreshToken!))).toMatchObject({
      kind: "token_invalid",
      code: "invalid_grant",
    });
  });
});
