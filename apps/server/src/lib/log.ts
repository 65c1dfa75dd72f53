/** The part of a pino logger that services and jobs use. */
export interface ServiceLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
