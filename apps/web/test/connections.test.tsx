import type { InstagramAccount, OAuthStatus } from "@keepsake/contracts";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { type AxiosAdapter, AxiosError, type InternalAxiosRequestConfig } from "axios";
import { useState } from "react";
import { useLocation } from "react-router";
import { toast } from "react-toastify";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("../src/lib/redirect.ts", () => ({ hardRedirect: vi.fn() }));

const { api } = await import("../src/api/client.ts");
const { hardRedirect } = await import("../src/lib/redirect.ts");
const { Toasts } = await import("../src/app.tsx");
const { SettingsPage } = await import("../src/pages/settings/settings-page.tsx");
const { AccountsPanel, limitNotice, tokenExpiresSoon } = await import(
  "../src/pages/dashboard/accounts-panel.tsx"
);
const { ConnectionBanner } = await import("../src/pages/dashboard/connection-banner.tsx");
const { ReadyForBackupBadge } = await import("../src/pages/dashboard/ready-badge.tsx");
const { useConnectionsStatus } = await import("../src/api/connections.ts");
const { useConnectionRedirect, CONNECTED_TOASTS } = await import(
  "../src/pages/dashboard/use-connection-redirect.tsx"
);
const { makeAuth, makeUser, renderWithAuth } = await import("./helpers.tsx");

type Route = (method: string, path: string, params: Record<string, unknown>) => [number, unknown];
let calls: string[] = [];

function serve(route: Route): AxiosAdapter {
  return async (config: InternalAxiosRequestConfig) => {
    const method = (config.method ?? "get").toUpperCase();
    const path = config.url ?? "";
    const params = { ...(config.params as Record<string, unknown> | undefined) };
    const query = new URLSearchParams(params as Record<string, string>).toString();
    calls.push(`${method} ${path}${query ? `?${query}` : ""}`);
    const [status, data] = route(method, path, params);
    const response = { status, statusText: "", headers: {}, config, data };
    if (status >= 400)
      throw new AxiosError("failed", "ERR_BAD_RESPONSE", config, undefined, response);
    return response;
  };
}

function status(overrides: Partial<OAuthStatus> = {}): OAuthStatus {
  return {
    instagram_connected: false,
    instagram_username: null,
    google_connected: false,
    google_email: null,
    instagram_needs_reconnect: false,
    google_needs_reconnect: false,
    ...overrides,
  };
}

let seq = 0;
function account(overrides: Partial<InstagramAccount> = {}): InstagramAccount {
  seq += 1;
  return {
    id: `acc-${seq}`,
    username: `creator${seq}`,
    display_name: `Creator ${seq}`,
    profile_picture_url: null,
    follower_count: 12_940,
    following_count: 540,
    posts_count: 42,
    synced_posts_count: 40,
    backed_up_posts_count: 38,
    connected_at: "2026-01-02T10:00:00.000Z",
    last_sync: null,
    token_expires_at: new Date(Date.now() + 40 * 86_400_000).toISOString(),
    connected_via: "instagram",
    status: "healthy",
    status_reason: null,
    paused_by_plan: false,
    ...overrides,
  };
}

function accountsResponse(accounts: InstagramAccount[], tier: "pro" | "agency", limit: number) {
  return {
    accounts,
    limit,
    can_connect_more: accounts.length < limit,
    remaining_slots: Math.max(0, limit - accounts.length),
    subscription_tier: tier,
  };
}

const originalAdapter = api.defaults.adapter;
beforeEach(() => {
  calls = [];
  vi.mocked(hardRedirect).mockClear();
});
afterEach(() => {
  api.defaults.adapter = originalAdapter;
});

function renderSettings(tier: "free" | "premium" | "pro" | "agency" = "free", path = "/settings") {
  const auth = makeAuth({ user: makeUser({ subscription_tier: tier }) });
  return renderWithAuth(
    <>
      <SettingsPage />
      <Toasts />
    </>,
    { auth, path },
  );
}

