import type { User } from "@keepsake/contracts";

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

/** Every field of `User`: the compiler says when one is missing from the list. */
const USER_FIELDS = [
  "id",
  "email",
  "full_name",
  "is_admin",
  "is_active",
  "subscription_tier",
  "token_expires_at",
  "created_at",
  "social_accounts",
  "email_verified",
  "pending_email",
] as const satisfies readonly (keyof User)[];
const everyField: Exclude<keyof User, (typeof USER_FIELDS)[number]> extends never ? true : never =
  true;
void everyField;

/**
 * The user kept at the last profile read, if it is still whole (every field there: one kept by
 * an older version of the app is not). No schema here: zod stays out of the app shell.
 */
export function getStoredUser(): User | null {
  try {
    const value: unknown = JSON.parse(storage()?.getItem(USER_KEY) ?? "null");
    if (typeof value !== "object" || value === null) return null;
    const whole =
      USER_FIELDS.every((field) => field in value) &&
      typeof (value as User).id === "string" &&
      typeof (value as User).email === "string" &&
      Array.isArray((value as User).social_accounts);
    return whole ? (value as User) : null;
  } catch {
    return null;
  }
}

export function clearSession(): void {
  const s = storage();
  s?.removeItem(TOKEN_KEY);
  s?.removeItem(USER_KEY);
}
