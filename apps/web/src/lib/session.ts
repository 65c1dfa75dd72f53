import { type User, user as userSchema } from "@keepsake/contracts";

/** localStorage keys: SPEC §3 keeps a copy of the token and of the user in the browser. */
export const TOKEN_KEY = "keepsake.token";
export const USER_KEY = "keepsake.user";
/** Named for the cookie policy, which lists what the browser keeps. */
export const SESSION_STORAGE_KEYS = { token: TOKEN_KEY, user: USER_KEY } as const;

function storage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage;
  } catch {
    return null;
  }
}

export function getToken(): string | null {
  return storage()?.getItem(TOKEN_KEY) ?? null;
}

export function setToken(token: string): void {
  storage()?.setItem(TOKEN_KEY, token);
}

export function setStoredUser(value: User): void {
  storage()?.setItem(USER_KEY, JSON.stringify(value));
}

/** The user kept at the last profile read, if it is still whole. */
export function getStoredUser(): User | null {
  try {
    const parsed = userSchema.safeParse(JSON.parse(storage()?.getItem(USER_KEY) ?? "null"));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function clearSession(): void {
  const s = storage();
  s?.removeItem(TOKEN_KEY);
  s?.removeItem(USER_KEY);
}
