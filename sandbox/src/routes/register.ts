import type { FastifyInstance } from "fastify";
import type { Ctx } from "../context.ts";
import { SANDBOX_CREDENTIALS } from "../credentials.ts";
import { seedState } from "../demo/index.ts";
import { page } from "../pages.ts";
import { escapeHtml as h } from "../util.ts";
import { registerCdn } from "./cdn.ts";
import { clearBlobs, registerControl } from "./control/index.ts";
import { registerDrive } from "./drive/index.ts";
import { registerDriveBrowser } from "./drive-browser.ts";
import { registerDropbox } from "./dropbox/index.ts";
import { registerExport } from "./export.ts";
import { registerGoogle } from "./google/index.ts";
import { registerMeta } from "./meta.ts";
import { registerOneDrive } from "./onedrive/index.ts";
import { registerS3 } from "./s3/index.ts";
import { registerStripe } from "./stripe/index.ts";

export function registerAll(app: FastifyInstance, ctx: Ctx): void {
  registerCdn(app, ctx);
  registerMeta(app, ctx);
  registerGoogle(app, ctx);
  registerDrive(app, ctx);
  const stripe = registerStripe(app, ctx);
  registerControl(app, ctx, stripe);
  registerDriveBrowser(app, ctx);
  registerExport(app, ctx);
  registerS3(app, ctx);
  registerDropbox(app, ctx);
  registerOneDrive(app, ctx);

  ctx.resetHooks.push(() => {
    stripe.stop();
    ctx.store.state = seedState(Date.now());
    clearBlobs(ctx.blobDir);
    ctx.store.saveNow();
  });
  ctx.stopHooks.push(() => stripe.stop());

  app.get("/", async (req, reply) => {
    const base = ctx.baseUrl(req);
    const cb = `${base}/_control/echo`;
    const links = [
      [
        "Instagram Login",
        `/www.instagram.com/oauth/authorize?client_id=${SANDBOX_CREDENTIALS.instagram.clientId}&redirect_uri=${encodeURIComponent(cb)}&response_type=code&scope=instagram_business_basic&state=demo`,
      ],
      [
        "Facebook Login",
        `/www.facebook.com/v25.0/dialog/oauth?client_id=${SANDBOX_CREDENTIALS.facebook.appId}&redirect_uri=${encodeURIComponent(cb)}&response_type=code&scope=instagram_basic,pages_show_list,pages_read_engagement&state=demo`,
      ],
      [
        "Google sign-in + Drive",
        `/accounts.google.com/o/oauth2/v2/auth?client_id=${encodeURIComponent(SANDBOX_CREDENTIALS.google.clientId)}&redirect_uri=${encodeURIComponent(cb)}&response_type=code&scope=${encodeURIComponent("openid email https://www.googleapis.com/auth/drive.file")}&access_type=offline&prompt=consent&include_granted_scopes=true&state=demo`,
      ],
      ["Drive browser", "/drive"],
      ["Apps and websites: remove Keepsake as a demo person would", "/apps"],
      ["Dropbox app folders", "/dropbox"],
      ["OneDrive app folders", "/onedrive"],
      ["S3 buckets", "/s3-browser"],
      ["Instagram data exports (Download your information)", "/export"],
      ["Control API: demo accounts", "/_control/accounts"],
      ["Control API: drive files", "/_control/drive/files"],
    ];
    return reply.type("text/html").send(
      page(
        "Keepsake provider sandbox",
        "body{font-family:system-ui,sans-serif;max-width:720px;margin:40px auto;padding:0 16px;color:#222}a{color:#0b57d0}li{margin:8px 0}",
        `<h1>Keepsake provider sandbox</h1><p>Emulates Instagram, Facebook, Google (OAuth + Drive) and Stripe for Keepsake's sandbox mode. Try a consent screen:</p>
<ul>${links.map(([t, u]) => `<li><a href="${h(u!)}">${h(t!)}</a></li>`).join("")}</ul>`,
      ),
    );
  });

  app.get("/_control/echo", async (req) => ({ received: req.query }));

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send({
      error: "not_found",
      message: `The sandbox does not emulate ${req.method} ${req.url.split("?")[0]}`,
    });
  });
  app.setErrorHandler(
    (error: { statusCode?: number; message: string; code?: string }, req, reply) => {
      const status =
        error.statusCode && error.statusCode >= 400 && error.statusCode < 600
          ? error.statusCode
          : 500;
      if (status >= 500) req.log.error(error);
      reply.code(status).send({ error: error.code ?? "sandbox_error", message: error.message });
    },
  );
}
