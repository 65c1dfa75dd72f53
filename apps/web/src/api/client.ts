import { hardRedirect } from "../lib/redirect.ts";
import { clearSession, getToken } from "../lib/session.ts";

export const API_BASE = "/api";
export const API_TIMEOUT_MS = 30_000;

/** Query parameters; `undefined` and `null` values are left out. */
export type QueryParams = Record<string, unknown>;

export interface RequestOptions {
  params?: QueryParams;
  /** A request body where the method takes none as an argument (DELETE). */
  data?: unknown;
  /** "blob" for a file or an image; JSON otherwise. */
  responseType?: "json" | "blob";
  /** On a 401, clear the session but stay on the page (the start-up profile check, SPEC §4). */
  silentAuthFailure?: boolean;
  /** Milliseconds; 0 for none. API_TIMEOUT_MS unless given. */
  timeout?: number;
  signal?: AbortSignal;
}

export interface ApiResponse<T> {
  status: number;
  data: T;
}

/**
 * A failed call: `status` is the server's answer (undefined when there was none: the network,
 * the 30 s timeout) and `data` its body.
 */
export class ApiError extends Error {
  readonly status: number | undefined;
  readonly data: unknown;
  readonly method: string;
  /** The path under the base, with its query, as the call site gave it. */
  readonly path: string;
  readonly silentAuthFailure: boolean;

  constructor(
    message: string,
    init: { status?: number; data?: unknown; method: string; path: string; silent?: boolean },
  ) {
    super(message);
    this.name = "ApiError";
    this.status = init.status;
    this.data = init.data;
    this.method = init.method;
    this.path = init.path;
    this.silentAuthFailure = init.silent ?? false;
  }
}

export function queryString(params: QueryParams | undefined): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {}))
    if (value !== undefined && value !== null) query.append(key, String(value as string));
  const text = query.toString();
  return text ? `?${text}` : "";
}

async function readBody(response: Response, type: RequestOptions["responseType"]) {
  if (type === "blob" && response.ok) return response.blob();
  return parseBody(await response.text());
}

/** Accept JSON, and the session's bearer token if there is one. */
export function requestHeaders(): Record<string, string> {
  const headers: Record<string, string> = { Accept: "application/json" };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  return headers;
}

/** A response body: JSON when it parses, else its text; undefined when empty. */
export function parseBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

async function request<T>(
  method: string,
  path: string,
  body: unknown,
  options: RequestOptions = {},
): Promise<ApiResponse<T>> {
  const headers = requestHeaders();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const timeout = options.timeout ?? API_TIMEOUT_MS;
  const signals = timeout > 0 ? [AbortSignal.timeout(timeout)] : [];
  if (options.signal) signals.push(options.signal);
  const failure = (message: string, status?: number, data?: unknown) =>
    new ApiError(message, { status, data, method, path, silent: options.silentAuthFailure });

  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}${queryString(options.params)}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0],
    });
  } catch (cause) {
    if (options.signal?.aborted) throw cause;
    const timedOut = cause instanceof Error && cause.name === "TimeoutError";
    throw failure(timedOut ? `timeout of ${timeout} ms exceeded` : "Network Error");
  }
  let data: unknown;
  try {
    data = await readBody(response, options.responseType);
  } catch {
    throw failure("Network Error");
  }
  if (!response.ok) {
    const error = failure(
      `Request failed with status code ${response.status}`,
      response.status,
      data,
    );
    handleUnauthorized(error);
    throw error;
  }
  return { status: response.status, data: data as T };
}

/** The one HTTP client of the app (SPEC §7): base `/api`, 30 s, JSON, bearer token. */
export const api = {
  get: <T = unknown>(path: string, options?: RequestOptions) =>
    request<T>("GET", path, undefined, options),
  delete: <T = unknown>(path: string, options?: RequestOptions) =>
    request<T>("DELETE", path, options?.data, options),
  post: <T = unknown>(path: string, body?: unknown, options?: RequestOptions) =>
    request<T>("POST", path, body, options),
  put: <T = unknown>(path: string, body?: unknown, options?: RequestOptions) =>
    request<T>("PUT", path, body, options),
  patch: <T = unknown>(path: string, body?: unknown, options?: RequestOptions) =>
    request<T>("PATCH", path, body, options),
};

/** The HTTP status of a failed call, if the server answered. */
export function errorStatus(error: unknown): number | undefined {
  return error instanceof ApiError ? error.status : undefined;
}

function isLoginCall(error: ApiError): boolean {
  return error.path.replace(/\?.*$/, "") === "/auth/login";
}

/**
 * A failure that says nothing about the request or the session: no answer (network, timeout)
 * or the server having a bad moment (5xx). Worth one more try; never a reason to sign out.
 */
export function isTransientFailure(error: unknown): boolean {
  return error instanceof ApiError && (error.status === undefined || error.status >= 500);
}

/** SPEC §4: any 401 clears the token and the user and sends the browser to /login. */
export function handleUnauthorized(error: unknown): void {
  if (!(error instanceof ApiError) || error.status !== 401) return;
  // A wrong password on the login form, or the sign-in that follows a registration (the
  // address already had an account, issue 35): the form shows the error itself.
  if (isLoginCall(error) && ["/login", "/register"].includes(window.location.pathname)) return;
  clearSession();
  if (error.silentAuthFailure) return;
  if (window.location.pathname !== "/login") hardRedirect("/login");
}

/** The server's `{"detail": "..."}` message, else `fallback`. */
export function errorDetail(error: unknown, fallback: string): string {
  if (error instanceof ApiError && error.data && typeof error.data === "object") {
    const detail: unknown = (error.data as { detail?: unknown }).detail;
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
