import { ACCOUNT_LIMITS, connectionMessages as m } from "@keepsake/contracts";
import { DEMO_IG } from "@keepsake/sandbox";
import { beforeAll, describe, expect, it } from "vitest";
import { connectionsSuite, DRIVE, params } from "../support/connections.ts";
import type { SandboxedApp } from "../support/sandbox.ts";

/** OAuth basics: the auth URLs, the signed single-use state, the plan's account limit. */
const suite = connectionsSuite();
const { startInstagram, instagramConsent, connectInstagram, googleConsent, accountRows, setTier } =
  suite;
let t: SandboxedApp;
beforeAll(() => {
  t = suite.app();
});

describe("auth URLs", () => {
  it("need a signed-in user", async () => {
    expect((await t.call("GET", "/api/oauth/instagram/login")).status).toBe(401);
    expect((await t.call("GET", "/api/oauth/facebook/auth-url")).status).toBe(401);
    expect((await t.call("GET", "/api/oauth/google/auth-url")).status).toBe(401);
  });

  it("point at each provider with our redirect URI and a signed state", async () => {
    const { token } = await t.signUp();
    const ig = new URL(await startInstagram(token));
    expect(ig.origin + ig.pathname).toBe(`${t.sandbox.url}/www.instagram.com/oauth/authorize`);
    expect(params(ig)).toMatchObject({
      redirect_uri: `${t.ctx.config.appUrl}/api/oauth/instagram/callback`,
      response_type: "code",
      scope: "instagram_business_basic",
    });
    expect(ig.searchParams.get("state")).toMatch(/^s1\.[0-9a-f-]{36}\.[\w-]{43}$/);
    const fb = new URL(
      (await t.call("GET", "/api/oauth/facebook/auth-url", { token })).body.auth_url,
    );
    expect(fb.pathname).toBe("/www.facebook.com/v25.0/dialog/oauth");
    expect(fb.searchParams.get("redirect_uri")).toBe(
      `${t.ctx.config.appUrl}/api/oauth/facebook/callback`,
    );
    const g = new URL((await t.call("GET", "/api/oauth/google/auth-url", { token })).body.auth_url);
    expect(g.pathname).toBe("/accounts.google.com/o/oauth2/v2/auth");
    expect(params(g)).toMatchObject({ access_type: "offline", prompt: "consent" });
    expect(g.searchParams.get("scope")?.split(" ")).toContain(DRIVE);
  });

  it("rejects an unknown account_type", async () => {
    const { token } = await t.signUp();
    const res = await t.call("GET", "/api/oauth/instagram/login?account_type=robot", { token });
    expect(res.status).toBe(422);
  });
});

describe("OAuth state", () => {
  async function freshCallback() {
    const { token, user } = await t.signUp();
    return { token, user, callback: await instagramConsent(token) };
  }
  const withState = (u: URL, state: string) => {
    const copy = new URL(u);
    copy.searchParams.set("state", state);
    return copy;
  };

  it("a tampered state is refused and changes nothing", async () => {
    const { user, callback } = await freshCallback();
    const state = callback.searchParams.get("state")!;
    const last = state.at(-1) === "A" ? "B" : "A";
    for (const forged of [
      `${state.slice(0, -1)}${last}`,
      state.replace(/^s1\.[0-9a-f]/, (s) => s.slice(0, -1) + (s.endsWith("0") ? "1" : "0")),
      "s1.00000000-0000-4000-8000-000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      "",
    ]) {
      const landed = await t.land(withState(callback, forged));
      expect(params(landed)).toEqual({ error: m.stateInvalid, error_type: "invalid_state" });
    }
    expect(await accountRows(user.id)).toHaveLength(0);
    // The genuine state is still good: refusals did not use it up.
    expect(params(await t.land(callback))).toEqual({ instagram_connected: "true" });
  });

  it("a replayed state is refused", async () => {
    const { user, callback } = await freshCallback();
    expect(params(await t.land(callback))).toEqual({ instagram_connected: "true" });
    const again = await t.land(callback);
    expect(params(again)).toEqual({ error: m.stateUsed, error_type: "invalid_state" });
    expect(await accountRows(user.id)).toHaveLength(1);
  });

  it("a state older than 10 minutes is refused", async () => {
    const { user, callback } = await freshCallback();
    t.clock.advance(10 * 60_000 + 1000);
    const landed = await t.land(callback);
    expect(params(landed)).toEqual({ error: m.stateExpired, error_type: "invalid_state" });
    expect(await accountRows(user.id)).toHaveLength(0);
  });

  it("another user's state is refused on the POST callback", async () => {
    const { user, callback } = await freshCallback();
    const other = await t.signUp();
    const res = await t.call("POST", "/api/oauth/instagram/callback", {
      token: other.token,
      body: { code: callback.searchParams.get("code"), state: callback.searchParams.get("state") },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: m.stateOtherUser, error_type: "invalid_state" });
    expect(await accountRows(user.id)).toHaveLength(0);
    expect(await accountRows(other.user.id)).toHaveLength(0);
  });

  it("a state issued for one provider is refused by another", async () => {
    const { token, user } = await t.signUp();
    const google = await googleConsent(token);
    const ig = await instagramConsent(token);
    const landed = await t.land(withState(ig, google.searchParams.get("state")!));
    expect(params(landed).error_type).toBe("invalid_state");
    expect(await accountRows(user.id)).toHaveLength(0);
  });
});

