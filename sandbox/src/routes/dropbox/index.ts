import type { FastifyInstance } from "fastify";
import type { Ctx } from "../../context.ts";
import { page } from "../../pages.ts";
import { escapeHtml as h } from "../../util.ts";
import { dropboxState, usedBytes } from "./common.ts";
import { registerDropboxFiles } from "./files.ts";
import { registerDropboxOAuth } from "./oauth.ts";

export { contentHash, DEMO_DROPBOX } from "./common.ts";

/** Dropbox: OAuth, the files API of an app folder, the `/dropbox` page and its controls. */
export function registerDropbox(app: FastifyInstance, ctx: Ctx): void {
  registerDropboxOAuth(app, ctx);
  registerDropboxFiles(app, ctx);
  app.get("/_control/dropbox/files", async () => ({
    accounts: Object.values(dropboxState(ctx).accounts).map((a) => ({
      account_id: a.accountId,
      email: a.email,
      quota_bytes: a.quotaBytes,
      used_bytes: usedBytes(a),
      files: Object.entries(a.entries)
        .filter(([, e]) => e.tag === "file")
        .map(([key, e]) => ({
          path: `/Apps/Keepsake${e.pathDisplay}`,
          path_lower: key,
          size: e.size,
          content_hash: e.contentHash,
          client_modified: new Date(e.clientModified ?? 0).toISOString(),
        })),
    })),
    sessions: Object.values(dropboxState(ctx).sessions).map((s) => ({
      id: s.id,
      size: s.size,
      closed: s.closed,
    })),
  }));
  app.post("/_control/dropbox/quota", async (req, reply) => {
    const b = (req.body ?? {}) as { email?: string; bytes?: number };
    const account = Object.values(dropboxState(ctx).accounts).find((a) => a.email === b.email);
    if (!account || typeof b.bytes !== "number")
      return reply.code(400).send({ error: "email and bytes" });
    account.quotaBytes = b.bytes;
    ctx.changed();
    return {
      email: account.email,
      quota_bytes: account.quotaBytes,
      used_bytes: usedBytes(account),
    };
  });
  // dropbox.com's files page, where Keepsake's "View" links lead: the sandbox's own listing.
  app.get("/www.dropbox.com/home/*", async (_req, reply) => reply.redirect("/dropbox", 302));
  app.get("/dropbox", async (_req, reply) => {
    const sections = Object.values(dropboxState(ctx).accounts).map((a) => {
      const rows = Object.values(a.entries)
        .filter((e) => e.tag === "file")
        .sort((x, y) => (x.pathDisplay < y.pathDisplay ? -1 : 1))
        .map(
          (e) =>
            `<tr><td>Apps/Keepsake${h(e.pathDisplay)}</td><td>${(e.size ?? 0).toLocaleString("en-US")}</td><td>${h(new Date(e.clientModified ?? 0).toISOString())}</td></tr>`,
        )
        .join("");
      return `<h2>${h(a.name)} (${h(a.email)})</h2><p>${usedBytes(a).toLocaleString("en-US")} of ${a.quotaBytes.toLocaleString("en-US")} bytes</p><table><thead><tr><th>Path</th><th>Size</th><th>Modified (client)</th></tr></thead><tbody>${rows}</tbody></table>`;
    });
    return reply
      .type("text/html")
      .send(
        page(
          "Dropbox",
          "body{font-family:system-ui,sans-serif;max-width:1000px;margin:40px auto;padding:0 16px}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;font-size:14px;word-break:break-all}",
          `<h1>Dropbox</h1>${sections.join("")}`,
        ),
      );
  });
}
