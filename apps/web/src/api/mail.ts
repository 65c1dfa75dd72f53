import {
  type AdminOutboxResponse,
  adminOutboxResponse,
  type MailStatus,
  type UnsubscribeInfo,
  type UnsubscribeResult,
  unsubscribeInfo,
  unsubscribeResult,
} from "@keepsake/contracts";
import { api } from "./client.ts";

export async function fetchUnsubscribe(token: string): Promise<UnsubscribeInfo> {
  const { data } = await api.get<unknown>("/mail/unsubscribe", { params: { token } });
  return unsubscribeInfo.parse(data);
}

export async function unsubscribe(token: string): Promise<UnsubscribeResult> {
  const { data } = await api.post<unknown>("/mail/unsubscribe", undefined, { params: { token } });
  return unsubscribeResult.parse(data);
}

export async function fetchOutbox(params: {
  status?: MailStatus;
  limit: number;
  offset: number;
}): Promise<AdminOutboxResponse> {
  const { data } = await api.get<unknown>("/admin/mail", { params });
  return adminOutboxResponse.parse(data);
}
