import { afterEach, describe, expect, it, vi } from "vitest";
import { fetchCommentSettings, fetchPostComments, setKeepComments } from "../src/api/comments.ts";
import { fakeFetch } from "./fake-api.ts";

const setting = {
  account_id: "a1",
  username: "maya.creates",
  connected_via: "instagram",
  enabled: true,
  permission_missing: false,
  kept_comments: 12,
};
const comment = {
  id: "c1",
  username: "fan",
  text: "Lovely",
  timestamp: "2026-03-05T12:00:00Z",
  like_count: null,
  hidden: false,
  removed_at: null,
};

/** The server answers `data` to every request. */
function answer(data: unknown) {
  vi.stubGlobal(
    "fetch",
    fakeFetch(() => [200, data]),
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("the comment answers are checked, not only typed", () => {
  it("takes well-formed answers as they are", async () => {
    answer({ accounts: [setting] });
    expect(await fetchCommentSettings()).toEqual({ accounts: [setting] });
    const post = {
      enabled: true,
      last_read_at: null,
      comments: [{ ...comment, replies: [{ ...comment, id: "c2" }] }],
    };
    answer(post);
    expect(await fetchPostComments("p1")).toEqual(post);
    answer({ setting, auth_url: null, message: "Comments are kept" });
    expect((await setKeepComments("a1", true)).message).toBe("Comments are kept");
  });

  it("refuses an answer with a missing or mistyped field, however deep", async () => {
    for (const bad of [
      null,
      { accounts: "none" },
      { accounts: [{ ...setting, kept_comments: "12" }] },
      { accounts: [{ ...setting, connected_via: "email" }] },
      { accounts: [{ ...setting, enabled: undefined }] },
    ]) {
      answer(bad);
      await expect(fetchCommentSettings()).rejects.toThrow(
        "Unexpected answer from GET /api/comments/settings",
      );
    }
    answer({
      enabled: true,
      last_read_at: null,
      comments: [{ ...comment, replies: [{ ...comment, text: 3 }] }],
    });
    await expect(fetchPostComments("p1")).rejects.toThrow("Unexpected answer");
    answer({ setting, auth_url: 5, message: "x" });
    await expect(setKeepComments("a1", true)).rejects.toThrow("Unexpected answer");
  });
});
