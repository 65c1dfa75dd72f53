import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { FakeRequest } from "./fake-api.ts";

vi.mock("../src/lib/redirect.ts", () => ({ hardRedirect: vi.fn() }));

const { fakeFetch } = await import("./fake-api.ts");
const { account, renderSettings, withConnectionsApi } = await import("./support/connections.tsx");
const { destination, mixedDestinations, settingsRoute } = await import("./support/destinations.ts");

// Settings → each Instagram account's "Back up to" (issue 38), and the arrival on /settings back
// from a destination's consent screen. The Storage cards: storage.test.tsx.
withConnectionsApi();

function serveSettings(
  state: Parameters<typeof settingsRoute>[0],
  extra?: Parameters<typeof settingsRoute>[1],
) {
  const calls: FakeRequest[] = [];
  vi.stubGlobal("fetch", fakeFetch(settingsRoute(state, extra), calls));
  return calls;
}

const optionLabels = (select: HTMLElement) =>
  [...(select as HTMLSelectElement).options].map((o) => o.textContent);

describe("Settings → an account's 'Back up to'", () => {
  it("offers the connected destinations, Google Drive by default; a switch asks, then toasts the answer", async () => {
    const lumen = account({ username: "lumen.studio", synced_posts_count: 128 });
    const maya = account({ username: "maya.creates", destination: "s3" });
    const state = { accounts: [lumen, maya], destinations: mixedDestinations() };
    const message =
      "@lumen.studio is now backed up to S3 storage: its 128 posts are being copied there. What is in Google Drive stays there.";
    const calls = serveSettings(state, (req) => {
      if (
        req.method === "PUT" &&
        req.path === `/oauth/instagram/accounts/${lumen.id}/destination`
      ) {
        state.accounts = [{ ...lumen, destination: "s3" }, maya];
        return [200, { account_id: lumen.id, destination: "s3", posts_to_copy: 128, message }];
      }
      return undefined;
    });
    const user = userEvent.setup();
    renderSettings("pro");
    const row = await screen.findByRole("listitem", { name: "@lumen.studio" });
    const select = await within(row).findByRole("combobox", { name: "Back up @lumen.studio to" });
    expect((select as HTMLSelectElement).value).toBe("google_drive");
    // Dropbox is not connected; OneDrive is, but has lost its access.
    expect(optionLabels(select)).toEqual([
      "Google Drive",
      "OneDrive (needs reconnecting)",
      "S3 storage",
    ]);
    const mayaSelect = within(screen.getByRole("listitem", { name: "@maya.creates" })).getByRole(
      "combobox",
    );
    expect((mayaSelect as HTMLSelectElement).value).toBe("s3");

    // Cancel changes nothing.
    await user.selectOptions(select, "s3");
    let dialog = screen.getByRole("dialog", { name: "Back up @lumen.studio to S3 storage?" });
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect((select as HTMLSelectElement).value).toBe("google_drive");
    expect(calls.some((c) => c.method === "PUT")).toBe(false);

    await user.selectOptions(select, "s3");
    dialog = screen.getByRole("dialog", { name: "Back up @lumen.studio to S3 storage?" });
    expect(dialog.textContent).toContain(
      "128 posts of @lumen.studio will be copied to S3 storage; what is already in Google Drive stays there.",
    );
    await user.click(within(dialog).getByRole("button", { name: "Switch to S3 storage" }));
    expect(await screen.findByText(message)).toBeTruthy();
    expect(calls.find((c) => c.method === "PUT")?.body).toEqual({ destination: "s3" });
    await waitFor(() => expect((select as HTMLSelectElement).value).toBe("s3"));
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("a refused switch toasts the server's detail and keeps the destination", async () => {
    const lumen = account({ username: "lumen.studio", synced_posts_count: 3 });
    serveSettings({ accounts: [lumen], destinations: mixedDestinations() }, (req) =>
      req.method === "PUT"
        ? [
            409,
            { detail: "OneDrive needs reconnecting before @lumen.studio can be backed up there." },
          ]
        : undefined,
    );
    const user = userEvent.setup();
    renderSettings("pro");
    const select = await screen.findByRole("combobox", { name: "Back up @lumen.studio to" });
    await user.selectOptions(select, "onedrive");
    const dialog = screen.getByRole("dialog", { name: "Back up @lumen.studio to OneDrive?" });
    expect(dialog.textContent).toContain(
      "3 posts of @lumen.studio will be copied to OneDrive; what is already in Google Drive stays there.",
    );
    await user.click(within(dialog).getByRole("button", { name: "Switch to OneDrive" }));
    expect(
      await screen.findByText(
        "OneDrive needs reconnecting before @lumen.studio can be backed up there.",
      ),
    ).toBeTruthy();
    expect((select as HTMLSelectElement).value).toBe("google_drive");
  });

  it("with only Google Drive connected, the choice is shown but there is nothing to switch to", async () => {
    serveSettings({
      accounts: [account({ username: "lumen.studio" })],
      destinations: [
        destination("google_drive", { connected: true, account: "jordan.lee@example.com" }),
        destination("dropbox"),
      ],
    });
    renderSettings("pro");
    const select = await screen.findByRole("combobox", { name: "Back up @lumen.studio to" });
    expect(optionLabels(select)).toEqual(["Google Drive"]);
    expect((select as HTMLSelectElement).disabled).toBe(true);
    expect(
      screen.getByText("Connect another destination under Storage to back @lumen.studio up there."),
    ).toBeTruthy();
  });
  it("an account whose destination lost its access, or is not connected, says it is not backed up", async () => {
    serveSettings({
      accounts: [
        account({ username: "lumen.studio", destination: "onedrive" }),
        account({ username: "maya.creates", destination: "dropbox" }),
        account({ username: "noor.draws", destination: "google_drive" }),
      ],
      destinations: mixedDestinations(),
    });
    renderSettings("pro");
    const lumen = await screen.findByRole("listitem", { name: "@lumen.studio" });
    expect(await within(lumen).findByRole("status")).toHaveProperty(
      "textContent",
      "OneDrive needs reconnecting: @lumen.studio is not backed up until you reconnect it under Storage or choose another destination.",
    );
    const maya = screen.getByRole("listitem", { name: "@maya.creates" });
    const select = within(maya).getByRole("combobox", { name: "Back up @maya.creates to" });
    expect((select as HTMLSelectElement).value).toBe("dropbox");
    expect(optionLabels(select)).toEqual([
      "Google Drive",
      "Dropbox (not connected)",
      "OneDrive (needs reconnecting)",
      "S3 storage",
    ]);
    expect(within(maya).getByRole("status").textContent).toBe(
      "Dropbox is not connected: @maya.creates is not backed up until you connect it under Storage or choose another destination.",
    );
    // An older server's account (no destination): Google Drive, which is connected.
    const noor = screen.getByRole("listitem", { name: "@noor.draws" });
    expect((within(noor).getByRole("combobox") as HTMLSelectElement).value).toBe("google_drive");
    expect(within(noor).queryByRole("status")).toBeNull();
  });
});

describe("arriving on /settings from a destination's consent screen", () => {
  it.each([
    ["dropbox", "Dropbox connected"],
    ["onedrive", "OneDrive connected"],
  ])(
    "?destination=%s&status=connected → '%s', and the URL becomes /settings",
    async (kind, text) => {
      serveSettings({ accounts: [account()], destinations: mixedDestinations() });
      renderSettings("pro", `/settings?destination=${kind}&status=connected`);
      expect(await screen.findByText(text)).toBeTruthy();
      await waitFor(() => expect(window.location.search).toBe(""));
      expect(window.location.pathname).toBe("/settings");
    },
  );

  it("?error=… → an error toast with its text", async () => {
    serveSettings({ accounts: [account()], destinations: mixedDestinations() });
    const error = "Dropbox access was not granted.";
    renderSettings("pro", `/settings?destination=dropbox&error=${encodeURIComponent(error)}`);
    expect(await screen.findByText(error)).toBeTruthy();
    expect(screen.queryByText("Dropbox connected")).toBeNull();
    await waitFor(() => expect(window.location.search).toBe(""));
  });

  it("leaves another tab's address alone", async () => {
    serveSettings({ accounts: [account()], destinations: mixedDestinations() });
    renderSettings("pro", "/settings?tab=connections");
    expect(await screen.findByRole("heading", { name: "Storage" })).toBeTruthy();
    expect(window.location.search).toBe("?tab=connections");
  });
});
