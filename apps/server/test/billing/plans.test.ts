import { ACCOUNT_LIMITS, POST_LIMITS } from "@keepsake/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe("plan limits (SPEC §9)", () => {
  it("are free 1 / premium 1 / pro 3 / agency 10 accounts and 100 / 5,000 / unlimited posts", () => {
    expect(ACCOUNT_LIMITS).toEqual({ free: 1, premium: 1, pro: 3, agency: 10 });
    expect(POST_LIMITS).toEqual({ free: 100, premium: 5000, pro: null, agency: null });
  });

  it("the accounts response gives each tier its own limit", async () => {
    const { token, user } = await t.signUp();
    for (const [tier, limit] of Object.entries(ACCOUNT_LIMITS)) {
      await t.setTier(user.id, tier as keyof typeof ACCOUNT_LIMITS);
      const list = await t.call("GET", "/api/accounts/instagram-accounts", { token });
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({
        subscription_tier: tier,
        limit,
        can_connect_more: true,
        remaining_slots: limit,
      });
    }
  });
});
