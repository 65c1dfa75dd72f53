import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

vi.mock("../src/lib/redirect.ts", () => ({ hardRedirect: vi.fn() }));

const { hardRedirect } = await import("../src/lib/redirect.ts");
const { connectionKeys } = await import("../src/api/connections.ts");
const { account, accountsResponse, calls, renderSettings, serve, status, withConnectionsApi } =
  await import("./support/connections.tsx");

withConnectionsApi();

describe("settings tabs", () => {
  it("has Connected Accounts, Subscription, Profile Information, Notifications, API keys and Import; Connected Accounts first", async () => {
    vi.stubGlobal(
      "fetch",
      serve(() => [200, status()]),
    );
    const user = userEvent.setup();
    renderSettings();
    const tabs = screen.getAllByRole("tab").map((t) => t.textContent);
    expect(tabs).toEqual([
      "Connected Accounts",
      "Subscription",
      "Profile Information",
      "Notifications",
      "API keys",
      "Import",
    ]);
    expect(
      screen.getByRole("tab", { name: "Connected Accounts" }).getAttribute("aria-selected"),
    ).toBe("true");
    expect(await screen.findByRole("heading", { name: "Instagram" })).toBeTruthy();
    await user.click(screen.getByRole("tab", { name: "Subscription" }));
    // The tab's screen is its own chunk: the switch completes once it has loaded.
    await waitFor(() =>
      expect(screen.getByRole("tab", { name: "Subscription" }).getAttribute("aria-selected")).toBe(
        "true",
      ),
    );
    expect(screen.queryByRole("heading", { name: "Instagram" })).toBeNull();
  });
});

