import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { deleteMyAccount } from "../../api/auth.ts";
import { errorDetail } from "../../api/client.ts";
import { PasswordField } from "../../components/form-field.tsx";
import { Modal } from "../../components/modal.tsx";
import { useAuth } from "../../lib/auth.tsx";

export const ACCOUNT_DELETED = "Your account has been deleted";

/**
 * Settings → Profile: the user deletes their own account, confirmed with their password.
 * Everything Keepsake holds about them goes; their Drive files stay.
 */
export function DeleteAccount() {
  const { forget } = useAuth();
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | undefined>();
  const mutation = useMutation({
    mutationFn: deleteMyAccount,
    // To the home page with the confirmation (Settings is for signed-in users only).
    onSuccess: () => forget(ACCOUNT_DELETED, { goTo: "/" }),
    onError: (err) => setError(errorDetail(err, "Failed to delete account")),
  });

  const close = () => {
    setOpen(false);
    setPassword("");
    setError(undefined);
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!password) {
      setError("Password is required");
      return;
    }
    mutation.mutate({ password });
  };

  return (
    <section className="card danger-zone" aria-labelledby="delete-account-heading">
      <h2 id="delete-account-heading" className="section-title">
        Delete my account
      </h2>
      <p className="muted">
        Deletes your Keepsake account, your connections (Google access is revoked), and every post,
        backup and sync record we hold. Files already in your Google Drive stay there.
      </p>
      <button type="button" className="btn btn-danger" onClick={() => setOpen(true)}>
        Delete my account
      </button>
      {open && (
        <Modal
          title="Delete your account?"
          onClose={close}
          actions={
            <>
              <button type="button" className="btn btn-secondary" onClick={close}>
                Cancel
              </button>
              <button
                type="submit"
                form="delete-account-form"
                className="btn btn-danger"
                disabled={mutation.isPending}
              >
                {mutation.isPending ? "Deleting..." : "Delete my account"}
              </button>
            </>
          }
        >
          <form id="delete-account-form" onSubmit={onSubmit} noValidate>
            <p>This cannot be undone. Enter your password to confirm.</p>
            <PasswordField
              id="delete-password"
              label="Password"
              autoComplete="current-password"
              value={password}
              error={error}
              data-autofocus
              onChange={(e) => {
                setPassword(e.target.value);
                setError(undefined);
              }}
            />
          </form>
        </Modal>
      )}
    </section>
  );
}
