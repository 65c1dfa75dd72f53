import { createPublicKey } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { jpeg } from "../../images.ts";
import { hashString } from "../../prng.ts";
import { registerAuthorize } from "./authorize.ts";
import { avatarUrl, EMAIL_SCOPE, googleAccess, PROFILE_SCOPE, signingKey } from "./common.ts";
import { registerTokenEndpoints } from "./oauth.ts";

export { DRIVE_FILE_SCOPE, googleAccess, normalizeScopes } from "./common.ts";

export function registerGoogle(app: FastifyInstance, ctx: Ctx): void {
  app.get("/accounts.google.com/.well-known/openid-configuration", async (req, reply) => {
    const base = ctx.baseUrl(req);
    return reply.send({
      issuer: "https://accounts.google.com",
      authorization_endpoint: `${base}/accounts.google.com/o/oauth2/v2/auth`,
      token_endpoint: `${base}/oauth2.googleapis.com/token`,
      userinfo_endpoint: `${base}/openidconnect.googleapis.com/v1/userinfo`,
      revocation_endpoint: `${base}/oauth2.googleapis.com/revoke`,
      jwks_uri: `${base}/www.googleapis.com/oauth2/v3/certs`,
      response_types_supported: ["code"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
      scopes_supported: ["openid", "email", "profile"],
      token_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
      claims_supported: [
        "aud",
        "email",
        "email_verified",
        "exp",
        "family_name",
        "given_name",
        "iat",
        "iss",
        "name",
        "picture",
        "sub",
      ],
      code_challenge_methods_supported: ["plain", "S256"],
      grant_types_supported: ["authorization_code", "refresh_token"],
    });
  });

  // Cross-Account Protection (RISC): the issuer of its security event tokens and their keys.
  app.get("/accounts.google.com/.well-known/risc-configuration", async (req, reply) => {
    const base = ctx.baseUrl(req);
    return reply.send({
      issuer: "https://accounts.google.com/",
      jwks_uri: `${base}/www.googleapis.com/oauth2/v3/certs`,
      delivery_methods_supported: ["https://schemas.openid.net/secevent/risc/delivery-method/push"],
      add_subject_endpoint: `${base}/risc.googleapis.com/v1beta/subjects:add`,
      remove_subject_endpoint: `${base}/risc.googleapis.com/v1beta/subjects:remove`,
    });
  });

  app.get("/www.googleapis.com/oauth2/v3/certs", async (_req, reply) => {
    const key = signingKey(ctx);
    const jwk = createPublicKey(key.publicPem).export({ format: "jwk" });
    return reply.send({ keys: [{ ...jwk, alg: "RS256", use: "sig", kid: key.kid }] });
  });

  registerAuthorize(app, ctx);
  registerTokenEndpoints(app, ctx);

  const userinfo = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!(await ctx.enter(req, reply, "google.userinfo"))) return reply;
    const access = googleAccess(ctx, req);
    if (!access.ok) {
      return reply
        .code(401)
        .header(
          "www-authenticate",
          'Bearer realm="https://accounts.google.com/", error="invalid_token"',
        )
        .send({ error: "invalid_request", error_description: "Invalid Credentials" });
    }
    const { user, token } = access;
    const body: Record<string, unknown> = { sub: user.sub };
    if (token.scopes.includes(PROFILE_SCOPE) || token.scopes.includes("openid")) {
      Object.assign(body, {
        name: user.name,
        given_name: user.givenName,
        family_name: user.familyName,
        picture: avatarUrl(ctx.baseUrl(req), user),
      });
    }
    if (token.scopes.includes(EMAIL_SCOPE))
      Object.assign(body, { email: user.email, email_verified: true });
    return reply.send(body);
  };
  app.get("/openidconnect.googleapis.com/v1/userinfo", userinfo);
  app.post("/openidconnect.googleapis.com/v1/userinfo", userinfo);
  app.get("/www.googleapis.com/oauth2/v3/userinfo", userinfo);

  app.get("/lh3.googleusercontent.com/a/:id", async (req, reply) => {
    const id = (req.params as { id: string }).id.split("=")[0]!;
    const data = await jpeg(96, 96, hashString(id));
    return reply.type("image/jpeg").header("cache-control", "max-age=86400").send(data);
  });
}
