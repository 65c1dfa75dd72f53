import type { LoginRequest, RegisterRequest, User } from "@keepsake/contracts";
import { accountMessages } from "@keepsake/contracts/auth-messages";
import { useQueryClient } from "@tanstack/react-query";
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useState,
} from "react";
import * as authApi from "../api/auth.ts";
import { ApiError, errorDetail, isTransientFailure } from "../api/client.ts";
import { clearSession, getStoredUser, getToken, setStoredUser, setToken } from "./session.ts";
import { toast } from "./toast.ts";

export interface AuthContextValue {
  user: User | null;
  token: string | null;
  /** True while the profile of a stored token is being fetched. */
  isLoading: boolean;
  isAuthenticated: boolean;
  /** Signs in; toasts 'Welcome back!' or the failure, and rethrows it for the form. */
  login: (credentials: LoginRequest) => Promise<User>;
  /** Creates the account, then signs in; toasts the outcome, rethrows a failure. */
  register: (payload: RegisterRequest) => Promise<User>;
  /** Revokes the session on the server (a failure is ignored) and forgets it here. */
  logout: () => Promise<void>;
  /**
   * Forgets a session the server has already ended (e.g. the account was deleted). With
   * `goTo`, a protected screen the user is on sends them there rather than to /login.
   */
  forget: (message: string, options?: { goTo?: string }) => void;
  /** Where a protected screen sends the user whose session was just ended on purpose. */
  signedOutTo: string | null;
  /** Fetches the profile again (e.g. on dashboard load). */
  refreshUser: () => Promise<User | null>;
}

export const AuthContext = createContext<AuthContextValue | null>(null);

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error("useAuth must be used inside <AuthProvider>");
  return value;
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [token, setTokenState] = useState<string | null>(() => getToken());
  const [signedOutTo, setSignedOutTo] = useState<string | null>(null);
  const me = authApi.useMeQuery(token);

  // SPEC §4: a stored token whose profile cannot be fetched is cleared silently. A server or
  // network failure (after one more try) says nothing about the token: the session stays, with
  // the profile last read, and the next read tries again.
  const unreachable = me.isError && isTransientFailure(me.error);
  useEffect(() => {
    if (token !== null && me.isError && !unreachable) {
      clearSession();
      setTokenState(null);
    }
  }, [token, me.isError, unreachable]);

  useEffect(() => {
    if (me.data) setStoredUser(me.data);
  }, [me.data]);

  const signIn = useCallback(
    async (credentials: LoginRequest): Promise<User> => {
      const { access_token } = await authApi.login(credentials);
      setToken(access_token);
      try {
        const profile = await authApi.fetchMe();
        setStoredUser(profile);
        queryClient.setQueryData([...authApi.authKeys.me, access_token], profile);
        setTokenState(access_token);
        setSignedOutTo(null);
        return profile;
      } catch (error) {
        clearSession();
        throw error;
      }
    },
    [queryClient],
  );

  const login = useCallback(
    async (credentials: LoginRequest): Promise<User> => {
      try {
        const profile = await signIn(credentials);
        toast.success("Welcome back!");
        return profile;
      } catch (error) {
        toast.error(errorDetail(error, "Login failed"));
        throw error;
      }
    },
    [signIn],
  );

  const register = useCallback(
    async (payload: RegisterRequest): Promise<User> => {
      try {
        await authApi.register(payload);
      } catch (error) {
        toast.error(errorDetail(error, "Registration failed"));
        throw error;
      }
      try {
        const profile = await signIn({ email: payload.email, password: payload.password });
        toast.success("Account created successfully!");
        return profile;
      } catch (error) {
        // Registration answers a taken address as a new one (its owner is mailed): only the
        // sign-in that follows tells, and it says where to go from here.
        const taken = error instanceof ApiError && error.status === 401;
        toast.error(
          taken ? accountMessages.registerSignInFailed : errorDetail(error, "Registration failed"),
        );
        throw error;
      }
    },
    [signIn],
  );

  const forget = useCallback(
    (message: string, options: { goTo?: string } = {}) => {
      clearSession();
      // In the same render as the token: RequireAuth must never see one without the other.
      setSignedOutTo(options.goTo ?? null);
      setTokenState(null);
      queryClient.clear();
      toast.success(message);
    },
    [queryClient],
  );

  const logout = useCallback(async (): Promise<void> => {
    try {
      await authApi.logout();
    } catch {
      // The session is forgotten locally either way.
    }
    forget("Logged out successfully", { goTo: "/" });
  }, [forget]);

  const refreshUser = useCallback(async (): Promise<User | null> => {
    if (token === null) return null;
    const result = await me.refetch();
    return result.data ?? null;
  }, [token, me.refetch]);

  const user = token !== null ? (me.data ?? (unreachable ? getStoredUser() : null)) : null;
  const value = useMemo<AuthContextValue>(
    () => ({
      user,
      token,
      isLoading: token !== null && me.isPending,
      isAuthenticated: user !== null,
      login,
      register,
      logout,
      forget,
      signedOutTo,
      refreshUser,
    }),
    [user, token, me.isPending, login, register, logout, forget, signedOutTo, refreshUser],
  );

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
