import {
  type NotificationPreferences,
  type NotificationsResponse,
  notificationPreferences,
  notificationsResponse,
  unreadCountResponse,
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
      unreadCountResponse.parse((await api.get<unknown>("/notifications/unread-count")).data)
        .unread,
    enabled,
    refetchInterval: 60_000,
  });
}

/** The bell's list (loaded when it is opened). */
export function useNotificationsQuery() {
  return useQuery({
    queryKey: notificationKeys.list,
    queryFn: async (): Promise<NotificationsResponse> =>
      notificationsResponse.parse((await api.get<unknown>("/notifications")).data),
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
      notificationPreferences.parse((await api.get<unknown>("/notifications/preferences")).data),
  });
}

export function useSetNotificationPreferenceMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (v: { category: string; enabled: boolean }) =>
      notificationPreferences.parse((await api.put<unknown>("/notifications/preferences", v)).data),
    onSuccess: (data) => queryClient.setQueryData(notificationKeys.preferences, data),
    onError: (error) => {
      toast.error(errorDetail(error, "Failed to save your notification settings"));
    },
  });
}
