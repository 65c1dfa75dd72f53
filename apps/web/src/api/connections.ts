import type {
  AuthUrlResponse,
  DisconnectResponse,
  InstagramAccount,
  InstagramAccountsResponse,
  OAuthStatus,
} from "@keepsake/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { hardRedirect } from "../lib/redirect.ts";
import { toast } from "../lib/toast.ts";
import { authKeys } from "./auth.ts";
import { api, errorDetail } from "./client.ts";

/** Query keys of the connections area; `oauth` also covers the shell's status query. */
export const connectionKeys = {
  all: ["oauth"] as const,
  status: authKeys.oauthStatus,
  accounts: ["accounts", "instagram"] as const,
};

export async function fetchConnectionsStatus(): Promise<OAuthStatus> {
  const { data } = await api.get<unknown>("/oauth/status");
  return data as OAuthStatus;
}

export async function fetchInstagramAccounts(): Promise<InstagramAccountsResponse> {
  const { data } = await api.get<unknown>("/accounts/instagram-accounts");
  return data as InstagramAccountsResponse;
}

export type ConnectTarget = "instagram" | "facebook" | "google";

export async function fetchAuthUrl(target: ConnectTarget): Promise<AuthUrlResponse> {
  const path =
    target === "instagram"
      ? "/oauth/instagram/login?account_type=business"
      : `/oauth/${target}/auth-url`;
  const { data } = await api.get<unknown>(path);
  return data as AuthUrlResponse;
}

/** Disconnects one account (the server refuses a disconnect without it when there are several). */
export async function disconnectInstagram(accountId: string): Promise<DisconnectResponse> {
  const { data } = await api.delete<unknown>("/oauth/instagram/disconnect", {
    params: { account_id: accountId },
  });
  return data as DisconnectResponse;
}

export async function disconnectGoogle(): Promise<DisconnectResponse> {
  const { data } = await api.delete<unknown>("/oauth/google/disconnect");
  return data as DisconnectResponse;
}

export async function deleteInstagramAccount(id: string): Promise<DisconnectResponse> {
  const { data } = await api.delete<unknown>(
    `/accounts/instagram-accounts/${encodeURIComponent(id)}`,
  );
  return data as DisconnectResponse;
}

export async function refreshAccountProfile(id: string): Promise<InstagramAccount> {
  const { data } = await api.put<unknown>(
    `/accounts/instagram-accounts/${encodeURIComponent(id)}/refresh-profile`,
  );
  return data as InstagramAccount;
}

/** SPEC §3 OAuth status with the reconnect flags (same cache entry as the shell's query). */
export function useConnectionsStatus(enabled = true) {
  return useQuery({
    queryKey: connectionKeys.status,
    queryFn: fetchConnectionsStatus,
    enabled,
  });
}

export function useInstagramAccounts(enabled = true) {
  return useQuery({
    queryKey: connectionKeys.accounts,
    queryFn: fetchInstagramAccounts,
    enabled,
  });
}

/** Everything that depends on connections is fetched again. */
export function useInvalidateConnections() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: connectionKeys.all }),
      queryClient.invalidateQueries({ queryKey: connectionKeys.accounts }),
      queryClient.invalidateQueries({ queryKey: authKeys.me }),
    ]);
}

const CONNECT_FAILURE: Record<ConnectTarget, string> = {
  instagram: "Failed to connect Instagram",
  facebook: "Failed to connect via Facebook",
  google: "Failed to connect Google Drive",
};

/** Asks for the provider's consent URL and goes there; SPEC §8 toasts on failure. */
export function useConnect(target: ConnectTarget) {
  return useMutation({
    mutationFn: () => fetchAuthUrl(target),
    onSuccess: ({ auth_url }) => hardRedirect(auth_url),
    onError: (error) => {
      toast.error(errorDetail(error, CONNECT_FAILURE[target]));
    },
  });
}

export function useDisconnectInstagram() {
  const invalidate = useInvalidateConnections();
  return useMutation({
    mutationFn: (accountId: string) => disconnectInstagram(accountId),
    onSuccess: async (res) => {
      toast.success(res.message);
      await invalidate();
    },
    onError: (error) => {
      toast.error(errorDetail(error, "Failed to disconnect Instagram"));
    },
  });
}

export function useDisconnectGoogle() {
  const invalidate = useInvalidateConnections();
  return useMutation({
    mutationFn: disconnectGoogle,
    onSuccess: async () => {
      toast.success("Google Drive disconnected");
      await invalidate();
    },
    onError: (error) => {
      toast.error(errorDetail(error, "Failed to disconnect Google Drive"));
    },
  });
}

/** Accounts panel: disconnect one account (SPEC §8 'Failed to disconnect account'). */
export function useDeleteAccount() {
  const invalidate = useInvalidateConnections();
  return useMutation({
    mutationFn: deleteInstagramAccount,
    onSuccess: async (res) => {
      toast.success(res.message);
      await invalidate();
    },
    onError: (error) => {
      toast.error(errorDetail(error, "Failed to disconnect account"));
    },
  });
}

export function useRefreshProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: refreshAccountProfile,
    onSuccess: async (account) => {
      toast.success(`Profile of @${account.username} refreshed`);
      await queryClient.invalidateQueries({ queryKey: connectionKeys.accounts });
    },
    onError: () => {
      toast.error("Failed to refresh profile");
    },
  });
}
