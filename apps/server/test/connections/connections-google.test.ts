import { connectionMessages as m } from "@keepsake/contracts";
import { DEMO_GOOGLE } from "@keepsake/sandbox";
import { beforeAll, describe, expect, it } from "vitest";
import { decryptSecret } from "../../src/lib/crypto.ts";
import { connectionsSuite, DRIVE, params } from "../support/connections.ts";
import type { SandboxedApp } from "../support/sandbox.ts";

/** Connecting and disconnecting Google Drive. */
const suite = connectionsSuite();
const { googleConsent } = suite;
let t: SandboxedApp;
beforeAll(() => {
  t = suite.app();
});

describe("connecting Google Drive", () => {
  it("stores the refresh token encrypted and the e-mail", async () => {
    const { token, user } = await t.signUp();
    const landed = await t.land(await googleConsent(token));
    expect(params(landed)).toEqual({ google_connected: "true" });
    const status = await t.call("GET", "/api/oauth/status", { token });
    expect(status.body).toMatchObject({
      google_connected: true,
      google_email: DEMO_GOOGLE.jordan.email,
    });
    const row = await t.ctx.db
      .selectFrom("google_connections")
      .selectAll()
      .where("user_id", "=", user.id)
      .executeTakeFirstOrThrow();
    expect(row.scopes.split(" ")).toContain(DRIVE);
    const refresh = decryptSecret(t.ctx.secrets.encryptionKey, row.refresh_token_encrypted);
    const raw = await t.ctx.pool.query(
      "SELECT row_to_json(g)::text AS json FROM google_connections g WHERE user_id = $1",
      [user.id],
    );
    expect(raw.rows[0].json).not.toContain(refresh);
    expect(JSON.stringify(status.body)).not.toContain(refresh);

    // The access token is refreshed on demand once it has run out.
    const first = await t.ctx.connections.tokens.googleAccessToken(user.id);
    expect(await t.ctx.connections.tokens.googleAccessToken(user.id)).toBe(first);
    t.clock.advance(3600_000);
    const second = await t.ctx.connections.tokens.googleAccessToken(user.id);
    expect(second).not.toBe(first);
    const info = await fetch(`${t.sandbox.url}/openidconnect.googleapis.com/v1/userinfo`, {
      headers: { authorization: `Bearer ${second}` },
    });
    expect(((await info.json()) as { email: string }).email).toBe(DEMO_GOOGLE.jordan.email);
  });

  it("without the Drive permission nothing is stored and the error says to tick it", async () => {
    const { token, user } = await t.signUp();
    // A Google user who never granted Drive (granted scopes accumulate across consents).
    const callback = await googleConsent(token, { drive: false, sub: DEMO_GOOGLE.sam.sub });
    expect(callback.searchParams.get("scope")).not.toContain(DRIVE);
    const landed = await t.land(callback);
    expect(params(landed)).toEqual({
      error: m.drivePermissionRequired,
      error_type: "drive_permission_required",
    });
    expect(landed.searchParams.get("error")).toMatch(/tick/);
    const row = await t.ctx.db
      .selectFrom("google_connections")
      .selectAll()
      .where("user_id", "=", user.id)
      .executeTakeFirst();
    expect(row).toBeUndefined();
  });

  it("a cancelled consent says so", async () => {
    const { token } = await t.signUp();
    const res = await t.call("GET", "/api/oauth/google/auth-url", { token });
    const landed = await t.land(await t.consent(res.body.auth_url, { decision: "cancel" }));
    expect(landed.searchParams.get("error")).toBe(m.googleCancelled);
  });

  it("disconnect revokes the grant at Google and forgets the tokens", async () => {
    const { token, user } = await t.signUp();
    await t.land(await googleConsent(token, { sub: DEMO_GOOGLE.maya.sub }));
    const row = await t.ctx.db
      .selectFrom("google_connections")
      .selectAll()
      .where("user_id", "=", user.id)
      .executeTakeFirstOrThrow();
    const refresh = decryptSecret(t.ctx.secrets.encryptionKey, row.refresh_token_encrypted);
    const res = await t.call("DELETE", "/api/oauth/google/disconnect", { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ disconnected: 1, revoked: true });
    const grant = await fetch(`${t.sandbox.url}/oauth2.googleapis.com/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: refresh,
        client_id: t.ctx.config.providers.google.clientId!,
        client_secret: t.ctx.config.providers.google.clientSecret!,
      }),
    });
    expect(((await grant.json()) as { error: string }).error).toBe("invalid_grant");
    expect((await t.call("GET", "/api/oauth/status", { token })).body.google_connected).toBe(false);
    expect((await t.call("DELETE", "/api/oauth/google/disconnect", { token })).status).toBe(404);
  });
});
