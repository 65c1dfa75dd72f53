import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { refreshInstagramTokensJob } from "../../src/connections/refresh-instagram-tokens.job.ts";
import { decryptSecret } from "../../src/lib/crypto.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

let t: SandboxedApp;
beforeAll(async () => {
  t = await createSandboxedApp();
});
afterAll(async () => {
  await t?.close();
});
afterEach(async () => {
  await t.rows.connections.deleteAllInstagramAccounts();
  await control("DELETE", "/faults");
});

const DAY_S = 86_400;

async function control(method: string, path: string, body?: unknown) {
  const res = await fetch(`${t.sandbox.url}/_control${path}`, {
    method,
    ...(body !== undefined
      ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }
      : {}),
  });
  if (!res.ok) throw new Error(`control ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Moves Keepsake's clock and the sandbox's clock forward together. */
async function advanceDays(days: number) {
  t.clock.advance(days * DAY_S * 1000);
  await control("POST", "/clock", { advance_seconds: days * DAY_S });
}

async function connect(token: string, account: string) {
  const res = await t.call("GET", "/api/oauth/instagram/login", { token });
  expect(res.status).toBe(200);
  const landed = await t.land(
    await t.consent(res.body.auth_url, { decision: "allow", account: account }),
  );
  expect(landed.searchParams.get("instagram_connected")).toBe("true");
  const [row] = await t.ctx.db
    .selectFrom("instagram_accounts")
    .selectAll()
    .where("user_id", "=", (await t.call("GET", "/api/auth/me", { token })).body.id)
    .execute();
  return row!;
}

async function connectDrive(token: string, sub: string) {
  const res = await t.call("GET", "/api/oauth/google/auth-url", { token });
  const landed = await t.land(
    await t.consent(res.body.auth_url, { decision: "allow", authuser: sub, drive_file: "on" }),
  );
  expect(landed.searchParams.get("google_connected")).toBe("true");
}

async function row(id: string) {
  return t.ctx.db
    .selectFrom("instagram_accounts")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
}

/** Signs in again: the session of the sign-up does not survive weeks of clock travel. */
async function signIn(email: string, password: string): Promise<string> {
  const res = await t.call("POST", "/api/auth/login", { body: { email, password } });
  return res.body.access_token;
}

const runJob = () => refreshInstagramTokensJob.handler({}, t.ctx, { id: "test", retryCount: 0 });
const sealedToken = (sealed: string) => decryptSecret(t.ctx.secrets.encryptionKey, sealed);

async function profileWith(token: string) {
  const res = await fetch(
    `${t.sandbox.url}/graph.instagram.com/v25.0/me?fields=username&access_token=${encodeURIComponent(token)}`,
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("scheduled token refresh", () => {
  it("renews a token ≥ 24 h old that ends within 7 days, on the sandbox clock", async () => {
    const { token: first, user, password } = await t.signUp();
    const before = await connect(first, DEMO_IG.business.id);

    // Fresh tokens are left alone.
    expect(await t.ctx.connections.tokens.refreshExpiringTokens()).toEqual({
      refreshed: 0,
      needs_reconnection: 0,
      failed: 0,
    });

    // Older than 24 h but far from its end: still left alone.
    await advanceDays(2);
    expect((await t.ctx.connections.tokens.refreshExpiringTokens()).refreshed).toBe(0);
    expect((await row(before.id)).access_token_encrypted).toBe(before.access_token_encrypted);

    await advanceDays(52);
    const token = await signIn(user.email, password);
    const health = await t.call("GET", "/api/oauth/connection-health", { token });
    expect(health.body.overall).toBe("expiring");
    expect(health.body.instagram[0]).toMatchObject({
      username: DEMO_IG.business.username,
      connected_via: "instagram",
      status: "expiring",
    });
    expect(health.body.instagram[0].reason).toMatch(/renews it automatically/);
    const list = await t.call("GET", "/api/accounts/instagram-accounts", { token });
    expect(list.body.accounts[0].status).toBe("expiring");

    await runJob();
    const after = await row(before.id);
    expect(after.access_token_encrypted).not.toBe(before.access_token_encrypted);
    expect(after.status).toBe("active");
    const left = (new Date(after.token_expires_at!).getTime() - t.clock.now().getTime()) / 864e5;
    expect(left).toBeGreaterThan(59);
    const fresh = sealedToken(after.access_token_encrypted);
    expect((await profileWith(fresh)).body.username).toBe(DEMO_IG.business.username);
    expect((await t.call("GET", "/api/oauth/connection-health", { token })).body.overall).toBe(
      "healthy",
    );
  });

  it("marks an account whose token ran out as needing reconnection", async () => {
    const { token: first, user, password } = await t.signUp();
    const connected = await connect(first, DEMO_IG.creator.id);
    await advanceDays(61);
    const token = await signIn(user.email, password);
    expect((await profileWith(sealedToken(connected.access_token_encrypted))).status).toBe(400);

    await runJob();
    const after = await row(connected.id);
    expect(after.status).toBe("needs_reconnection");
    expect(after.status_reason).toMatch(/Reconnect/);

    const status = await t.call("GET", "/api/oauth/status", { token });
    expect(status.body).toMatchObject({
      instagram_connected: true,
      instagram_needs_reconnect: true,
    });
    const summary = await t.call("GET", "/api/oauth/connection-status", { token });
    expect(summary.body).toEqual({
      ready_for_backup: false,
      instagram: {
        connected: true,
        status: "needs_reconnection",
        accounts: 1,
        needs_reconnection: 1,
      },
      google: { connected: false, status: null, email: null },
      actions: [`Reconnect @${DEMO_IG.creator.username}`, "Connect your Google Drive"],
    });
    // At the free limit, reconnecting the dead account is still possible, and revives it.
    const again = await connect(token, DEMO_IG.creator.id);
    expect(again.id).toBe(connected.id);
    expect(again.status).toBe("active");
  });
});

describe("refresh-connections", () => {
  it("re-validates every token with its provider now", async () => {
    const { token } = await t.signUp();
    const account = await connect(token, DEMO_IG.business.id);
    await connectDrive(token, DEMO_GOOGLE.jordan.sub);

    let res = await t.call("POST", "/api/oauth/refresh-connections", { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      overall: "healthy",
      instagram: [{ account_id: account.id, status: "healthy", reason: null }],
      google: { email: DEMO_GOOGLE.jordan.email, status: "healthy", reason: null },
    });
    expect(res.body.google.last_validated_at).toBe(t.clock.now().toISOString());
    const ready = await t.call("GET", "/api/oauth/connection-status", { token });
    expect(ready.body).toMatchObject({ ready_for_backup: true, actions: [] });

    // A throttled provider proves nothing: the connection stays as it was.
    await control("POST", "/faults", { endpoint: "ig.me", count: 1, error: "graph:4" });
    res = await t.call("POST", "/api/oauth/refresh-connections", { token });
    expect(res.body.instagram[0].status).toBe("healthy");

    // The user changed their Instagram password: Graph code 190, subcode 460.
    await control("POST", "/tokens/revoke", {
      instagram_user_id: DEMO_IG.business.userId,
      subcode: 460,
    });
    await control("POST", "/tokens/revoke", { google_email: DEMO_GOOGLE.jordan.email });
    res = await t.call("POST", "/api/oauth/refresh-connections", { token });
    expect(res.body.overall).toBe("needs_reconnection");
    expect(res.body.instagram[0].status).toBe("needs_reconnection");
    expect(res.body.instagram[0].reason).toMatch(/password was changed/);
    expect(res.body.google.status).toBe("needs_reconnection");
    expect(res.body.google.reason).toMatch(/Reconnect Google Drive/);
    const status = await t.call("GET", "/api/oauth/status", { token });
    expect(status.body).toMatchObject({
      instagram_needs_reconnect: true,
      google_needs_reconnect: true,
    });
    const userId = (await t.call("GET", "/api/auth/me", { token })).body.id;
    await expect(t.ctx.connections.tokens.googleAccessToken(userId)).rejects.toThrow(/Reconnect/);

    const refreshed = await t.call(
      "PUT",
      `/api/accounts/instagram-accounts/${account.id}/refresh-profile`,
      { token },
    );
    expect(refreshed.status).toBe(409);
    expect(refreshed.body.detail).toMatch(/password was changed/);
    await t.rows.connections.deleteAllGoogleConnections();
  });

  it("refresh-profile fetches the profile again", async () => {
    const { token } = await t.signUp();
    const account = await connect(token, DEMO_IG.business.id);
    await t.rows.connections.updateInstagramAccount(account.id, {
      followers_count: 0,
      display_name: null,
    });
    const res = await t.call(
      "PUT",
      `/api/accounts/instagram-accounts/${account.id}/refresh-profile`,
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(account.id);
    expect(res.body.follower_count).toBe(account.followers_count);
    expect(res.body.display_name).toBe(account.display_name);
    const other = await t.signUp();
    const foreign = await t.call(
      "PUT",
      `/api/accounts/instagram-accounts/${account.id}/refresh-profile`,
      { token: other.token },
    );
    expect(foreign.status).toBe(404);
  });
});
