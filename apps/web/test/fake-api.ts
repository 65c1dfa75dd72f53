import type { InstagramAccount, Post } from "@keepsake/contracts";
import { type AxiosAdapter, AxiosError, type InternalAxiosRequestConfig } from "axios";

export interface FakeRequest {
  method: string;
  path: string;
  params: Record<string, unknown>;
  body: unknown;
}

export type FakeRoute = (req: FakeRequest) => [number, unknown] | Promise<[number, unknown]>;

/** An axios adapter answering from `route`; every request is recorded in `calls`. */
export function fakeAdapter(route: FakeRoute, calls: FakeRequest[] = []): AxiosAdapter {
  return async (config: InternalAxiosRequestConfig) => {
    const req: FakeRequest = {
      method: (config.method ?? "get").toUpperCase(),
      path: (config.url ?? "").replace(/\?.*$/, ""),
      params: { ...(config.params as Record<string, unknown> | undefined) },
      body: typeof config.data === "string" ? JSON.parse(config.data) : config.data,
    };
    calls.push(req);
    const [status, data] = await route(req);
    const response = { status, statusText: "", headers: {}, config, data };
    if (status >= 400) {
      throw new AxiosError("failed", "ERR_BAD_RESPONSE", config, undefined, response);
    }
    return response;
  };
}

let seq = 0;
export function makePost(overrides: Partial<Post> = {}): Post {
  seq += 1;
  return {
    id: `p${seq}`,
    account_id: "a1",
    instagram_id: `ig${seq}`,
    media_type: "image",
    media_product_type: "feed",
    media_url: `http://cdn.test/${seq}.jpg`,
    thumbnail_url: null,
    permalink: null,
    caption: `Caption ${seq}`,
    timestamp: "2026-03-05T12:00:00.000Z",
    like_count: 1234,
    comments_count: 0,
    children_count: 0,
    backup_status: "completed",
    is_backed_up: true,
    not_backed_up_reason: null,
    ...overrides,
  };
}

export function makeJob(overrides: Record<string, unknown> = {}) {
  return {
    id: "job1",
    account_id: "a1",
    job_type: "manual",
    mode: "backup",
    status: "running",
    posts_processed: 0,
    posts_total: 0,
    error_message: null,
    started_at: "2026-03-05T12:00:00.000Z",
    completed_at: null,
    ...overrides,
  };
}

export function startAnswer(message = "Sync started") {
  const job = makeJob();
  return { message, already_running: false, sync_job: job, sync_jobs: [job] };
}

/** A connected, healthy Instagram account with no counts yet. */
export function makeAccount(overrides: Partial<InstagramAccount> = {}): InstagramAccount {
  return {
    id: "11111111-1111-4111-8111-111111111111",
    username: "lumen.studio",
    display_name: null,
    profile_picture_url: null,
    follower_count: 0,
    following_count: 0,
    posts_count: 0,
    synced_posts_count: 0,
    synced_stories_count: 0,
    backed_up_posts_count: 0,
    connected_at: "2026-01-01T00:00:00.000Z",
    last_sync: null,
    token_expires_at: null,
    connected_via: "instagram",
    status: "healthy",
    status_reason: null,
    paused_by_plan: false,
    stories_need_facebook_login: false,
    ...overrides,
  };
}
