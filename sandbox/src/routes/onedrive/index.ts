import type { FastifyInstance } from "fastify";
import type { Ctx } from "../../context.ts";
import { page } from "../../pages.ts";
import { escapeHtml as h } from "../../util.ts";
import { onedriveState, pathOf, usedBytes } from "./common.ts";
import { registerOneDriveGraph } from "./graph.ts";
import { registerMicrosoftIdentity } from "./identity.ts";

export { DEMO_ONEDRIVE } from "./common.ts";
export { FRAGMENT_UNIT } from "./files.ts";
export { QuickXorHash, quickXorHash } from "./quickxor.ts";

/** OneDrive: Microsoft identity, Graph drive items and upload sessions, `/onedrive` and its controls. */
export function registerOneDrive(app: FastifyInstance, ctx: Ctx): void {
  registerMicrosoftIdentity(app, ctx);
  registerOneDriveGraph(app, ctx);
  const files = () =>
    Object.values(onedriveState(ctx).users).map((u) => ({
      user: u,
      files: Object.values(u.items)
        .filter((i) => !i.folder)
        .map((i) => ({ item: i, path: pathOf(u, i) }))
        .sort((a, b) => (a.path < b.path ? -1 : 1)),
    }));
  app.get("/_control/onedrive/files", async () => ({
    users: files().map(({ user, files }) => ({
      id: user.id,
      email: user.email,
      quota_bytes: user.quotaBytes,
      used_bytes: usedBytes(user),
      files: files.map(({ item, path }) => ({
        id: item.id,
        path,
        size: item.size,
        quick_xor_hash: item.quickXorHash,
        file_system_modified: new Date(item.fsModified).toISOString(),
      })),
    })),
    sessions: Object.values(onedriveState(ctx).sessions).map((s) => ({
      id: s.id,
      name: s.name,
      received: s.received,
      total: s.total ?? null,
    })),
  }));
  app.post("/_control/onedrive/quota", async (req, reply) => {
    const b = (req.body ?? {}) as { email?: string; bytes?: number };
    const user = Object.values(onedriveState(ctx).users).find((u) => u.email === b.email);
    if (!user || typeof b.bytes !== "number")
      return reply.code(400).send({ error: "email and bytes" });
    user.quotaBytes = b.bytes;
    ctx.changed();
    return { email: user.email, quota_bytes: user.quotaBytes, used_bytes: usedBytes(user) };
  });
  app.get("/onedrive", async (_req, reply) => {
    const sections = files().map(({ user, files }) => {
      const rows = files
        .map(
          ({ item, path }) =>
            `<tr><td>${h(path)}</td><td>${(item.size ?? 0).toLocaleString("en-US")}</td><td>${h(new Date(item.fsModified).toISOString())}</td></tr>`,
        )
        .join("");
      return `<h2>${h(user.name)} (${h(user.email)}, ${h(user.locale)})</h2><p>${usedBytes(user).toLocaleString("en-US")} of ${user.quotaBytes.toLocaleString("en-US")} bytes</p><table><thead><tr><th>Path</th><th>Size</th><th>Modified (file system)</th></tr></thead><tbody>${rows}</tbody></table>`;
    });
    return reply
      .type("text/html")
      .send(
        page(
          "OneDrive",
          "body{font-family:system-ui,sans-serif;max-width:1000px;margin:40px auto;padding:0 16px}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;font-size:14px;word-break:break-all}",
          `<h1>OneDrive</h1>${sections.join("")}`,
        ),
      );
  });
}
