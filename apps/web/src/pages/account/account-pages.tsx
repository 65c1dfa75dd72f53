import {
  type ForgotPasswordRequest,
  forgotPasswordRequest,
  type ResetPasswordForm,
  resetPasswordForm,
} from "@keepsake/contracts/auth-forms";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { requestPasswordReset, resetPassword, verifyEmail } from "../../api/auth.ts";
import { errorDetail } from "../../api/client.ts";
import { fetchUnsubscribe, unsubscribe } from "../../api/mail.ts";
import { confirmStatusSubscription } from "../../api/status.ts";
import { AuthCard } from "../../components/auth-card.tsx";
import { EmailField, PasswordField } from "../../components/form-field.tsx";
import { Link, useSearchParams } from "../../lib/navigation.tsx";
import { useZodForm } from "../../lib/zod-form.ts";

/** /forgot-password: the same answer whether or not the address has an account. */
export function ForgotPasswordPage() {
  const [sent, setSent] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const {
    field,
    handleSubmit,
    formState: { isSubmitting },
  } = useZodForm<ForgotPasswordRequest>(forgotPasswordRequest, { defaultValues: { email: "" } });
  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    try {
      setSent(await requestPasswordReset(values.email));
    } catch (error) {
      setFormError(errorDetail(error, "Could not send the link. Please try again."));
    }
  });
  return (
    <AuthCard
      title="Forgot password"
      heading="Forgot your password?"
      lead="Enter the e-mail address you signed up with and we'll send you a link to choose a new one."
      footer={
        <>
          Remembered it? <Link to="/login">Sign in</Link>
        </>
      }
    >
      {sent ? (
        <div className="form-success" role="status">
          {sent}
        </div>
      ) : (
        <>
          {formError && (
            <div className="form-error" role="alert">
              {formError}
            </div>
          )}
          <form onSubmit={onSubmit} noValidate className="auth-form">
            <EmailField {...field("email")} />
            <button type="submit" className="btn btn-primary btn-block" disabled={isSubmitting}>
              {isSubmitting ? "Sending..." : "Send reset link"}
            </button>
          </form>
        </>
      )}
    </AuthCard>
  );
}

/** /reset-password?token=…: a new password; every session ends. */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const [done, setDone] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const {
    field,
    handleSubmit,
    formState: { isSubmitting },
  } = useZodForm<ResetPasswordForm>(resetPasswordForm, {
    defaultValues: { password: "", confirm_password: "" },
  });
  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    try {
      setDone(await resetPassword(token, values.password));
    } catch (error) {
      setFormError(errorDetail(error, "Could not reset your password. Please try again."));
    }
  });
  return (
    <AuthCard
      title="Reset password"
      heading="Choose a new password"
      lead="Setting a new password signs you out on every device."
      footer={
        <>
          Need a new link? <Link to="/forgot-password">Send another</Link>
        </>
      }
    >
      {done ? (
        <div className="form-success" role="status">
          {done} <Link to="/login">Sign in</Link>
        </div>
      ) : (
        <>
          {formError && (
            <div className="form-error" role="alert">
              {formError}
            </div>
          )}
          <form onSubmit={onSubmit} noValidate className="auth-form">
            <PasswordField
              label="New password"
              autoComplete="new-password"
              placeholder="At least 8 characters"
              {...field("password")}
            />
            <PasswordField
              label="Confirm new password"
              autoComplete="new-password"
              placeholder="Repeat your new password"
              {...field("confirm_password")}
            />
            <button type="submit" className="btn btn-primary btn-block" disabled={isSubmitting}>
              {isSubmitting ? "Saving..." : "Set new password"}
            </button>
          </form>
        </>
      )}
    </AuthCard>
  );
}

/** A page that uses the link's token once, on arrival, and shows the answer. */
function TokenLanding(props: {
  title: string;
  heading: string;
  lead: string;
  footer: ReactNode;
  use: (token: string) => Promise<string>;
  fallback: string;
}) {
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const [state, setState] = useState<{ ok: boolean; message: string } | null>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    props
      .use(token)
      .then((message) => setState({ ok: true, message }))
      .catch((error) => setState({ ok: false, message: errorDetail(error, props.fallback) }));
  }, [token, props]);
  return (
    <AuthCard title={props.title} heading={props.heading} lead={props.lead} footer={props.footer}>
      {state ? (
        <div className={state.ok ? "form-success" : "form-error"} role="status">
          {state.message}
        </div>
      ) : (
        <p aria-busy="true">Checking your link...</p>
      )}
    </AuthCard>
  );
}

/** /verify-email?token=…: confirms the address (or completes an e-mail change). */
export function VerifyEmailPage() {
  const queryClient = useQueryClient();
  const [use] = useState(() => async (token: string) => {
    const message = await verifyEmail(token);
    void queryClient.invalidateQueries({ queryKey: ["auth", "me"] });
    return message;
  });
  return (
    <TokenLanding
      title="Verify e-mail"
      heading="Verify your e-mail address"
      lead="Confirming your address lets us reach you when a backup needs you."
      footer={<Link to="/dashboard">Go to your dashboard</Link>}
      use={use}
      fallback="This verification link is invalid."
    />
  );
}

/** /status/confirm?token=…: the status subscription's double opt-in. */
export function StatusConfirmPage() {
  return (
    <TokenLanding
      title="Status updates"
      heading="Status updates"
      lead="We'll e-mail you when an incident opens and when it's resolved."
      footer={<Link to="/status">View the status page</Link>}
      use={confirmStatusSubscription}
      fallback="This confirmation link is invalid."
    />
  );
}

/** /unsubscribe?token=…: asks, then unsubscribes; no sign-in needed. */
export function UnsubscribePage() {
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const info = useQuery({
    queryKey: ["unsubscribe", token],
    queryFn: () => fetchUnsubscribe(token),
    retry: false,
  });
  const [result, setResult] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const confirm = async () => {
    setBusy(true);
    setFailure(null);
    try {
      setResult((await unsubscribe(token)).message);
    } catch (error) {
      setFailure(errorDetail(error, "Could not unsubscribe. Please try again."));
    } finally {
      setBusy(false);
    }
  };
  return (
    <AuthCard
      title="Unsubscribe"
      heading="Unsubscribe"
      lead="Choose which e-mails you get from Keepsake."
      footer={<Link to="/">Back to Keepsake</Link>}
    >
      {info.isError ? (
        <div className="form-error" role="alert">
          {errorDetail(info.error, "This unsubscribe link is not valid.")}
        </div>
      ) : result ? (
        <div className="form-success" role="status">
          {result}
        </div>
      ) : info.data ? (
        info.data.subscribed ? (
          <>
            {failure && (
              <div className="form-error" role="alert">
                {failure}
              </div>
            )}
            <p>
              Stop receiving <strong>{info.data.label.toLowerCase()}</strong> e-mails at this
              address?
            </p>
            <button className="btn btn-primary btn-block" onClick={confirm} disabled={busy}>
              {busy ? "Unsubscribing..." : "Unsubscribe"}
            </button>
          </>
        ) : (
          <div className="form-success" role="status">
            You're already unsubscribed from {info.data.label.toLowerCase()}.
          </div>
        )
      ) : (
        <p aria-busy="true">Loading...</p>
      )}
    </AuthCard>
  );
}