describe("settings tabs", () => {
  it("has Connected Accounts, Subscription, Profile Information and API keys; Connected Accounts first", async () => {
    api.defaults.adapter = serve(() => [200, status()]);
    const user = userEvent.setup();
    renderSettings();
    const tabs = screen.getAllByRole("tab").map((t) => t.textContent);
    expect(tabs).toEqual(["Connected Accounts", "Subscription", "Profile Information", "API keys"]);
    expect(
      screen.getByRole("tab", { name: "Connected Accounts" }).getAttribute("aria-selected"),
    ).toBe("true");
    expect(await screen.findByRole("heading", { name: "Instagram" })).toBeTruthy();
    await user.click(screen.getByRole("tab", { name: "Subscription" }));
    expect(screen.getByRole("tab", { name: "Subscription" }).getAttribute("aria-selected")).toBe(
      "true",
    );
    expect(screen.queryByRole("heading", { name: "Instagram" })).toBeNull();
  });
});

describe("Settings → Connected Accounts", () => {
  it("free user: Connect Instagram goes to the consent page", async () => {
    api.defaults.adapter = serve((_m, path) =>
      path === "/oauth/status"
        ? [200, status()]
        : [200, { auth_url: "http://127.0.0.1:8090/www.instagram.com/oauth/authorize?x=1" }],
    );
    const user = userEvent.setup();
    renderSettings("free");
    await user.click(await screen.findByRole("button", { name: "Connect Instagram" }));
    await waitFor(() =>
      expect(hardRedirect).toHaveBeenCalledWith(
        "http://127.0.0.1:8090/www.instagram.com/oauth/authorize?x=1",
      ),
    );
    expect(calls).toContain("GET /oauth/instagram/login?account_type=business");
    expect(screen.getByRole("button", { name: "Connect via Facebook" })).toBeTruthy();
  });

  it("shows the server's limit message, else 'Failed to connect via Facebook'", async () => {
    let detail: string | undefined =
      "Account limit reached. You can connect up to 1 account(s) with your free plan.";
    api.defaults.adapter = serve((_m, path) =>
      path === "/oauth/status" ? [200, status()] : [403, detail ? { detail } : {}],
    );
    const user = userEvent.setup();
    renderSettings("free");
    await user.click(await screen.findByRole("button", { name: "Connect via Facebook" }));
    expect(await screen.findByText(detail)).toBeTruthy();
    detail = undefined;
    await user.click(screen.getByRole("button", { name: "Connect via Facebook" }));
    expect(await screen.findByText("Failed to connect via Facebook")).toBeTruthy();
    expect(hardRedirect).not.toHaveBeenCalled();
  });

  it("pro and agency: Add Account offers Instagram Login and Facebook Login, and Manage Accounts", async () => {
    api.defaults.adapter = serve((_m, path) => {
      if (path === "/oauth/status") {
        return [200, status({ instagram_connected: true, instagram_username: "lumen.studio" })];
      }
      if (path === "/accounts/instagram-accounts") {
        return [200, accountsResponse([account({ username: "lumen.studio" })], "pro", 3)];
      }
      return [200, { auth_url: "http://127.0.0.1:8090/www.facebook.com/v25.0/dialog/oauth?z=3" }];
    });
    const user = userEvent.setup();
    renderSettings("pro");
    const link = await screen.findByRole("link", { name: "Manage Accounts" });
    expect(link.getAttribute("href")).toBe("/dashboard");
    expect(screen.queryByRole("button", { name: "Connect Instagram" })).toBeNull();
    await user.click(await screen.findByRole("button", { name: "Add Account" }));
    expect(screen.getByRole("button", { name: "Instagram Login" })).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Facebook Login" }));
    await waitFor(() =>
      expect(hardRedirect).toHaveBeenCalledWith(
        "http://127.0.0.1:8090/www.facebook.com/v25.0/dialog/oauth?z=3",
      ),
    );
    expect(calls).toContain("GET /oauth/facebook/auth-url");
  });

  it("pro at the limit: Add Account is disabled and says so before leaving Keepsake", async () => {
    const three = [account(), account(), account()];
    api.defaults.adapter = serve((_m, path) =>
      path === "/oauth/status"
        ? [200, status({ instagram_connected: true, instagram_username: three[0]!.username })]
        : [200, accountsResponse(three, "pro", 3)],
    );
    renderSettings("pro");
    expect(
      await screen.findByText(
        /^Account limit reached\. You can connect up to 3 account\(s\) with your pro plan\./,
      ),
    ).toBeTruthy();
    expect(
      (screen.getByRole("button", { name: "Add Account" }) as HTMLButtonElement).disabled,
    ).toBe(true);
    expect(calls.filter((c) => c.startsWith("GET /oauth/instagram/login"))).toEqual([]);
  });

  it("Drive: the notice modal asks to tick the permission, then 'Continue to Google'", async () => {
    api.defaults.adapter = serve((_m, path) =>
      path === "/oauth/status"
        ? [200, status()]
        : [200, { auth_url: "http://127.0.0.1:8090/accounts.google.com/o/oauth2/v2/auth?y=2" }],
    );
    const user = userEvent.setup();
    renderSettings();
    await user.click(await screen.findByRole("button", { name: "Connect Google Drive" }));
    const dialog = screen.getByRole("dialog");
    expect(dialog.textContent).toContain(
      "See, edit, create and delete only the specific Google Drive files you use with this app",
    );
    expect(calls).not.toContain("GET /oauth/google/auth-url");
    await user.click(within(dialog).getByRole("button", { name: "Continue to Google" }));
    await waitFor(() =>
      expect(hardRedirect).toHaveBeenCalledWith(
        "http://127.0.0.1:8090/accounts.google.com/o/oauth2/v2/auth?y=2",
      ),
    );
  });

  it("Drive: Cancel closes the notice without leaving", async () => {
    api.defaults.adapter = serve(() => [200, status()]);
    const user = userEvent.setup();
    renderSettings();
    await user.click(await screen.findByRole("button", { name: "Connect Google Drive" }));
    await user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(hardRedirect).not.toHaveBeenCalled();
  });

  it("disconnecting Drive asks first, says files stay, and toasts the outcome", async () => {
    let connected = true;
    let fail = false;
    api.defaults.adapter = serve((method, path) => {
      if (path === "/oauth/status") {
        return [
          200,
          status({ google_connected: connected, google_email: "jordan.lee@example.com" }),
        ];
      }
      if (method === "DELETE" && path === "/oauth/google/disconnect") {
        if (fail) return [502, {}];
        connected = false;
        return [200, { message: "ok", disconnected: 1, revoked: true }];
      }
      return [404, {}];
    });
    const user = userEvent.setup();
    renderSettings();
    expect(await screen.findByText("jordan.lee@example.com")).toBeTruthy();
    fail = true;
    const drive = screen.getByRole("region", { name: "Google Drive" });
    await user.click(within(drive).getByRole("button", { name: "Disconnect" }));
    const dialog = screen.getByRole("dialog", { name: "Disconnect Google Drive?" });
    expect(dialog.textContent).toContain("Files already in your Google Drive stay where they are.");
    await user.click(within(dialog).getByRole("button", { name: "Disconnect" }));
    expect(await screen.findByText("Failed to disconnect Google Drive")).toBeTruthy();
    fail = false;
    await user.click(within(drive).getByRole("button", { name: "Disconnect" }));
    await user.click(
      within(screen.getByRole("dialog")).getByRole("button", { name: "Disconnect" }),
    );
    expect(await screen.findByText("Google Drive disconnected")).toBeTruthy();
    expect(await screen.findByRole("button", { name: "Connect Google Drive" })).toBeTruthy();
    expect(calls.filter((c) => c === "DELETE /oauth/google/disconnect")).toHaveLength(2);
  });

  it("disconnecting Instagram: cancel does nothing; a failure toasts 'Failed to disconnect Instagram'", async () => {
    api.defaults.adapter = serve((method, path) => {
      if (path === "/oauth/status") {
        return [200, status({ instagram_connected: true, instagram_username: "lumen.studio" })];
      }
      if (path === "/accounts/instagram-accounts") {
        return [200, { ...accountsResponse([account()], "pro", 1), subscription_tier: "free" }];
      }
      if (method === "DELETE") return [500, {}];
      return [404, {}];
    });
    const user = userEvent.setup();
    renderSettings("free");
    expect(await screen.findByText("@lumen.studio")).toBeTruthy();
    const ig = screen.getByRole("region", { name: "Instagram" });
    await user.click(within(ig).getByRole("button", { name: "Disconnect" }));
    await user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Cancel" }));
    expect(calls.some((c) => c.startsWith("DELETE"))).toBe(false);
    await user.click(within(ig).getByRole("button", { name: "Disconnect" }));
    const dialog = screen.getByRole("dialog", { name: "Disconnect Instagram?" });
    expect(dialog.textContent).toContain("stay where they are");
    await user.click(within(dialog).getByRole("button", { name: "Disconnect" }));
    expect(await screen.findByText("Failed to disconnect Instagram")).toBeTruthy();
  });

  it("an account that needs reconnecting says why and offers Reconnect", async () => {
    api.defaults.adapter = serve((_m, path) => {
      if (path === "/oauth/status") {
        return [
          200,
          status({
            instagram_connected: true,
            instagram_username: "lumen.studio",
            instagram_needs_reconnect: true,
          }),
        ];
      }
      return [
        200,
        {
          ...accountsResponse(
            [account({ status: "needs_reconnection", status_reason: "The password was changed." })],
            "pro",
            1,
          ),
          subscription_tier: "free",
        },
      ];
    });
    renderSettings("free");
    expect(await screen.findByText("Needs reconnection")).toBeTruthy();
    expect(await screen.findByText("The password was changed.")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Reconnect Instagram" })).toBeTruthy();
  });
});

function CurrentUrl() {
  const location = useLocation();
  return <output data-testid="url">{`${location.pathname}${location.search}`}</output>;
}

function Arrival() {
  const { banner, dismiss } = useConnectionRedirect();
  return (
    <>
      {banner && <ConnectionBanner message={banner} onDismiss={dismiss} />}
      <CurrentUrl />
      <Toasts />
    </>
  );
}

function renderArrival(search: string) {
  api.defaults.adapter = serve(() => [200, status()]);
  const auth = makeAuth({ user: makeUser() });
  return renderWithAuth(<Arrival />, { auth, path: `/dashboard${search}` });
}

describe("dashboard arrival after a connection", () => {
  it.each([
    ["?instagram_connected=true", CONNECTED_TOASTS.instagram],
    ["?instagram_connected=true&via=facebook", CONNECTED_TOASTS.facebook],
    ["?google_connected=true", CONNECTED_TOASTS.google],
  ])("%s → a success toast and the URL replaced with /dashboard", async (search, text) => {
    renderArrival(search);
    expect(await screen.findByText(text)).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId("url").textContent).toBe("/dashboard"));
  });

  it.each(["facebook_page_required", "unsupported_account"])(
    "error_type=%s → the red banner with 'Go to Settings' and 'Dismiss'",
    async (type) => {
      const message = "Your Instagram professional account must be linked to a Facebook Page.";
      const user = userEvent.setup();
      renderArrival(`?error=${encodeURIComponent(message)}&error_type=${type}`);
      const banner = await screen.findByRole("alert");
      expect(banner.textContent).toContain(message);
      expect(
        within(banner).getByRole("link", { name: "Go to Settings" }).getAttribute("href"),
      ).toBe("/settings");
      await waitFor(() => expect(screen.getByTestId("url").textContent).toBe("/dashboard"));
      await user.click(within(banner).getByRole("button", { name: "Dismiss" }));
      expect(screen.queryByText(message)).toBeNull();
    },
  );

  it("an error text mentioning 'Facebook Page' shows the banner too", async () => {
    renderArrival(`?error=${encodeURIComponent("Link a Facebook Page first")}`);
    expect((await screen.findByRole("alert")).textContent).toContain("Link a Facebook Page first");
  });

  it("error_type=personal_account → a persistent toast with the steps to switch", async () => {
    const warning = vi.spyOn(toast, "warning");
    renderArrival("?error=Personal&error_type=personal_account");
    expect(
      await screen.findByText(
        "Only Professional (Business or Creator) Instagram accounts can be backed up.",
      ),
    ).toBeTruthy();
    expect(screen.getByText(/Switch to professional account/)).toBeTruthy();
    // Persistent: it does not close by itself.
    expect(warning).toHaveBeenCalledWith(
      expect.anything(),
      expect.objectContaining({ autoClose: false }),
    );
    warning.mockRestore();
    await waitFor(() => expect(screen.getByTestId("url").textContent).toBe("/dashboard"));
  });

  it("any other error → a toast with its text", async () => {
    renderArrival(`?error=${encodeURIComponent("Instagram connection was cancelled.")}`);
    expect(await screen.findByText("Instagram connection was cancelled.")).toBeTruthy();
    expect(screen.queryByRole("link", { name: "Go to Settings" })).toBeNull();
    await waitFor(() => expect(screen.getByTestId("url").textContent).toBe("/dashboard"));
  });

  it("leaves a plain /dashboard alone", async () => {
    renderArrival("?page=2");
    expect(screen.getByTestId("url").textContent).toBe("/dashboard?page=2");
  });
});

