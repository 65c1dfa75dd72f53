import { describe, expect, it } from "vitest";
import { type GraphError, json, useHarness } from "./helpers.ts";

const h = useHarness();

type Account = { user_id: string; username: string; access_token: string };
type CommentsPage = {
  data: { id: string; text: string; replies?: { data: { id: string }[] } }[];
  paging?: { next?: string; cursors?: { after: string } };
};

async function benchAccount(scopes?: string[]): Promise<Account> {
  const { accounts } = await h.ctl<{ accounts: Account[] }>("instagram/accounts", {
    count: 1,
    posts: 3,
    ...(scopes ? { scopes } : {}),
  });
  return accounts[0]!;
}

describe("comments and replies edges", () => {
  it("answers #10 without the comments permission; with it, 50 a page with cursors and replies", async () => {
    const basic = await benchAccount();
    const media = (await h.ctl<{ media: { id: string }[] }>(`instagram/${basic.username}/media`))
      .media[0]!.id;
    const refused = await h.get(
      `/graph.instagram.com/v25.0/${media}/comments?access_token=${basic.access_token}`,
    );
    expect(refused.status).toBe(403);
    expect((await json<GraphError>(refused)).error.code).toBe(10);

    const { accounts } = await h.ctl<{ accounts: Account[] }>("instagram/accounts", {
      count: 1,
      posts: 3,
      scopes: ["instagram_business_basic", "instagram_business_manage_comments"],
    });
    const a = accounts[0]!;
    const id = (await h.ctl<{ media: { id: string }[] }>(`instagram/${a.username}/media`)).media[0]!
      .id;
    for (let i = 0; i < 60; i++) await h.ctl("instagram/comments", { media_id: id, text: `n${i}` });
    const top = await h.ctl<{ comments_count: number; comments: { id: string }[] }>(
      `instagram/media/${id}/comments`,
    );
    const fields = "id,text,timestamp,username,like_count,hidden,replies{id,text}";
    let next: string | undefined =
      `${h.url}/graph.instagram.com/v25.0/${id}/comments?fields=${encodeURIComponent(fields)}&limit=100&access_token=${a.access_token}`;
    const seen: string[] = [];
    let pages = 0;
    let replies = 0;
    while (next) {
      const page: CommentsPage = await json<CommentsPage>(h.get(next));
      expect(page.data.length).toBeLessThanOrEqual(50);
      for (const c of page.data) {
        seen.push(c.id);
        replies += c.replies?.data.length ?? 0;
      }
      next = page.paging?.next;
      pages++;
    }
    expect(pages).toBe(Math.ceil(top.comments.length / 50));
    expect(seen).toEqual(top.comments.map((c) => c.id));
    expect(seen[0]).toBe(top.comments[0]!.id);
    expect(seen.length + replies).toBe(top.comments_count);

    // A removed comment is gone from the edge and from the count.
    await h.ctl(`instagram/comments/${seen[0]}`, undefined, "DELETE");
    const after = await json<CommentsPage>(
      h.get(`/graph.instagram.com/v25.0/${id}/comments?limit=50&access_token=${a.access_token}`),
    );
    expect(after.data.map((c) => c.id)).not.toContain(seen[0]);
  });
});

describe("stories through Instagram Login", () => {
  it("served, or refused with #100/33 or #10 as the switch says", async () => {
    const a = await benchAccount();
    await h.ctl("instagram/stories", { account: a.username });
    const stories = () =>
      h.get(`/graph.instagram.com/v25.0/${a.user_id}/stories?access_token=${a.access_token}`);
    expect((await json<{ data: unknown[] }>(stories())).data.length).toBeGreaterThan(0);
    await h.ctl("instagram/stories-login", { mode: "unsupported" });
    const unsupported = await json<GraphError>(stories());
    expect([unsupported.error.code, unsupported.error.error_subcode]).toEqual([100, 33]);
    await h.ctl("instagram/stories-login", { mode: "permission" });
    expect((await json<GraphError>(stories())).error.code).toBe(10);
    await h.ctl("reset", {});
  });
});
