import { act, render } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RETRY_REFETCH_MS } from "../src/api/sync.ts";
import { createQueryClient, Toasts } from "../src/app.tsx";
import { loadToasts, toast } from "../src/lib/toast.ts";
import { MANUAL_BACKUP } from "../src/pages/dashboard/use-manual-backup.ts";

afterEach(() => {
  toast.dismiss();
  vi.useRealTimers();
});

describe("SPEC values the app is built on", () => {
  it("§7: reads are retried once and not refetched on window focus", () => {
    expect(createQueryClient().getDefaultOptions().queries).toMatchObject({
      retry: 1,
      refetchOnWindowFocus: false,
    });
  });

  it("§9: the manual backup waits 2 s, polls every 3 s, at most 60 times, a toast every 4th", () => {
    expect(MANUAL_BACKUP).toMatchObject({
      firstPollMs: 2_000,
      pollMs: 3_000,
      maxPolls: 60,
      progressEvery: 4,
    });
  });

  it("§4: after a retry the lists are fetched again 2 s later", () => {
    expect(RETRY_REFETCH_MS).toBe(2_000);
  });
});

describe("toasts (§2 Global behaviour)", () => {
  it("show top right in the dark theme, at most 20 at once", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { container } = render(<Toasts />);
    await act(async () => {
      // Shown before the library has loaded: replayed in order once it has (however long that takes).
      for (let i = 0; i < 25; i++) toast.info(`Message ${i}`);
      await loadToasts();
      await vi.advanceTimersByTimeAsync(100);
    });
    const shown = () => container.ownerDocument.querySelectorAll(".Toastify__toast");
    expect(shown()).toHaveLength(20);
    expect(container.ownerDocument.querySelector(".Toastify__toast-container--top-right")).not.toBe(
      null,
    );
    expect(shown()[0]?.className).toMatch(/Toastify__toast-theme--dark/);
  });
});
