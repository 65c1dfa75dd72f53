import type { ReactNode } from "react";
import { ConfirmDialog } from "../../components/modal.tsx";

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
    <ConfirmDialog
      title={title}
      tone="primary"
      confirmLabel={`Continue to ${provider}`}
      busy={busy}
      onConfirm={onContinue}
      onCancel={onCancel}
    >
      {children}
    </ConfirmDialog>
  );
}
