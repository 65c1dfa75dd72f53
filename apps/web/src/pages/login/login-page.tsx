import { type LoginRequest, loginRequest } from "@keepsake/contracts/auth-forms";
import { useState } from "react";
import { errorDetail } from "../../api/client.ts";
import { AuthCard } from "../../components/auth-card.tsx";
import { EmailField, PasswordField } from "../../components/form-field.tsx";
import { useAuth } from "../../lib/auth.tsx";
import { Link, type Location, useLocation, useNavigate } from "../../lib/navigation.tsx";
import { useZodForm } from "../../lib/zod-form.ts";

export const LOGIN_FAILED_MESSAGE = "Invalid email or password. Please try again.";

/** Where to go after signing in: the protected page that sent us here, else /dashboard. */
export function redirectTarget(state: unknown): string {
  const from = (state as { from?: Partial<Location> | string } | null)?.from;
  const path =
    typeof from === "string"
      ? from
      : from?.pathname
        ? `${from.pathname}${from.search ?? ""}${from.hash ?? ""}`
        : "";
  if (!path.startsWith("/") || path.startsWith("//")) return "/dashboard";
  if (path === "/login" || path === "/register") return "/dashboard";
  return path;
}

export function LoginPage() {
  const { login } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const [formError, setFormError] = useState<string | null>(null);
  const {
    field,
    handleSubmit,
    formState: { isSubmitting },
  } = useZodForm<LoginRequest>(loginRequest, { defaultValues: { email: "", password: "" } });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    try {
      await login(values);
      navigate(redirectTarget(location.state), { replace: true });
    } catch (error) {
      setFormError(errorDetail(error, LOGIN_FAILED_MESSAGE));
    }
  });

  return (
    <AuthCard
      title="Sign In"
      heading="Welcome back"
      lead="Sign in to keep your Instagram safely backed up."
      footer={
        <>
          Don&apos;t have an account? <Link to="/register">Create one for free</Link>
        </>
      }
    >
      {formError && (
        <div className="form-error" role="alert" id="login-error">
          {formError}
        </div>
      )}
      <form onSubmit={onSubmit} noValidate className="auth-form">
        <EmailField {...field("email")} />
        <PasswordField
          label="Password"
          autoComplete="current-password"
          placeholder="Your password"
          {...field("password")}
        />
        <p className="auth-forgot">
          <Link to="/forgot-password">Forgot your password?</Link>
        </p>
        <button type="submit" className="btn btn-primary btn-block" disabled={isSubmitting}>
          {isSubmitting ? "Signing in..." : "Sign In"}
        </button>
      </form>
    </AuthCard>
  );
}
