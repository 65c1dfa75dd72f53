import type { InstagramAccount, Post } from "@keepsake/contracts";

export interface FakeRequest {
  method: string;
  path: string;
  params: Record<string, unknown>;
  body: unknown;
}

export type FakeRoute = (req: FakeRequest) => [number, unknown] | Promise<[number, unknown]>;

/** An answer of the fake server: JSON, a Blob as it is, or no body. */
export function fakeResponse(status: number, data: unknown): Response {
  if (data instanceof Blob) return new Response(data, { status });
  const empty = data === undefined || status === 204;
  return new Response(empty ? null : JSON.stringify(data), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

/** What the API client asked of `fetch`: the path under /api, the query and the JSON body. */
export function fakeRequest(input: RequestInfo | URL, init?: RequestInit): FakeRequest {
  const url = new URL(input instanceof Request ? input.url : String(input), "http://keepsake.test");
  const params: Record<string, unknown> = {};
  // Numbers arrive as numbers, as the server's query schemas coerce them.
  for (const [key, value] of url.searchParams)
    params[key] = /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  return {
    method: (init?.method ?? "GET").toUpperCase(),
    path: url.pathname.replace(/^\/api(?=\/)/, ""),
    params,
    body: typeof init?.body === "string" ? JSON.parse(init.body) : init?.body,
  };
}

/**
 * A `fetch` answering from `route` (install it with `vi.stubGlobal("fetch", …)`); every
 * request is recorded in `calls`.
 */
export function fakeFetch(route: FakeRoute, calls: FakeRequest[] = []): typeof fetch {
  return async (input, init) => {
    const req = fakeRequest(input, init);
    calls.push(req);
    const [status, data] = await route(req);
    return fakeResponse(status, data);
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
    posts_failed: 0,
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
    destination: "google_drive",
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
