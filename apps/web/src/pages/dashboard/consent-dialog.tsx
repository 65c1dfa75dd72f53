import type { ReactNode } from "react";
import { Modal } from "../../components/modal.tsx";

/**
 * Asks before Keepsake sends the person to Instagram or Facebook for a new consent (issue 36):
 * what they will be asked there and why. Nothing changes until they continue.
 */
export function ConsentDialog({
  title,
  provider,
  busy,
  onCancel,
  onContinue,
  children,
}: {
  title: string;
  provider: "Instagram" | "Facebook";
  busy: boolean;
  onCancel: () => void;
  onContinue: () => void;
  children: ReactNode;
}) {
  return (
    <Modal
      title={title}
      onClose={onCancel}
      actions={
        <>
          <button type="button" className="btn btn-secondary" onClick={onCancel}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-primary"
            onClick={onContinue}
            disabled={busy}
            data-autofocus
          >
            {busy ? "Working..." : `Continue to ${provider}`}
          </button>
        </>
      }
    >
      {children}
    </Modal>
  );
}
