import { describe, expect, it } from "vitest";
import { SANDBOX_CREDENTIALS as C, DEMO_FB, DEMO_IG } from "../src/index.ts";
import {
  CALLBACK,
  fbUserToken,
  formPost,
  type GraphError,
  type GraphPage,
  igLongToken,
  json,
  useHarness,
} from "./helpers.ts";

/** A Facebook Page as listed by /me/accounts. */
interface FbPage {
  id: string;
  name: string;
  access_token: string;
  instagram_business_account?: { id: string };
}

const h = useHarness();

describe("Facebook Login", () => {
  it("shows the dialog with Continue/Cancel and the demo users", async () => {
    const res = await h.get(
      `/www.facebook.com/v25.0/dialog/oauth?client_id=${C.facebook.appId}&redirect_uri=${encodeURIComponent(CALLBACK)}&response_type=code&scope=instagram_basic,pages_show_list&state=s`,
    );
    const html = await res.text();
    expect(res.status).toBe(200);
    for (const u of Object.values(DEMO_FB)) expect(html).toContain(u.name);
    expect(html).toContain(">Continue<");
    expect(html).toContain(">Cancel<");
    const v26 = await h.get(
      `/www.facebook.com/v26.0/dialog/oauth?client_id=${C.facebook.appId}&redirect_uri=${encodeURIComponent(CALLBACK)}&config_id=123`,
    );
    expect(v26.status).toBe(200);
  });

  it("Cancel redirects with access_denied", async () => {
    const res = await formPost(`${h.url}/www.facebook.com/v25.0/dialog/oauth`, {
      client_id: C.facebook.appId,
      redirect_uri: CALLBACK,
      state: "s",
      decision: "cancel",
    });
    const loc = new URL(res.headers.get("location")!);
    expect(loc.searchParams.get("error")).toBe("access_denied");
    expect(loc.searchParams.get("error_reason")).toBe("user_denied");
  });

  it("exchanges code → short → long-lived token; codes are single-use", async () => {
    const res = await formPost(`${h.url}/www.facebook.com/v25.0/dialog/oauth`, {
      client_id: C.facebook.appId,
      redirect_uri: CALLBACK,
      state: "s",
      user: DEMO_FB.withInstagram.id,
      decision: "allow",
    });
    const code = new URL(res.headers.get("location")!).searchParams.get("code")!;
    const exchange = () =>
      h.get(
        `/graph.facebook.com/v25.0/oauth/access_token?client_id=${C.facebook.appId}&client_secret=${C.facebook.appSecret}&redirect_uri=${encodeURIComponent(CALLBACK)}&code=${code}`,
      );
    const short = (await (await exchange()).json()) as {
      access_token: string;
      token_type: string;
      expires_in: number;
    };
    expect(short.token_type).toBe("bearer");
    expect(short.expires_in).toBeLessThan(86_400);
    const reused = (await (await exchange()).json()) as { error: { code: number } };
    expect(reused.error.code).toBe(100);
    const long = (await (
      await h.get(
        `/graph.facebook.com/v25.0/oauth/access_token?grant_type=fb_exchange_token&client_id=${C.facebook.appId}&client_secret=${C.facebook.appSecret}&fb_exchange_token=${short.access_token}`,
      )
    ).json()) as { access_token: string; expires_in: number };
    expect(long.expires_in).toBe(5183944);
  });

  it("/me/accounts: page with instagram_business_account, page without, and no pages", async () => {
    const fields = "id,name,access_token,instagram_business_account";
    const withIg = await fbUserToken(h, DEMO_FB.withInstagram.id);
    const a = await json<GraphPage<FbPage>>(
      h.get(`/graph.facebook.com/v25.0/me/accounts?fields=${fields}&access_token=${withIg}`),
    );
    expect(a.data).toHaveLength(2);
    expect(a.data[0]!.instagram_business_account).toEqual({ id: DEMO_IG.business.userId });
    expect(a.data[1]!.instagram_business_account).toBeUndefined();
    expect(typeof a.data[0]!.access_token).toBe("string");
    const pageOnly = await fbUserToken(h, DEMO_FB.pageWithoutInstagram.id);
    const b = await json<GraphPage<FbPage>>(
      h.get(`/graph.facebook.com/v26.0/me/accounts?fields=${fields}&access_token=${pageOnly}`),
    );
    expect(b.data).toHaveLength(1);
    expect(b.data[0]!.instagram_business_account).toBeUndefined();
    const none = await fbUserToken(h, DEMO_FB.noPage.id);
    const c = await json<GraphPage<FbPage>>(
      h.get(`/graph.facebook.com/v25.0/me/accounts?fields=${fields}&access_token=${none}`),
    );
    expect(c.data).toEqual([]);
    const me = await json<{ id: string; name: string }>(
      h.get(`/graph.facebook.com/v25.0/me?access_token=${none}`),
    );
    expect(me).toEqual({ id: DEMO_FB.noPage.id, name: DEMO_FB.noPage.name });
  });

  it("reads the linked Instagram account's profile, media and stories on the Facebook host", async () => {
    const token = await fbUserToken(h, DEMO_FB.withInstagram.id);
    const ig = DEMO_IG.business.userId;
    const profile = await json<{ id: string; username: string; media_count: number }>(
      h.get(`/graph.facebook.com/v25.0/${ig}?fields=id,username,media_count&access_token=${token}`),
    );
    expect(profile).toEqual({ id: ig, username: "lumen.studio", media_count: 152 });
    const page = await json<GraphPage<{ id: string; media_type: string; media_url?: string }>>(
      h.get(
        `/graph.facebook.com/v25.0/${ig}/media?fields=id,media_type,media_url&limit=10&access_token=${token}`,
      ),
    );
    expect(page.data.length).toBeGreaterThan(0);
    expect(page.paging!.next).toContain("/graph.facebook.com/v25.0/");
    const stories = await json<GraphPage<{ id: string; media_product_type: string }>>(
      h.get(
        `/graph.facebook.com/v25.0/${ig}/stories?fields=id,media_product_type&access_token=${token}`,
      ),
    );
    expect(stories.data.length).toBeGreaterThan(0);
    // An account not linked to this user's pages is not visible.
    const other = await json<GraphError>(
      h.get(`/graph.facebook.com/v25.0/${DEMO_IG.creator.userId}/media?access_token=${token}`),
    );
    expect(other.error.code).toBe(100);
    // Tokens do not cross hosts.
    const igToken = await igLongToken(h, DEMO_IG.business.id);
    const cross = await json<GraphError>(
      h.get(`/graph.facebook.com/v25.0/me?access_token=${igToken}`),
    );
    expect(cross.error.code).toBe(190);
  });
});
