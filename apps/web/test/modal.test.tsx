import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ConfirmDialog } from "../src/components/modal.tsx";

function dialog(onCancel: () => void, busy = false) {
  return (
    <ConfirmDialog
      title="Disconnect?"
      confirmLabel="Disconnect"
      busy={busy}
      onCancel={onCancel}
      onConfirm={() => {}}
    >
      <p>Sure?</p>
    </ConfirmDialog>
  );
}

describe("ConfirmDialog", () => {
  it("focuses Cancel when it opens, and a re-render does not move focus back", () => {
    const { rerender } = render(dialog(() => {}));
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Cancel" }));
    const confirm = screen.getByRole("button", { name: "Disconnect" });
    confirm.focus();
    // The parent renders again with a new inline onCancel, as every caller does.
    rerender(dialog(() => {}));
    expect(document.activeElement).toBe(confirm);
  });

  it("closes on Escape with the latest onCancel", () => {
    const first = vi.fn();
    const latest = vi.fn();
    const { rerender } = render(dialog(first));
    rerender(dialog(latest));
    fireEvent.keyDown(document, { key: "Escape" });
    expect(latest).toHaveBeenCalledTimes(1);
    expect(first).not.toHaveBeenCalled();
  });
});
