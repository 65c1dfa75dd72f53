import { describe, expect, it } from "vitest";
import { SANDBOX_CREDENTIALS as C, DEMO_IG } from "../src/index.ts";
import { CALLBACK, formPost, igShortToken, useHarness } from "./helpers.ts";

const h = useHarness();

const B = DEMO_IG.business;

/** Allows the consent page for the business account; the code from the redirect. */
async function allowCode(): Promise<string> {
  const res = await formPost(`${h.url}/www.instagram.com/oauth/authorize`, {
    client_id: C.instagram.clientId,
    redirect_uri: CALLBACK,
    response_type: "code",
    scope: "instagram_business_basic",
    account: B.id,
    decision: "allow",
  });
  return new URL(res.headers.get("location")!).searchParams.get("code")!;
}

/** Exchanges a code at Instagram Login's token endpoint. */
function exchangeCode(code: string): Promise<Response> {
  return formPost(`${h.url}/api.instagram.com/oauth/access_token`, {
    client_id: C.instagram.clientId,
    client_secret: C.instagram.clientSecret,
    grant_type: "authorization_code",
    redirect_uri: CALLBACK,
    code,
  });
}

describe("Instagram Login", () => {
  it("shows a consent page with the demo accounts and Allow/Cancel", async () => {
    const res = await h.get(
      `/www.instagram.com/oauth/authorize?client_id=${C.instagram.clientId}&redirect_uri=${encodeURIComponent(CALLBACK)}&response_type=code&scope=instagram_business_basic&state=abc`,
    );
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain("@lumen.studio");
    expect(html).toContain("@maya.creates");
    expect(html).toContain("@sam.everyday");
    expect(html).toContain(">Allow<");
    expect(html).toContain(">Cancel<");
  });

  it("rejects an unknown client and a non-http redirect_uri", async () => {
    const bad = await h.get(
      `/www.instagram.com/oauth/authorize?client_id=1&redirect_uri=${encodeURIComponent(CALLBACK)}&response_type=code&scope=instagram_business_basic`,
    );
    expect(bad.status).toBe(400);
    const badUri = await h.get(
      `/www.instagram.com/oauth/authorize?client_id=${C.instagram.clientId}&redirect_uri=javascript:alert(1)&response_type=code&scope=instagram_business_basic`,
    );
    expect(badUri.status).toBe(400);
  });

  it("redirects with code#_ on Allow and access_denied on Cancel", async () => {
    const base = {
      client_id: C.instagram.clientId,
      redirect_uri: CALLBACK,
      response_type: "code",
      scope: "instagram_business_basic",
      state: "st",
    };
    const allow = await formPost(`${h.url}/www.instagram.com/oauth/authorize`, {
      ...base,
      account: B.id,
      decision: "allow",
    });
    expect(allow.status).toBe(302);
    const loc = allow.headers.get("location")!;
    expect(loc.startsWith(`${CALLBACK}?`)).toBe(true);
    expect(loc.endsWith("#_")).toBe(true);
    expect(new URL(loc).searchParams.get("state")).toBe("st");
    const cancel = await formPost(`${h.url}/www.instagram.com/oauth/authorize`, {
      ...base,
      decision: "cancel",
    });
    const c = new URL(cancel.headers.get("location")!);
    expect(c.searchParams.get("error")).toBe("access_denied");
    expect(c.searchParams.get("error_reason")).toBe("user_denied");
    expect(c.searchParams.get("state")).toBe("st");
  });

  it("codes are single-use and expire after an hour", async () => {
    const code = await allowCode();
    const first = await exchangeCode(code);
    expect(first.status).toBe(200);
    const body = (await first.json()) as {
      data: { access_token: string; user_id: number; permissions: string }[];
    };
    expect(body.data[0]!.user_id).toBe(Number(B.id));
    const again = await exchangeCode(code);
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({
      error_type: "OAuthException",
      code: 400,
      error_message: "This authorization code has been used",
    });
    const late = await allowCode();
    await h.ctl("clock", { advance_seconds: 3601 });
    const expired = await exchangeCode(late);
    expect(((await expired.json()) as { error_message: string }).error_message).toMatch(/expired/);
  });

  it("serves the flat token shape when asked", async () => {
    await h.ctl("config", { ig_token_shape: "flat" });
    const res = await exchangeCode(await allowCode());
    const body = (await res.json()) as Record<string, unknown>;
    expect(typeof body.access_token).toBe("string");
    expect(body.data).toBeUndefined();
  });

  it("short-lived tokens die after 1 h; long-lived refresh only after 24 h", async () => {
    const short = await igShortToken(h, B.id);
    const ex = await h.get(
      `/graph.instagram.com/access_token?grant_type=ig_exchange_token&client_secret=${C.instagram.clientSecret}&access_token=${short}`,
    );
    const long = (await ex.json()) as {
      access_token: string;
      token_type: string;
      expires_in: number;
    };
    expect(long.token_type).toBe("bearer");
    expect(long.expires_in).toBe(5183944);
    const early = await h.get(
      `/graph.instagram.com/refresh_access_token?grant_type=ig_refresh_token&access_token=${long.access_token}`,
    );
    expect(early.status).toBe(400);
    await h.ctl("clock", { advance_seconds: 3700 });
    const shortMe = await h.get(`/graph.instagram.com/v25.0/me?access_token=${short}`);
    const err = (await shortMe.json()) as { error: { code: number; error_subcode: number } };
    expect(err.error.code).toBe(190);
    expect(err.error.error_subcode).toBe(463);
    await h.ctl("clock", { advance_seconds: 86_400 });
    const ok = await h.get(
      `/graph.instagram.com/refresh_access_token?grant_type=ig_refresh_token&access_token=${long.access_token}`,
    );
    expect(ok.status).toBe(200);
    const refreshed = (await ok.json()) as { access_token: string; expires_in: number };
    expect(refreshed.expires_in).toBe(5183944);
    await h.ctl("clock", { advance_seconds: 61 * 86_400 });
    const dead = await h.get(
      `/graph.instagram.com/refresh_access_token?grant_type=ig_refresh_token&access_token=${long.access_token}`,
    );
    expect(((await dead.json()) as { error: { code: number } }).error.code).toBe(190);
  });
});
