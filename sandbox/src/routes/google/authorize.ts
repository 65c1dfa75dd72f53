import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { googleChooser, googleConsent, providerError } from "../../pages.ts";
import { issueCode } from "../../tokens.ts";
import { form, isHttpUrl, params, withParams } from "../../util.ts";
import { DRIVE_FILE_SCOPE, G, normalizeScopes, SIGN_IN_TEXT } from "./common.ts";

/** Google's sign-in: account chooser, then consent, then the redirect with a code. */
export function registerAuthorize(app: FastifyInstance, ctx: Ctx): void {
  const authorize = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!(await ctx.enter(req, reply, "google.authorize"))) return reply;
    const p = params(req);
    const html = (status: number, title: string, message: string) =>
      reply
        .code(status)
        .type("text/html")
        .send(providerError("google", title, message));
    if (p.client_id !== G.clientId)
      return html(
        401,
        "Access blocked: Authorization Error",
        "Error 401: invalid_client — The OAuth client was not found.",
      );
    if (!isHttpUrl(p.redirect_uri))
      return html(
        400,
        "Access blocked: This app's request is invalid",
        "Error 400: redirect_uri_mismatch",
      );
    const scopes = normalizeScopes(p.scope);
    if (scopes.length === 0)
      return html(
        400,
        "Access blocked: Authorization Error",
        "Error 400: invalid_request — Missing required parameter: scope",
      );
    if (p.response_type !== "code")
      return html(
        400,
        "Access blocked: Authorization Error",
        "Error 400: invalid_request — response_type must be code",
      );
    const users = Object.values(ctx.state.googleUsers);
    const chosen = users.find(
      (u) => u.sub === p.authuser || u.email === p.login_hint || u.email === p.authuser,
    );
    const passThrough = {
      client_id: p.client_id,
      redirect_uri: p.redirect_uri,
      response_type: p.response_type,
      scope: p.scope,
      state: p.state,
      access_type: p.access_type,
      prompt: p.prompt,
      include_granted_scopes: p.include_granted_scopes,
      login_hint: p.login_hint,
    };
    if (req.method === "GET") {
      if (!chosen) {
        const accounts = users.map((u) => {
          const u2 = new URL(`${ctx.baseUrl(req)}/accounts.google.com/o/oauth2/v2/auth`);
          for (const [k, v] of Object.entries(passThrough))
            if (v !== undefined) u2.searchParams.set(k, v);
          u2.searchParams.set("authuser", u.sub);
          return { email: u.email, name: u.name, href: `${u2.pathname}${u2.search}` };
        });
        return reply.type("text/html").send(googleChooser({ appName: "Keepsake", accounts }));
      }
      const required = scopes.filter((s) => SIGN_IN_TEXT[s]).map((s) => SIGN_IN_TEXT[s]!);
      return reply.type("text/html").send(
        googleConsent({
          action: "/accounts.google.com/o/oauth2/v2/auth",
          appName: "Keepsake",
          account: chosen,
          fields: { ...passThrough, authuser: chosen.sub },
          requiredScopes: required,
          driveRequested: scopes.includes(DRIVE_FILE_SCOPE),
        }),
      );
    }
    const f = form(req);
    if (f.decision !== "allow" || !chosen) {
      return reply.redirect(withParams(p.redirect_uri, { error: "access_denied", state: p.state }));
    }
    let granted = scopes.filter((s) => s !== DRIVE_FILE_SCOPE || f.drive_file === "on");
    const grantKey = `${chosen.sub}|${G.clientId}`;
    if (p.include_granted_scopes === "true") {
      for (const s of ctx.state.googleGrants[grantKey] ?? [])
        if (!granted.includes(s)) granted.push(s);
    }
    granted = granted.sort();
    ctx.state.googleGrants[grantKey] = granted;
    const code = issueCode(ctx, "google", chosen.sub, G.clientId, p.redirect_uri, granted, 600, {
      offline: p.access_type === "offline",
    });
    return reply.redirect(
      withParams(p.redirect_uri, {
        state: p.state,
        code: code.code,
        scope: granted.join(" "),
        authuser: "0",
        prompt: "consent",
      }),
    );
  };
  app.get("/accounts.google.com/o/oauth2/v2/auth", authorize);
  app.post("/accounts.google.com/o/oauth2/v2/auth", authorize);
  app.get("/accounts.google.com/o/oauth2/auth", authorize);
}
