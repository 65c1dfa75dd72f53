import { describe, expect, it } from "vitest";
import { SANDBOX_CREDENTIALS } from "../src/index.ts";
import { DEMO_ONEDRIVE, FRAGMENT_UNIT, quickXorHash } from "../src/routes/onedrive/index.ts";
import { json, useHarness } from "./helpers.ts";

/** The control API's OneDrive faults (cuts, corruption, revoked grants, throttling, quota). */
const h = useHarness();
const M = SANDBOX_CREDENTIALS.microsoft;
const REDIRECT = "http://127.0.0.1:9/api/oauth/onedrive/callback";
const SCOPES = "Files.ReadWrite.AppFolder offline_access";
const token = `${"/login.microsoftonline.com/common/oauth2/v2.0"}/token`;

const bytes = (n: number, seed = 3) => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 29 + seed) & 0xff;
  return b;
};
const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

async function connect() {
  const consent = await fetch(`${h.url}/login.microsoftonline.com/common/oauth2/v2.0/authorize`, {
    ...form({
      client_id: M.clientId,
      redirect_uri: REDIRECT,
      scope: SCOPES,
      decision: "allow",
      account: DEMO_ONEDRIVE.jordan.id,
    }),
    redirect: "manual",
  });
  const code = new URL(String(consent.headers.get("location"))).searchParams.get("code")!;
  const tokens = await json<{ access_token: string; refresh_token: string }>(
    fetch(
      `${h.url}${token}`,
      form({
        client_id: M.clientId,
        client_secret: M.clientSecret,
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
      }),
    ),
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

async function session(graph: Awaited<ReturnType<typeof connect>>["graph"], name: string) {
  const res = await graph(`/me/drive/special/approot:/${name}:/createUploadSession`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ item: { "@microsoft.graph.conflictBehavior": "fail" } }),
  });
  return (await json<{ uploadUrl: string }>(res)).uploadUrl;
}

const put = (url: string, data: Buffer, start: number, total: number) =>
  fetch(url, {
    method: "PUT",
    headers: { "content-range": `bytes ${start}-${start + data.length - 1}/${total}` },
    body: data,
  });

