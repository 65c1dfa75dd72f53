import { type InputHTMLAttributes, type Ref, useState } from "react";
import { Icon } from "./icons.tsx";

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  id: string;
  label: string;
  error?: string | undefined;
  ref?: Ref<HTMLInputElement>;
}

function FieldError({ id, error }: { id: string; error?: string | undefined }) {
  if (!error) return null;
  return (
    <p id={`${id}-error`} className="field-error" role="alert">
      {error}
    </p>
  );
}

export function TextField({ id, label, error, className, ...input }: FieldProps) {
  return (
    <div className="field">
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <input
        id={id}
        className={`input${error ? " input-invalid" : ""}${className ? ` ${className}` : ""}`}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        {...input}
      />
      <FieldError id={id} error={error} />
    </div>
  );
}

/** A password input with a show/hide toggle. */
export function PasswordField({ id, label, error, className, ...input }: FieldProps) {
  const [visible, setVisible] = useState(false);
  return (
    <div className="field">
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <div className="input-with-action">
        <input
          id={id}
          type={visible ? "text" : "password"}
          className={`input${error ? " input-invalid" : ""}${className ? ` ${className}` : ""}`}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          {...input}
        />
        <button
          type="button"
          className="input-action"
          onClick={() => setVisible((v) => !v)}
          aria-label={visible ? `Hide ${label.toLowerCase()}` : `Show ${label.toLowerCase()}`}
          aria-pressed={visible}
          aria-controls={id}
        >
          {visible ? <Icon.EyeOff /> : <Icon.Eye />}
        </button>
      </div>
      <FieldError id={id} error={error} />
    </div>
  );
}

/** The sign-in e-mail input of the login and register forms. */
export function EmailField(props: Omit<FieldProps, "label">) {
  return (
    <TextField
      label="Email address"
      type="email"
      autoComplete="email"
      placeholder="you@example.com"
      {...props}
    />
  );
}

/** A search box whose label is for screen readers only. */
export function SearchField({
  id,
  label,
  className,
  ...input
}: InputHTMLAttributes<HTMLInputElement> & { id: string; label: string }) {
  return (
    <>
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <input
        id={id}
        type="search"
        className={`input${className ? ` ${className}` : ""}`}
        {...input}
      />
    </>
  );
}
