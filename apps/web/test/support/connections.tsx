import type { InstagramAccount, OAuthStatus } from "@keepsake/contracts";
import { afterEach, beforeEach, vi } from "vitest";
import { Toasts } from "../../src/app.tsx";
import { hardRedirect } from "../../src/lib/redirect.ts";
import { SettingsPage } from "../../src/pages/settings/settings-page.tsx";
import { fakeRequest, fakeResponse, makeAccount } from "../fake-api.ts";
import { makeAuth, makeUser, renderWithAuth } from "../helpers.tsx";

/**
 * The connection screens' fake API and fixtures, shared by their test files. Each test file
 * mocks `src/lib/redirect.ts` itself (vi.mock is per file) before importing this.
 */

export type Route = (
  method: string,
  path: string,
  params: Record<string, unknown>,
) => [number, unknown];
/** Every request the fake API saw, as "METHOD /path?query"; emptied before each test. */
export const calls: string[] = [];

/** A `fetch` answering from `route`, for `vi.stubGlobal("fetch", serve(…))`. */
export function serve(route: Route): typeof fetch {
  return async (input, init) => {
    const { method, path, params } = fakeRequest(input, init);
    const query = new URLSearchParams(params as Record<string, string>).toString();
    calls.push(`${method} ${path}${query ? `?${query}` : ""}`);
    const [status, data] = route(method, path, params);
    return fakeResponse(status, data);
  };
}

export function status(overrides: Partial<OAuthStatus> = {}): OAuthStatus {
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
export function account(overrides: Partial<InstagramAccount> = {}): InstagramAccount {
  seq += 1;
  return makeAccount({
    id: `acc-${seq}`,
    username: `creator${seq}`,
    display_name: `Creator ${seq}`,
    follower_count: 12_940,
    following_count: 540,
    posts_count: 42,
    synced_posts_count: 40,
    backed_up_posts_count: 38,
    connected_at: "2026-01-02T10:00:00.000Z",
    token_expires_at: new Date(Date.now() + 40 * 86_400_000).toISOString(),
    ...overrides,
  });
}

export function accountsResponse(
  accounts: InstagramAccount[],
  tier: "pro" | "agency",
  limit: number,
) {
  return {
    accounts,
    limit,
    can_connect_more: accounts.length < limit,
    remaining_slots: Math.max(0, limit - accounts.length),
    subscription_tier: tier,
  };
}

/** Empties `calls` and the redirect mock before each test, and restores the API after. */
export function withConnectionsApi() {
  beforeEach(() => {
    calls.length = 0;
    vi.mocked(hardRedirect).mockClear();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });
}

export function renderSettings(
  tier: "free" | "premium" | "pro" | "agency" = "free",
  path = "/settings",
) {
  const auth = makeAuth({ user: makeUser({ subscription_tier: tier }) });
  return renderWithAuth(
    <>
      <SettingsPage />
      <Toasts />
    </>,
    { auth, path },
  );
}
