import { describe, expect, it } from "vitest";
import { postsInProgress } from "../../src/backups/in-progress.ts";

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("the posts in progress of one worker", () => {
  it("run their transfers three at a time, and a transfer that fails gives its lane back", async () => {
    const shared = postsInProgress(3);
    let now = 0;
    let most = 0;
    const transfer = (fail: boolean) =>
      shared.inLane(async () => {
        most = Math.max(most, ++now);
        await tick();
        now--;
        if (fail) throw new Error("cut");
        return "done";
      });
    // Four failures first: were a failed transfer to keep its lane, the rest would never start.
    const results = await Promise.allSettled([
      ...Array.from({ length: 4 }, () => transfer(true)),
      ...Array.from({ length: 8 }, () => transfer(false)),
    ]);
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(4);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(8);
    expect(most).toBe(3);
  });

  it("ask for a folder once while it is being found, and again after that ask failed", async () => {
    const shared = postsInProgress(3);
    const asked: string[][] = [];
    let fail = true;
    const destination = {
      async ensureFolder(_accountKey: string, path: string[]) {
        asked.push(path);
        await tick();
        if (fail) throw new Error("quota");
        return { id: path.join("/"), recordedAt: new Date(), adopted: false };
      },
    };
    const ask = (user: string, path: string[]) =>
      shared.ensureFolder(destination, ["dropbox", user], "acct", path);
    const year = ["Keepsake", "@maya", "2025"];
    // Three posts of one year at once: one request, and its failure is each one's.
    const first = await Promise.allSettled([ask("u1", year), ask("u1", year), ask("u1", year)]);
    expect(first.every((r) => r.status === "rejected")).toBe(true);
    expect(asked).toHaveLength(1);
    // The failed ask is not kept: the next posts ask again, and another user's folder apart.
    fail = false;
    const [a, b, c] = await Promise.all([ask("u1", year), ask("u1", year), ask("u2", year)]);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(asked).toHaveLength(3);
  });
});
