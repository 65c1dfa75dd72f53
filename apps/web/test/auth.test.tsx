import { QueryClientProvider } from "@tanstack/react-query";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeRequest, fakeResponse } from "./fake-api.ts";
import { makeUser } from "./helpers.tsx";

vi.mock("../src/lib/redirect.ts", () => ({ hardRedirect: vi.fn() }));

const { createQueryClient, Toasts } = await import("../src/app.tsx");
const { AuthProvider, useAuth } = await import("../src/lib/auth.tsx");
const { useUpdateProfileMutation } = await import("../src/api/auth.ts");
const { hardRedirect } = await import("../src/lib/redirect.ts");
const { TOKEN_KEY, USER_KEY } = await import("../src/lib/session.ts");

type Route = (url: string, method: string) => [number, unknown];

function serve(route: Route): typeof fetch {
  return async (input, init) => {
    const { path, method } = fakeRequest(input, init);
    const [status, data] = route(path, method);
    return fakeResponse(status, data);
  };
}

function Probe() {
  const auth = useAuth();
  const update = useUpdateProfileMutation();
  return (
    <div>
      <p data-testid="state">
        {auth.isLoading ? "loading" : auth.user ? `user:${auth.user.email}` : "visitor"}
      </p>
      <button
        type="button"
        onClick={() => auth.login({ email: "jane@example.com", password: "Secret123" })}
      >
        login
      </button>
      <button type="button" onClick={() => update.mutate({ full_name: "Ada" })}>
        rename
      </button>
      <button type="button" onClick={() => auth.logout()}>
        logout
      </button>
      <button type="button" onClick={() => auth.refreshUser()}>
        refresh
      </button>
    </div>
  );
}

function renderProvider() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <AuthProvider>
        <Probe />
        <Toasts />
      </AuthProvider>
    </QueryClientProvider>,
  );
}

describe("auth provider", () => {
  beforeEach(() => {
    window.history.replaceState({}, "", "/");
    vi.mocked(hardRedirect).mockClear();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("clears a stale stored token silently at start", async () => {
    window.localStorage.setItem(TOKEN_KEY, "stale");
    window.localStorage.setItem(USER_KEY, JSON.stringify(makeUser()));
    vi.stubGlobal(
      "fetch",
      serve(() => [401, { detail: "Session expired" }]),
    );
    renderProvider();
    expect(screen.getByTestId("state").textContent).toBe("loading");
    await waitFor(() => expect(screen.getByTestId("state").textContent).toBe("visitor"));
    expect(window.localStorage.getItem(TOKEN_KEY)).toBeNull();
    expect(window.localStorage.getItem(USER_KEY)).toBeNull();
    expect(hardRedirect).not.toHaveBeenCalled();
  });

  it("keeps the session when the server fails to answer the profile read (after one more try)", async () => {
    window.localStorage.setItem(TOKEN_KEY, "good");
    window.localStorage.setItem(USER_KEY, JSON.stringify(makeUser()));
    let reads = 0;
    let answer: [number, unknown] = [503, { detail: "Service unavailable" }];
    vi.stubGlobal(
      "fetch",
      serve((url) => {
        if (url !== "/auth/me") return [404, {}];
        reads++;
        return answer;
      }),
    );
    const user = userEvent.setup();
    renderProvider();
    await waitFor(
      () => expect(screen.getByTestId("state").textContent).toBe("user:jane@example.com"),
      { timeout: 5000 },
    );
    expect(reads).toBe(2);
    expect(window.localStorage.getItem(TOKEN_KEY)).toBe("good");

    // A later read that works brings the fresh profile; one that fails keeps it.
    answer = [200, makeUser({ full_name: "Fresh Name" })];
    await user.click(screen.getByRole("button", { name: "refresh" }));
    await waitFor(() =>
      expect(JSON.parse(window.localStorage.getItem(USER_KEY) ?? "{}").full_name).toBe(
        "Fresh Name",
      ),
    );
    answer = [500, { detail: "boom" }];
    await user.click(screen.getByRole("button", { name: "refresh" }));
    await waitFor(() => expect(reads).toBe(5), { timeout: 5000 });
    expect(screen.getByTestId("state").textContent).toBe("user:jane@example.com");
    expect(window.localStorage.getItem(TOKEN_KEY)).toBe("good");
    expect(hardRedirect).not.toHaveBeenCalled();
  });

  it("logs in (token, profile, stored user, toast) and logs out", async () => {
    const calls: string[] = [];
    vi.stubGlobal(
      "fetch",
      serve((url, method) => {
        calls.push(`${method} ${url}`);
        if (url === "/auth/login") return [200, { access_token: "tok-1", token_type: "bearer" }];
        if (url === "/auth/me") return [200, makeUser()];
        if (url === "/auth/logout") return [500, {}];
        return [404, { detail: "Not Found" }];
      }),
    );
    const user = userEvent.setup();
    renderProvider();
    expect(screen.getByTestId("state").textContent).toBe("visitor");

    await user.click(screen.getByRole("button", { name: "login" }));
    await waitFor(() =>
      expect(screen.getByTestId("state").textContent).toBe("user:jane@example.com"),
    );
    expect(window.localStorage.getItem(TOKEN_KEY)).toBe("tok-1");
    expect(JSON.parse(window.localStorage.getItem(USER_KEY) ?? "{}").email).toBe(
      "jane@example.com",
    );
    expect(await screen.findByText("Welcome back!")).toBeTruthy();
    expect(calls).toEqual(["POST /auth/login", "GET /auth/me"]);

    // A failing logout call still forgets the session.
    await user.click(screen.getByRole("button", { name: "logout" }));
    await waitFor(() => expect(screen.getByTestId("state").textContent).toBe("visitor"));
    expect(window.localStorage.getItem(TOKEN_KEY)).toBeNull();
    expect(window.localStorage.getItem(USER_KEY)).toBeNull();
    expect(await screen.findByText("Logged out successfully")).toBeTruthy();
  });

  it("updates the profile, or toasts the server's detail", async () => {
    let answer: [number, unknown] = [200, makeUser({ full_name: "Ada" })];
    vi.stubGlobal(
      "fetch",
      serve((url, method) => (method === "PATCH" && url === "/auth/me" ? answer : [404, {}])),
    );
    const user = userEvent.setup();
    renderProvider();
    await user.click(screen.getByRole("button", { name: "rename" }));
    expect(await screen.findByText("Profile updated successfully")).toBeTruthy();
    expect(JSON.parse(window.localStorage.getItem(USER_KEY) ?? "{}").full_name).toBe("Ada");

    answer = [422, { detail: "Full name must be at least 2 characters" }];
    await user.click(screen.getByRole("button", { name: "rename" }));
    expect(await screen.findByText("Full name must be at least 2 characters")).toBeTruthy();
  });
});
