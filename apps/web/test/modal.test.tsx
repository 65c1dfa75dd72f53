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

  it("is a native modal dialog, open while rendered and closed when it is not", () => {
    const { unmount } = render(dialog(() => {}));
    const el = screen.getByRole("dialog", { name: "Disconnect?" });
    expect(el.tagName).toBe("DIALOG");
    expect((el as HTMLDialogElement).open).toBe(true);
    unmount();
    expect((el as HTMLDialogElement).open).toBe(false);
  });

  it("on Escape (the dialog's cancel event) calls the latest onCancel and stays open", () => {
    const first = vi.fn();
    const latest = vi.fn();
    const { rerender } = render(dialog(first));
    rerender(dialog(latest));
    const el = screen.getByRole("dialog") as HTMLDialogElement;
    const cancel = new Event("cancel", { cancelable: true });
    fireEvent(el, cancel);
    expect(latest).toHaveBeenCalledTimes(1);
    expect(first).not.toHaveBeenCalled();
    // The caller closes it by no longer rendering it; the browser must not close it first.
    expect(cancel.defaultPrevented).toBe(true);
    expect(el.open).toBe(true);
  });
});
