import type { AdminUser, AdminUsersResponse, DeletionResponse } from "@keepsake/contracts";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "../lib/toast.ts";
import { api, errorDetail, errorStatus } from "./client.ts";

export const adminKeys = {
  all: ["admin"] as const,
  users: (q: { search: string; limit: number; offset: number }) => ["admin", "users", q] as const,
};

export async function fetchAdminUsers(q: {
  search: string;
  limit: number;
  offset: number;
}): Promise<AdminUsersResponse> {
  const params = { limit: q.limit, offset: q.offset, ...(q.search ? { search: q.search } : {}) };
  const { data } = await api.get<unknown>("/admin/users", { params });
  return data as AdminUsersResponse;
}

export function useAdminUsersQuery(q: { search: string; limit: number; offset: number }) {
  return useQuery({
    queryKey: adminKeys.users(q),
    queryFn: () => fetchAdminUsers(q),
    placeholderData: keepPreviousData,
    // A 403 will not turn into a 200 on a second try.
    retry: (count, error) => count < 1 && errorStatus(error) !== 403,
  });
}

export { errorStatus };

type Action = "toggle-admin" | "toggle-active" | "delete";

/** SPEC §8 admin toasts: success with the e-mail, failure with the detail or the fallback. */
const ACTION_TEXT: Record<Action, { ok: (email: string) => string; failed: string }> = {
  "toggle-admin": {
    ok: (email) => `Admin status toggled for ${email}`,
    failed: "Failed to toggle admin status",
  },
  "toggle-active": {
    ok: (email) => `Active status toggled for ${email}`,
    failed: "Failed to toggle active status",
  },
  delete: { ok: (email) => `User ${email} deleted successfully`, failed: "Failed to delete user" },
};

async function runAction(action: Action, user: AdminUser): Promise<AdminUser | DeletionResponse> {
  if (action === "delete") {
    const { data } = await api.delete<unknown>(`/admin/users/${user.id}`);
    return data as DeletionResponse;
  }
  const { data } = await api.put<unknown>(`/admin/users/${user.id}/${action}`);
  return data as AdminUser;
}

/** One mutation per action; the list is refetched on success (SPEC §4). */
export function useAdminAction(action: Action) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (user: AdminUser) => runAction(action, user),
    onSuccess: async (_result, user) => {
      toast.success(ACTION_TEXT[action].ok(user.email));
      await queryClient.invalidateQueries({ queryKey: adminKeys.all });
    },
    onError: (error) => {
      toast.error(errorDetail(error, ACTION_TEXT[action].failed));
    },
  });
}
