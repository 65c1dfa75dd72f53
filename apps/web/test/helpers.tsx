import type { User } from "@keepsake/contracts";
import { QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactElement } from "react";
import { vi } from "vitest";
import { createQueryClient } from "../src/app.tsx";
import { AuthContext, type AuthContextValue } from "../src/lib/auth.tsx";

export function makeUser(overrides: Partial<User> = {}): User {
  return {
    id: "u1",
    email: "jane@example.com",
    full_name: "Jane Doe",
    is_admin: false,
    is_active: true,
    subscription_tier: "free",
    token_expires_at: null,
    created_at: "2026-01-01T00:00:00.000Z",
    social_accounts: [],
    email_verified: true,
    pending_email: null,
    ...overrides,
  };
}

export function makeAuth(overrides: Partial<AuthContextValue> = {}): AuthContextValue {
  const user = overrides.user ?? null;
  return {
    user,
    token: user ? "token" : null,
    isLoading: false,
    isAuthenticated: user !== null,
    login: vi.fn(async () => makeUser()),
    register: vi.fn(async () => makeUser()),
    logout: vi.fn(async () => {}),
    forget: vi.fn(),
    signedOutTo: null,
    refreshUser: vi.fn(async () => user),
    ...overrides,
  };
}

/** Puts the browser (jsdom) at `path`, as a fresh page load there. */
export function goTo(path: string): void {
  window.history.replaceState(null, "", path);
}

/** Renders `ui` at `path` with a fake auth state and a fresh query client. */
export function renderWithAuth(
  ui: ReactElement,
  { auth = makeAuth(), path = "/" }: { auth?: AuthContextValue; path?: string } = {},
) {
  goTo(path);
  const queryClient = createQueryClient();
  queryClient.setDefaultOptions({ queries: { retry: false } });
  const view = render(
    <QueryClientProvider client={queryClient}>
      <AuthContext.Provider value={auth}>{ui}</AuthContext.Provider>
    </QueryClientProvider>,
  );
  return Object.assign(view, { queryClient });
}

/** Renders `ui` at `/` with a fresh query client, for screens that bring their own auth. */
export function renderWithQueryClient(ui: ReactElement) {
  goTo("/");
  return render(<QueryClientProvider client={createQueryClient()}>{ui}</QueryClientProvider>);
}
