import type { OAuthStatus, SyncHealth } from "@keepsake/contracts";
import { screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useConnectionsStatus } from "../src/api/connections.ts";
import { HEALTH_PENDING, ReadyForBackupBadge } from "../src/pages/dashboard/ready-badge.tsx";
import { fakeFetch } from "./fake-api.ts";
import { makeAuth, makeUser, renderWithAuth } from "./helpers.tsx";

// Issue 36: the header's badge says only the server's health state; before it has answered
// (or when it cannot be read) it is neutral, never "Ready" from the old connection status.
afterEach(() => {
  vi.unstubAllGlobals();
});

const status = (over: Partial<OAuthStatus>): OAuthStatus => ({
  instagram_connected: false,
  instagram_username: null,
  google_connected: false,
  google_email: null,
  instagram_needs_reconnect: false,
  google_needs_reconnect: false,
  ...over,
});

describe("ready-for-backup badge", () => {
  const health = (over: Partial<SyncHealth>): SyncHealth => ({
    state: "ready",
    ready: true,
    headline: "✓ Ready for backup",
    cause: null,
    fix: null,
    since: null,
    next_step: null,
    accounts: [],
    destinations: [],
    plan: { state: "ok", cause: null, fix: null, since: null },
    last_run: null,
    ...over,
  });
  const connected = status({ instagram_connected: true, google_connected: true });

  /** The badge beside the connection status (which says both are connected). */
  async function renderBadge(answer: () => Promise<[number, unknown]>) {
    vi.stubGlobal(
      "fetch",
      fakeFetch((req) => (req.path === "/sync/health" ? answer() : [200, connected])),
    );
    function StatusLoaded() {
      return useConnectionsStatus().data ? <span>status loaded</span> : null;
    }
    const view = renderWithAuth(
      <>
        <ReadyForBackupBadge />
        <StatusLoaded />
      </>,
      { auth: makeAuth({ user: makeUser() }) },
    );
    // The old connection status has arrived: it is never what the badge says (issue 36).
    await screen.findByText("status loaded");
    return view;
  }

  it("is neutral while the health state loads, never 'Ready' from the connection status", async () => {
    let answer: (a: [number, unknown]) => void = () => {};
    await renderBadge(() => new Promise((resolve) => (answer = resolve)));
    const badge = screen.getByTestId("health-badge");
    expect(badge.getAttribute("data-state")).toBe("loading");
    expect(badge.textContent).toBe(HEALTH_PENDING.loading);
    expect(screen.queryByText(/Ready/)).toBeNull();
    expect(badge.className).not.toContain("badge-success");
    // Then the server's state, here broken: its headline, never "Ready".
    answer([
      200,
      health({ state: "broken", ready: false, headline: "Backups paused: reconnect Google Drive" }),
    ]);
    await waitFor(() =>
      expect(screen.getByTestId("health-badge").textContent).toBe(
        "Backups paused: reconnect Google Drive",
      ),
    );
    expect(screen.queryByText(/Ready/)).toBeNull();
  });

  it("says the status is unavailable when the health state cannot be read", async () => {
    await renderBadge(async () => [500, { detail: "boom" }]);
    await waitFor(() =>
      expect(screen.getByTestId("health-badge").getAttribute("data-state")).toBe("unknown"),
    );
    expect(screen.getByTestId("health-badge").textContent).toBe(HEALTH_PENDING.unknown);
    expect(screen.queryByText(/Ready/)).toBeNull();
  });

  it.each([
    [health({}), "✓ Ready for backup"],
    [health({ state: "syncing", headline: "Backing up now" }), "✓ Ready for backup"],
    [health({ state: "attention", headline: "Some backups failed" }), "Some backups failed"],
    [health({ state: "setup", ready: false, headline: "Connect Google Drive to start" }), null],
  ])("health %# → %s", async (answer, text) => {
    const { container } = await renderBadge(async () => [200, answer]);
    if (text) expect(await screen.findByText(text)).toBeTruthy();
    else await waitFor(() => expect(container.querySelector(".ready-badge")).toBeNull());
  });
});
