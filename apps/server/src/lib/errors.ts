/**
 * What went wrong, in the domain's words. Services and repositories throw these; the HTTP layer
 * (`http/errors.ts`) alone decides the status code and headers a client sees.
 */
export type ErrorKind =
  | "bad_request" // the request cannot be understood as asked
  | "unauthenticated" // no one, or no longer anyone, is signed in
  | "forbidden" // signed in, but not allowed
  | "not_found"
  | "conflict" // the thing's current state forbids it
  | "invalid" // a field's value breaks a rule
  | "too_many" // slow down; `retryAfterSeconds` says how long
  | "upstream" // a provider failed us
  | "unavailable"; // we cannot do it right now

export interface ErrorOptions {
  /** How long the caller should wait before trying again. */
  retryAfterSeconds?: number;
  /** For `unauthenticated`: the challenge a client should answer (e.g. `Bearer`). */
  challenge?: string;
}

/** An error a user caused or may see: its message is the text they read. */
export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly options: ErrorOptions;
  constructor(kind: ErrorKind, message: string, options: ErrorOptions = {}) {
    super(message);
    this.kind = kind;
    this.options = options;
  }
}
