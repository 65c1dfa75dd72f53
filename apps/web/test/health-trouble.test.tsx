import type { SyncHealth } from "@keepsake/contracts";
import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { healthTrouble, TierState } from "../src/pages/dashboard/tier-state.tsx";
import { makeAuth, makeUser, renderWithAuth } from "./helpers.tsx";

// Issue 36: the tier card names what the server's health state names, with its fix: a
// provider's limit (nothing to do), backups a day behind, lost stories, a failed payment.
const ok = { cause: null, fix: null, since: null };
const health = (over: Partial<SyncHealth>): SyncHealth => ({
  state: "attention",
  ready: true,
  headline: "",
  ...ok,
  next_step: null,
  accounts: [{ account_id: "a1", username: "lumen.studio", state: "ok", ...ok }],
  destinations: [{ kind: "google_drive", label: "j@example.com", state: "ok", ...ok }],
  plan: { state: "ok", ...ok },
  last_run: null,
  ...over,
});
const waiting = { label: "See waiting backups", path: "/backups?filter=pending" };
const driveThrottled = health({
  destinations: [
    {
      kind: "google_drive",
      label: "j@example.com",
      state: "throttled",
      cause:
        "Google Drive is limiting how fast Keepsake can write: 2 backups wait and Keepsake retries on its own. Nothing to do.",
      fix: waiting,
      since: "2026-11-27T09:00:00.000Z",
    },
  ],
});
const paymentFailed = health({
  plan: {
    state: "payment_failed",
    cause: "We couldn't charge your card for your pro plan.",
    fix: { label: "Update payment method", path: "/settings?tab=subscription" },
    since: "2026-11-27T09:00:00.000Z",
  },
});

function renderCard(h: SyncHealth) {
  renderWithAuth(
    <TierState
      tier="pro"
      nextSyncIn={300}
      statsLoading={false}
      onStartBackup={() => {}}
      backupBusy={false}
      missing={[]}
      overLimit={null}
      stopped={{ accounts: [], all: false }}
      health={h}
    />,
    { auth: makeAuth({ user: makeUser({ subscription_tier: "pro" }) }) },
  );
  return screen.getByTestId("health-trouble");
}

describe("the tier card's health note", () => {
  it("Drive throttled: the cause says there is nothing to do; backups are not called stopped", () => {
    const note = renderCard(driveThrottled);
    expect(note.textContent).toContain("Nothing to do.");
    expect(within(note).getByRole("link", { name: "See waiting backups" })).toBeTruthy();
    expect(screen.getByText("Automatic Backup Active")).toBeTruthy();
  });

  it("a failed payment: its cause and Update payment method", () => {
    const note = renderCard(paymentFailed);
    expect(note.textContent).toContain("We couldn't charge your card");
    const link = within(note).getByRole("link", { name: "Update payment method" });
    expect(link.getAttribute("href")).toBe("/settings?tab=subscription");
  });

  it("an account's trouble comes before the plan's, the plan's before a provider's limit", () => {
    const stale = {
      account_id: "a1",
      username: "lumen.studio",
      state: "stale" as const,
      cause: "The last successful backup sync of @lumen.studio was on November 25, 2026.",
      fix: { label: "Backup now", path: "/dashboard" },
      since: null,
    };
    expect(healthTrouble({ ...paymentFailed, accounts: [stale] })?.fix?.label).toBe("Backup now");
    expect(healthTrouble({ ...driveThrottled, plan: paymentFailed.plan })?.fix?.label).toBe(
      "Update payment method",
    );
    expect(healthTrouble(health({}))).toBeNull();
  });
});
