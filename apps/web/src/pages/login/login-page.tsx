import { zodResolver } from "@hookform/resolvers/zod";
import { type LoginRequest, loginRequest } from "@keepsake/contracts";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Link, type Location, useLocation, useNavigate } from "react-router";
import { errorDetail } from "../../api/client.ts";
import { AuthCard } from "../../components/auth-card.tsx";
import { PasswordField, TextField } from "../../components/form-field.tsx";
import { useAuth } from "../../lib/auth.tsx";

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
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<LoginRequest>({
    resolver: zodResolver(loginRequest),
    mode: "onSubmit",
    reValidateMode: "onChange",
    defaultValues: { email: "", password: "" },
  });

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
        <TextField
          id="email"
          label="Email address"
          type="email"
          autoComplete="email"
          placeholder="you@example.com"
          error={errors.email?.message}
          {...register("email")}
        />
        <PasswordField
          id="password"
          label="Password"
          autoComplete="current-password"
          placeholder="Your password"
          error={errors.password?.message}
          {...register("password")}
        />
        <button type="submit" className="btn btn-primary btn-block" disabled={isSubmitting}>
          {isSubmitting ? "Signing in..." : "Sign In"}
        </button>
      </form>
    </AuthCard>
  );
}
