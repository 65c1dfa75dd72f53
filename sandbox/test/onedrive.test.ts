import { describe, expect, it } from "vitest";
import { SANDBOX_CREDENTIALS } from "../src/index.ts";
import { DEMO_ONEDRIVE, FRAGMENT_UNIT, quickXorHash } from "../src/routes/onedrive/index.ts";
import { json, useHarness } from "./helpers.ts";

/** OneDrive through Microsoft identity and Graph, over plain HTTP as an integration sends it. */
const h = useHarness();
const M = SANDBOX_CREDENTIALS.microsoft;
const REDIRECT = "http://127.0.0.1:9/api/oauth/onedrive/callback";
const SCOPES = "Files.ReadWrite.AppFolder offline_access User.Read";

interface Item {
  id: string;
  name: string;
  size: number;
  file?: { hashes: { quickXorHash: string } };
  folder?: { childCount: number };
  fileSystemInfo: { lastModifiedDateTime: string };
  parentReference: { path?: string };
}
interface GraphError {
  error: { code: string; message: string };
}

const bytes = (n: number, seed = 1) => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 17 + seed) & 0xff;
  return b;
};

async function connect(account: string = DEMO_ONEDRIVE.jordan.id) {
  const authorize = `${h.url}/login.microsoftonline.com/common/oauth2/v2.0/authorize`;
  const q = {
    client_id: M.clientId,
    response_type: "code",
    redirect_uri: REDIRECT,
    scope: SCOPES,
    state: "s1",
  };
  expect((await fetch(`${authorize}?${new URLSearchParams(q)}`)).status).toBe(200);
  const consent = await fetch(authorize, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...q, decision: "allow", account }).toString(),
    redirect: "manual",
  });
  const back = new URL(String(consent.headers.get("location")));
  expect(back.searchParams.get("state")).toBe("s1");
  const tokens = await json<{ access_token: string; refresh_token: string; expires_in: number }>(
    fetch(`${h.url}/login.microsoftonline.com/common/oauth2/v2.0/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        client_id: M.clientId,
        client_secret: M.clientSecret,
        grant_type: "authorization_code",
        code: back.searchParams.get("code")!,
        redirect_uri: REDIRECT,
        scope: SCOPES,
      }).toString(),
    }),
  );
  const graph = (path: string, init: RequestInit = {}) =>
    fetch(`${h.url}/graph.microsoft.com/v1.0${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        ...(init.headers as Record<string, string>),
      },
    });
  return { tokens, graph };
}

describe("identity", () => {
  it("code for tokens; refreshing rotates the refresh token; a stale access token is refused", async () => {
    const { tokens, graph } = await connect();
    expect(tokens.expires_in).toBe(3599);
    expect((await json<{ mail: string }>(graph("/me"))).mail).toBe(DEMO_ONEDRIVE.jordan.email);
    await h.ctl("clock", { advance_seconds: 3600 });
    const stale = await graph("/me");
    expect(stale.status).toBe(401);
    expect((await json<GraphError>(stale)).error.code).toBe("InvalidAuthenticationToken");
    const refreshed = await json<{ access_token: string; refresh_token: string }>(
      fetch(`${h.url}/login.microsoftonline.com/common/oauth2/v2.0/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          client_id: M.clientId,
          client_secret: M.clientSecret,
          grant_type: "refresh_token",
          refresh_token: tokens.refresh_token,
        }).toString(),
      }),
    );
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    const me = await fetch(`${h.url}/graph.microsoft.com/v1.0/me`, {
      headers: { authorization: `Bearer ${refreshed.access_token}` },
    });
    expect(me.status).toBe(200);
  });
});

describe("the app folder", () => {
  it("is named for the user's language; path addressing, simple upload, times, hashes, children", async () => {
    const fr = await connect(DEMO_ONEDRIVE.camille.id);
    const root = await json<Item & { parentReference: { path: string } }>(
      fr.graph("/me/drive/special/approot"),
    );
    expect(root.name).toBe("Keepsake");
    expect(root.parentReference.path).toBe("/drive/root:/Applications");

    const { graph } = await connect();
    const data = bytes(70_000);
    const put = await graph(
      "/me/drive/special/approot:/Keepsake/@lumen.studio/2026/photo.jpg:/content",
      {
        method: "PUT",
        headers: { "content-type": "image/jpeg" },
        body: data,
      },
    );
    expect(put.status).toBe(201);
    const item = await json<Item>(put);
    expect(item.file?.hashes.quickXorHash).toBe(quickXorHash(data));
    const patched = await json<Item>(
      graph(`/me/drive/items/${item.id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ fileSystemInfo: { lastModifiedDateTime: "2026-05-01T10:00:00Z" } }),
      }),
    );
    expect(patched.fileSystemInfo.lastModifiedDateTime).toBe("2026-05-01T10:00:00Z");
    const byPath = await json<Item>(
      graph("/me/drive/special/approot:/Keepsake/@lumen.studio/2026/photo.jpg:"),
    );
    expect(byPath.id).toBe(item.id);
    const children = await json<{ value: Item[] }>(
      graph("/me/drive/special/approot:/Keepsake/@lumen.studio/2026:/children"),
    );
    expect(children.value.map((c) => c.name)).toEqual(["photo.jpg"]);
    const content = await graph(`/me/drive/items/${item.id}/content`, { redirect: "follow" });
    expect(Buffer.from(await content.arrayBuffer())).toEqual(data);
    const missing = await graph("/me/drive/special/approot:/nope.jpg:");
    expect(missing.status).toBe(404);
    expect((await json<GraphError>(missing)).error.code).toBe("itemNotFound");
  });
});

