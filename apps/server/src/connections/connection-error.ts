import type { ConnectionErrorType } from "@keepsake/contracts";
import { AppError, type ErrorKind } from "../lib/errors.ts";

/** A connection failure the user should see, with the dashboard's `error_type`. */
export class ConnectionError extends AppError {
  readonly errorType: ConnectionErrorType;
  constructor(kind: ErrorKind, errorType: ConnectionErrorType, message: string) {
    super(kind, message);
    this.errorType = errorType;
  }
}
