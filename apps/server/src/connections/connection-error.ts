import type { ConnectionErrorType } from "@keepsake/contracts";
import { HttpError } from "../lib/errors.ts";

/** A connection failure the user should see, with the dashboard's `error_type`. */
export class ConnectionError extends HttpError {
  readonly errorType: ConnectionErrorType;
  constructor(status: number, errorType: ConnectionErrorType, message: string) {
    super(status, message);
    this.errorType = errorType;
  }
}
