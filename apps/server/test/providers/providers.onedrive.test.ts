import { DEMO_ONEDRIVE, type Sandbox, startSandbox } from "@keepsake/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createMicrosoftOAuthClient,
  MICROSOFT_SCOPES,
} from "../../src/providers/microsoft/microsoft-oauth.client.ts";
import {
  createOneDriveClient,
  FRAGMENT_UNIT,
} from "../../src/providers/microsoft/onedrive.client.ts";
import { uploadThroughSession } from "../../src/providers/microsoft/onedrive-upload.ts";
import { quickXorHash } from "../../src/providers/microsoft/quickxor.ts";
import { ProviderError } from "../../src/providers/provider-error.ts";
import { withBackoff } from "../../src/providers/retry.ts";
import {
  bytes,
  consent,
  control,
  microsoftSettings,
  onedriveEmail,
  onedriveUser,
  pieces,
  REDIRECT,
  recordingRetry,
} from "../support/destinations.ts";

/** The OneDrive (Graph) client against the sandbox: identity, upload sessions, faults. */
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

const UNIT = FRAGMENT_UNIT;
const POSTED = "2024-11-12T13:14:15Z";
const oauth = () => createMicrosoftOAuthClient(microsoftSettings(sandbox));
const client = () => createOneDriveClient(microsoftSettings(sandbox));

