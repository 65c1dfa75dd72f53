import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { SANDBOX_CREDENTIALS } from "../../credentials.ts";
import { hidden, page } from "../../pages.ts";
import { issueCode, issueToken } from "../../tokens.ts";
import { escapeHtml as h, params } from "../../util.ts";
import { accountOf, dropboxState } from "./common.ts";

const D = SANDBOX_CREDENTIALS.dropbox;
/** Dropbox's short-lived access tokens last four hours. */
const ACCESS_TTL = 4 * 3600;
const CSS =
  "body{font-family:system-ui,sans-serif;background:#f7f5f2;color:#1e1919}main{max-width:440px;margin:60px auto;background:#fff;padding:32px;border-radius:8px}h1{font-size:22px}label{display:block;margin:8px 0;padding:10px;border:1px solid #ddd;border-radius:6px}.btn{padding:10px 18px;border-radius:6px;border:0;margin-right:8px;font-size:15px}.primary{background:#0061fe;color:#fff}.secondary{background:#eee}ul{padding-left:18px}";

function redirectWith(reply: FastifyReply, redirectUri: string, fields: Record<string, string>) {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(fields)) u.searchParams.set(k, v);
  return reply.redirect(u.toString(), 302);
}

function oauthError(reply: FastifyReply, status: number, error: string, description: string) {
  return reply.code(status).send({ error, error_description: description });
}

/** Client authentication: the form's client_id/client_secret, or HTTP Basic. */
function clientOf(req: FastifyRequest, body: Record<string, string>) {
  const basic = /^Basic\s+(.+)$/i.exec(String(req.headers.authorization ?? ""));
  if (basic) {
    const [id, secret] = Buffer.from(basic[1]!, "base64").toString().split(":");
    return { id, secret };
  }
  return { id: body.client_id, secret: body.client_secret };
}