describe("account limits", () => {
  it("free and premium: one account; the next start answers 403 with the SPEC message", async () => {
    for (const tier of ["free", "premium"] as const) {
      const { token, user } = await t.signUp();
      await setTier(user.id, tier);
      expect(params(await connectInstagram(token))).toEqual({ instagram_connected: "true" });
      for (const path of ["/api/oauth/instagram/login", "/api/oauth/facebook/auth-url"]) {
        const res = await t.call("GET", path, { token });
        expect(res.status).toBe(403);
        expect(res.body.detail).toBe(
          `Account limit reached. You can connect up to 1 account(s) with your ${tier} plan.`,
        );
      }
      await t.call("DELETE", "/api/oauth/instagram/disconnect", { token });
    }
  });

  it("a second connection finished after the first is refused at the callback", async () => {
    const { token, user } = await t.signUp();
    const first = await instagramConsent(token, DEMO_IG.business.id);
    const second = await instagramConsent(token, DEMO_IG.creator.id);
    expect(params(await t.land(first))).toEqual({ instagram_connected: "true" });
    const landed = await t.land(second);
    expect(params(landed)).toEqual({
      error: m.accountLimit(1, "free"),
      error_type: "account_limit",
    });
    expect(await accountRows(user.id)).toHaveLength(1);
  });

  it("ten callbacks for two accounts landing at once on a free plan: exactly one account", async () => {
    const { token, user } = await t.signUp();
    const ids: string[] = Array.from({ length: 10 }, (_, i) =>
      i % 2 ? DEMO_IG.creator.id : DEMO_IG.business.id,
    );
    const callbacks = [];
    for (const id of ids) callbacks.push(await instagramConsent(token, id));
    const landed = (await Promise.all(callbacks.map((c) => t.land(c)))).map(params);
    const rows = await accountRows(user.id);
    expect(rows).toHaveLength(1);
    // Every callback of one demo account connects (the later ones refresh it); the other's are refused.
    const won = new Set(ids.filter((_, i) => landed[i]?.instagram_connected === "true"));
    expect(won.size).toBe(1);
    landed.forEach((p, i) => {
      expect(p).toEqual(
        won.has(ids[i] ?? "")
          ? { instagram_connected: "true" }
          : { error: m.accountLimit(1, "free"), error_type: "account_limit" },
      );
    });
  });

  it("pro: up to 3 accounts, then 403", async () => {
    const { token, user } = await t.signUp();
    await setTier(user.id, "pro");
    await connectInstagram(token, DEMO_IG.business.id);
    await connectInstagram(token, DEMO_IG.creator.id);
    let list = await t.call("GET", "/api/accounts/instagram-accounts", { token });
    expect(list.body).toMatchObject({ limit: 3, can_connect_more: true, remaining_slots: 1 });
    // The sandbox has two professional accounts; a third comes straight from the database.
    const [row] = await accountRows(user.id);
    await t.rows.connections.copyInstagramAccount(
      { id: row!.id },
      { instagram_user_id: "17841499999999999", username: "third.account" },
    );
    list = await t.call("GET", "/api/accounts/instagram-accounts", { token });
    expect(list.body).toMatchObject({ limit: 3, can_connect_more: false, remaining_slots: 0 });
    expect(list.body.accounts).toHaveLength(3);
    const res = await t.call("GET", "/api/oauth/instagram/login", { token });
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe(m.accountLimit(ACCOUNT_LIMITS.pro, "pro"));
  });
});