async function connect(account: string = onedriveUser) {
  const back = await consent(oauth().authUrl({ redirectUri: REDIRECT, state: "st" }), {
    decision: "allow",
    account,
  });
  expect(back.get("state")).toBe("st");
  return oauth().exchangeCode({ code: back.get("code")!, redirectUri: REDIRECT });
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
const ranges = async () =>
  (await control<{ calls: Record<string, number> }>(sandbox, "calls")).calls["onedrive.upload"] ??
  0;
const files = async () =>
  (
    await control<{ users: { email: string; files: { path: string; size: number }[] }[] }>(
      sandbox,
      "onedrive/files",
    )
  ).users.find((u) => u.email === onedriveEmail)?.files ?? [];

describe("Microsoft identity", () => {
  it("asks for the app folder only; refresh tokens rotate; the app folder's parent is localised", async () => {
    const q = new URL(oauth().authUrl({ redirectUri: REDIRECT, state: "x" })).searchParams;
    expect(q.get("scope")).toBe(MICROSOFT_SCOPES.join(" "));
    const tokens = await connect();
    expect(tokens.refreshToken).toEqual(expect.any(String));
    const fresh = await oauth().refreshAccessToken(tokens.refreshToken!);
    expect(fresh.refreshToken).not.toBe(tokens.refreshToken);
    expect((await client().appFolder(fresh.accessToken)).name).toBe("Keepsake");
    const fr = await connect(DEMO_ONEDRIVE.camille.id);
    expect((await client().appFolder(fr.accessToken)).parentPath).toBe("/drive/root:/Applications");
  });
});

describe("OneDrive files", () => {
  it("a full upload: session recorded first, ranges, post time, quickXorHash; found, listed, replaced in place", async () => {
    const { accessToken: t } = await connect();
    const data = bytes(5 * UNIT + 777);
    const told: number[] = [];
    const item = await uploadThroughSession(client(), t, {
      path: "/Keepsake/@lumen.studio/2024/reel.mp4",
      conflict: "fail",
      times: { created: POSTED, modified: POSTED },
      source: pieces(data, 100_000),
      total: data.length,
      fragmentBytes: 2 * UNIT,
      onSession: async () => {
        told.push(await ranges());
      },
    });
    expect(told).toEqual([0]);
    expect(await ranges()).toBe(3);
    expect(item).toMatchObject({
      size: data.length,
      quickXorHash: quickXorHash(data),
      fileModified: POSTED,
    });
    expect((await client().getByPath(t, "/Keepsake/@lumen.studio/2024/reel.mp4"))?.id).toBe(
      item.id,
    );
    expect(await client().getByPath(t, "/Keepsake/none.jpg")).toBeNull();

    const side = "/Keepsake/@lumen.studio/2024/reel.json";
    const first = await client().putSmall(
      t,
      side,
      Buffer.from("{}"),
      "replace",
      "application/json",
    );
    const second = await client().putSmall(t, side, Buffer.from('{"a":1}'), "replace");
    expect(second).toMatchObject({ id: first.id, size: 7 });
    const timed = await client().setTimes(t, second.id, { modified: POSTED });
    expect(timed.fileModified).toBe(POSTED);
    expect(
      (await client().listChildren(t, "/Keepsake/@lumen.studio/2024")).map((i) => i.name).sort(),
    ).toEqual(["reel.json", "reel.mp4"]);
    expect(await client().listChildren(t, "/Keepsake/none")).toEqual([]);
    expect((await client().listTree(t, "")).map((f) => f.path).sort()).toEqual([
      "/Keepsake/@lumen.studio/2024/reel.json",
      "/Keepsake/@lumen.studio/2024/reel.mp4",
    ]);
    expect((await failureOf(client().putSmall(t, side, Buffer.from("x"), "fail"))).code).toBe(
      "conflict",
    );
    await client().remove(t, second.id);
    await client().remove(t, second.id);
    expect(await client().getByPath(t, side)).toBeNull();
  });

  it("cuts: resumed from nextExpectedRanges, a stored fragment whose answer was lost not sent again, a lost last answer found by path", async () => {
    const { accessToken: t } = await connect();
    const data = bytes(6 * UNIT + 10, 2);
    await control(sandbox, "onedrive/cut", { after_bytes: UNIT + 5 }); // keeps one unit of the first
    await control(sandbox, "onedrive/cut", { after_bytes: UNIT, lose_answer: true });
    const before = await ranges();
    const item = await uploadThroughSession(client(), t, {
      path: "/Keepsake/cut.mp4",
      conflict: "fail",
      source: pieces(data),
      total: data.length,
      fragmentBytes: 2 * UNIT,
    });
    expect(item).toMatchObject({ size: data.length, quickXorHash: quickXorHash(data) });
    // Fragments 1 (cut), 1's rest (answer lost), 2, 3, 4: five range requests, nothing twice.
    expect((await ranges()) - before).toBe(5);

    await control(sandbox, "onedrive/cut", { after_bytes: 1, lose_answer: true, count: 1 });
    const small = bytes(UNIT + 3, 8);
    const last = await uploadThroughSession(client(), t, {
      path: "/Keepsake/last.mp4",
      conflict: "fail",
      source: pieces(small),
      total: small.length,
      fragmentBytes: 2 * UNIT,
    });
    expect(last).toMatchObject({ size: small.length, quickXorHash: quickXorHash(small) });
    expect((await files()).map((f) => f.path)).toEqual([
      "/Apps/Keepsake/Keepsake/cut.mp4",
      "/Apps/Keepsake/Keepsake/last.mp4",
    ]);
  });

  it("a restart resumes the recorded upload URL from where the session stands", async () => {
    const { accessToken: t } = await connect();
    const data = bytes(5 * UNIT, 4);
    let recorded: string | null = null;
    async function* breaksOff() {
      yield* pieces(data.subarray(0, 3 * UNIT));
      throw new ProviderError("instagram", "network", "The download broke off");
    }
    const upload = {
      path: "/Keepsake/r.mp4",
      conflict: "fail" as const,
      total: data.length,
      fragmentBytes: 2 * UNIT,
    };
    await expect(
      uploadThroughSession(client(), t, {
        ...upload,
        source: breaksOff(),
        onSession: (u) => {
          recorded = u;
        },
      }),
    ).rejects.toThrow("broke off");
    expect(await client().sessionStatus(recorded!)).toBe(2 * UNIT);
    const before = await ranges();
    const item = await uploadThroughSession(client(), t, {
      ...upload,
      source: pieces(data),
      session: recorded,
    });
    expect(item).toMatchObject({ size: data.length, quickXorHash: quickXorHash(data) });
    expect((await ranges()) - before).toBe(2);
  });

  it("a corrupted upload is detected by quickXorHash and removed", async () => {
    const { accessToken: t } = await connect();
    const data = bytes(2 * UNIT + 1);
    await control(sandbox, "onedrive/corrupt", {});
    const err = await failureOf(
      uploadThroughSession(client(), t, {
        path: "/Keepsake/c.mp4",
        conflict: "fail",
        source: pieces(data),
        total: data.length,
      }),
    );
    expect(err).toMatchObject({ kind: "transient", code: "quickxor_mismatch" });
    expect(await files()).toEqual([]);
  });

  it("media of unknown length: read ahead up to the limit, else refused before any request", async () => {
    const { accessToken: t } = await connect();
    const data = bytes(UNIT + 99);
    const item = await uploadThroughSession(client(), t, {
      path: "/Keepsake/u.jpg",
      conflict: "fail",
      source: pieces(data),
      total: null,
      readAheadLimit: 2 * UNIT,
    });
    expect(item).toMatchObject({ size: data.length, quickXorHash: quickXorHash(data) });
    const before = await control<{ calls: Record<string, number> }>(sandbox, "calls");
    const err = await failureOf(
      uploadThroughSession(client(), t, {
        path: "/Keepsake/long.mp4",
        conflict: "fail",
        source: pieces(bytes(3 * UNIT)),
        total: null,
        readAheadLimit: 2 * UNIT,
      }),
    );
    expect(err).toMatchObject({ kind: "unknown", code: "length_required" });
    expect(err.message).toMatch(/size was not given/);
    expect((await control<{ calls: Record<string, number> }>(sandbox, "calls")).calls).toEqual(
      before.calls,
    );
  });

  it("507 is quota; 429 waits as asked; a revoked grant is token_invalid", async () => {
    const { accessToken: t, refreshToken } = await connect();
    const data = bytes(1000);
    const upload = () =>
      uploadThroughSession(client(), t, {
        path: "/Keepsake/q.jpg",
        conflict: "replace",
        source: pieces(data),
        total: data.length,
      });
    await control(sandbox, "onedrive/quota", { email: onedriveEmail, bytes: 500 });
    expect(await failureOf(upload())).toMatchObject({ kind: "quota", code: "quotaLimitReached" });
    await control(sandbox, "onedrive/quota", { email: onedriveEmail, bytes: 10 ** 9 });

    await control(sandbox, "faults", {
      endpoint: "onedrive.upload",
      error: "onedrive:activityLimitReached",
      retry_after: 3,
    });
    await control(sandbox, "faults", {
      endpoint: "onedrive.items",
      error: "onedrive:serviceNotAvailable",
      retry_after: 1,
    });
    const waits: number[] = [];
    const item = await withBackoff(upload, recordingRetry(waits));
    expect(waits).toEqual([1000, 3000]);
    expect(item.quickXorHash).toBe(quickXorHash(data));

    await control(sandbox, "tokens/revoke", { microsoft_email: onedriveEmail });
    expect(await failureOf(client().appFolder(t))).toMatchObject({
      kind: "token_invalid",
      code: "InvalidAuthenticationToken",
    });
    expect(await failureOf(oauth().refreshAccessToken(refreshToken!))).toMatchObject({
      kind: "token_invalid",
      code: "invalid_grant",
    });
  });

  it("folders made under the app folder (a taken name is no error), deletes by path, items carry their link", async () => {
    const { accessToken: t } = await connect();
    expect(await client().createFolder(t, "", "Keepsake")).toMatchObject({ folder: true });
    const made = await client().createFolder(t, "/Keepsake", "@lumen.studio");
    expect(made).toMatchObject({ name: "@lumen.studio", folder: true });
    expect(made?.webUrl).toMatch(/\/onedrive\?item=/);
    expect(await client().createFolder(t, "Keepsake", "@lumen.studio")).toBeNull();
    const file = await client().putSmall(
      t,
      "Keepsake/@lumen.studio/a.json",
      Buffer.from("{}"),
      "fail",
    );
    expect(file.webUrl).toMatch(/\/onedrive\?item=/);
    await client().removeByPath(t, "Keepsake/@lumen.studio/a.json");
    await client().removeByPath(t, "Keepsake/@lumen.studio/a.json");
    expect(await client().getByPath(t, "Keepsake/@lumen.studio/a.json")).toBeNull();
    expect((await client().getByPath(t, "Keepsake/@lumen.studio"))?.folder).toBe(true);
  });

  it("a session's known position skips its status request; the check before each fragment stops the upload", async () => {
    const { accessToken: t } = await connect();
    const data = bytes(3 * UNIT, 6);
    const url = await client().createUploadSession(t, "/Keepsake/k.mp4", "fail");
    let checks = 0;
    await expect(
      uploadThroughSession(client(), t, {
        path: "/Keepsake/k.mp4",
        conflict: "fail",
        source: pieces(data),
        total: data.length,
        session: url,
        received: 0,
        fragmentBytes: UNIT,
        beforeFragment: () => {
          if (++checks > 1) throw new Error("claim lost");
        },
      }),
    ).rejects.toThrow("claim lost");
    const calls = (await control<{ calls: Record<string, number> }>(sandbox, "calls")).calls;
    expect(calls["onedrive.upload.status"] ?? 0).toBe(0);
    expect(calls["onedrive.upload"]).toBe(1);
    expect(await client().sessionStatus(url)).toBe(UNIT);
  });
});
