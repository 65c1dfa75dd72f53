import { zodResolver } from "@hookform/resolvers/zod";
import { type FieldValues, type Path, type UseFormProps, useForm } from "react-hook-form";
import type { $ZodType } from "zod/v4/core";

/**
 * A react-hook-form form checked by a contracts schema (zod/mini or classic: any zod 4 schema): validated on submit, re-checked on
 * every change after that. `field(name)` is what a TextField/PasswordField needs: its id, its
 * message and the form's binding.
 */
export function useZodForm<T extends FieldValues>(
  schema: $ZodType<T, T>,
  options: Pick<UseFormProps<T>, "defaultValues" | "values">,
) {
  const form = useForm<T>({
    resolver: zodResolver(schema),
    mode: "onSubmit",
    reValidateMode: "onChange",
    ...options,
  });
  const errors = form.formState.errors as Partial<Record<string, { message?: string }>>;
  const field = (name: Path<T>) => ({
    id: name,
    error: errors[name]?.message,
    ...form.register(name),
  });
  return { ...form, field };
}
