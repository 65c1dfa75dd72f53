import type {
  NotificationPreferences,
  NotificationsResponse,
  UnreadCountResponse,
} from "@keepsake/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "../lib/toast.ts";
import { api, errorDetail } from "./client.ts";

export const notificationKeys = {
  all: ["notifications"] as const,
  unread: ["notifications", "unread"] as const,
  list: ["notifications", "list"] as const,
  preferences: ["notifications", "preferences"] as const,
};

/** The bell's count: polled every minute while the app is open. */
export function useUnreadCountQuery(enabled: boolean) {
  return useQuery({
    queryKey: notificationKeys.unread,
    queryFn: async () =>
      ((await api.get<unknown>("/notifications/unread-count")).data as UnreadCountResponse).unread,
    enabled,
    refetchInterval: 60_000,
  });
}

/** The bell's list (loaded when it is opened). */
export function useNotificationsQuery() {
  return useQuery({
    queryKey: notificationKeys.list,
    queryFn: async (): Promise<NotificationsResponse> =>
      (await api.get<unknown>("/notifications")).data as NotificationsResponse,
  });
}

export function useMarkReadMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => api.post(`/notifications/${id}/read`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: notificationKeys.all }),
  });
}

export function useMarkAllReadMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => api.post("/notifications/read-all"),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: notificationKeys.all }),
    onError: (error) => {
      toast.error(errorDetail(error, "Failed to mark notifications as read"));
    },
  });
}

/** Settings → Notifications. */
export function useNotificationPreferencesQuery() {
  return useQuery({
    queryKey: notificationKeys.preferences,
    queryFn: async (): Promise<NotificationPreferences> =>
      (await api.get<unknown>("/notifications/preferences")).data as NotificationPreferences,
  });
}

export function useSetNotificationPreferenceMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (v: { category: string; enabled: boolean }) =>
      (await api.put<unknown>("/notifications/preferences", v)).data as NotificationPreferences,
    onSuccess: (data) => queryClient.setQueryData(notificationKeys.preferences, data),
    onError: (error) => {
      toast.error(errorDetail(error, "Failed to save your notification settings"));
    },
  });
}