describe("OneDrive faults", () => {
  it("a cut mid-fragment keeps its whole 320 KiB units; nextExpectedRanges says where to resume", async () => {
    const { graph } = await connect();
    const data = bytes(3 * FRAGMENT_UNIT + 100);
    const url = await session(graph, "video.mp4");
    await h.ctl("onedrive/cut", { after_bytes: FRAGMENT_UNIT * 2 + 10 });
    await expect(put(url, data.subarray(0, 3 * FRAGMENT_UNIT), 0, data.length)).rejects.toThrow();
    const status = await json<{ nextExpectedRanges: string[] }>(fetch(url));
    expect(status.nextExpectedRanges).toEqual([`${2 * FRAGMENT_UNIT}-${data.length - 1}`]);
    const done = await put(url, data.subarray(2 * FRAGMENT_UNIT), 2 * FRAGMENT_UNIT, data.length);
    expect(done.status).toBe(201);
    const item = await json<{ size: number; file: { hashes: { quickXorHash: string } } }>(done);
    expect(item).toMatchObject({ size: data.length });
    expect(item.file.hashes.quickXorHash).toBe(quickXorHash(data));
  });

  it("a fragment whose body is not its Content-Range is refused and keeps nothing", async () => {
    const { graph } = await connect();
    const data = bytes(3 * FRAGMENT_UNIT + 7);
    const url = await session(graph, "short.bin");
    await put(url, data.subarray(0, FRAGMENT_UNIT), 0, data.length);
    // The range says one unit; the body brings three (written as it arrived, past the file's end).
    const wrong = await fetch(url, {
      method: "PUT",
      headers: {
        "content-range": `bytes ${FRAGMENT_UNIT}-${2 * FRAGMENT_UNIT - 1}/${data.length}`,
      },
      body: bytes(3 * FRAGMENT_UNIT, 77),
    });
    expect(wrong.status).toBe(400);
    expect(await json<{ error: { message: string } }>(wrong)).toMatchObject({
      error: { message: "The body does not match Content-Range." },
    });
    const status = await json<{ nextExpectedRanges: string[] }>(fetch(url));
    expect(status.nextExpectedRanges).toEqual([`${FRAGMENT_UNIT}-${data.length - 1}`]);
    const done = await put(url, data.subarray(FRAGMENT_UNIT), FRAGMENT_UNIT, data.length);
    expect(done.status).toBe(201);
    const item = await json<{ size: number; file: { hashes: { quickXorHash: string } } }>(done);
    expect(item).toMatchObject({ size: data.length });
    expect(item.file.hashes.quickXorHash).toBe(quickXorHash(data));
  });

  it("a lost answer: the fragment was stored; the session's status tells", async () => {
    const { graph } = await connect();
    const data = bytes(2 * FRAGMENT_UNIT);
    const url = await session(graph, "a.bin");
    await h.ctl("onedrive/cut", { after_bytes: 0, lose_answer: true });
    await expect(put(url, data.subarray(0, FRAGMENT_UNIT), 0, data.length)).rejects.toThrow();
    const status = await json<{ nextExpectedRanges: string[] }>(fetch(url));
    expect(status.nextExpectedRanges).toEqual([`${FRAGMENT_UNIT}-${data.length - 1}`]);
  });

  it("a corrupted commit stores other bytes: its quickXorHash differs", async () => {
    const { graph } = await connect();
    const data = bytes(1000);
    await h.ctl("onedrive/corrupt", {});
    const url = await session(graph, "c.bin");
    const item = await json<{ file: { hashes: { quickXorHash: string } } }>(
      put(url, data, 0, data.length),
    );
    expect(item.file.hashes.quickXorHash).not.toBe(quickXorHash(data));
    const clean = await json<{ file: { hashes: { quickXorHash: string } } }>(
      graph("/me/drive/special/approot:/d.bin:/content", { method: "PUT", body: data }),
    );
    expect(clean.file.hashes.quickXorHash).toBe(quickXorHash(data));
  });

  it("a reset clears pending cuts and corruption", async () => {
    await h.ctl("onedrive/corrupt", {});
    await h.ctl("onedrive/cut", { after_bytes: 1 });
    await h.ctl("reset", {});
    const { graph } = await connect();
    const data = bytes(2000);
    const url = await session(graph, "r.bin");
    const item = await json<{ file: { hashes: { quickXorHash: string } } }>(
      put(url, data, 0, data.length),
    );
    expect(item.file.hashes.quickXorHash).toBe(quickXorHash(data));
  });

  it("a revoked grant: Graph answers 401 and the refresh token is refused", async () => {
    const { graph, tokens } = await connect();
    const revoked = await h.ctl<{ revoked: number }>("tokens/revoke", {
      microsoft_email: DEMO_ONEDRIVE.jordan.email,
    });
    expect(revoked.revoked).toBe(2);
    expect((await graph("/me/drive/special/approot")).status).toBe(401);
    const refresh = await fetch(
      `${h.url}${token}`,
      form({
        client_id: M.clientId,
        client_secret: M.clientSecret,
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
      }),
    );
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("throttling with Retry-After, a full drive, and the listing of what was written", async () => {
    const { graph } = await connect();
    await h.ctl("faults", {
      endpoint: "onedrive.upload",
      error: "onedrive:activityLimitReached",
      retry_after: 4,
    });
    const url = await session(graph, "e.bin");
    const throttled = await put(url, bytes(10), 0, 10);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toBe("4");
    expect((await put(url, bytes(10), 0, 10)).status).toBe(201);
    await h.ctl("onedrive/quota", { email: DEMO_ONEDRIVE.jordan.email, bytes: 15 });
    const full = await graph("/me/drive/special/approot:/f.bin:/content", {
      method: "PUT",
      body: bytes(10),
    });
    expect(full.status).toBe(507);
    const listing = await h.ctl<{ users: { email: string; files: { path: string }[] }[] }>(
      "onedrive/files",
    );
    const jordan = listing.users.find((u) => u.email === DEMO_ONEDRIVE.jordan.email);
    expect(jordan?.files.map((f) => f.path)).toEqual(["/Apps/Keepsake/e.bin"]);
  });
});
