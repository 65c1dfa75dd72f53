import { type RegisterForm, registerForm } from "@keepsake/contracts/auth-forms";
import { AuthCard } from "../../components/auth-card.tsx";
import { EmailField, PasswordField, TextField } from "../../components/form-field.tsx";
import { useAuth } from "../../lib/auth.tsx";
import { Link, useNavigate } from "../../lib/navigation.tsx";
import { useZodForm } from "../../lib/zod-form.ts";

export function RegisterPage() {
  const { register: createAccount } = useAuth();
  const navigate = useNavigate();
  const {
    field,
    handleSubmit,
    formState: { isSubmitting },
  } = useZodForm<RegisterForm>(registerForm, {
    defaultValues: { full_name: "", email: "", password: "", confirm_password: "" },
  });

  const onSubmit = handleSubmit(async ({ full_name, email, password }) => {
    try {
      // The confirmation is never sent (SPEC §3).
      await createAccount({ full_name, email, password });
      navigate("/dashboard", { replace: true });
    } catch {
      // The auth provider has already shown the failure.
    }
  });

  return (
    <AuthCard
      title="Create your account"
      heading="Create your account"
      lead="Start backing up your Instagram for free. No credit card required."
      footer={
        <>
          Already have an account? <Link to="/login">Sign in</Link>
        </>
      }
    >
      <form onSubmit={onSubmit} noValidate className="auth-form">
        <TextField
          label="Full name"
          autoComplete="name"
          placeholder="Jane Doe"
          {...field("full_name")}
        />
        <EmailField {...field("email")} />
        <PasswordField
          label="Password"
          autoComplete="new-password"
          placeholder="At least 8 characters"
          {...field("password")}
        />
        <PasswordField
          label="Confirm password"
          autoComplete="new-password"
          placeholder="Repeat your password"
          {...field("confirm_password")}
        />
        <p className="field-hint">
          Use 8 or more characters with an uppercase letter, a lowercase letter and a number.
        </p>
        <button type="submit" className="btn btn-primary btn-block" disabled={isSubmitting}>
          {isSubmitting ? "Creating account..." : "Create Account"}
        </button>
      </form>
    </AuthCard>
  );
}
