import type {
  AccountDestinationResponse,
  DestinationInfo,
  DestinationKind,
  S3DestinationRequest,
} from "@keepsake/contracts";
import { DESTINATION_LABELS } from "@keepsake/contracts/destination-kinds";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { hardRedirect } from "../lib/redirect.ts";
import { toast } from "../lib/toast.ts";
import { api, errorDetail } from "./client.ts";
import { connectionKeys, useInvalidateConnections } from "./connections.ts";

/** Query key of `GET /api/destinations` (under `oauth`: invalidating connections refreshes it). */
export const destinationKeys = { list: [...connectionKeys.all, "destinations"] as const };

/** The destinations as Settings lists them, Google Drive included (issue 38). */
export async function fetchDestinations(): Promise<DestinationInfo[]> {
  const { data } = await api.get<{ destinations?: unknown }>("/destinations");
  if (!Array.isArray(data?.destinations)) throw new Error("Unexpected destinations answer");
  return data.destinations as DestinationInfo[];
}

export function useDestinations(enabled = true) {
  return useQuery({ queryKey: destinationKeys.list, queryFn: fetchDestinations, enabled });
}

/** The destinations that take OAuth (Google Drive keeps its own flow and notice). */
export type OAuthDestination = "dropbox" | "onedrive";

/** Asks for the provider's consent URL and goes there; it returns to /settings. */
export function useConnectDestination(kind: OAuthDestination) {
  return useMutation({
    mutationFn: async () => {
      const { data } = await api.get<{ authorization_url?: string; auth_url?: string }>(
        `/oauth/${kind}/auth-url`,
      );
      const url = data?.authorization_url ?? data?.auth_url;
      if (!url) throw new Error("No authorization URL");
      return url;
    },
    onSuccess: (url) => hardRedirect(url),
    onError: (error) => {
      toast.error(errorDetail(error, `Failed to connect ${DESTINATION_LABELS[kind]}`));
    },
  });
}

export function useDisconnectDestination() {
  const invalidate = useInvalidateConnections();
  return useMutation({
    mutationFn: async (kind: DestinationKind) => {
      const { data } = await api.delete<{ message?: unknown } | undefined>(
        `/destinations/${encodeURIComponent(kind)}`,
      );
      return typeof data?.message === "string" ? data.message : null;
    },
    onSuccess: async (message, kind) => {
      toast.success(message ?? `${DESTINATION_LABELS[kind]} disconnected`);
      await invalidate();
    },
    onError: (error, kind) => {
      toast.error(errorDetail(error, `Failed to disconnect ${DESTINATION_LABELS[kind]}`));
    },
  });
}

/** "Test connection": the server writes, reads back and deletes a probe object. */
export function useTestS3() {
  return useMutation({
    mutationFn: async (body: S3DestinationRequest) => {
      const { data } = await api.post<{ message: string }>("/destinations/s3/test", body);
      return data.message;
    },
  });
}

export function useSaveS3() {
  const invalidate = useInvalidateConnections();
  return useMutation({
    mutationFn: (body: S3DestinationRequest) => api.post<unknown>("/destinations/s3", body),
    onSuccess: async () => {
      toast.success(`${DESTINATION_LABELS.s3} connected`);
      await invalidate();
    },
  });
}

/** Where one Instagram account is backed up; the answer's message says what happens next. */
export function useSetAccountDestination() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (vars: {
      accountId: string;
      username: string;
      destination: DestinationKind;
    }) => {
      const { data } = await api.put<AccountDestinationResponse>(
        `/oauth/instagram/accounts/${encodeURIComponent(vars.accountId)}/destination`,
        { destination: vars.destination },
      );
      return data;
    },
    onSuccess: async (res) => {
      toast.success(res.message);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: connectionKeys.accounts }),
        queryClient.invalidateQueries({ queryKey: destinationKeys.list }),
      ]);
    },
    onError: (error, vars) => {
      toast.error(errorDetail(error, `Failed to change where @${vars.username} is backed up`));
    },
  });
}
