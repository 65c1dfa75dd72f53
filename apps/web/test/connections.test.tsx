import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

vi.mock("../src/lib/redirect.ts", () => ({ hardRedirect: vi.fn() }));

const { api } = await import("../src/api/client.ts");
const { hardRedirect } = await import("../src/lib/redirect.ts");
const { account, accountsResponse, calls, renderSettings, serve, status, withConnectionsApi } =
  await import("./support/connections.tsx");

withConnectionsApi();

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
