import MailComposer from "nodemailer/lib/mail-composer";
import SMTPConnection from "nodemailer/lib/smtp-connection";
import { assertOutsideTransaction } from "../lib/transaction-scope.ts";

/** One message as the outbox hands it to SMTP. */
export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Derived from the outbox row's idempotency key: the same event always has the same id. */
  messageId: string;
  headers: Record<string, string>;
}

/** What went wrong talking to the SMTP server; `temporary` failures are worth a retry. */
export class SmtpError extends Error {
  readonly temporary: boolean;
  constructor(message: string, temporary: boolean) {
    super(message);
    this.temporary = temporary;
  }
}

export interface SmtpSender {
  /**
   * Connects, greets and signs in, then calls `beforeData` (the outbox records that the
   * message is about to be handed over), then sends it. Answers the server's final reply.
   */
  send(mail: OutgoingMail, beforeData: () => Promise<void>): Promise<{ response: string }>;
}

export interface SmtpOptions {
  /** smtp://user:pass@host:port or smtps://…; undefined: mail is not configured. */
  url: string | undefined;
  /** Connection, greeting and inactivity limit of one conversation. */
  timeoutMs: number;
}

function describe(err: unknown): SmtpError {
  const e = err as { message?: string; responseCode?: number; code?: string };
  const message = (e.message ?? String(err)).replace(/\s+/g, " ").slice(0, 500);
  // 5xx replies are permanent (the address or the message is refused); everything else —
  // 4xx replies, refused or dropped connections, timeouts — may work on a later attempt.
  const permanent = typeof e.responseCode === "number" && e.responseCode >= 500;
  return new SmtpError(message, !permanent);
}

/**
 * Sends through nodemailer's SMTP client (its SMTPConnection and MailComposer), one
 * connection per message, so the outbox knows the moment the message is being handed over.
 */
export function createSmtpSender(options: SmtpOptions): SmtpSender {
  return {
    async send(mail, beforeData) {
      // Never while the caller holds a database transaction (lib/transaction-scope.ts).
      assertOutsideTransaction("SMTP send");
      if (!options.url) throw new SmtpError("Mail is not configured (SMTP_URL is not set)", false);
      const url = new URL(options.url);
      const secure = url.protocol === "smtps:";
      const raw = await new MailComposer({
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: mail.messageId,
        headers: mail.headers,
      })
        .compile()
        .build();
      const conn = new SMTPConnection({
        host: url.hostname.replace(/^\[|\]$/g, ""),
        port: url.port ? Number(url.port) : secure ? 465 : 587,
        secure,
        connectionTimeout: options.timeoutMs,
        greetingTimeout: options.timeoutMs,
        socketTimeout: options.timeoutMs,
      });
      // The client reports a dropped connection, a timeout or a bad greeting as an event, not
      // through the step's callback: every step also ends when one of those happens.
      const broken = new Promise<never>((_resolve, reject) => {
        conn.once("error", (err: unknown) => reject(err));
        conn.once("end", () =>
          reject(new SmtpError("The SMTP server closed the connection", true)),
        );
      });
      broken.catch(() => {});
      const step = <T>(run: (done: (err: unknown, value?: T) => void) => void) =>
        Promise.race([
          broken,
          new Promise<T>((resolve, reject) =>
            run((err, value) => (err ? reject(err) : resolve(value as T))),
          ),
        ]);
      try {
        await step<void>((done) => conn.connect((err) => done(err ?? null)));
        if (url.username) {
          await step<void>((done) =>
            conn.login(
              {
                credentials: {
                  user: decodeURIComponent(url.username),
                  pass: decodeURIComponent(url.password),
                },
              },
              (err) => done(err),
            ),
          );
        }
        await beforeData();
        const info = await step<{ response: string }>((done) =>
          conn.send({ from: addressOf(mail.from), to: [mail.to] }, raw, (err, result) =>
            done(err ?? (result ? null : new SmtpError("No reply to the message", true)), result),
          ),
        );
        conn.quit();
        return { response: info.response };
      } catch (err) {
        conn.close();
        if (err instanceof SmtpError) throw err;
        throw describe(err);
      }
    },
  };
}

/** The bare address of `Name <address>`. */
export function addressOf(from: string): string {
  const m = /<([^<>]+)>\s*$/.exec(from);
  return (m ? m[1] : from)!.trim();
}
