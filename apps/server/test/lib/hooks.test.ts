import { describe, expect, it } from "vitest";
import { createHook } from "../../src/lib/hooks.ts";

describe("a hook (an earlier area telling later ones)", () => {
  it("does nothing without a listener", async () => {
    const hook = createHook<[string]>();
    await expect(hook("x")).resolves.toBeUndefined();
  });

  it("runs its listeners in the order they were added, each awaited before the next", async () => {
    const hook = createHook<[string, number]>();
    const seen: string[] = [];
    hook.on(async (name, n) => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      seen.push(`first ${name} ${n}`);
    });
    hook.on(async (name, n) => {
      seen.push(`second ${name} ${n}`);
    });
    await hook("a", 1);
    expect(seen).toEqual(["first a 1", "second a 1"]);
  });

  it("hands a listener's error to the caller and runs no later listener", async () => {
    const hook = createHook<[]>();
    let later = false;
    hook.on(async () => {
      throw new Error("refused");
    });
    hook.on(async () => {
      later = true;
    });
    await expect(hook()).rejects.toThrow("refused");
    expect(later).toBe(false);
  });
});
