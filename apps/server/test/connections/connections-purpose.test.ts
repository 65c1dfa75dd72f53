import { DEMO_FB, DEMO_IG } from "@keepsake/sandbox";
import { beforeAll, describe, expect, it } from "vitest";
import { connectionsSuite, params } from "../support/connections.ts";
import type { SandboxedApp } from "../support/sandbox.ts";

/**
 * Issue 36: a re-consent started for one account comes back saying why and for which account,
 * so the dashboard tells what changed ("comments are now kept") instead of "connected"; the
 * switch to Facebook Login keeps an account's comments by asking Facebook for that permission.
 */
const suite = connectionsSuite();
const { connectInstagram, accountRows } = suite;
let t: SandboxedApp;
beforeAll(() => {
  t = suite.app();
});

describe("re-consents name their purpose on return", () => {
  it("turning comments on: back with purpose=comments and the account", async () => {
    const { token, user } = await t.signUp();
    await connectInstagram(token);
    const [row] = await accountRows(user.id);
    const on = await t.call("PUT", `/api/comments/settings/${row!.id}`, {
      token,
      body: { enabled: true },
    });
    expect(on.status).toBe(200);
    const landed = await t.land(
      await t.consent(on.body.auth_url, { decision: "allow", account: DEMO_IG.business.id }),
    );
    expect(params(landed)).toEqual({
      instagram_connected: "true",
      purpose: "comments",
      account: DEMO_IG.business.username,
    });
  });

  it("a plain connection carries no purpose", async () => {
    const { token } = await t.signUp();
    expect(params(await connectInstagram(token))).toEqual({ instagram_connected: "true" });
  });

  it("switching an account to Facebook Login: back with purpose=stories; keep_comments asks for the comments permission", async () => {
    const { token, user } = await t.signUp();
    await connectInstagram(token);
    const [row] = await accountRows(user.id);

    const plain = await t.call(
      "GET",
      `/api/oauth/facebook/switch-url?account_id=${row!.id}&keep_comments=false`,
      { token },
    );
    expect(plain.status).toBe(200);
    expect(plain.body.auth_url).not.toContain("instagram_manage_comments");

    const keep = await t.call(
      "GET",
      `/api/oauth/facebook/switch-url?account_id=${row!.id}&keep_comments=true`,
      { token },
    );
    expect(keep.status).toBe(200);
    expect(keep.body.auth_url).toContain("instagram_manage_comments");
    const landed = await t.land(
      await t.consent(keep.body.auth_url, { decision: "allow", user: DEMO_FB.withInstagram.id }),
    );
    expect(params(landed)).toEqual({
      instagram_connected: "true",
      via: "facebook",
      purpose: "stories",
      account: DEMO_IG.business.username,
    });
    const [after] = await accountRows(user.id);
    expect(after).toMatchObject({ id: row!.id, connected_via: "facebook" });
  });

  it("another user's account cannot be switched (404); a malformed id is a 422", async () => {
    const owner = await t.signUp();
    await connectInstagram(owner.token);
    const [row] = await accountRows(owner.user.id);
    const other = await t.signUp();
    const foreign = await t.call("GET", `/api/oauth/facebook/switch-url?account_id=${row!.id}`, {
      token: other.token,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: "Account not found" });
    const bad = await t.call("GET", "/api/oauth/facebook/switch-url?account_id=nope", {
      token: other.token,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual(expect.any(String));
  });
});
