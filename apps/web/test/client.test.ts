import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeResponse } from "./fake-api.ts";

vi.mock("../src/lib/redirect.ts", () => ({ hardRedirect: vi.fn() }));

const { api, API_BASE, API_TIMEOUT_MS, errorDetail, isTransientFailure } = await import(
  "../src/api/client.ts"
);
const { hardRedirect } = await import("../src/lib/redirect.ts");
const { TOKEN_KEY, USER_KEY } = await import("../src/lib/session.ts");

let seen: { url: string; init: RequestInit | undefined } | undefined;

function answer(status: number, data: unknown): typeof fetch {
  return async (input, init) => {
    seen = { url: String(input), init };
    return fakeResponse(status, data);
  };
}

describe("api client", () => {
  beforeEach(() => {
    window.history.replaceState({}, "", "/dashboard");
    window.localStorage.setItem(TOKEN_KEY, "secret-token");
    window.localStorage.setItem(USER_KEY, JSON.stringify({ email: "jane@example.com" }));
    vi.mocked(hardRedirect).mockClear();
    seen = undefined;
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it("uses base /api, a 30 s timeout and the bearer token", async () => {
    const timeout = vi.spyOn(AbortSignal, "timeout");
    vi.stubGlobal("fetch", answer(200, { ok: true }));
    expect(API_BASE).toBe("/api");
    expect(API_TIMEOUT_MS).toBe(30_000);
    const { data } = await api.get("/auth/me", { params: { limit: 5, search: undefined } });
    expect(data).toEqual({ ok: true });
    expect(seen?.url).toBe("/api/auth/me?limit=5");
    expect(timeout).toHaveBeenCalledWith(30_000);
    expect(seen?.init?.signal).toBeDefined();
    const headers = seen?.init?.headers as Record<string, string>;
    expect(headers.Authorization).toBe("Bearer secret-token");
    expect(headers.Accept).toBe("application/json");
  });

  it("sends JSON bodies", async () => {
    vi.stubGlobal("fetch", answer(200, {}));
    await api.post("/auth/login", { email: "jane@example.com" });
    expect(seen?.init?.method).toBe("POST");
    expect(seen?.init?.body).toBe('{"email":"jane@example.com"}');
    const headers = seen?.init?.headers as Record<string, string>;
    expect(headers["Content-Type"]).toBe("application/json");
  });

  it("clears token and user and goes to /login on any 401", async () => {
    vi.stubGlobal("fetch", answer(401, { detail: "Not authenticated" }));
    await expect(api.get("/sync/posts")).rejects.toThrow();
    expect(window.localStorage.getItem(TOKEN_KEY)).toBeNull();
    expect(window.localStorage.getItem(USER_KEY)).toBeNull();
    expect(hardRedirect).toHaveBeenCalledWith("/login");
  });

  it("clears the session but stays on the page when asked to be silent", async () => {
    vi.stubGlobal("fetch", answer(401, { detail: "Not authenticated" }));
    await expect(api.get("/auth/me", { silentAuthFailure: true })).rejects.toThrow();
    expect(window.localStorage.getItem(TOKEN_KEY)).toBeNull();
    expect(hardRedirect).not.toHaveBeenCalled();
  });

  it("leaves a failed login on /login to the form", async () => {
    window.history.replaceState({}, "", "/login");
    vi.stubGlobal("fetch", answer(401, { detail: "Incorrect email or password" }));
    const error = await api.post("/auth/login", {}).catch((e: unknown) => e);
    expect(errorDetail(error, "Login failed")).toBe("Incorrect email or password");
    expect(hardRedirect).not.toHaveBeenCalled();
  });

  it("leaves the sign-in after a registration on /register to the form", async () => {
    window.history.replaceState({}, "", "/register");
    vi.stubGlobal("fetch", answer(401, { detail: "Incorrect email or password" }));
    await api.post("/auth/login", {}).catch((e: unknown) => e);
    expect(hardRedirect).not.toHaveBeenCalled();
  });

  it("does not redirect on other errors", async () => {
    vi.stubGlobal("fetch", answer(500, {}));
    const error = await api.get("/auth/me").catch((e: unknown) => e);
    expect(errorDetail(error, "fallback")).toBe("fallback");
    expect(window.localStorage.getItem(TOKEN_KEY)).toBe("secret-token");
    expect(hardRedirect).not.toHaveBeenCalled();
  });

  it("joins a validation error's messages", async () => {
    vi.stubGlobal("fetch", answer(422, { detail: [{ msg: "too short" }, { msg: "no digit" }] }));
    const error = await api.post("/auth/register", {}).catch((e: unknown) => e);
    expect(errorDetail(error, "fallback")).toBe("too short, no digit");
    expect(isTransientFailure(error)).toBe(false);
  });

  it("counts no answer and 5xx as transient", async () => {
    vi.stubGlobal("fetch", async () => {
      throw new TypeError("Failed to fetch");
    });
    const offline = await api.get("/auth/me").catch((e: unknown) => e);
    expect(isTransientFailure(offline)).toBe(true);
    vi.stubGlobal("fetch", answer(503, {}));
    const down = await api.get("/auth/me").catch((e: unknown) => e);
    expect(isTransientFailure(down)).toBe(true);
  });
});
