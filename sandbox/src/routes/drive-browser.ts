import { createReadStream, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import type { Ctx } from "../context.ts";
import { thumbnail } from "../images.ts";
import { page } from "../pages.ts";
import { escapeHtml as h } from "../util.ts";
import { sendRanged } from "./cdn.ts";
import { FOLDER_MIME, usage } from "./drive/index.ts";

const CSS = `
body{font-family:"Google Sans",Roboto,Arial,sans-serif;background:#f8fafd;color:#1f1f1f}
header{display:flex;align-items:center;gap:12px;padding:12px 24px;background:#fff;border-bottom:1px solid #e1e3e1}
.logo{width:28px;height:24px;background:conic-gradient(#0f9d58 0 33%,#ffcd40 0 66%,#4285f4 0);clip-path:polygon(33% 0,67% 0,100% 60%,83% 100%,17% 100%,0 60%)}
header b{font-size:20px;font-weight:400;color:#444746}
main{padding:16px 24px;max-width:1200px}
.crumbs{font-size:18px;margin:8px 0 16px}.crumbs a{color:#1f1f1f;text-decoration:none}.crumbs a:hover{text-decoration:underline}
table{width:100%;border-collapse:collapse;background:#fff;border-radius:12px;overflow:hidden}
th{font-weight:500;text-align:left;font-size:13px;color:#444746;padding:10px 12px;border-bottom:1px solid #e1e3e1}
td{padding:8px 12px;border-bottom:1px solid #f0f0f0;font-size:14px;vertical-align:middle}
td a{color:#1f1f1f;text-decoration:none}td a:hover{color:#0b57d0}
.thumb{width:48px;height:48px;object-fit:cover;border-radius:6px;background:#eee;display:block}
.ic{width:48px;height:48px;border-radius:6px;display:flex;align-items:center;justify-content:center;font-size:22px;background:#e8f0fe}
.users a{display:block;background:#fff;border-radius:12px;padding:16px;margin:8px 0;text-decoration:none;color:inherit;border:1px solid #e1e3e1}
.muted{color:#444746;font-size:13px}`;

const FOLDER_ICON = `<svg width="24" height="24" viewBox="0 0 24 24" aria-label="folder"><path fill="#5f6368" d="M10 4H4a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2V8a2 2 0 0 0-2-2h-8l-2-2z"/></svg>`;
const VIDEO_ICON = `<svg width="24" height="24" viewBox="0 0 24 24" aria-label="video"><rect x="2" y="4" width="20" height="16" rx="2" fill="#d93025"/><path fill="#fff" d="M10 8.5v7l6-3.5z"/></svg>`;
const DOC_ICON = `<svg width="24" height="24" viewBox="0 0 24 24" aria-label="file"><path fill="#4285f4" d="M6 2h8l6 6v12a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2z"/><path fill="#a1c2fa" d="M14 2v6h6z"/></svg>`;

function size(n: number | undefined): string {
  if (n === undefined) return "—";
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

export function registerDriveBrowser(app: FastifyInstance, ctx: Ctx): void {
  const header = `<header><span class="logo"></span><b>Drive</b><span class="muted">sandbox — files the Keepsake app created</span></header>`;

  app.get("/drive", async (req, reply) => {
    const q = req.query as { user?: string; folder?: string };
    const users = Object.values(ctx.state.googleUsers);
    const user = users.find((u) => u.email === q.user || u.sub === q.user);
    if (!user) {
      const rows = users
        .map((u) => {
          const count = Object.values(ctx.state.driveFiles).filter(
            (f) => f.ownerSub === u.sub && f.mimeType !== FOLDER_MIME,
          ).length;
          return `<a href="/drive?user=${encodeURIComponent(u.email)}"><b>${h(u.name)}</b> · ${h(u.email)}<div class="muted">${count} files · ${size(usage(ctx, u))} of ${size(u.quotaLimit)} used</div></a>`;
        })
        .join("");
      return reply
        .type("text/html")
        .send(
          page(
            "Drive – sandbox",
            CSS,
            `${header}<main><h2>Choose a Google account</h2><div class="users">${rows}</div></main>`,
          ),
        );
    }
    const folderId =
      q.folder && ctx.state.driveFiles[q.folder]?.ownerSub === user.sub ? q.folder : user.rootId;
    const crumbs: { id: string; name: string }[] = [];
    let cur = ctx.state.driveFiles[folderId];
    while (cur) {
      crumbs.unshift({ id: cur.id, name: cur.name });
      cur = cur.parents[0] ? ctx.state.driveFiles[cur.parents[0]] : undefined;
    }
    const link = (id: string) =>
      `/drive?user=${encodeURIComponent(user.email)}&folder=${encodeURIComponent(id)}`;
    const crumbHtml = [
      `<a href="${link(user.rootId)}">My Drive</a>`,
      ...crumbs.map((c) => `<a href="${link(c.id)}">${h(c.name)}</a>`),
    ].join(" › ");
    const items = Object.values(ctx.state.driveFiles)
      .filter((f) => f.ownerSub === user.sub && f.parents.includes(folderId))
      .sort(
        (a, b) =>
          Number(b.mimeType === FOLDER_MIME) - Number(a.mimeType === FOLDER_MIME) ||
          a.name.localeCompare(b.name),
      );
    const rows = items
      .map((f) => {
        const folder = f.mimeType === FOLDER_MIME;
        const icon = folder
          ? `<span class="ic">${FOLDER_ICON}</span>`
          : f.mimeType.startsWith("image/")
            ? `<img class="thumb" loading="lazy" alt="" src="/drive/thumb/${f.id}">`
            : `<span class="ic">${f.mimeType.startsWith("video/") ? VIDEO_ICON : DOC_ICON}</span>`;
        const href = folder ? link(f.id) : `/drive/file/${f.id}`;
        return `<tr><td>${icon}</td><td><a href="${h(href)}">${h(f.name)}</a>${f.description ? `<div class="muted">${h(f.description.slice(0, 90))}</div>` : ""}</td><td>${folder ? "—" : size(f.size)}</td><td class="muted">${h(new Date(f.modifiedTime).toISOString().slice(0, 16).replace("T", " "))}</td></tr>`;
      })
      .join("");
    return reply.type("text/html").send(
      page(
        "Drive – sandbox",
        CSS,
        `${header}<main><div class="crumbs">${crumbHtml}</div><div class="muted" style="margin-bottom:8px">${h(user.email)} · ${size(usage(ctx, user))} of ${size(user.quotaLimit)} used · <a href="/drive">switch account</a></div>
<table><thead><tr><th></th><th>Name</th><th>File size</th><th>Last modified</th></tr></thead><tbody>${rows || `<tr><td colspan="4" class="muted">This folder is empty.</td></tr>`}</tbody></table></main>`,
      ),
    );
  });

  app.get("/drive/file/:id", async (req, reply) => {
    const f = ctx.state.driveFiles[(req.params as { id: string }).id];
    if (!f || f.mimeType === FOLDER_MIME)
      return reply.code(404).type("text/plain").send("Not found");
    const path = join(ctx.blobDir, f.id);
    reply
      .type(f.mimeType)
      .header("content-disposition", `inline; filename="${f.name.replace(/"/g, "")}"`);
    return sendRanged(req, reply, f.size ?? 0, (s, e) =>
      existsSync(path) ? createReadStream(path, { start: s, end: e }) : Buffer.alloc(0),
    );
  });

  app.get("/drive/thumb/:id", async (req, reply) => {
    const f = ctx.state.driveFiles[(req.params as { id: string }).id];
    const path = f ? join(ctx.blobDir, f.id) : "";
    if (!f?.mimeType.startsWith("image/") || !existsSync(path))
      return reply.code(404).type("text/plain").send("Not found");
    try {
      return reply
        .type("image/jpeg")
        .header("cache-control", "max-age=3600")
        .send(await thumbnail(readFileSync(path), 160));
    } catch {
      return reply.code(415).type("text/plain").send("Not an image");
    }
  });

  app.get("/drive/icon/*", async (_req, reply) =>
    reply
      .type("image/svg+xml")
      .send(
        `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect width="16" height="16" rx="3" fill="#4285f4"/></svg>`,
      ),
  );
}
