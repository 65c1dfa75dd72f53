import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { type AddressObject, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { z } from "zod";
import type { Ctx } from "./context.ts";
import { page } from "./pages.ts";
import { CONTROL as c, handle } from "./routes/control/handle.ts";
import { escapeHtml as h, randomId } from "./util.ts";

/** A message the sandbox's SMTP server accepted, as `GET /_control/mail` lists it. */
export interface SandboxMail {
  id: string;
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  date: string;
}

/**
 * What the next SMTP conversations do instead of accepting a message: `refuse` greets with 421
 * and closes the connection, `timeout` never answers the end of DATA (and keeps nothing), `stall`
 * keeps the message but never answers (a client that crashes then cannot know it was taken), a
 * number (421, 451, 550…) answers that reply code to the message.
 */
export interface MailFault {
  error: "refuse" | "timeout" | "stall" | number;
  remaining: number;
}

/** The loopback SMTP server of sandbox mode: every message lands in an inbox kept in memory. */
export class MailSink {
  readonly messages: SandboxMail[] = [];
  readonly faults: MailFault[] = [];
  /** Conversations that reached DATA (accepted or not), for tests that count attempts. */
  attempts = 0;
  private readonly server: SMTPServer;
  port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      banner: "Keepsake sandbox SMTP",
      size: 10 * 1024 * 1024,
      onConnect: (_session, callback) => {
        const fault = this.peek();
        if (fault?.error === "refuse") {
          this.take(fault);
          const err = new Error("Connection refused by the sandbox") as Error & {
            responseCode: number;
          };
          err.responseCode = 421;
          return callback(err);
        }
        callback();
      },
      onData: (stream, _session, callback) => {
        this.attempts++;
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          const fault = this.peek();
          const stall = fault?.error === "stall";
          if (fault && fault.error !== "refuse" && fault.error !== "stall") {
            this.take(fault);
            if (fault.error === "timeout") return; // never answers: the client times out
            const err = new Error(
              fault.error >= 500
                ? "Mailbox unavailable (sandbox fault)"
                : "Try again later (sandbox fault)",
            ) as Error & { responseCode: number };
            err.responseCode = fault.error;
            return callback(err);
          }
          if (fault && stall) this.take(fault);
          const raw = Buffer.concat(chunks);
          simpleParser(raw)
            .then((parsed) => {
              const headers: Record<string, string> = {};
              for (const line of parsed.headerLines) {
                const name = line.key.toLowerCase();
                const value = line.line.slice(line.line.indexOf(":") + 1).trim();
                headers[name] = headers[name] ? `${headers[name]}, ${value}` : value;
              }
              const addresses = (a: AddressObject | AddressObject[] | undefined) =>
                (Array.isArray(a) ? a : a ? [a] : []).flatMap((x) =>
                  x.value.map((v) => (v.address ?? "").toLowerCase()),
                );
              this.messages.unshift({
                id: randomId(9),
                to: addresses(parsed.to),
                from: parsed.from?.value[0]?.address ?? "",
                subject: parsed.subject ?? "",
                text: parsed.text ?? "",
                html: typeof parsed.html === "string" ? parsed.html : "",
                headers,
                date: new Date().toISOString(),
              });
              if (!stall) callback();
            })
            .catch((err: Error) => callback(err));
        });
      },
    });
    this.server.on("error", () => {});
  }

  private peek(): MailFault | undefined {
    return this.faults.find((f) => f.remaining > 0);
  }

  private take(fault: MailFault) {
    fault.remaining--;
    if (fault.remaining <= 0) this.faults.splice(this.faults.indexOf(fault), 1);
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.port = (this.server.server.address() as AddressInfo).port;
        resolve(this.port);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  reset() {
    this.messages.length = 0;
    this.faults.length = 0;
    this.attempts = 0;
  }
}

const CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f6f7fb;color:#1f2330}
header{display:flex;align-items:center;gap:12px;padding:12px 24px;background:#fff;border-bottom:1px solid #e3e5ec}
header b{font-size:20px}
main{padding:16px 24px;max-width:1100px}
table{width:100%;border-collapse:collapse;background:#fff;border-radius:10px;overflow:hidden}
th{text-align:left;font-size:13px;color:#5b6170;padding:10px 12px;border-bottom:1px solid #e3e5ec}
td{padding:9px 12px;border-bottom:1px solid #f0f1f5;font-size:14px}
td a{color:#1f2330;text-decoration:none}td a:hover{color:#5b4cdb}
.muted{color:#5b6170;font-size:13px}
.card{background:#fff;border-radius:10px;padding:16px;margin:12px 0;border:1px solid #e3e5ec}
pre{white-space:pre-wrap;font:13px/1.5 ui-monospace,monospace;margin:0}
iframe{width:100%;height:640px;border:1px solid #e3e5ec;border-radius:10px;background:#fff}
dl{display:grid;grid-template-columns:200px 1fr;gap:4px 12px;font-size:13px;margin:0}dt{color:#5b6170}dd{margin:0;word-break:break-all}`;

/** The inbox page (`/mail`) and the control API of the sandbox's mail. */
export function registerMail(app: FastifyInstance, ctx: Ctx, sink: MailSink): void {
  app.get(`${c}/mail`, async (req) => {
    const to = (req.query as { to?: string }).to?.toLowerCase();
    return to ? sink.messages.filter((m) => m.to.includes(to)) : sink.messages;
  });
  app.delete(`${c}/mail`, async () => {
    sink.messages.length = 0;
    return { ok: true };
  });
  app.get(`${c}/mail/faults`, async () => ({ faults: sink.faults, attempts: sink.attempts }));
  app.post(
    `${c}/mail/faults`,
    handle(
      z.object({
        error: z.union([
          z.enum(["refuse", "timeout", "stall"]),
          z.number().int().min(400).max(599),
          z
            .string()
            .regex(/^\d{3}$/)
            .transform(Number),
        ]),
        count: z.number().int().min(1).default(1),
      }),
      (b) => {
        sink.faults.push({ error: b.error, remaining: b.count });
        return { faults: sink.faults };
      },
    ),
  );
  app.delete(`${c}/mail/faults`, async () => {
    sink.faults.length = 0;
    return { ok: true };
  });
  ctx.resetHooks.push(() => sink.reset());

  const header = `<header><b>Mail</b><span class="muted">sandbox — every message Keepsake sent, on SMTP port ${sink.port}</span></header>`;
  app.get("/mail", async (req, reply) => {
    const to = (req.query as { to?: string }).to?.toLowerCase();
    const list = to ? sink.messages.filter((m) => m.to.includes(to)) : sink.messages;
    const rows = list
      .map(
        (m) =>
          `<tr><td><a href="/mail/${h(m.id)}">${h(m.subject || "(no subject)")}</a></td><td>${h(m.to.join(", "))}</td><td class="muted">${h(m.date.slice(0, 19).replace("T", " "))}</td></tr>`,
      )
      .join("");
    return reply
      .type("text/html")
      .send(
        page(
          "Mail – sandbox",
          CSS,
          `${header}<main><table><thead><tr><th>Subject</th><th>To</th><th>Received</th></tr></thead><tbody>${rows || `<tr><td colspan="3" class="muted">No mail yet.</td></tr>`}</tbody></table></main>`,
        ),
      );
  });
  app.get("/mail/:id", async (req, reply) => {
    const m = sink.messages.find((x) => x.id === (req.params as { id: string }).id);
    if (!m) return reply.code(404).type("text/plain").send("Not found");
    const headers = Object.entries(m.headers)
      .map(([k, v]) => `<dt>${h(k)}</dt><dd>${h(v)}</dd>`)
      .join("");
    return reply.type("text/html").send(
      page(
        `${m.subject} – sandbox mail`,
        CSS,
        `${header}<main><p><a href="/mail">← Inbox</a></p><h2>${h(m.subject)}</h2>
<div class="muted">From ${h(m.from)} to ${h(m.to.join(", "))} · ${h(m.date)}</div>
<h3>HTML</h3><iframe sandbox="allow-popups allow-popups-to-escape-sandbox" title="HTML part" srcdoc="${h(m.html)}"></iframe>
<h3>Text</h3><div class="card"><pre>${h(m.text)}</pre></div>
<h3>Headers</h3><div class="card"><dl>${headers}</dl></div></main>`,
      ),
    );
  });
}
