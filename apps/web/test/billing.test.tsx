import { pausedAccountMessages, type Subscription } from "@keepsake/contracts";
import { act, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Route, Switch } from "../src/lib/navigation.tsx";
import { type FakeRequest, fakeFetch, makeAccount } from "./fake-api.ts";
import { makeAuth, makeUser, renderWithAuth } from "./helpers.tsx";

vi.mock("../src/lib/redirect.ts", () => ({ hardRedirect: vi.fn() }));
const { hardRedirect } = await import("../src/lib/redirect.ts");
const { Toasts } = await import("../src/app.tsx");
const { upgradeTargets } = await import("../src/lib/plans.ts");
const { PricingPage } = await import("../src/pages/pricing/pricing-page.tsx");
const { SubscriptionTab, billingAmountText } = await import(
  "../src/pages/settings/subscription-tab.tsx"
);
const { BillingReturnPage } = await import("../src/pages/billing/billing-return-page.tsx");
const { PausedAccountsNotice } = await import("../src/pages/dashboard/paused-accounts-notice.tsx");

const PRICE = (tier: string, i: string) => `price_${tier}_${i}`;
const plansAnswer = {
  plans: ["free", "premium", "pro", "agency"].map((tier, n) => ({
    tier,
    name: tier,
    monthly_price: [0, 9.99, 24.99, 54.99][n],
    annual_price: [0, 99.99, 249.99, 549.99][n],
    features: [`${tier} feature`],
    account_limit: [1, 1, 3, 10][n],
    post_limit: [100, 5000, null, null][n],
    automatic_backups: n > 0,
    stripe_price_ids:
      n === 0
        ? { monthly: null, annual: null }
        : { monthly: PRICE(tier, "monthly"), annual: PRICE(tier, "annual") },
  })),
};

function sub(overrides: Partial<Subscription> = {}): Subscription {
  return {
    tier: "free",
    status: "free",
    amount: 0,
    interval: null,
    current_period_start: null,
    current_period_end: null,
    cancel_at_period_end: false,
    has_billing_account: false,
    ...overrides,
  };
}

