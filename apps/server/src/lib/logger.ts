import { type Logger, pino } from "pino";

/** Never written to a log line: passwords, tokens, keys, cookies. */
export const REDACT = {
  paths: [
    "req.headers.authorization",
    "req.headers.cookie",
    "res.headers['set-cookie']",
    "*.password",
    "*.access_token",
    "*.refresh_token",
    "*.token",
    "*.key",
  ],
  censor: "[redacted]",
};

/** The logger of services and jobs (outside requests): JSON lines, the same redaction. */
export function serviceLogger(level: string): Logger {
  return pino({ level, redact: REDACT });
}
