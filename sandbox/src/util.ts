import { randomBytes } from "node:crypto";
import type { FastifyRequest } from "fastify";

export function randomId(bytes = 16): string {
  return randomBytes(bytes).toString("base64url");
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

export function query(req: FastifyRequest): Record<string, string> {
  const q = (req.query ?? {}) as Record<string, string | string[] | undefined>;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(q)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v[v.length - 1]! : v;
  }
  return out;
}

export function form(req: FastifyRequest): Record<string, string> {
  const body = req.body;
  if (!body || typeof body !== "object" || Buffer.isBuffer(body)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (typeof v === "string") out[k] = v;
    else if (Array.isArray(v) && typeof v[v.length - 1] === "string")
      out[k] = v[v.length - 1] as string;
    else if (typeof v === "number" || typeof v === "boolean") out[k] = String(v);
  }
  return out;
}

/** Query and form fields merged (form wins), as OAuth endpoints accept both. */
export function params(req: FastifyRequest): Record<string, string> {
  return { ...query(req), ...form(req) };
}

export function bearer(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^(?:Bearer|OAuth)\s+(.+)$/i.exec(h);
  return m?.[1]?.trim();
}

export function isHttpUrl(value: string | undefined): value is string {
  if (!value) return false;
  try {
    const u = new URL(value);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

export function withParams(
  url: string,
  add: Record<string, string | undefined>,
  hash?: string,
): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(add)) if (v !== undefined) u.searchParams.set(k, v);
  u.hash = hash ?? "";
  let s = u.toString();
  if (hash !== undefined && !s.endsWith(`#${hash}`)) s += `#${hash}`;
  return s;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
