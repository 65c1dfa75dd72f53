import type { z } from "zod";

/** An error a client caused or may see: answered as `{"detail": message}` with `status`. */
export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

/** Parses `value` with `schema`; the first issue becomes a 422 with its message. */
export function parseOr422<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw new HttpError(422, result.error.issues[0]?.message ?? "Invalid request");
}
