import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";

vi.mock("../src/lib/redirect.ts", () => ({ hardRedirect: vi.fn() }));

const { hardRedirect } = await import("../src/lib/redirect.ts");
const { Toasts } = await import("../src/app.tsx");
const { connectionKeys } = await import("../src/api/connections.ts");
const { AccountsPanel, limitNotice, tokenExpiresSoon } = await import(
  "../src/pages/dashboard/accounts-panel.tsx"
);
const { makeAuth, makeUser, renderWithAuth } = await import("./helpers.tsx");
const { account, accountsResponse, calls, serve, withConnectionsApi } = await import(
  "./support/connections.tsx"
);

// The accounts panel of the dashboard and Settings (pro and agency); the dashboard's arrival after
// a connection and the ready-for-backup badge: connections-dashboard.test.tsx.
withConnectionsApi();

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

  it("a refetch that fails (a poll during a sync) keeps the cards shown", async () => {
    let down = false;
    vi.stubGlobal(
      "fetch",
      serve(() =>
        down
          ? [503, { detail: "Service unavailable" }]
          : [200, accountsResponse([account({ username: "kept.here" })], "pro", 3)],
      ),
    );
    const { queryClient } = renderWithAuth(<Panel />, {
      auth: makeAuth({ user: makeUser({ subscription_tier: "pro" }) }),
    });
    expect(await screen.findByRole("article", { name: "@kept.here" })).toBeTruthy();
    down = true;
    await act(async () => {
      await queryClient.refetchQueries();
      // React Query tells its observers on a zero-delay timer: let that one run first.
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(queryClient.getQueryState(connectionKeys.accounts)?.status).toBe("error");
    expect(screen.queryByText("Could not load your Instagram accounts.")).toBeNull();
    expect(screen.getByRole("article", { name: "@kept.here" })).toBeTruthy();
  });

  it("shows every field, the expiry warning and the limit notice", async () => {
    const soon = account({
      username: "lumen.studio",
      token_expires_at: new Date(Date.now() + 3 * 86_400_000).toISOString(),
    });
    const fine = account({ username: "maya.creates" });
    const third = account({ username: "third.one", last_sync: "2026-02-01T08:00:00.000Z" });
    vi.stubGlobal(
      "fetch",
      serve(() => [200, accountsResponse([soon, fine, third], "pro", 3)]),
    );
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
    vi.stubGlobal(
      "fetch",
      serve((_m, path) =>
        path === "/accounts/instagram-accounts"
          ? [200, accountsResponse([account()], "agency", 10)]
          : [200, { auth_url: "http://127.0.0.1:8090/www.instagram.com/oauth/authorize" }],
      ),
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
    vi.stubGlobal(
      "fetch",
      serve(() => [200, accountsResponse([only], "pro", 3)]),
    );
    renderWithAuth(<Panel />, { auth: makeAuth({ user: makeUser({ subscription_tier: "pro" }) }) });
    const all = await screen.findByRole("button", { name: /All Accounts/ });
    expect(all.textContent).toContain("1 account");
    expect(all.textContent).not.toContain("1 accounts");
    const card = screen.getByRole("article", { name: "@solo.one" });
    const stats = [...card.querySelectorAll(".account-stats > div")].map(
      (d) => `${d.querySelector("dt")?.textContent}=${d.querySelector("dd")?.textContent}`,
    );
    expect(stats).toEqual([
      "Followers=12,940",
      "On Instagram=42",
      "In Keepsake=40",
      "Backed up=38",
    ]);
    expect(within(card).getByText("Active")).toBeTruthy();
    // Where its backups go (issue 38): Google Drive unless the user chose another.
    expect(within(card).getByTestId("account-destination").textContent).toBe(
      "Backed up to Google Drive",
    );
  });

  it("says what each count counts: stories are in Keepsake's count, not Instagram's", async () => {
    const withStories = account({
      username: "story.teller",
      destination: "onedrive",
      posts_count: 42,
      synced_posts_count: 45,
      synced_stories_count: 3,
      backed_up_posts_count: 45,
    });
    vi.stubGlobal(
      "fetch",
      serve(() => [200, accountsResponse([withStories], "pro", 3)]),
    );
    renderWithAuth(<Panel />, { auth: makeAuth({ user: makeUser({ subscription_tier: "pro" }) }) });
    const card = await screen.findByRole("article", { name: "@story.teller" });
    const stats = [...card.querySelectorAll(".account-stats > div")].map(
      (d) => `${d.querySelector("dt")?.textContent}=${d.querySelector("dd")?.textContent}`,
    );
    expect(stats).toEqual([
      "Followers=12,940",
      "On Instagram=42",
      "In Keepsake=45 incl. 3 stories",
      "Backed up=45",
    ]);
    expect(within(card).getByTestId("account-destination").textContent).toBe(
      "Backed up to OneDrive",
    );
    expect(within(card).getByText("On Instagram").getAttribute("title")).toContain(
      "stories not counted",
    );
  });

  it("a revoked account's card says its backups are paused and reconnects through its login", async () => {
    const dead = account({
      username: "via.facebook",
      connected_via: "facebook",
      status: "needs_reconnection",
      status_reason: "The Facebook access was revoked.",
    });
    vi.stubGlobal(
      "fetch",
      serve((_m, path) =>
        path === "/accounts/instagram-accounts"
          ? [200, accountsResponse([dead, account()], "pro", 3)]
          : [200, { auth_url: "http://127.0.0.1:8090/www.facebook.com/v25.0/dialog/oauth?r=1" }],
      ),
    );
    const user = userEvent.setup();
    renderWithAuth(<Panel />, { auth: makeAuth({ user: makeUser({ subscription_tier: "pro" }) }) });
    const card = await screen.findByRole("article", { name: "@via.facebook" });
    expect(within(card).getByRole("status").textContent).toBe(
      "Backups of @via.facebook are paused: The Facebook access was revoked.",
    );
    expect(within(card).getByText("Needs reconnection")).toBeTruthy();
    await user.click(within(card).getByRole("button", { name: "Reconnect @via.facebook" }));
    await waitFor(() =>
      expect(hardRedirect).toHaveBeenCalledWith(
        "http://127.0.0.1:8090/www.facebook.com/v25.0/dialog/oauth?r=1",
      ),
    );
    expect(calls).toContain("GET /oauth/facebook/auth-url");
  });

  it("stories refused through Instagram Login: the card says so and adds them with Facebook Login", async () => {
    const refused = account({ username: "no.stories", stories_need_facebook_login: true });
    vi.stubGlobal(
      "fetch",
      serve((_m, path) =>
        path === "/accounts/instagram-accounts"
          ? [
              200,
              accountsResponse(
                [
                  refused,
                  account({ id: "22222222-2222-4222-8222-222222222222", username: "has.stories" }),
                ],
                "pro",
                3,
              ),
            ]
          : [200, { auth_url: "http://127.0.0.1:8090/www.facebook.com/v25.0/dialog/oauth?s=1" }],
      ),
    );
    const user = userEvent.setup();
    renderWithAuth(<Panel />, { auth: makeAuth({ user: makeUser({ subscription_tier: "pro" }) }) });
    const card = await screen.findByRole("article", { name: "@no.stories" });
    expect(within(card).getByTestId("stories-need-facebook").textContent).toContain(
      "Its posts are backed up",
    );
    expect(
      within(screen.getByRole("article", { name: "@has.stories" })).queryByTestId(
        "stories-need-facebook",
      ),
    ).toBeNull();
    await user.click(within(card).getByRole("button", { name: "Add stories with Facebook Login" }));
    // Issue 36: it says what the switch changes before leaving for Facebook.
    const dialog = await screen.findByRole("dialog", {
      name: "Switch @no.stories to Facebook Login?",
    });
    expect(dialog.textContent).toContain("Facebook Login does not include the comments permission");
    expect(hardRedirect).not.toHaveBeenCalled();
    await user.click(within(dialog).getByRole("button", { name: "Continue to Facebook" }));
    await waitFor(() =>
      expect(hardRedirect).toHaveBeenCalledWith(
        "http://127.0.0.1:8090/www.facebook.com/v25.0/dialog/oauth?s=1",
      ),
    );
    expect(calls).toContain(
      `GET /oauth/facebook/switch-url?account_id=${refused.id}&keep_comments=false`,
    );
  }, 15_000);

  it("at the limit an account that needs reconnecting can still be reconnected", async () => {
    const dead = account({ status: "needs_reconnection", status_reason: "Token expired." });
    vi.stubGlobal(
      "fetch",
      serve(() => [200, accountsResponse([dead, account(), account()], "pro", 3)]),
    );
    const user = userEvent.setup();
    renderWithAuth(<Panel />, { auth: makeAuth({ user: makeUser({ subscription_tier: "pro" }) }) });
    await user.click(await screen.findByRole("button", { name: "Add Account" }));
    expect(screen.getByRole("button", { name: "Instagram Login" })).toBeTruthy();
    expect(screen.queryByRole("note")).toBeNull();
  });

  it("refresh profile and disconnect, with their §8 failure toasts", async () => {
    const a = account({ username: "lumen.studio" });
    let failRefresh = true;
    vi.stubGlobal(
      "fetch",
      serve((method, path) => {
        if (path === "/accounts/instagram-accounts") return [200, accountsResponse([a], "pro", 3)];
        if (method === "PUT") return failRefresh ? [502, {}] : [200, a];
        if (method === "DELETE") return [404, { detail: "Instagram account not found" }];
        return [404, {}];
      }),
    );
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
    expect(dialog.textContent).toContain(
      "delete from Keepsake its 40 posts (stories included) and their backup records",
    );
    await user.click(within(dialog).getByRole("button", { name: "Disconnect" }));
    expect(await screen.findByText("Instagram account not found")).toBeTruthy();
    expect(calls).toContain(`DELETE /accounts/instagram-accounts/${a.id}`);
  });

  it("the disconnect dialog names where the account's files stay (issue 38)", async () => {
    const a = account({ username: "lumen.studio", destination: "dropbox" });
    vi.stubGlobal(
      "fetch",
      serve(() => [200, accountsResponse([a], "pro", 3)]),
    );
    const user = userEvent.setup();
    renderWithAuth(<Panel />, { auth: makeAuth({ user: makeUser({ subscription_tier: "pro" }) }) });
    await user.click(await screen.findByRole("button", { name: "Disconnect @lumen.studio" }));
    const dialog = screen.getByRole("dialog", { name: "Disconnect @lumen.studio?" });
    expect(dialog.textContent).toContain("Files already in your Dropbox stay where they are.");
    expect(dialog.textContent).not.toContain("Google Drive");
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
