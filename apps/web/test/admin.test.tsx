import { QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createQueryClient } from "../src/app.tsx";
import { AuthContext } from "../src/lib/auth.tsx";
import { toast } from "../src/lib/toast.ts";
import { tierBadgeClass } from "../src/pages/admin/tier-badge.ts";
import { OWN_ACCOUNT_NOTE } from "../src/pages/admin/users-panel.tsx";
import { AppRoutes } from "../src/router.tsx";
import { type FakeRequest, fakeFetch } from "./fake-api.ts";
import { goTo, makeAuth, makeUser } from "./helpers.tsx";

afterEach(() => {
  vi.unstubAllGlobals();
});

function renderAdmin() {
  goTo("/admin");
  const queryClient = createQueryClient();
  queryClient.setDefaultOptions({ queries: { retry: false } });
  render(
    <QueryClientProvider client={queryClient}>
      <AuthContext.Provider value={makeAuth({ user: makeUser({ is_admin: true }) })}>
        <AppRoutes />
      </AuthContext.Provider>
    </QueryClientProvider>,
  );
}

const listed = (overrides: Record<string, unknown>) => ({
  ...makeUser(),
  ...overrides,
});

describe("admin dashboard", () => {
  it("gives today's and legacy tiers their style, and unknown tiers the FREE style", () => {
    expect(tierBadgeClass("pro")).toBe(tierBadgeClass("PRO"));
    expect(tierBadgeClass("BASIC")).toContain("tier-basic");
    expect(tierBadgeClass("PREMIUM")).toContain("tier-premium");
    expect(tierBadgeClass("gold")).toBe(tierBadgeClass("FREE"));
    expect(tierBadgeClass(undefined)).toBe(tierBadgeClass("free"));
  });

  it("lists users with 'No name', '-' for missing dates and the social-account count, and searches", async () => {
    const calls: FakeRequest[] = [];
    vi.stubGlobal(
      "fetch",
      fakeFetch(
        (req) =>
          req.path === "/admin/users"
            ? [
                200,
                {
                  users: [
                    listed({
                      id: "a",
                      email: "anon@example.com",
                      full_name: null,
                      subscription_tier: "BASIC",
                    }),
                    listed({
                      id: "b",
                      email: "bob@example.com",
                      full_name: "Bob",
                      is_active: false,
                      social_accounts: [
                        { id: "s", username: "bob", display_name: null, profile_picture_url: null },
                      ],
                    }),
                  ],
                  total: 2,
                  limit: 25,
                  offset: 0,
                },
              ]
            : [404, {}],
        calls,
      ),
    );
    renderAdmin();
    expect(await screen.findByText("No name")).toBeTruthy();
    const anon = screen.getByText("anon@example.com").closest("tr")!;
    expect(anon.textContent).toContain("-");
    expect(anon.textContent).toContain("BASIC");
    const bob = screen.getByText("bob@example.com").closest("tr")!;
    expect(bob.textContent).toContain("Inactive");
    expect(bob.querySelectorAll("td")[5]!.textContent).toBe("1");
    expect(screen.getAllByRole("button", { name: "Activate" })).toHaveLength(1);

    fireEvent.change(screen.getByLabelText("Search users"), { target: { value: "bob" } });
    await waitFor(() =>
      expect(calls.at(-1)?.params).toEqual({ limit: 25, offset: 0, search: "bob" }),
    );
  }, 20_000);

  it("offers no action the server refuses in the admin's own row, and says why", async () => {
    vi.stubGlobal(
      "fetch",
      fakeFetch((req) =>
        req.path === "/admin/users"
          ? [
              200,
              {
                // The signed-in admin is makeUser()'s id, "u1".
                users: [
                  listed({ id: "u1", email: "jane@example.com", is_admin: true }),
                  listed({ id: "o", email: "other@example.com", is_admin: true }),
                ],
                total: 2,
                limit: 25,
                offset: 0,
              },
            ]
          : [404, {}],
      ),
    );
    renderAdmin();
    const own = (await screen.findByText("jane@example.com")).closest("tr")!;
    expect(own.querySelectorAll("button")).toHaveLength(0);
    expect(own.textContent).toContain(OWN_ACCOUNT_NOTE);
    const other = screen.getByText("other@example.com").closest("tr")!;
    expect(Array.from(other.querySelectorAll("button"), (b) => b.textContent)).toEqual([
      "Deactivate",
      "Remove Admin",
      "Delete",
    ]);
    expect(other.textContent).not.toContain(OWN_ACCOUNT_NOTE);
  });

  it("turns a 403 into the toast and a redirect to /dashboard", async () => {
    const error = vi.spyOn(toast, "error");
    vi.stubGlobal(
      "fetch",
      fakeFetch((req) =>
        req.path === "/admin/users" ? [403, { detail: "Admin privileges required" }] : [404, {}],
      ),
    );
    renderAdmin();
    await waitFor(() => expect(window.location.pathname).toBe("/dashboard"));
    expect(error).toHaveBeenCalledWith("Access denied. Admin privileges required.");
  });
});
