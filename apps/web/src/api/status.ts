import type {
  StatusResponse,
  StatusSubscribeRequest,
  StatusSubscribeResponse,
} from "@keepsake/contracts";
import { useMutation, useQuery } from "@tanstack/react-query";
import { toast } from "../lib/toast.ts";
import { api, errorDetail } from "./client.ts";

export const statusKeys = { all: ["status"] as const };

/** GET /api/status: live health data; Refresh refetches it. */
export function useStatusQuery() {
  return useQuery({
    queryKey: statusKeys.all,
    queryFn: async () => (await api.get<unknown>("/status")).data as StatusResponse,
  });
}

export function useStatusSubscribeMutation() {
  return useMutation({
    mutationFn: async (body: StatusSubscribeRequest) =>
      (await api.post<unknown>("/status/subscribe", body)).data as StatusSubscribeResponse,
    onSuccess: (answer) => {
      toast.success(answer.message);
    },
    onError: (error) => {
      toast.error(errorDetail(error, "Could not subscribe. Please try again."));
    },
  });
}

/** The status subscription's confirmation link (double opt-in). */
export async function confirmStatusSubscription(token: string): Promise<string> {
  const { data } = await api.post<unknown>("/status/subscribe/confirm", { token });
  return (data as StatusSubscribeResponse).message;
}
