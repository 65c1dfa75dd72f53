import { QueryClientProvider } from "@tanstack/react-query";
import { render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { createQueryClient } from "../src/app.tsx";
import { AuthContext, type AuthContextValue } from "../src/lib/auth.tsx";
import { AppRoutes } from "../src/router.tsx";
import { goTo, makeAuth, makeUser } from "./helpers.tsx";

function renderAt(path: string, auth: AuthContextValue) {
  goTo(path);
  const entries = window.history.length;
  const queryClient = createQueryClient();
  render(
    <QueryClientProvider client={queryClient}>
      <AuthContext.Provider value={auth}>
        <AppRoutes />
      </AuthContext.Provider>
    </QueryClientProvider>,
  );
  /** Whether every navigation since the start replaced the entry (the history did not grow). */
  return { replacedOnly: () => window.history.length === entries };
}

describe("routes", () => {
  it("replaces an unknown path with /", async () => {
    const router = renderAt("/no-such-page", makeAuth());
    await screen.findAllByText("Keepsake");
    expect(window.location.pathname).toBe("/");
    expect(router.replacedOnly()).toBe(true);
  });

  it("sends a visitor from a protected route to /login, remembering the origin", async () => {
    renderAt("/backups?status=failed", makeAuth());
    expect(await screen.findByRole("heading", { name: "Welcome back" })).toBeTruthy();
    expect(window.location.pathname).toBe("/login");
    const from = (window.history.state as { from: { pathname: string; search: string } }).from;
    expect(from.pathname).toBe("/backups");
    expect(from.search).toBe("?status=failed");
  });

  it("sends a signed-in user from the landing page to /dashboard", async () => {
    renderAt("/", makeAuth({ user: makeUser(), token: "t" }));
    await waitFor(() => expect(window.location.pathname).toBe("/dashboard"));
  });

  it("shows 'Loading...' while the profile loads", async () => {
    renderAt("/dashboard", makeAuth({ isLoading: true, token: "t" }));
    expect(await screen.findByText("Loading...")).toBeTruthy();
  });

  it("renders the protected screens inside the layout for a user", async () => {
    renderAt("/admin", makeAuth({ user: makeUser() }));
    expect(await screen.findByRole("heading", { name: "Admin Dashboard" })).toBeTruthy();
    expect(screen.getByRole("contentinfo")).toBeTruthy();
  });
});
