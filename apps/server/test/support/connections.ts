import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { createSandboxedApp, type SandboxedApp } from "./sandbox.ts";

export const DRIVE = "https://www.googleapis.com/auth/drive.file";

export const params = (u: URL) => Object.fromEntries(u.searchParams.entries());

/**
 * The connections suites' setup: Keepsake with the sandboxed providers for the test file, and
 * no Instagram account taken when a test starts (an account belongs to one user at a time).
 * `app()` is the app once `beforeAll` ran; the helpers walk the OAuth flows through it.
 */
export function connectionsSuite() {
  let t: SandboxedApp | undefined;
  beforeAll(async () => {
    t = await createSandboxedApp();
  });
  afterAll(async () => {
    await t?.close();
  });
  afterEach(async () => {
    await t?.rows.connections.deleteAllInstagramAccounts();
  });
  const app = () => {
    if (!t) throw new Error("the app starts in beforeAll");
    return t;
  };

  async function startInstagram(token: string, accountType = "business") {
    const res = await app().call("GET", `/api/oauth/instagram/login?account_type=${accountType}`, {
      token,
    });
    expect(res.status).toBe(200);
    return res.body.auth_url as string;
  }

  /** Instagram consent for a demo account; answers Keepsake's callback URL. */
  async function instagramConsent(token: string, accountId: string = DEMO_IG.business.id) {
    return app().consent(await startInstagram(token), { decision: "allow", account: accountId });
  }

  return {
    app,
    startInstagram,
    instagramConsent,

    async connectInstagram(token: string, accountId: string = DEMO_IG.business.id) {
      return app().land(await instagramConsent(token, accountId));
    },

    async facebookConsent(token: string, fbUserId: string) {
      const res = await app().call("GET", "/api/oauth/facebook/auth-url", { token });
      expect(res.status).toBe(200);
      return app().consent(res.body.auth_url, { decision: "allow", user: fbUserId });
    },

    async googleConsent(token: string, opts: { drive?: boolean; sub?: string } = {}) {
      const res = await app().call("GET", "/api/oauth/google/auth-url", { token });
      expect(res.status).toBe(200);
      const fields: Record<string, string> = {
        decision: "allow",
        authuser: opts.sub ?? DEMO_GOOGLE.jordan.sub,
      };
      if (opts.drive !== false) fields.drive_file = "on";
      return app().consent(res.body.auth_url, fields);
    },

    async accountRows(userId: string) {
      return app()
        .ctx.db.selectFrom("instagram_accounts")
        .selectAll()
        .where("user_id", "=", userId)
        .execute();
    },

    async setTier(userId: string, tier: "free" | "premium" | "pro" | "agency") {
      await app().setTier(userId, tier);
    },
  };
}
