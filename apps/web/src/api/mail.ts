import type {
  AdminOutboxResponse,
  MailStatus,
  UnsubscribeInfo,
  UnsubscribeResult,
} from "@keepsake/contracts";
import { api } from "./client.ts";

export async function fetchUnsubscribe(token: string): Promise<UnsubscribeInfo> {
  const { data } = await api.get<unknown>("/mail/unsubscribe", { params: { token } });
  return data as UnsubscribeInfo;
}

export async function unsubscribe(token: string): Promise<UnsubscribeResult> {
  const { data } = await api.post<unknown>("/mail/unsubscribe", undefined, { params: { token } });
  return data as UnsubscribeResult;
}

export async function fetchOutbox(params: {
  status?: MailStatus;
  limit: number;
  offset: number;
}): Promise<AdminOutboxResponse> {
  const { data } = await api.get<unknown>("/admin/mail", { params });
  return data as AdminOutboxResponse;
}
