import { QueryClientProvider } from "@tanstack/react-query";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { act } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { navigate } from "wouter/use-browser-location";
import { createQueryClient, Toasts } from "../src/app.tsx";
import { AuthProvider } from "../src/lib/auth.tsx";
import { TOKEN_KEY } from "../src/lib/session.ts";
import { ACCOUNT_DELETED } from "../src/pages/settings/delete-account.tsx";
import { AppRoutes } from "../src/router.tsx";
import { fakeFetch } from "./fake-api.ts";
import { goTo, makeUser } from "./helpers.tsx";

let stopRecording = () => {};
afterEach(() => {
  vi.unstubAllGlobals();
  stopRecording();
});

/** The whole app (real AuthProvider and routes) signed in, on `path`; every location is kept. */
function renderSignedIn(path: string) {
  window.localStorage.setItem(TOKEN_KEY, "token");
  let deleted = false;
  vi.stubGlobal(
    "fetch",
    fakeFetch((req) => {
      if (req.path === "/auth/me" && req.method === "GET") {
        return deleted ? [401, { detail: "Not authenticated" }] : [200, makeUser()];
      }
      if (req.path === "/auth/me" && req.method === "DELETE") {
        deleted = true;
        return [200, { message: "Account deleted", google_revoked: false, facebook_revoked: 0 }];
      }
      return [404, { detail: "Not found" }];
    }),
  );
  goTo(path);
  const visited: string[] = [];
  const record = () => visited.push(window.location.pathname);
  const events = ["pushState", "replaceState", "popstate"];
  for (const e of events) window.addEventListener(e, record);
  stopRecording = () => {
    for (const e of events) window.removeEventListener(e, record);
  };
  const queryClient = createQueryClient();
  queryClient.setDefaultOptions({ queries: { retry: false } });
  render(
    <QueryClientProvider client={queryClient}>
      <AuthProvider>
        <AppRoutes />
        <Toasts />
      </AuthProvider>
    </QueryClientProvider>,
  );
  return { visited };
}

describe("Delete my account", () => {
  it("lands on the home page with the confirmation, never on the sign-in form", async () => {
    const { visited } = renderSignedIn("/settings?tab=profile");
    await userEvent.click(await screen.findByRole("button", { name: "Delete my account" }));
    const dialog = screen.getByRole("dialog", { name: "Delete your account?" });
    await userEvent.type(screen.getByLabelText("Password", { exact: true }), "Secret123");
    await userEvent.click(
      Array.from(dialog.querySelectorAll("button")).find((b) => b.type === "submit")!,
    );
    expect(await screen.findByText(ACCOUNT_DELETED)).toBeTruthy();
    expect(await screen.findAllByRole("link", { name: "Start Backing Up Free" })).not.toHaveLength(
      0,
    );
    expect(window.location.pathname).toBe("/");
    expect(visited).not.toContain("/login");
    expect(window.localStorage.getItem(TOKEN_KEY)).toBeNull();
  }, 20_000);

  it("still sends a later visit to a protected screen to /login", async () => {
    renderSignedIn("/settings?tab=profile");
    await userEvent.click(await screen.findByRole("button", { name: "Delete my account" }));
    await userEvent.type(screen.getByLabelText("Password", { exact: true }), "Secret123");
    await userEvent.keyboard("{Enter}");
    await waitFor(() => expect(window.location.pathname).toBe("/"));
    act(() => navigate("/backups"));
    await waitFor(() => expect(window.location.pathname).toBe("/login"));
  }, 20_000);
});
