import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { SANDBOX_CREDENTIALS as C, DEMO_GOOGLE, DEMO_IG } from "../src/index.ts";
import {
  type DriveError,
  formPost,
  type GraphError,
  type GraphPage,
  googleTokens,
  harness,
  igLongToken,
  json,
  type OAuthError,
  useHarness,
} from "./helpers.ts";

const h = useHarness();

const B = DEMO_IG.business;
const J = DEMO_GOOGLE.jordan;
/** The parts of the control API's `accounts` answer these tests read. */
interface ControlAccounts {
  instagram: { username: string; media_count: number }[];
  google: { email: string }[];
}

const me = (token: string) =>
  h.get(`/graph.instagram.com/v25.0/me?fields=id&access_token=${token}`);

describe("fault controls", () => {
  it("fails the next N calls of an endpoint with Graph throttling codes, then recovers", async () => {
    const token = await igLongToken(h, B.id);
    for (const code of [4, 17, 613]) {
      await h.ctl("faults", {
        endpoint: "ig.me",
        count: 2,
        error: `graph:${code}`,
        retry_after: 7,
      });
      for (let i = 0; i < 2; i++) {
        const res = await me(token);
        expect(res.status).toBe(403);
        expect(res.headers.get("retry-after")).toBe("7");
        expect((await json<GraphError>(res)).error.code).toBe(code);
      }
      expect((await me(token)).status).toBe(200);
    }
  });

  it("5xx on Graph is a transient code-2 error; wildcard endpoints match", async () => {
    const token = await igLongToken(h, B.id);
    await h.ctl("faults", { endpoint: "ig.*", error: "http:503" });
    const res = await h.get(`/graph.instagram.com/v25.0/me/media?access_token=${token}`);
    expect(res.status).toBe(503);
    expect((await json<GraphError>(res)).error).toMatchObject({ code: 2, is_transient: true });
  });

  it("Drive rateLimitExceeded and storageQuotaExceeded faults", async () => {
    const { access_token } = await googleTokens(h, J.sub);
    const auth = { authorization: `Bearer ${access_token}` };
    await h.ctl("faults", { endpoint: "drive.files.list", error: "drive:rateLimitExceeded" });
    const limited = await h.get("/www.googleapis.com/drive/v3/files", { headers: auth });
    expect(limited.status).toBe(403);
    expect((await json<DriveError>(limited)).error.errors[0]).toMatchObject({
      reason: "rateLimitExceeded",
      domain: "usageLimits",
    });
    expect((await h.get("/www.googleapis.com/drive/v3/files", { headers: auth })).status).toBe(200);
    await h.ctl("faults", {
      endpoint: "drive.upload.resumable.put",
      error: "http:429",
      retry_after: 2,
    });
    const session = await h.get("/www.googleapis.com/upload/drive/v3/files?uploadType=resumable", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: "{}",
    });
    const throttled = await fetch(session.headers.get("location")!, {
      method: "PUT",
      headers: { "content-range": "bytes 0-1/2" },
      body: "hi",
    });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toBe("2");
    expect((await json<DriveError>(throttled)).error.errors[0]!.reason).toBe("rateLimitExceeded");
    const retried = await fetch(session.headers.get("location")!, {
      method: "PUT",
      headers: { "content-range": "bytes 0-1/2" },
      body: "hi",
    });
    expect(retried.status).toBe(200);
    await h.ctl("faults", { endpoint: "drive.upload", error: "drive:storageQuotaExceeded" });
    const full = await h.get("/www.googleapis.com/upload/drive/v3/files?uploadType=resumable", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: "{}",
    });
    expect(full.status).toBe(403);
    expect((await json<DriveError>(full)).error.errors[0]!.reason).toBe("storageQuotaExceeded");
  });

  it("Google token endpoint faults and connection resets", async () => {
    await h.ctl("faults", { endpoint: "google.token", error: "google:invalid_grant" });
    const res = await formPost(`${h.url}/oauth2.googleapis.com/token`, {
      grant_type: "refresh_token",
      refresh_token: "x",
      client_id: C.google.clientId,
      client_secret: C.google.clientSecret,
    });
    expect(res.status).toBe(400);
    expect((await json<OAuthError>(res)).error).toBe("invalid_grant");
    await h.ctl("faults", { endpoint: "cdn", error: "reset" });
    await expect(
      h.get("/scontent.cdninstagram.com/v/t51.2885-15/1_10x10_1_n.jpg"),
    ).rejects.toThrow();
    await h.ctl("faults", { endpoint: "cdn", error: "http:503" });
    expect((await h.get("/scontent.cdninstagram.com/v/t51.2885-15/1_10x10_1_n.jpg")).status).toBe(
      503,
    );
    await h.ctl("faults", { endpoint: "cdn", error: "http:500", count: 5 });
    expect((await h.ctl<{ faults: unknown[] }>("faults")).faults).toHaveLength(1);
    await h.ctl("faults", undefined, "DELETE");
    expect((await h.ctl<{ faults: unknown[] }>("faults")).faults).toHaveLength(0);
  });

  it("adds latency globally and per endpoint", async () => {
    const token = await igLongToken(h, B.id);
    await h.ctl("latency", { ms: 150, endpoint: "ig.me" });
    let t = Date.now();
    await me(token);
    expect(Date.now() - t).toBeGreaterThanOrEqual(140);
    await h.ctl("latency", { ms: 0, endpoint: "ig.me" });
    await h.ctl("latency", { ms: 120 });
    t = Date.now();
    await h.get(`/graph.instagram.com/v25.0/me/media?access_token=${token}`);
    expect(Date.now() - t).toBeGreaterThanOrEqual(110);
  });

  it("tells the most requests of an endpoint handled at once, from the last reset", async () => {
    const token = await igLongToken(h, B.id);
    await h.ctl("latency", { ms: 200, endpoint: "ig.me" });
    await h.ctl("calls", undefined, "DELETE");
    // Four at once, then two at once: the peak stays four.
    await Promise.all([me(token), me(token), me(token), me(token)]);
    await Promise.all([me(token), me(token)]);
    type Calls = { calls: Record<string, number>; peak_in_flight: Record<string, number> };
    let got = await h.ctl<Calls>("calls");
    expect(got.calls["ig.me"]).toBe(6);
    expect(got.peak_in_flight["ig.me"]).toBe(4);
    // One still in flight when the counts are reset: the next peak starts from it.
    const slow = me(token);
    await new Promise((r) => setTimeout(r, 50));
    await h.ctl("calls", undefined, "DELETE");
    expect((await h.ctl<Calls>("calls")).peak_in_flight).toEqual({ "ig.me": 1 });
    await Promise.all([slow, me(token)]);
    got = await h.ctl<Calls>("calls");
    expect(got.peak_in_flight["ig.me"]).toBe(2);
    await h.ctl("latency", { ms: 0, endpoint: "ig.me" });
  });

  it("expires and revokes tokens", async () => {
    const token = await igLongToken(h, B.id);
    expect((await h.ctl<{ expired: number }>("tokens/expire", { token })).expired).toBe(1);
    expect((await json<GraphError>(me(token))).error).toMatchObject({
      code: 190,
      error_subcode: 463,
    });
    const other = await igLongToken(h, B.id);
    await h.ctl("tokens/revoke", { instagram_user_id: B.username, subcode: 460 });
    expect((await json<GraphError>(me(other))).error).toMatchObject({
      code: 190,
      error_subcode: 460,
    });
    const g = await googleTokens(h, J.sub);
    await h.ctl("tokens/revoke", { google_email: J.email });
    const refresh = await formPost(`${h.url}/oauth2.googleapis.com/token`, {
      grant_type: "refresh_token",
      refresh_token: g.refresh_token,
      client_id: C.google.clientId,
      client_secret: C.google.clientSecret,
    });
    expect((await json<OAuthError>(refresh)).error).toBe("invalid_grant");
    const drive = await h.get("/www.googleapis.com/drive/v3/files", {
      headers: { authorization: `Bearer ${g.access_token}` },
    });
    expect(drive.status).toBe(401);
  });

  it("adds posts at the top (after the pinned one) and counts calls per endpoint", async () => {
    const token = await igLongToken(h, B.id);
    await h.ctl("calls", undefined, "DELETE");
    const added = await h.ctl<{ created: { id: string }[] }>("instagram/posts", {
      account: B.username,
      count: 2,
      media_type: "CAROUSEL_ALBUM",
    });
    const page = await json<GraphPage<{ id: string; media_type: string }>>(
      h.get(
        `/graph.instagram.com/v25.0/me/media?fields=id,media_type&limit=3&access_token=${token}`,
      ),
    );
    const ids = page.data.map((m) => m.id);
    expect(ids.slice(1)).toEqual(added.created.map((p) => p.id).reverse());
    expect(page.data[1]!.media_type).toBe("CAROUSEL_ALBUM");
    await me(token);
    const calls = (await h.ctl<{ calls: Record<string, number> }>("calls")).calls;
    expect(calls["ig.media.list"]).toBe(1);
    expect(calls["ig.me"]).toBe(1);
  });

  it("reset restores the seeded state", async () => {
    const token = await igLongToken(h, B.id);
    await h.ctl("instagram/posts", { account: B.username, count: 3 });
    await h.ctl("reset", {});
    expect((await json<GraphError>(me(token))).error.code).toBe(190);
    const accounts = await h.ctl<ControlAccounts>("accounts");
    expect(accounts.instagram.find((a) => a.username === B.username)!.media_count).toBe(152);
    expect(accounts.google.map((g) => g.email)).toContain(J.email);
  });
});