let calls: FakeRequest[] = [];
let current: Subscription = sub();
beforeEach(() => {
  calls = [];
  current = sub();
  vi.mocked(hardRedirect).mockClear();
  vi.stubGlobal(
    "fetch",
    fakeFetch((req) => {
      if (req.path === "/subscriptions/plans") return [200, plansAnswer];
      if (req.path === "/subscriptions/current") return [200, current];
      if (req.path === "/subscriptions/checkout")
        return [200, { checkout_url: "https://checkout.example/c/1", kind: "checkout" }];
      if (req.path === "/subscriptions/portal")
        return [200, { portal_url: "https://portal.example/p/1" }];
      return [404, { detail: "Not Found" }];
    }, calls),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const renderAs = (
  tier: Subscription["tier"] | null,
  ui = <PricingPage />,
  path = "/pricing",
  signedIn = tier !== null,
) => {
  if (tier) current = sub({ tier, status: tier === "free" ? "free" : "active" });
  return renderWithAuth(
    <>
      <Toasts />
      <Switch>
        <Route path="/pricing">{ui}</Route>
        <Route path="/settings">{ui}</Route>
        <Route path="/billing/return">{ui}</Route>
        <Route path="/login">
          <p>login page</p>
        </Route>
      </Switch>
    </>,
    {
      path,
      auth: makeAuth({
        user: signedIn ? makeUser({ subscription_tier: tier ?? current.tier }) : null,
      }),
    },
  );
};

const upgradeButtons = () =>
  screen.queryAllByRole("button", { name: /^Upgrade to / }).map((b) => b.textContent);

describe("upgrade buttons (SPEC §6)", () => {
  it("free sees premium and pro; premium sees pro and agency; pro sees agency; agency none", () => {
    expect(upgradeTargets("free")).toEqual(["premium", "pro"]);
    expect(upgradeTargets("premium")).toEqual(["pro", "agency"]);
    expect(upgradeTargets("pro")).toEqual(["agency"]);
    expect(upgradeTargets("agency")).toEqual([]);
  });

  it.each([
    ["free", ["Upgrade to Premium", "Upgrade to Pro"]],
    ["premium", ["Upgrade to Pro", "Upgrade to Agency"]],
    ["pro", ["Upgrade to Agency"]],
    ["agency", []],
  ] as const)("on /pricing a %s user sees %j", async (tier, expected) => {
    renderAs(tier);
    await waitFor(() => expect(screen.getByTestId("current-plan").textContent).toBeTruthy());
    expect(upgradeButtons()).toEqual(expected);
  });

  it("starts Checkout with the annual price id and same-origin return URLs", async () => {
    const user = userEvent.setup();
    renderAs("free");
    await user.click(screen.getByRole("radio", { name: /Annual/ }));
    await waitFor(() => expect(calls.some((c) => c.path === "/subscriptions/plans")).toBe(true));
    await user.click(screen.getByRole("button", { name: "Upgrade to Pro" }));
    await waitFor(() => expect(hardRedirect).toHaveBeenCalledWith("https://checkout.example/c/1"));
    const body = calls.find((c) => c.path === "/subscriptions/checkout")?.body;
    expect(body).toEqual({
      price_id: "price_pro_annual",
      success_url: `${window.location.origin}/billing/return?tier=pro`,
      cancel_url: `${window.location.origin}/pricing?checkout=cancelled`,
    });
  });

  it("holds Upgrade until the plans' price ids arrive (a click then would only fail)", async () => {
    renderAs("free");
    const upgrade = () => screen.getByRole("button", { name: "Upgrade to Pro" });
    expect((upgrade() as HTMLButtonElement).disabled).toBe(true);
    await waitFor(() => expect((upgrade() as HTMLButtonElement).disabled).toBe(false));
    expect(calls.some((c) => c.path === "/subscriptions/plans")).toBe(true);
  });

  it("asks visitors to log in, and a free user is told they are on free", async () => {
    const user = userEvent.setup();
    renderAs(null);
    await user.click(screen.getByRole("button", { name: "Get Pro" }));
    expect(await screen.findByText("Please log in to subscribe")).toBeTruthy();
    expect(screen.getByText("login page")).toBeTruthy();
  });

  it("says 'You are already on the free plan' when a free user picks free", async () => {
    const user = userEvent.setup();
    renderAs("free");
    await user.click(screen.getByRole("button", { name: "Current Plan" }));
    expect(await screen.findByText("You are already on the free plan")).toBeTruthy();
  });

  it("a paying user's Free card leads to Manage Billing, not 'already on the free plan'", async () => {
    current = sub({ tier: "pro", status: "active", amount: 24.99, has_billing_account: true });
    const user = userEvent.setup();
    renderAs("pro");
    await user.click(await screen.findByRole("button", { name: "Downgrade in Manage Billing" }));
    await waitFor(() => expect(hardRedirect).toHaveBeenCalledWith("https://portal.example/p/1"));
    expect(screen.queryByText("You are already on the free plan")).toBeNull();
  });

  it("shows the Checkout failure toast", async () => {
    vi.stubGlobal(
      "fetch",
      fakeFetch((req) =>
        req.path === "/subscriptions/checkout"
          ? [502, {}]
          : [200, req.path.endsWith("plans") ? plansAnswer : current],
      ),
    );
    const user = userEvent.setup();
    renderAs("free");
    await waitFor(() => expect(screen.getAllByText("premium feature").length).toBeGreaterThan(0));
    await user.click(screen.getByRole("button", { name: "Upgrade to Premium" }));
    expect(await screen.findByText("Failed to start checkout")).toBeTruthy();
  });
});

describe("Settings → Subscription", () => {
  it("shows an annual amount per month and per year", () => {
    expect(billingAmountText({ amount: 249.99, interval: "year" })).toBe(
      "$20.83/month ($249.99/year)",
    );
    expect(billingAmountText({ amount: 24.99, interval: "month" })).toBe("$24.99/month");
  });

  it("free: 'Free plan', upgrade buttons, no Manage Billing", async () => {
    renderAs("free", <SubscriptionTab />, "/settings");
    expect((await screen.findByTestId("subscription-status")).textContent).toBe("Free plan");
    expect(upgradeButtons()).toEqual(["Upgrade to Premium", "Upgrade to Pro"]);
    expect(screen.queryByRole("button", { name: "Manage Billing" })).toBeNull();
  });

  it("pro: 'Active subscription', billing, period end, Manage Billing opens the portal", async () => {
    const user = userEvent.setup();
    current = sub({
      tier: "pro",
      status: "active",
      amount: 24.99,
      interval: "month",
      current_period_end: "2026-12-23T12:00:00.000Z",
      has_billing_account: true,
    });
    renderAs(null, <SubscriptionTab />, "/settings", true);
    expect((await screen.findByTestId("subscription-status")).textContent).toBe(
      "Active subscription",
    );
    expect(screen.getByTestId("current-plan-name").textContent).toBe("Pro");
    expect(screen.getByTestId("billing-amount").textContent).toBe("$24.99/month");
    expect(screen.getByText("Renews on")).toBeTruthy();
    expect(upgradeButtons()).toEqual(["Upgrade to Agency"]);
    await user.click(screen.getByRole("button", { name: "Manage Billing" }));
    await waitFor(() => expect(hardRedirect).toHaveBeenCalledWith("https://portal.example/p/1"));
  });

  it("an annual subscriber's upgrade in Settings keeps annual billing", async () => {
    const user = userEvent.setup();
    current = sub({
      tier: "pro",
      status: "active",
      amount: 249.99,
      interval: "year",
      has_billing_account: true,
    });
    renderAs(null, <SubscriptionTab />, "/settings", true);
    await user.click(await screen.findByRole("button", { name: "Upgrade to Agency" }));
    await waitFor(() => expect(hardRedirect).toHaveBeenCalled());
    const body = calls.find((c) => c.path === "/subscriptions/checkout")?.body;
    expect(body).toMatchObject({ price_id: "price_agency_annual" });
  });

  it("from Pro on /pricing, Upgrade to Agency sends the interval of the toggle", async () => {
    const user = userEvent.setup();
    renderAs("pro");
    await user.click(screen.getByRole("radio", { name: /Annual/ }));
    await user.click(await screen.findByRole("button", { name: "Upgrade to Agency" }));
    await waitFor(() => expect(hardRedirect).toHaveBeenCalled());
    const body = calls.find((c) => c.path === "/subscriptions/checkout")?.body;
    expect(body).toMatchObject({
      price_id: "price_agency_annual",
      success_url: `${window.location.origin}/billing/return?tier=agency`,
    });
  });

  it("past due and cancel at period end say so", async () => {
    current = sub({ tier: "pro", status: "past_due", amount: 24.99, interval: "month" });
    const { unmount } = renderAs(null, <SubscriptionTab />, "/settings", true);
    expect((await screen.findByRole("alert")).textContent).toContain("Your last payment failed");
    unmount();
    current = sub({
      tier: "premium",
      status: "active",
      amount: 9.99,
      interval: "month",
      cancel_at_period_end: true,
      current_period_end: "2026-12-23T12:00:00.000Z",
    });
    renderAs(null, <SubscriptionTab />, "/settings", true);
    expect(
      (await screen.findByText(/Your plan is cancelled and ends on/)).textContent,
    ).toBeTruthy();
  });
});

describe("back from Checkout", () => {
  it("waits for the webhook, then confirms the new plan", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      renderAs(null, <BillingReturnPage />, "/billing/return?tier=pro", true);
      expect((await screen.findByTestId("upgrade-pending")).textContent).toContain(
        "Finishing your upgrade…",
      );
      current = sub({ tier: "pro", status: "active", amount: 24.99, interval: "month" });
      await act(async () => {
        await vi.advanceTimersByTimeAsync(2_500);
      });
      expect((await screen.findByTestId("upgrade-done")).textContent).toContain("Welcome to Pro!");
    } finally {
      vi.useRealTimers();
    }
  });

  it("once the plan landed, the dashboard's numbers are read again (the new limits apply at once)", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const { queryClient } = renderAs(
        null,
        <BillingReturnPage />,
        "/billing/return?tier=premium",
        true,
      );
      queryClient.setQueryData(["sync", "stats"], { posts_over_limit: 57, post_limit: 100 });
      expect(queryClient.getQueryState(["sync", "stats"])?.isInvalidated).toBe(false);
      current = sub({ tier: "premium", status: "active", amount: 9.99, interval: "month" });
      await act(async () => {
        await vi.advanceTimersByTimeAsync(2_500);
      });
      await screen.findByTestId("upgrade-done");
      await waitFor(() =>
        expect(queryClient.getQueryState(["sync", "stats"])?.isInvalidated).toBe(true),
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it("after a minute says what to do", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      renderAs(null, <BillingReturnPage />, "/billing/return?tier=pro", true);
      await act(async () => {
        await vi.advanceTimersByTimeAsync(61_000);
      });
      expect(screen.getByTestId("upgrade-slow").textContent).toContain("longer than a minute");
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("after a downgrade", () => {
  const account = (id: string, username: string, paused: boolean) =>
    makeAccount({ id, username, connected_at: "2026-01-02T10:00:00.000Z", paused_by_plan: paused });

  it("counts paused accounts and the plan's accounts in proper plural forms", () => {
    expect(pausedAccountMessages.notice(2, 3, "Pro")).toBe(
      "2 Instagram accounts are paused because your Pro plan syncs 3 accounts. Choose which accounts to keep, or disconnect the others; paused accounts are not synced.",
    );
    expect(pausedAccountMessages.notice(1, 1, "Premium")).toBe(
      "1 Instagram account is paused because your Premium plan syncs 1 account. Choose which account to keep, or disconnect the others; paused accounts are not synced.",
    );
    expect(pausedAccountMessages.kept("lumen.studio", [])).toBe(
      "@lumen.studio is synced again. All your Instagram accounts are synced.",
    );
  });

  it("the dashboard says which accounts are paused and keeps the one chosen", async () => {
    vi.stubGlobal(
      "fetch",
      fakeFetch((req) => {
        if (req.path === "/accounts/instagram-accounts")
          return [
            200,
            {
              accounts: [account("a1", "lumen.studio", false), account("a2", "maya.creates", true)],
              limit: 1,
              can_connect_more: false,
              remaining_slots: 0,
              subscription_tier: "free",
            },
          ];
        if (req.path === "/accounts/instagram-accounts/a2/keep")
          return [
            200,
            {
              message: "@maya.creates is synced again. Paused now: @lumen.studio.",
              paused_accounts: 1,
            },
          ];
        return [404, { detail: "Not Found" }];
      }, calls),
    );
    const user = userEvent.setup();
    renderAs("free", <PausedAccountsNotice />, "/pricing");
    const notice = await screen.findByTestId("paused-accounts");
    expect(notice.textContent).toContain(
      "1 Instagram account is paused because your Free plan syncs 1 account. Choose which account to keep",
    );
    expect(notice.textContent).not.toContain("(s)");
    expect(notice.textContent).toContain("@maya.creates is paused");
    await user.click(screen.getByRole("button", { name: "Keep @maya.creates" }));
    await waitFor(() =>
      expect(calls.some((c) => c.method === "PUT" && c.path.endsWith("/a2/keep"))).toBe(true),
    );
    // The toast says what happened, in the server's words.
    expect(
      await screen.findByText("@maya.creates is synced again. Paused now: @lumen.studio."),
    ).toBeTruthy();
  });
});
