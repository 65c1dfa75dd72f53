import { type ProfileUpdateRequest, profileUpdateRequest } from "@keepsake/contracts/auth-forms";
import { useMemo } from "react";
import { useUpdateProfileMutation } from "../../api/auth.ts";
import { TextField } from "../../components/form-field.tsx";
import { useAuth } from "../../lib/auth.tsx";
import { useZodForm } from "../../lib/zod-form.ts";
import { ChangeEmail, ChangePassword } from "./account-security.tsx";
import { DeleteAccount } from "./delete-account.tsx";
import "./profile-tab.css";

/**
 * Settings → Profile Information (SPEC §2): the e-mail (read-only) and the full name, saved
 * with PATCH /api/auth/me; §8 toasts come from the mutation.
 */
export function ProfileTab() {
  const { user } = useAuth();
  const update = useUpdateProfileMutation();
  // The saved profile is the form's baseline, also when it arrives or changes (e.g. after
  // saving): react-hook-form resets the form whenever `values` changes.
  const savedName = user?.full_name ?? "";
  const values = useMemo(() => ({ full_name: savedName }), [savedName]);
  const {
    field,
    handleSubmit,
    formState: { isDirty },
  } = useZodForm<ProfileUpdateRequest>(profileUpdateRequest, { values });

  if (!user) return null;

  const onSubmit = handleSubmit(async (values) => {
    try {
      await update.mutateAsync(values);
    } catch {
      // The mutation has already shown the failure.
    }
  });

  return (
    <>
      <section className="card profile-tab" aria-labelledby="profile-heading">
        <h2 id="profile-heading" className="section-title">
          Profile Information
        </h2>
        <form onSubmit={onSubmit} noValidate className="profile-form">
          <TextField
            id="profile-email"
            label="Email address"
            type="email"
            value={user.email}
            readOnly
            aria-readonly="true"
            className="input-readonly"
          />
          <p className="field-hint">
            Your e-mail address is your sign-in
            {user.email_verified ? "." : " — not verified yet: open the link we sent you."} Change
            it below.
          </p>
          <TextField label="Full name" autoComplete="name" {...field("full_name")} />
          <div className="profile-actions">
            <button
              type="submit"
              className="btn btn-primary"
              disabled={update.isPending || !isDirty}
            >
              {update.isPending ? "Saving..." : "Save Changes"}
            </button>
          </div>
        </form>
        <p className="muted profile-note">
          More settings are coming soon: notification preferences, backup folder naming and more.
        </p>
      </section>
      <ChangeEmail />
      <ChangePassword />
      <DeleteAccount />
    </>
  );
}