describe("modes", () => {
  it("persists state and drive files under dataDir across restarts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sandbox-persist-"));
    try {
      const first = await harness({ dataDir: dir });
      const { access_token, refresh_token } = await googleTokens(first, J.sub);
      const up = await first.get(
        "/www.googleapis.com/upload/drive/v3/files?uploadType=multipart&fields=id,md5Checksum",
        {
          method: "POST",
          headers: {
            authorization: `Bearer ${access_token}`,
            "content-type": "multipart/related; boundary=b1",
          },
          body: `--b1\r\ncontent-type: application/json\r\n\r\n{"name":"note.txt"}\r\n--b1\r\ncontent-type: text/plain\r\n\r\nhello drive\r\n--b1--`,
        },
      );
      const file = (await up.json()) as { id: string; md5Checksum: string };
      await first.sb.close();
      const second = await harness({ dataDir: dir });
      try {
        const refreshed = await formPost(`${second.url}/oauth2.googleapis.com/token`, {
          grant_type: "refresh_token",
          refresh_token,
          client_id: C.google.clientId,
          client_secret: C.google.clientSecret,
        });
        const tok = ((await refreshed.json()) as { access_token: string }).access_token;
        const body = await (
          await second.get(`/www.googleapis.com/drive/v3/files/${file.id}?alt=media`, {
            headers: { authorization: `Bearer ${tok}` },
          })
        ).text();
        expect(body).toBe("hello drive");
        const listed = (await second.ctl<{ files: unknown[] }>("drive/files")).files;
        expect(listed[0]).toMatchObject({
          id: file.id,
          name: "note.txt",
          md5Checksum: file.md5Checksum,
          ownerEmail: J.email,
          size: 11,
        });
        const browser = await (
          await second.get(`/drive?user=${encodeURIComponent(J.email)}`)
        ).text();
        expect(browser).toContain("note.txt");
      } finally {
        await second.sb.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the demo timer adds posts over time; publicUrl shapes every absolute URL", async () => {
    const timed = await harness({
      demoTimer: true,
      demoTimerSeconds: 0.05,
      publicUrl: "http://sandbox.test:8090",
    });
    const local = `http://127.0.0.1:${timed.sb.port}`;
    const count = async () =>
      (await json<ControlAccounts>(fetch(`${local}/_control/accounts`))).instagram[0]!.media_count;
    try {
      const before = await count();
      await vi.waitFor(async () => expect(await count()).toBeGreaterThan(before), {
        timeout: 3000,
      });
      expect(timed.url).toBe("http://sandbox.test:8090");
      const discovery = await json<{ token_endpoint: string }>(
        fetch(`${local}/accounts.google.com/.well-known/openid-configuration`),
      );
      expect(discovery.token_endpoint).toBe("http://sandbox.test:8090/oauth2.googleapis.com/token");
    } finally {
      await timed.sb.close();
    }
  });
});
