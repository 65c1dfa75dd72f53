import { type AxiosAdapter, AxiosError, type InternalAxiosRequestConfig } from "axios";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("../src/lib/redirect.ts", () => ({ hardRedirect: vi.fn() }));

const { api, errorDetail } = await import("../src/api/client.ts");
const { hardRedirect } = await import("../src/lib/redirect.ts");
const { TOKEN_KEY, USER_KEY } = await import("../src/lib/session.ts");

let seenAuthorization: string | undefined;

function answer(status: number, data: unknown): AxiosAdapter {
  return async (config: InternalAxiosRequestConfig) => {
    seenAuthorization = config.headers.get("Authorization")?.toString();
    const response = { status, statusText: "", headers: {}, config, data };
    if (status >= 400) {
      throw new AxiosError("failed", "ERR_BAD_RESPONSE", config, undefined, response);
    }
    return response;
  };
}

describe("api client", () => {
  const originalAdapter = api.defaults.adapter;
  beforeEach(() => {
    window.history.replaceState({}, "", "/dashboard");
    window.localStorage.setItem(TOKEN_KEY, "secret-token");
    window.localStorage.setItem(USER_KEY, JSON.stringify({ email: "jane@example.com" }));
    vi.mocked(hardRedirect).mockClear();
  });
  afterEach(() => {
    api.defaults.adapter = originalAdapter;
  });

  it("uses base /api, a 30 s timeout and the bearer token", async () => {
    api.defaults.adapter = answer(200, { ok: true });
    expect(api.defaults.baseURL).toBe("/api");
    expect(api.defaults.timeout).toBe(30_000);
    await api.get("/auth/me");
    expect(seenAuthorization).toBe("Bearer secret-token");
  });

  it("clears token and user and goes to /login on any 401", async () => {
    api.defaults.adapter = answer(401, { detail: "Not authenticated" });
    await expect(api.get("/sync/posts")).rejects.toThrow();
    expect(window.localStorage.getItem(TOKEN_KEY)).toBeNull();
    expect(window.localStorage.getItem(USER_KEY)).toBeNull();
    expect(hardRedirect).toHaveBeenCalledWith("/login");
  });

  it("leaves a failed login on /login to the form", async () => {
    window.history.replaceState({}, "", "/login");
    api.defaults.adapter = answer(401, { detail: "Incorrect email or password" });
    const error = await api.post("/auth/login", {}).catch((e: unknown) => e);
    expect(errorDetail(error, "Login failed")).toBe("Incorrect email or password");
    expect(hardRedirect).not.toHaveBeenCalled();
  });

  it("does not redirect on other errors", async () => {
    api.defaults.adapter = answer(500, {});
    const error = await api.get("/auth/me").catch((e: unknown) => e);
    expect(errorDetail(error, "fallback")).toBe("fallback");
    expect(window.localStorage.getItem(TOKEN_KEY)).toBe("secret-token");
    expect(hardRedirect).not.toHaveBeenCalled();
  });
});
