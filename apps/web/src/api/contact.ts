import type { ContactMessage, ContactMessagesResponse, ContactRequest } from "@keepsake/contracts";
import { CONTACT_SUCCESS } from "@keepsake/contracts/admin-messages";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "../lib/toast.ts";
import { api, errorDetail } from "./client.ts";

export const CONTACT_FAILED = "Your message could not be sent. Please try again.";

/** POST /api/contact: SPEC §8's success toast; a failure toasts and keeps the draft. */
export function useSendContactMutation() {
  return useMutation({
    mutationFn: async (draft: ContactRequest) => {
      await api.post("/contact", draft);
    },
    onSuccess: () => {
      toast.success(CONTACT_SUCCESS);
    },
    onError: (error) => {
      toast.error(errorDetail(error, CONTACT_FAILED));
    },
  });
}

export const inboxKeys = {
  all: ["admin", "messages"] as const,
  page: (limit: number, offset: number) => ["admin", "messages", limit, offset] as const,
};

export function useInboxQuery(limit: number, offset: number) {
  return useQuery({
    queryKey: inboxKeys.page(limit, offset),
    queryFn: async () => {
      const { data } = await api.get<unknown>("/admin/messages", { params: { limit, offset } });
      return data as ContactMessagesResponse;
    },
    placeholderData: keepPreviousData,
  });
}

export function useMarkHandledMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (message: ContactMessage) => {
      const { data } = await api.put<unknown>(`/admin/messages/${message.id}/handled`);
      return data as ContactMessage;
    },
    onSuccess: async () => {
      toast.success("Message marked as handled");
      await queryClient.invalidateQueries({ queryKey: inboxKeys.all });
    },
    onError: (error) => {
      toast.error(errorDetail(error, "Failed to mark the message as handled"));
    },
  });
}

/** Admin → Inbox: a reply, sent by mail and kept with the message. */
export function useReplyMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, body }: { id: string; body: string }) => {
      const { data } = await api.post<unknown>(`/admin/messages/${id}/reply`, { body });
      return data as ContactMessage;
    },
    onSuccess: async () => {
      toast.success("Reply sent");
      await queryClient.invalidateQueries({ queryKey: inboxKeys.all });
    },
    onError: (error) => {
      toast.error(errorDetail(error, "Failed to send the reply"));
    },
  });
}
