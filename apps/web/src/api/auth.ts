import type {
  DeleteAccountRequest,
  DeletionResponse,
  LoginRequest,
  MessageResponse,
  ProfileUpdateRequest,
  RegisterRequest,
  TokenResponse,
  User,
} from "@keepsake/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { setStoredUser } from "../lib/session.ts";
import { toast } from "../lib/toast.ts";
import { api, errorDetail, isTransientFailure } from "./client.ts";

export const authKeys = {
  me: ["auth", "me"] as const,
  oauthStatus: ["oauth", "status"] as const,
};

// The answers are typed by the contracts' schemas, not parsed with them: zod stays out of the
// app shell (issue 27), and the server validates what it sends against the same schemas.

export async function fetchMe(options: { silent?: boolean } = {}): Promise<User> {
  const { data } = await api.get<User>("/auth/me", { silentAuthFailure: options.silent });
  return data;
}

export async function login(body: LoginRequest): Promise<TokenResponse> {
  const { data } = await api.post<TokenResponse>("/auth/login", body);
  return data;
}

export async function register(body: RegisterRequest): Promise<User> {
  const { data } = await api.post<User>("/auth/register", body);
  return data;
}

export async function logout(): Promise<void> {
  await api.post("/auth/logout");
}

export async function updateProfile(body: ProfileUpdateRequest): Promise<User> {
  const { data } = await api.patch<User>("/auth/me", body);
  return data;
}

/** SPEC §8: 'Profile updated successfully', else the detail or 'Profile update failed'. */
export function useUpdateProfileMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateProfile,
    onSuccess: (profile) => {
      setStoredUser(profile);
      queryClient.setQueriesData<User>({ queryKey: authKeys.me }, profile);
      toast.success("Profile updated successfully");
    },
    onError: (error) => {
      toast.error(errorDetail(error, "Profile update failed"));
    },
  });
}

/** The profile of the stored token; a failure is handled by the auth provider. */
export function useMeQuery(token: string | null) {
  return useQuery({
    queryKey: [...authKeys.me, token],
    queryFn: () => fetchMe({ silent: true }),
    enabled: token !== null,
    // One more try when the server or the network failed; a refused token is final.
    retry: (failures, error) => failures < 1 && isTransientFailure(error),
    staleTime: 5 * 60_000,
  });
}

/** Settings → Profile → Delete my account (DELETE /api/auth/me with the password). */
export async function deleteMyAccount(body: DeleteAccountRequest): Promise<DeletionResponse> {
  const { data } = await api.delete<DeletionResponse>("/auth/me", { data: body });
  return data;
}

/** Account e-mails (issue 29): each answers `{ message }`. */
async function postMessage(path: string, body?: unknown): Promise<string> {
  const { data } = await api.post<MessageResponse>(path, body);
  return data.message;
}
export const requestPasswordReset = (email: string) =>
  postMessage("/auth/forgot-password", { email });
export const resetPassword = (token: string, password: string) =>
  postMessage("/auth/reset-password", { token, password });
export const verifyEmail = (token: string) => postMessage("/auth/verify-email", { token });
export const resendVerification = () => postMessage("/auth/verify-email/resend");
export const changeEmail = (email: string, password: string) =>
  postMessage("/auth/me/email", { email, password });
export const changePassword = (current_password: string, new_password: string) =>
  postMessage("/auth/me/password", { current_password, new_password });
