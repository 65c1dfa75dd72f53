import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { useLocation } from "../src/lib/navigation.tsx";
import { toast } from "../src/lib/toast.ts";

vi.mock("../src/lib/redirect.ts", () => ({ hardRedirect: vi.fn() }));

const { Toasts } = await import("../src/app.tsx");
const { ConnectionBanner } = await import("../src/pages/dashboard/connection-banner.tsx");
const { useConnectionRedirect, CONNECTED_TOASTS } = await import(
  "../src/pages/dashboard/use-connection-redirect.tsx"
);
const { makeAuth, makeUser, renderWithAuth } = await import("./helpers.tsx");
const { serve, status, withConnectionsApi } = await import("./support/connections.tsx");

// The dashboard's arrival after a connection (the badge: health-badge.test.tsx); the accounts panel:
// accounts-panel.test.tsx.
withConnectionsApi();

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
  vi.stubGlobal(
    "fetch",
    serve(() => [200, status()]),
  );
  const auth = makeAuth({ user: makeUser() });
  return renderWithAuth(<Arrival />, { auth, path: `/dashboard${search}` });
}

describe("dashboard arrival after a connection", () => {
  it.each([
    ["?instagram_connected=true", CONNECTED_TOASTS.instagram],
    ["?instagram_connected=true&via=facebook", CONNECTED_TOASTS.facebook],
    ["?google_connected=true", CONNECTED_TOASTS.google],
    // Back from a re-consent for one account: what changed (issue 36).
    [
      "?instagram_connected=true&purpose=comments&account=maya.creates",
      "Comments of @maya.creates are now kept: Keepsake reads them after each backup.",
    ],
    [
      "?instagram_connected=true&via=facebook&purpose=stories&account=maya.creates",
      "@maya.creates now uses Facebook Login: its stories are backed up too.",
    ],
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
