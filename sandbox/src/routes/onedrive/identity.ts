import type { FastifyInstance, FastifyReply } from "fastify";
import type { Ctx } from "../../context.ts";
import { SANDBOX_CREDENTIALS } from "../../credentials.ts";
import { hidden, page } from "../../pages.ts";
import { issueCode, issueToken } from "../../tokens.ts";
import { escapeHtml as h, params } from "../../util.ts";
import { onedriveState } from "./common.ts";

const M = SANDBOX_CREDENTIALS.microsoft;
const ACCESS_TTL = 3599;
const CSS =
  "body{font-family:'Segoe UI',system-ui,sans-serif;background:#f2f2f2}main{max-width:440px;margin:60px auto;background:#fff;padding:44px;box-shadow:0 2px 6px rgba(0,0,0,.2)}h1{font-size:24px;font-weight:600}label{display:block;margin:8px 0}.btn{padding:6px 24px;margin-right:8px;border:0}.primary{background:#0067b8;color:#fff}.secondary{background:#ccc}";

function aadError(
  reply: FastifyReply,
  status: number,
  error: string,
  code: number,
  description: string,
) {
  return reply.code(status).send({
    error,
    error_description: `AADSTS${code}: ${description}`,
    error_codes: [code],
    timestamp: new Date().toISOString(),
  });
}

/** Microsoft identity platform v2.0 (`/login.microsoftonline.com/{tenant}/oauth2/v2.0/…`). */
export function registerMicrosoftIdentity(app: FastifyInstance, ctx: Ctx): void {
  const base = "/login.microsoftonline.com/:tenant/oauth2/v2.0";
  app.get(`${base}/authorize`, async (req, reply) => {
    const q = params(req);
    if (q.client_id !== M.clientId) {
      return reply
        .code(400)
        .type("text/plain")
        .send(`AADSTS700016: Application with identifier '${q.client_id}' was not found.`);
    }
    const users = Object.values(onedriveState(ctx).users);
    const scopes = (q.scope ?? "").split(/\s+/).filter(Boolean);
    return reply.type("text/html").send(
      page(
        "Sign in to your account",
        CSS,
        `<main><h1>Let this app access your info?</h1><p>Keepsake needs your permission to:</p><ul>${scopes.map((s) => `<li>${h(s)}</li>`).join("")}</ul>
<form method="post" action="${h(req.url.split("?")[0]!)}">${hidden({ ...q })}
${users.map((u, i) => `<label><input type="radio" name="account" value="${h(u.id)}"${i === 0 ? " checked" : ""}> ${h(u.name)} (${h(u.email)})</label>`).join("")}
<button class="btn primary" name="decision" value="allow" type="submit">Accept</button>
<button class="btn secondary" name="decision" value="cancel" type="submit">Cancel</button></form></main>`,
      ),
    );
  });

  app.post(`${base}/authorize`, async (req, reply) => {
    const b = params(req);
    if (!b.redirect_uri) return reply.code(400).type("text/plain").send("redirect_uri is missing");
    const u = new URL(b.redirect_uri);
    if (b.state) u.searchParams.set("state", b.state);
    if (b.decision !== "allow") {
      u.searchParams.set("error", "access_denied");
      u.searchParams.set(
        "error_description",
        "The user has denied access to the scope requested by the client application.",
      );
      return reply.redirect(u.toString(), 302);
    }
    const user = onedriveState(ctx).users[b.account ?? ""];
    if (!user) return reply.code(400).type("text/plain").send("Choose an account.");
    const scopes = (b.scope ?? "").split(/\s+/).filter(Boolean);
    const code = issueCode(ctx, "microsoft", user.id, M.clientId, b.redirect_uri, scopes, 600, {
      offline: scopes.includes("offline_access"),
    });
    u.searchParams.set("code", code.code);
    return reply.redirect(u.toString(), 302);
  });

  app.post(`${base}/token`, async (req, reply) => {
    if (!(await ctx.enter(req, reply, "onedrive.token"))) return reply;
    const b = params(req);
    if (b.client_id !== M.clientId || b.client_secret !== M.clientSecret) {
      return aadError(reply, 401, "invalid_client", 7000215, "Invalid client secret provided.");
    }
    const grant = (subject: string, scopes: string[], offline: boolean) => {
      const refresh = offline
        ? issueToken(ctx, "microsoft", "refresh", subject, M.clientId, scopes, 90 * 86_400)
        : null;
      const access = issueToken(
        ctx,
        "microsoft",
        "access",
        subject,
        M.clientId,
        scopes,
        ACCESS_TTL,
        refresh ? { parent: refresh.token } : {},
      );
      return reply.send({
        token_type: "Bearer",
        scope: scopes.filter((s) => s !== "offline_access").join(" "),
        expires_in: ACCESS_TTL,
        ext_expires_in: ACCESS_TTL,
        access_token: access.token,
        ...(refresh ? { refresh_token: refresh.token } : {}),
      });
    };
    if (b.grant_type === "authorization_code") {
      const code = ctx.state.codes[b.code ?? ""];
      if (code?.provider !== "microsoft" || code.used || code.expiresAt <= ctx.now()) {
        return aadError(
          reply,
          400,
          "invalid_grant",
          70000,
          "The provided authorization code is invalid or has expired.",
        );
      }
      if (code.redirectUri !== b.redirect_uri) {
        return aadError(
          reply,
          400,
          "invalid_grant",
          50148,
          "The redirect URI does not match the one used to obtain the code.",
        );
      }
      code.used = true;
      return grant(code.subject, code.scopes, code.offline === true);
    }
    if (b.grant_type === "refresh_token") {
      const refresh = ctx.state.tokens[b.refresh_token ?? ""];
      if (
        refresh?.provider !== "microsoft" ||
        refresh.kind !== "refresh" ||
        refresh.revoked ||
        (refresh.expiresAt !== null && refresh.expiresAt <= ctx.now())
      ) {
        return aadError(
          reply,
          400,
          "invalid_grant",
          700082,
          "The refresh token has expired or was revoked.",
        );
      }
      // Microsoft rotates refresh tokens: the new grant answers a new one.
      return grant(refresh.subject, refresh.scopes, true);
    }
    return aadError(
      reply,
      400,
      "unsupported_grant_type",
      70003,
      `The grant type '${b.grant_type}' is not supported.`,
    );
  });
}
