import { type ReactNode, useId, useLayoutEffect, useRef } from "react";
import "./modal.css";

/**
 * A modal dialog: the browser's own `<dialog>`, opened with `showModal()`. The browser keeps
 * Tab and Shift+Tab inside it (the page behind is inert) and, when it closes, returns focus to
 * the control that opened it. Escape and a click on the backdrop call `onClose`; the caller
 * closes the dialog by no longer rendering it.
 */
export function Modal({
  title,
  onClose,
  children,
  actions,
  className,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  actions: ReactNode;
  /** Another class beside `modal` (a wider dialog, say). */
  className?: string;
}) {
  const titleId = useId();
  const ref = useRef<HTMLDialogElement>(null);
  // Only when the dialog opens: callers pass a new onClose on every render, and a re-render
  // (a refetch, a busy flag) must not pull focus back from where the user moved it. A layout
  // effect, so that the cleanup closes the dialog while it is still in the document: closing
  // is what gives focus back to the opener.
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (!dialog.open) dialog.showModal();
    dialog.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    return () => {
      if (dialog.open) dialog.close();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={className ? `modal ${className}` : "modal"}
      aria-labelledby={titleId}
      // Escape: the caller decides (it may be busy); the dialog stays until it is unrendered.
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      // The dialog's box is filled by .modal-content: a click on the dialog itself is a click on
      // its backdrop.
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <div className="modal-content">
        <h2 id={titleId} className="modal-title">
          {title}
        </h2>
        <div className="modal-body">{children}</div>
        <div className="modal-actions">{actions}</div>
      </div>
    </dialog>
  );
}

/**
 * A question with Cancel and one action (SPEC §5: disconnecting asks for confirmation). A
 * `danger` action (the default) puts the focus on Cancel; a `primary` one (going on to a
 * provider's consent screen) on the action itself. While `busy`, the action says `busyLabel`.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  busyLabel = "Working...",
  tone = "danger",
  busy = false,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busyLabel?: string;
  tone?: "danger" | "primary";
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const focusAction = tone === "primary";
  return (
    <Modal
      title={title}
      onClose={onCancel}
      actions={
        <>
          <button
            type="button"
            className="btn btn-secondary"
            onClick={onCancel}
            data-autofocus={focusAction ? undefined : true}
          >
            Cancel
          </button>
          <button
            type="button"
            className={`btn btn-${tone}`}
            onClick={onConfirm}
            disabled={busy}
            data-autofocus={focusAction ? true : undefined}
          >
            {busy ? busyLabel : confirmLabel}
          </button>
        </>
      }
    >
      {children}
    </Modal>
  );
}