describe("ready-for-backup badge", () => {
  it.each([
    [status({ instagram_connected: true, google_connected: true }), "✓ Ready for backup"],
    [status({ instagram_connected: true }), null],
    [status({ google_connected: true }), null],
    [
      status({ instagram_connected: true, google_connected: true, google_needs_reconnect: true }),
      "Reconnection needed",
    ],
  ])("%o → %s", async (answer, text) => {
    api.defaults.adapter = serve(() => [200, answer]);
    // Renders in the same commit as the badge, once the status has arrived.
    function StatusLoaded() {
      return useConnectionsStatus().data ? <span>status loaded</span> : null;
    }
    const { container } = renderWithAuth(
      <>
        <ReadyForBackupBadge />
        <StatusLoaded />
      </>,
      { auth: makeAuth({ user: makeUser() }) },
    );
    await screen.findByText("status loaded");
    expect(calls).toContain("GET /oauth/status");
    if (text) expect(screen.getByText(text)).toBeTruthy();
    else expect(container.querySelector(".ready-badge")).toBeNull();
  });
});

describe("accounts panel (pro and agency)", () => {
  function Panel() {
    const [selected, setSelected] = useState<string | null>(null);
    return (
      <>
        <AccountsPanel selectedAccountId={selected} onSelect={setSelected} />
        <output data-testid="selected">{selected ?? "all"}</output>
        <Toasts />
      </>
    );
  }

  it("shows every field, the expiry warning and the limit notice", async () => {
    const soon = account({
      username: "lumen.studio",
      token_expires_at: new Date(Date.now() + 3 * 86_400_000).toISOString(),
    });
    const fine = account({ username: "maya.creates" });
    const third = account({ username: "third.one", last_sync: "2026-02-01T08:00:00.000Z" });
    api.defaults.adapter = serve(() => [200, accountsResponse([soon, fine, third], "pro", 3)]);
    const user = userEvent.setup();
    renderWithAuth(<Panel />, { auth: makeAuth({ user: makeUser({ subscription_tier: "pro" }) }) });
    expect(await screen.findByText("All Accounts")).toBeTruthy();
    const card = screen.getByRole("article", { name: "@lumen.studio" });
    for (const text of ["@lumen.studio", soon.display_name!, "12,940", "42", "40", "38"]) {
      expect(within(card).getByText(text)).toBeTruthy();
    }
    expect(card.textContent).toContain("Syncs every 10m");
    expect(card.textContent).toContain("Last sync -");
    expect(within(card).getByText("Token expires soon")).toBeTruthy();
    expect(
      within(screen.getByRole("article", { name: "@maya.creates" })).queryByText(
        "Token expires soon",
      ),
    ).toBeNull();
    expect(screen.getByRole("note").textContent).toBe(
      "Account limit reached. You can connect up to 3 account(s) with your pro plan. Upgrade to Agency to connect up to 10 Instagram accounts",
    );
    expect(
      (screen.getByRole("button", { name: "Add Account" }) as HTMLButtonElement).disabled,
    ).toBe(true);
    await user.click(within(card).getByRole("button", { name: /^@lumen\.studio/ }));
    expect(screen.getByTestId("selected").textContent).toBe(soon.id);
    await user.click(screen.getByRole("button", { name: /All Accounts/ }));
    expect(screen.getByTestId("selected").textContent).toBe("all");
  });

  it("Add Account offers Instagram Login and Facebook Login while below the limit", async () => {
    api.defaults.adapter = serve((_m, path) =>
      path === "/accounts/instagram-accounts"
        ? [200, accountsResponse([account()], "agency", 10)]
        : [200, { auth_url: "http://127.0.0.1:8090/www.instagram.com/oauth/authorize" }],
    );
    const user = userEvent.setup();
    renderWithAuth(<Panel />, {
      auth: makeAuth({ user: makeUser({ subscription_tier: "agency" }) }),
    });
    await user.click(await screen.findByRole("button", { name: "Add Account" }));
    expect(screen.getByRole("button", { name: "Facebook Login" })).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Instagram Login" }));
    await waitFor(() => expect(hardRedirect).toHaveBeenCalled());
    expect(calls).toContain("GET /oauth/instagram/login?account_type=business");
    expect(screen.queryByRole("note")).toBeNull();
  });

  it("counts one account as '1 account' and keeps each number under its own label", async () => {
    const only = account({ username: "solo.one" });
    api.defaults.adapter = serve(() => [200, accountsResponse([only], "pro", 3)]);
    renderWithAuth(<Panel />, { auth: makeAuth({ user: makeUser({ subscription_tier: "pro" }) }) });
    const all = await screen.findByRole("button", { name: /All Accounts/ });
    expect(all.textContent).toContain("1 account");
    expect(all.textContent).not.toContain("1 accounts");
    const card = screen.getByRole("article", { name: "@solo.one" });
    const stats = [...card.querySelectorAll(".account-stats > div")].map(
      (d) => `${d.querySelector("dt")?.textContent}=${d.querySelector("dd")?.textContent}`,
    );
    expect(stats).toEqual(["Followers=12,940", "Posts=42", "Synced=40", "Backed up=38"]);
  });

  it("at the limit an account that needs reconnecting can still be reconnected", async () => {
    const dead = account({ status: "needs_reconnection", status_reason: "Token expired." });
    api.defaults.adapter = serve(() => [
      200,
      accountsResponse([dead, account(), account()], "pro", 3),
    ]);
    const user = userEvent.setup();
    renderWithAuth(<Panel />, { auth: makeAuth({ user: makeUser({ subscription_tier: "pro" }) }) });
    await user.click(await screen.findByRole("button", { name: "Add Account" }));
    expect(screen.getByRole("button", { name: "Instagram Login" })).toBeTruthy();
    expect(screen.queryByRole("note")).toBeNull();
  });

  it("refresh profile and disconnect, with their §8 failure toasts", async () => {
    const a = account({ username: "lumen.studio" });
    let failRefresh = true;
    api.defaults.adapter = serve((method, path) => {
      if (path === "/accounts/instagram-accounts") return [200, accountsResponse([a], "pro", 3)];
      if (method === "PUT") return failRefresh ? [502, {}] : [200, a];
      if (method === "DELETE") return [404, { detail: "Instagram account not found" }];
      return [404, {}];
    });
    const user = userEvent.setup();
    renderWithAuth(<Panel />, { auth: makeAuth({ user: makeUser({ subscription_tier: "pro" }) }) });
    await user.click(
      await screen.findByRole("button", { name: "Refresh profile of @lumen.studio" }),
    );
    expect(await screen.findByText("Failed to refresh profile")).toBeTruthy();
    failRefresh = false;
    await user.click(screen.getByRole("button", { name: "Refresh profile of @lumen.studio" }));
    expect(await screen.findByText("Profile of @lumen.studio refreshed")).toBeTruthy();
    expect(calls).toContain(`PUT /accounts/instagram-accounts/${a.id}/refresh-profile`);

    await user.click(screen.getByRole("button", { name: "Disconnect @lumen.studio" }));
    const dialog = screen.getByRole("dialog", { name: "Disconnect @lumen.studio?" });
    expect(dialog.textContent).toContain("Files already in your Google Drive stay where they are.");
    await user.click(within(dialog).getByRole("button", { name: "Disconnect" }));
    expect(await screen.findByText("Instagram account not found")).toBeTruthy();
    expect(calls).toContain(`DELETE /accounts/instagram-accounts/${a.id}`);
  });

  it("limit notices and the expiry window", () => {
    expect(limitNotice("free")).toBe("Upgrade to Pro to connect up to 3 Instagram accounts");
    expect(limitNotice("premium")).toBe("Upgrade to Pro to connect up to 3 Instagram accounts");
    const now = Date.parse("2026-03-01T00:00:00Z");
    expect(tokenExpiresSoon("2026-03-08T00:00:00Z", now)).toBe(true);
    expect(tokenExpiresSoon("2026-03-08T00:00:01Z", now)).toBe(false);
    expect(tokenExpiresSoon(null, now)).toBe(false);
  });
});
