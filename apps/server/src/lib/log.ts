import { inspect } from "node:util";

/** The part of a pino logger that services and jobs use. */
export interface ServiceLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Anything thrown or emitted, as an Error pino's `err` serializer writes with its message and
 * stack (and own fields: code, queue, ...). pg-boss emits plain objects (`{ ...error, message,
 * stack, queue, worker }`), which `String()` turns into "[object Object]".
 */
export function asError(value: unknown): Error {
  if (value instanceof Error) return value;
  if (value !== null && typeof value === "object" && "message" in value) {
    const { message, stack, ...fields } = value as { message: unknown; stack?: unknown };
    const err = new Error(String(message));
    if (typeof stack === "string" && stack) err.stack = stack;
    return Object.assign(err, fields);
  }
  const err = new Error(typeof value === "string" ? value : inspect(value, { depth: 2 }));
  return err;
}