describe("Settings → Connected Accounts", () => {
  it("free user: Connect Instagram goes to the consent page", async () => {
    vi.stubGlobal(
      "fetch",
      serve((_m, path) =>
        path === "/oauth/status"
          ? [200, status()]
          : [200, { auth_url: "http://127.0.0.1:8090/www.instagram.com/oauth/authorize?x=1" }],
      ),
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
    vi.stubGlobal(
      "fetch",
      serve((_m, path) =>
        path === "/oauth/status" ? [200, status()] : [403, detail ? { detail } : {}],
      ),
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
    vi.stubGlobal(
      "fetch",
      serve((_m, path) => {
        if (path === "/oauth/status") {
          return [200, status({ instagram_connected: true, instagram_username: "lumen.studio" })];
        }
        if (path === "/accounts/instagram-accounts") {
          return [200, accountsResponse([account({ username: "lumen.studio" })], "pro", 3)];
        }
        return [200, { auth_url: "http://127.0.0.1:8090/www.facebook.com/v25.0/dialog/oauth?z=3" }];
      }),
    );
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
    vi.stubGlobal(
      "fetch",
      serve((_m, path) =>
        path === "/oauth/status"
          ? [200, status({ instagram_connected: true, instagram_username: three[0]!.username })]
          : [200, accountsResponse(three, "pro", 3)],
      ),
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
    vi.stubGlobal(
      "fetch",
      serve((_m, path) =>
        path === "/oauth/status"
          ? [200, status()]
          : [200, { auth_url: "http://127.0.0.1:8090/accounts.google.com/o/oauth2/v2/auth?y=2" }],
      ),
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

  it("a refetch that fails keeps what was loaded, and the dialog open on it", async () => {
    let down = false;
    vi.stubGlobal(
      "fetch",
      serve((_m, path) => {
        if (down) return [503, { detail: "Service unavailable" }];
        return path === "/oauth/status"
          ? [200, status({ instagram_connected: true, instagram_username: "creator" })]
          : [200, {}];
      }),
    );
    const user = userEvent.setup();
    const { queryClient } = renderSettings();
    await user.click(await screen.findByRole("button", { name: "Connect Google Drive" }));
    expect(screen.getByRole("dialog")).toBeTruthy();
    down = true;
    await act(async () => {
      await queryClient.refetchQueries();
      // React Query tells its observers on a zero-delay timer: let that one run first.
      await new Promise((r) => setTimeout(r, 0));
    });
    // The refetch failed (the query is in error), and nothing that was loaded went away.
    expect(queryClient.getQueryState(connectionKeys.status)?.status).toBe("error");
    expect(screen.queryByText(/Could not load your connections/)).toBeNull();
    expect(screen.getByRole("dialog")).toBeTruthy();
    expect(screen.getByRole("heading", { name: "Instagram" })).toBeTruthy();
  });

  it("the first load failing says so, with Try again", async () => {
    vi.stubGlobal(
      "fetch",
      serve(() => [503, { detail: "Service unavailable" }]),
    );
    renderSettings();
    expect(await screen.findByText(/Could not load your connections/)).toBeTruthy();
    expect(screen.getByRole("button", { name: "Try again" })).toBeTruthy();
  });

  it("Drive: Cancel closes the notice without leaving", async () => {
    vi.stubGlobal(
      "fetch",
      serve(() => [200, status()]),
    );
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
    vi.stubGlobal(
      "fetch",
      serve((method, path) => {
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
      }),
    );
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
    const only = account({ username: "lumen.studio" });
    vi.stubGlobal(
      "fetch",
      serve((method, path) => {
        if (path === "/oauth/status") {
          return [200, status({ instagram_connected: true, instagram_username: "lumen.studio" })];
        }
        if (path === "/accounts/instagram-accounts") {
          return [200, { ...accountsResponse([only], "pro", 1), subscription_tier: "free" }];
        }
        if (method === "DELETE") return [500, {}];
        return [404, {}];
      }),
    );
    const user = userEvent.setup();
    renderSettings("free");
    const ig = await screen.findByRole("region", { name: "Instagram" });
    await user.click(await within(ig).findByRole("button", { name: "Disconnect @lumen.studio" }));
    await user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Cancel" }));
    expect(calls.some((c) => c.startsWith("DELETE"))).toBe(false);
    await user.click(within(ig).getByRole("button", { name: "Disconnect @lumen.studio" }));
    const dialog = screen.getByRole("dialog", { name: "Disconnect @lumen.studio?" });
    expect(dialog.textContent).toContain("stay where they are");
    await user.click(within(dialog).getByRole("button", { name: "Disconnect" }));
    expect(await screen.findByText("Failed to disconnect Instagram")).toBeTruthy();
    expect(calls).toContain(`DELETE /oauth/instagram/disconnect?account_id=${only.id}`);
  });

  it("lists every account with its own state and Disconnect; the dialog names the one chosen", async () => {
    const kept = account({ username: "lumen.studio" });
    const paused = account({ username: "maya.creates", paused_by_plan: true });
    let accounts = [kept, paused];
    vi.stubGlobal(
      "fetch",
      serve((method, path, params) => {
        if (path === "/oauth/status") {
          // The server names the account being backed up.
          return [200, status({ instagram_connected: true, instagram_username: "lumen.studio" })];
        }
        if (path === "/accounts/instagram-accounts") {
          return [
            200,
            { ...accountsResponse(accounts, "pro", 1), limit: 1, subscription_tier: "premium" },
          ];
        }
        if (method === "DELETE" && path === "/oauth/instagram/disconnect") {
          accounts = accounts.filter((a) => a.id !== params.account_id);
          return [
            200,
            {
              message:
                "@maya.creates disconnected: its posts and backup records were removed from Keepsake. Files already in your Google Drive stay there.",
              disconnected: 1,
            },
          ];
        }
        return [404, {}];
      }),
    );
    const user = userEvent.setup();
    renderSettings("premium");
    const list = await screen.findByRole("list", { name: "Connected Instagram accounts" });
    const rows = within(list).getAllByRole("listitem");
    expect(rows.map((r) => r.getAttribute("aria-label"))).toEqual([
      "@lumen.studio",
      "@maya.creates",
    ]);
    const [keptRow, pausedRow] = rows as [HTMLElement, HTMLElement];
    expect(within(keptRow).getByTestId("account-state").textContent).toBe("Active");
    expect(within(pausedRow).getByTestId("account-state").textContent).toBe("Paused by plan");
    expect(pausedRow.textContent).toContain("Not synced: your plan syncs 1 account.");
    expect(screen.getByText("2 accounts connected")).toBeTruthy();

    await user.click(within(pausedRow).getByRole("button", { name: "Disconnect @maya.creates" }));
    const dialog = screen.getByRole("dialog", { name: "Disconnect @maya.creates?" });
    expect(dialog.textContent).toContain(
      "Keepsake will stop backing up @maya.creates and delete from Keepsake its 40 posts (stories included) and their backup records.",
    );
    expect(dialog.textContent).toContain("Files already in your Google Drive stay where they are.");
    expect(dialog.textContent).toContain(
      "Your other Instagram account keeps its posts and backup records.",
    );
    await user.click(within(dialog).getByRole("button", { name: "Disconnect" }));
    expect(
      await screen.findByText(/^@maya\.creates disconnected: its posts and backup records/),
    ).toBeTruthy();
    expect(calls).toContain(`DELETE /oauth/instagram/disconnect?account_id=${paused.id}`);
    await waitFor(() =>
      expect(screen.queryByRole("listitem", { name: "@maya.creates" })).toBeNull(),
    );
    expect(screen.getByRole("listitem", { name: "@lumen.studio" })).toBeTruthy();
  });

  it("an account that needs reconnecting says why and offers its Reconnect, on every plan", async () => {
    for (const [tier, via, path] of [
      ["free", "instagram", "GET /oauth/instagram/login?account_type=business"],
      ["premium", "facebook", "GET /oauth/facebook/auth-url"],
      ["pro", "instagram", "GET /oauth/instagram/login?account_type=business"],
      ["agency", "facebook", "GET /oauth/facebook/auth-url"],
    ] as const) {
      const dead = account({
        connected_via: via,
        status: "needs_reconnection",
        status_reason: "The password was changed.",
      });
      vi.stubGlobal(
        "fetch",
        serve((_m, p) => {
          if (p === "/oauth/status") {
            return [
              200,
              status({
                instagram_connected: true,
                instagram_username: dead.username,
                instagram_needs_reconnect: true,
              }),
            ];
          }
          if (p === "/accounts/instagram-accounts") {
            return [200, { ...accountsResponse([dead], "pro", 1), subscription_tier: tier }];
          }
          return [200, { auth_url: "http://127.0.0.1:8090/consent" }];
        }),
      );
      const user = userEvent.setup();
      const view = renderSettings(tier);
      const row = await screen.findByRole("listitem", { name: `@${dead.username}` });
      expect(within(row).getByTestId("account-state").textContent).toBe("Needs reconnection");
      expect(row.textContent).toContain(
        `Backups of @${dead.username} are paused: The password was changed.`,
      );
      await user.click(within(row).getByRole("button", { name: `Reconnect @${dead.username}` }));
      await waitFor(() => expect(calls).toContain(path));
      calls.length = 0;
      view.unmount();
    }
  });
});
