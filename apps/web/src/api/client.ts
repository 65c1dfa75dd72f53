import axios, { type AxiosError, isAxiosError } from "axios";
import { hardRedirect } from "../lib/redirect.ts";
import { clearSession, getToken } from "../lib/session.ts";

declare module "axios" {
  interface AxiosRequestConfig {
    /** On a 401, clear the session but stay on the page (the start-up profile check, SPEC §4). */
    silentAuthFailure?: boolean;
  }
}

export const API_TIMEOUT_MS = 30_000;

/** The one HTTP client of the app (SPEC §7): base `/api`, 30 s, JSON, bearer token. */
export const api = axios.create({
  baseURL: "/api",
  timeout: API_TIMEOUT_MS,
  headers: { "Content-Type": "application/json", Accept: "application/json" },
});

api.interceptors.request.use((config) => {
  const token = getToken();
  if (token) config.headers.set("Authorization", `Bearer ${token}`);
  return config;
});

function isLoginCall(error: AxiosError): boolean {
  const url = error.config?.url ?? "";
  return url.replace(/^\/api/, "").replace(/\?.*$/, "") === "/auth/login";
}

/**
 * A failure that says nothing about the request or the session: no answer (network, timeout)
 * or the server having a bad moment (5xx). Worth one more try; never a reason to sign out.
 */
export function isTransientFailure(error: unknown): boolean {
  return isAxiosError(error) && (!error.response || error.response.status >= 500);
}

/** SPEC §4: any 401 clears the token and the user and sends the browser to /login. */
export function handleUnauthorized(error: unknown): void {
  if (!isAxiosError(error) || error.response?.status !== 401) return;
  // A wrong password on the login form: the form shows the error itself.
  if (isLoginCall(error) && window.location.pathname === "/login") return;
  clearSession();
  if (error.config?.silentAuthFailure) return;
  if (window.location.pathname !== "/login") hardRedirect("/login");
}

api.interceptors.response.use(
  (response) => response,
  (error: unknown) => {
    handleUnauthorized(error);
    return Promise.reject(error);
  },
);

/** The server's `{"detail": "..."}` message, else `fallback`. */
export function errorDetail(error: unknown, fallback: string): string {
  if (isAxiosError(error)) {
    const detail: unknown = error.response?.data?.detail;
    if (typeof detail === "string" && detail.trim() !== "") return detail;
    if (Array.isArray(detail)) {
      const texts = detail
        .map((d: unknown) =>
          typeof d === "string"
            ? d
            : d && typeof d === "object" && "msg" in d && typeof d.msg === "string"
              ? d.msg
              : "",
        )
        .filter(Boolean);
      if (texts.length > 0) return texts.join(", ");
    }
  }
  return fallback;
}