/** Dropbox OAuth 2: the consent page, the token endpoint (code, refresh, PKCE) and revoke. */
export function registerDropboxOAuth(app: FastifyInstance, ctx: Ctx): void {
  app.get("/www.dropbox.com/oauth2/authorize", async (req, reply) => {
    const q = params(req);
    if (q.client_id !== D.appKey) {
      return reply.code(400).type("text/plain").send("Invalid client_id.");
    }
    if (q.response_type !== "code" || !q.redirect_uri) {
      return reply.code(400).type("text/plain").send("Invalid redirect_uri or response_type.");
    }
    const accounts = Object.values(dropboxState(ctx).accounts);
    const scopes = (q.scope ?? "").split(/\s+/).filter(Boolean);
    return reply.type("text/html").send(
      page(
        "API Request Authorization - Dropbox",
        CSS,
        `<main><h1>Keepsake would like access to its own folder, Apps › Keepsake, inside your Dropbox</h1>
<form method="post" action="/www.dropbox.com/oauth2/authorize">${hidden({
          client_id: q.client_id,
          redirect_uri: q.redirect_uri,
          state: q.state,
          scope: q.scope,
          token_access_type: q.token_access_type,
          code_challenge: q.code_challenge,
          code_challenge_method: q.code_challenge_method,
        })}
${accounts
  .map(
    (a, i) =>
      `<label><input type="radio" name="account" value="${h(a.accountId)}"${i === 0 ? " checked" : ""}> ${h(a.name)} (${h(a.email)})</label>`,
  )
  .join("")}
<p>Keepsake will be able to:</p><ul>${(scopes.length ? scopes : ["files.content.write", "files.content.read"]).map((s) => `<li>${h(s)}</li>`).join("")}</ul>
<button class="btn primary" name="decision" value="allow" type="submit">Allow</button>
<button class="btn secondary" name="decision" value="cancel" type="submit">Cancel</button></form></main>`,
      ),
    );
  });

  app.post("/www.dropbox.com/oauth2/authorize", async (req, reply) => {
    const b = (req.body ?? {}) as Record<string, string>;
    if (!b.redirect_uri) return reply.code(400).type("text/plain").send("Missing redirect_uri.");
    const state: Record<string, string> = b.state ? { state: b.state } : {};
    if (b.decision !== "allow") {
      return redirectWith(reply, b.redirect_uri, {
        error: "access_denied",
        error_description: "The user chose not to give your app access to their Dropbox account.",
        ...state,
      });
    }
    const account = dropboxState(ctx).accounts[b.account ?? ""];
    if (!account) return reply.code(400).type("text/plain").send("Choose an account.");
    const scopes = (b.scope || "files.content.write files.content.read")
      .split(/\s+/)
      .filter(Boolean);
    const code = issueCode(
      ctx,
      "dropbox",
      account.accountId,
      D.appKey,
      b.redirect_uri,
      scopes,
      600,
      {
        offline: b.token_access_type === "offline",
      },
    );
    if (b.code_challenge) {
      (code as unknown as Record<string, string>).challenge =
        `${b.code_challenge_method ?? "plain"}:${b.code_challenge}`;
    }
    ctx.changed();
    return redirectWith(reply, b.redirect_uri, { code: code.code, ...state });
  });

  // The SDK's refresh call says JSON and sends no body (its parameters are in the query).
  app.register(async (scope) => {
    scope.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => {
      try {
        done(null, body ? JSON.parse(String(body)) : {});
      } catch {
        done(null, {});
      }
    });
    scope.post("/api.dropboxapi.com/oauth2/token", token);
  });

  async function token(req: FastifyRequest, reply: FastifyReply) {
    if (!(await ctx.enter(req, reply, "dropbox.token"))) return reply;
    // Dropbox takes the parameters in the form body or, as its SDK sends them, the query.
    const b = params(req);
    const client = clientOf(req, b);
    if (client.id !== D.appKey)
      return oauthError(reply, 400, "invalid_client", "Invalid client_id or client_secret");
    if (b.grant_type === "authorization_code") {
      const code = ctx.state.codes[b.code ?? ""];
      if (code?.provider !== "dropbox" || code.used || code.expiresAt <= ctx.now()) {
        return oauthError(reply, 400, "invalid_grant", "code doesn't exist or has expired");
      }
      const challenge = (code as unknown as Record<string, string>).challenge;
      if (challenge) {
        const [method, expected] = challenge.split(":");
        const verifier = b.code_verifier ?? "";
        const got =
          method === "S256" ? createHash("sha256").update(verifier).digest("base64url") : verifier;
        if (got !== expected)
          return oauthError(reply, 400, "invalid_grant", "invalid code verifier");
      } else if (client.secret !== D.appSecret) {
        return oauthError(reply, 400, "invalid_client", "Invalid client_id or client_secret");
      }
      if (code.redirectUri !== b.redirect_uri) {
        return oauthError(reply, 400, "invalid_grant", "redirect_uri mismatch");
      }
      code.used = true;
      const access = issueToken(
        ctx,
        "dropbox",
        "access",
        code.subject,
        D.appKey,
        code.scopes,
        ACCESS_TTL,
      );
      const refresh = code.offline
        ? issueToken(ctx, "dropbox", "refresh", code.subject, D.appKey, code.scopes, null)
        : null;
      if (refresh) access.parent = refresh.token;
      return reply.send({
        access_token: access.token,
        token_type: "bearer",
        expires_in: ACCESS_TTL,
        ...(refresh ? { refresh_token: refresh.token } : {}),
        scope: code.scopes.join(" "),
        uid: code.subject.replace(/\D/g, "").slice(0, 10),
        account_id: code.subject,
      });
    }
    if (b.grant_type === "refresh_token") {
      const refresh = ctx.state.tokens[b.refresh_token ?? ""];
      if (refresh?.provider !== "dropbox" || refresh.kind !== "refresh" || refresh.revoked) {
        return oauthError(reply, 400, "invalid_grant", "refresh token is invalid or revoked");
      }
      if (client.secret !== undefined && client.secret !== D.appSecret) {
        return oauthError(reply, 400, "invalid_client", "Invalid client_id or client_secret");
      }
      const access = issueToken(
        ctx,
        "dropbox",
        "access",
        refresh.subject,
        D.appKey,
        refresh.scopes,
        ACCESS_TTL,
        {
          parent: refresh.token,
        },
      );
      return reply.send({
        access_token: access.token,
        token_type: "bearer",
        expires_in: ACCESS_TTL,
      });
    }
    return oauthError(
      reply,
      400,
      "unsupported_grant_type",
      `grant_type "${b.grant_type}" is not supported`,
    );
  }

  // Revoking the access token ends the grant: its refresh token too.
  app.post("/api.dropboxapi.com/2/auth/token/revoke", async (req, reply) => {
    if (!accountOf(ctx, req, reply)) return reply;
    const token =
      ctx.state.tokens[String(req.headers.authorization ?? "").replace(/^Bearer\s+/i, "")];
    if (token) {
      token.revoked = { subcode: 0, message: "revoked" };
      const parent = token.parent ? ctx.state.tokens[token.parent] : undefined;
      if (parent) parent.revoked = { subcode: 0, message: "revoked" };
      ctx.changed();
    }
    return reply.type("application/json").send("null");
  });
}
