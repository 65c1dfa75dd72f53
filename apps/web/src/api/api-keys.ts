import type { ApiKeysResponse, CreatedApiKey } from "@keepsake/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "../lib/toast.ts";
import { api, errorDetail } from "./client.ts";

export const apiKeyKeys = { list: ["api-keys"] as const };

/** Settings → API keys: the caller's live keys and whether the plan includes the API. */
export function useApiKeysQuery() {
  return useQuery({
    queryKey: apiKeyKeys.list,
    queryFn: async (): Promise<ApiKeysResponse> =>
      (await api.get<unknown>("/api-keys")).data as ApiKeysResponse,
  });
}

/** Creates a key; the answer holds the full key, shown once. */
export function useCreateApiKeyMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (name: string): Promise<CreatedApiKey> =>
      (await api.post<unknown>("/api-keys", { name })).data as CreatedApiKey,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeyKeys.list }),
    onError: (error) => {
      toast.error(errorDetail(error, "Failed to create API key"));
    },
  });
}

export function useRevokeApiKeyMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => {
      await api.delete(`/api-keys/${id}`);
    },
    onSuccess: () => {
      toast.success("API key revoked");
      return queryClient.invalidateQueries({ queryKey: apiKeyKeys.list });
    },
    onError: (error) => {
      toast.error(errorDetail(error, "Failed to revoke API key"));
    },
  });
}