describe("upload sessions", () => {
  it("fragments of 320 KiB multiples in order, the total up front, file system times kept, no Authorization on the upload URL", async () => {
    const { graph } = await connect();
    const data = bytes(2 * FRAGMENT_UNIT + 1000, 4);
    const created = await json<{ uploadUrl: string; nextExpectedRanges: string[] }>(
      graph("/me/drive/special/approot:/Keepsake/video.mp4:/createUploadSession", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          item: {
            "@microsoft.graph.conflictBehavior": "fail",
            fileSystemInfo: {
              createdDateTime: "2026-04-02T08:30:00Z",
              lastModifiedDateTime: "2026-04-02T08:30:00Z",
            },
          },
        }),
      }),
    );
    expect(created.nextExpectedRanges).toEqual(["0-"]);
    const put = (start: number, end: number, headers: Record<string, string> = {}) =>
      fetch(created.uploadUrl, {
        method: "PUT",
        headers: { "content-range": `bytes ${start}-${end}/${data.length}`, ...headers },
        body: data.subarray(start, end + 1),
      });
    expect((await put(0, FRAGMENT_UNIT - 1, { authorization: "Bearer x" })).status).toBe(401);
    expect((await put(0, 1000)).status).toBe(400);
    // 60 MiB in one request is refused (Graph takes less than 60 MiB), before any byte is read.
    const sixty = await fetch(created.uploadUrl, {
      method: "PUT",
      headers: { "content-range": `bytes 0-${60 * 1024 * 1024 - 1}/${61 * 1024 * 1024}` },
      body: "x",
    });
    expect(sixty.status).toBe(400);
    expect((await json<GraphError>(sixty)).error.message).toMatch(/less than 60 MiB/);
    const first = await put(0, FRAGMENT_UNIT - 1);
    expect(first.status).toBe(202);
    expect((await json<{ nextExpectedRanges: string[] }>(first)).nextExpectedRanges).toEqual([
      `${FRAGMENT_UNIT}-${data.length - 1}`,
    ]);
    const skipped = await put(2 * FRAGMENT_UNIT, data.length - 1);
    expect(skipped.status).toBe(416);
    // After a cut, the session says where to go on.
    const status = await json<{ nextExpectedRanges: string[] }>(fetch(created.uploadUrl));
    expect(status.nextExpectedRanges[0]).toBe(`${FRAGMENT_UNIT}-${data.length - 1}`);
    expect((await put(FRAGMENT_UNIT, 2 * FRAGMENT_UNIT - 1)).status).toBe(202);
    const done = await put(2 * FRAGMENT_UNIT, data.length - 1);
    expect(done.status).toBe(201);
    const item = await json<Item>(done);
    expect(item).toMatchObject({
      name: "video.mp4",
      size: data.length,
      file: { hashes: { quickXorHash: quickXorHash(data) } },
    });
    expect(item.fileSystemInfo.lastModifiedDateTime).toBe("2026-04-02T08:30:00Z");
    // conflictBehavior fail: a second session for the same name is refused.
    const again = await graph(
      "/me/drive/special/approot:/Keepsake/video.mp4:/createUploadSession",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ item: { "@microsoft.graph.conflictBehavior": "fail" } }),
      },
    );
    expect(again.status).toBe(409);
    expect((await json<GraphError>(again)).error.code).toBe("nameAlreadyExists");
  });

  it("throttling with Retry-After and a full drive answer as Graph does", async () => {
    const { graph } = await connect();
    await h.ctl("faults", {
      endpoint: "onedrive.items",
      error: "onedrive:activityLimitReached",
      retry_after: 3,
    });
    const limited = await graph("/me/drive/special/approot");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("3");
    await h.ctl("onedrive/quota", { email: DEMO_ONEDRIVE.jordan.email, bytes: 10 });
    const full = await graph("/me/drive/special/approot:/big.bin:/content", {
      method: "PUT",
      body: bytes(100),
    });
    expect(full.status).toBe(507);
    expect((await json<GraphError>(full)).error.code).toBe("quotaLimitReached");
  });
});

describe("QuickXorHash", () => {
  it("matches published vectors", () => {
    const vectors: [string, string][] = [
      ["", "AAAAAAAAAAAAAAAAAAAAAAAAAAA="],
      ["Sg==", "SgAAAAAAAAAAAAAAAQAAAAAAAAA="],
      ["tbQ=", "taAFAAAAAAAAAAAAAgAAAAAAAAA="],
      ["0pZP", "0rDEEwAAAAAAAAAAAwAAAAAAAAA="],
      ["jRRDVA==", "jaDAEKgAAAAAAAAABAAAAAAAAAA="],
      ["eAV52qE=", "eChAHrQRCgAAAAAABQAAAAAAAAA="],
      ["luBZlaT6", "lgBHFipBCn0AAAAABgAAAAAAAAA="],
      ["qaApEj66lw==", "qQBFCiTgA11cAgAABwAAAAAAAAA="],
      ["/aNzzCFPS/A=", "/RjFHJgRgicsAR4ACAAAAAAAAAA="],
    ];
    for (const [input, hash] of vectors)
      expect(quickXorHash(Buffer.from(input, "base64"))).toBe(hash);
    expect([...Buffer.from(quickXorHash(Buffer.from("hello world")), "base64")]).toEqual([
      104, 40, 3, 27, 216, 240, 6, 16, 220, 225, 13, 114, 107, 3, 25, 0, 0, 0, 0, 0,
    ]);
  });
});
