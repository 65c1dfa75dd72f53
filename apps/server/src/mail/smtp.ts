import { Readable } from "node:stream";
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

/**
 * What went wrong talking to the SMTP server; `temporary` failures are worth a retry.
 * `uncertain`: the whole message was handed over and the server never replied to it (it timed
 * out or dropped the connection), so it may have been delivered: sending it again could make a
 * second copy.
 */
export class SmtpError extends Error {
  readonly temporary: boolean;
  readonly uncertain: boolean;
  /** Whether the server answered with a reply code (4xx/5xx) rather than silence. */
  readonly replied: boolean;
  constructor(
    message: string,
    temporary: boolean,
    options: { uncertain?: boolean; replied?: boolean } = {},
  ) {
    super(message);
    this.temporary = temporary;
    this.uncertain = options.uncertain ?? false;
    this.replied = options.replied ?? false;
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
  const replied = typeof e.responseCode === "number";
  const permanent = replied && (e.responseCode as number) >= 500;
  return new SmtpError(message, !permanent, { replied });
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
      // Loaded with the first message: a process that sends none never holds nodemailer.
      const [{ default: MailComposer }, { default: SMTPConnection }] = await Promise.all([
        import("nodemailer/lib/mail-composer"),
        import("nodemailer/lib/smtp-connection"),
      ]);
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
      let handedOver = false;
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
        // The client reads the message from this stream after the server's 354; once it has
        // read it all, the end of DATA is on its way and only the server's reply is missing.
        const source = Readable.from([raw]);
        source.once("end", () => {
          handedOver = true;
        });
        const info = await step<{ response: string }>((done) =>
          conn.send({ from: addressOf(mail.from), to: [mail.to] }, source, (err, result) =>
            done(err ?? (result ? null : new SmtpError("No reply to the message", true)), result),
          ),
        );
        conn.quit();
        return { response: info.response };
      } catch (err) {
        conn.close();
        const e = err instanceof SmtpError ? err : describe(err);
        // Silence (a time-out, a dropped connection) after the whole message went out: the
        // server may have taken it (RFC 5321 §4.1.1.4 leaves that open), so it is not retried.
        if (handedOver && !e.replied) {
          throw new SmtpError(
            `The SMTP server took the whole message but never answered (${e.message}); it may have been delivered, so it was not sent again.`,
            false,
            { uncertain: true },
          );
        }
        throw e;
      }
    },
  };
}

/** The bare address of `Name <address>`. */
export function addressOf(from: string): string {
  const m = /<([^<>]+)>\s*$/.exec(from);
  return (m ? m[1] : from)!.trim();
}
