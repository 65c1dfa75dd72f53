import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../context.ts";
import { accountExport, defaultLayout, type ExportFormat, type ExportLayout } from "../export.ts";
import { page } from "../pages.ts";
import { escapeHtml as h, query } from "../util.ts";
import { CONTROL as c } from "./control/handle.ts";
import { findAccount } from "./control/instagram.ts";

/**
 * Instagram's "Download your information" export of each demo account: a page listing them
 * (`/export`) and the ZIP itself (`/_control/instagram/:account/export.zip?layout=old|new&format=json|html`).
 */
export function registerExport(app: FastifyInstance, ctx: Ctx): void {
  const download = async (req: FastifyRequest, reply: FastifyReply) => {
    const params = req.params as { account: string };
    const account = findAccount(ctx, params.account);
    if (!account) return reply.code(404).send({ error: "unknown account" });
    const q = query(req);
    const layout: ExportLayout =
      q.layout === "old" || q.layout === "new" ? q.layout : defaultLayout(account.username);
    const format: ExportFormat = q.format === "html" ? "html" : "json";
    const zip = await accountExport(ctx.state, account, layout, format);
    const name = `instagram-${account.username}-2026-06-30-${format === "html" ? "html" : "json"}.zip`;
    return reply
      .type("application/zip")
      .header("content-disposition", `attachment; filename="${name}"`)
      .header("content-length", String(zip.length))
      .send(Buffer.from(zip.buffer, zip.byteOffset, zip.length));
  };
  app.get(`${c}/instagram/:account/export.zip`, download);

  app.get("/export", async (_req, reply) => {
    const rows = Object.values(ctx.state.igAccounts)
      .filter((a) => !a.username.startsWith("bench."))
      .map((a) => {
        const u = encodeURIComponent(a.username);
        const base = `${c}/instagram/${u}/export.zip`;
        return `<li><strong>@${h(a.username)}</strong>: <a href="${base}" download>JSON export (${defaultLayout(a.username) === "new" ? "newer" : "older"} layout)</a> · <a href="${base}?layout=${defaultLayout(a.username) === "new" ? "old" : "new"}" download>other layout</a> · <a href="${base}?format=html" download>HTML export</a></li>`;
      })
      .join("");
    return reply
      .type("text/html")
      .send(
        page(
          "Download your information — Instagram sandbox",
          "body{font-family:system-ui,sans-serif;max-width:720px;margin:40px auto;padding:0 16px;color:#222}a{color:#0b57d0}li{margin:8px 0}",
          `<h1>Download your information</h1><p>Each demo account's Instagram data export (JSON, all time, media included), with archived stories and archived posts the API does not return.</p><ul>${rows}</ul>`,
        ),
      );
  });
}
