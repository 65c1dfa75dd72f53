import {
  type ChangeEmailRequest,
  type ChangePasswordRequest,
  changeEmailRequest,
  changePasswordRequest,
} from "@keepsake/contracts/auth-forms";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { changeEmail, changePassword } from "../../api/auth.ts";
import { errorDetail } from "../../api/client.ts";
import { PasswordField, TextField } from "../../components/form-field.tsx";
import { useAuth } from "../../lib/auth.tsx";
import { toast } from "../../lib/toast.ts";
import { useZodForm } from "../../lib/zod-form.ts";

/** Settings → Profile: change the e-mail address (confirmed by a link to the new one). */
export function ChangeEmail() {
  const { user } = useAuth();
  const queryClient = useQueryClient();
  const [note, setNote] = useState<string | null>(null);
  const {
    field,
    handleSubmit,
    reset,
    formState: { isSubmitting },
  } = useZodForm<ChangeEmailRequest>(changeEmailRequest, {
    defaultValues: { email: "", password: "" },
  });
  if (!user) return null;
  const onSubmit = handleSubmit(async (values) => {
    try {
      setNote(await changeEmail(values.email, values.password));
      reset();
      await queryClient.invalidateQueries({ queryKey: ["auth", "me"] });
    } catch (error) {
      toast.error(errorDetail(error, "Could not change your e-mail address"));
    }
  });
  return (
    <section className="card profile-tab" aria-labelledby="change-email-heading">
      <h2 id="change-email-heading" className="section-title">
        Change e-mail address
      </h2>
      {user.pending_email && !note && (
        <p className="field-hint" role="status">
          Waiting for you to confirm {user.pending_email}: open the link we sent there.
        </p>
      )}
      {note && (
        <div className="form-success" role="status">
          {note}
        </div>
      )}
      <form onSubmit={onSubmit} noValidate className="profile-form">
        <TextField
          label="New e-mail address"
          type="email"
          autoComplete="email"
          placeholder="new@example.com"
          {...field("email")}
          id="new-email"
        />
        <PasswordField
          label="Current password"
          autoComplete="current-password"
          {...field("password")}
          id="email-password"
        />
        <p className="field-hint">
          We'll send a link to the new address; your address changes once you open it, and we'll let{" "}
          {user.email} know.
        </p>
        <div className="profile-actions">
          <button type="submit" className="btn btn-primary" disabled={isSubmitting}>
            {isSubmitting ? "Sending..." : "Change e-mail"}
          </button>
        </div>
      </form>
    </section>
  );
}

/** Settings → Profile: change the password (the current one required; other sessions end). */
export function ChangePassword() {
  const {
    field,
    handleSubmit,
    reset,
    formState: { isSubmitting },
  } = useZodForm<ChangePasswordRequest>(changePasswordRequest, {
    defaultValues: { current_password: "", new_password: "" },
  });
  const onSubmit = handleSubmit(async (values) => {
    try {
      toast.success(await changePassword(values.current_password, values.new_password));
      reset();
    } catch (error) {
      toast.error(errorDetail(error, "Could not change your password"));
    }
  });
  return (
    <section className="card profile-tab" aria-labelledby="change-password-heading">
      <h2 id="change-password-heading" className="section-title">
        Change password
      </h2>
      <form onSubmit={onSubmit} noValidate className="profile-form">
        <PasswordField
          label="Current password"
          autoComplete="current-password"
          {...field("current_password")}
        />
        <PasswordField
          label="New password"
          autoComplete="new-password"
          placeholder="At least 8 characters"
          {...field("new_password")}
        />
        <p className="field-hint">Changing your password signs you out on your other devices.</p>
        <div className="profile-actions">
          <button type="submit" className="btn btn-primary" disabled={isSubmitting}>
            {isSubmitting ? "Saving..." : "Change password"}
          </button>
        </div>
      </form>
    </section>
  );
}
