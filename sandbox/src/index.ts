import { rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import formbody from "@fastify/formbody";
import Fastify from "fastify";
import { Ctx, type SandboxOptions } from "./context.ts";
import { seedState } from "./demo/index.ts";
import { MailSink, registerMail } from "./mail.ts";
import { addPosts } from "./routes/control/index.ts";
import { canonicalGraphUrl } from "./routes/graph/index.ts";
import { registerAll } from "./routes/register.ts";
import { Store } from "./state.ts";

export type { SandboxOptions } from "./context.ts";
export { SANDBOX_CREDENTIALS, SANDBOX_PRICE_AMOUNTS, SANDBOX_PRICES } from "./credentials.ts";
export { DEMO_FB, DEMO_GOOGLE, DEMO_IG } from "./demo/index.ts";
export type { SandboxMail } from "./mail.ts";
export { DEMO_DROPBOX } from "./routes/dropbox/index.ts";
export { DEMO_ONEDRIVE } from "./routes/onedrive/index.ts";

export interface SandboxUrls {
  instagramWww: string;
  instagramApi: string;
  instagramGraph: string;
  facebookWww: string;
  facebookGraph: string;
  googleAccounts: string;
  googleOauth2: string;
  googleOpenid: string;
  googleApis: string;
  stripeApi: string;
  driveBrowser: string;
  /** The S3-compatible store's endpoint (path-style: `{s3}/{bucket}/{key}`). */
  s3: string;
  control: string;
  /** The inbox page of the sandbox's SMTP server. */
  mail: string;
  /** Where Keepsake sends mail in sandbox mode (`SMTP_URL`). */
  smtp: string;
}

export interface Sandbox {
  url: string;
  port: number;
  /** Base URL per emulated host (no trailing slash). */
  urls: SandboxUrls;
  /** Restores the seeded demo state, clock and fault controls. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const store = new Store(options.dataDir, () => seedState(Date.now()));
  const ctx = new Ctx(store, options);
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: 64 * 1024 * 1024,
    forceCloseConnections: true,
    rewriteUrl: (req) => canonicalGraphUrl(req.url ?? "/"),
  });
  await app.register(formbody);
  const host = options.host ?? "127.0.0.1";
  // The SMTP server on loopback: every message Keepsake sends in sandbox mode lands here.
  const mail = new MailSink();
  const smtpPort = await mail.listen(options.smtpPort ?? 0, host);
  registerAll(app, ctx);
  registerMail(app, ctx, mail);
  await app.listen({ port: options.port ?? 8090, host });
  const port = (app.server.address() as AddressInfo).port;
  const url =
    options.publicUrl?.replace(/\/$/, "") ??
    `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  let timer: NodeJS.Timeout | undefined;
  if (options.demoTimer) {
    timer = setInterval(
      () => {
        const business = Object.values(ctx.state.igAccounts)[0];
        if (business) addPosts(ctx, business, 1);
      },
      (options.demoTimerSeconds ?? 120) * 1000,
    );
    timer.unref();
  }

  return {
    url,
    port,
    urls: {
      instagramWww: `${url}/www.instagram.com`,
      instagramApi: `${url}/api.instagram.com`,
      instagramGraph: `${url}/graph.instagram.com`,
      facebookWww: `${url}/www.facebook.com`,
      facebookGraph: `${url}/graph.facebook.com`,
      googleAccounts: `${url}/accounts.google.com`,
      googleOauth2: `${url}/oauth2.googleapis.com`,
      googleOpenid: `${url}/openidconnect.googleapis.com`,
      googleApis: `${url}/www.googleapis.com`,
      stripeApi: url,
      driveBrowser: `${url}/drive`,
      s3: `${url}/s3`,
      control: `${url}/_control`,
      mail: `${url}/mail`,
      smtp: `smtp://${host.includes(":") ? `[${host}]` : host}:${smtpPort}`,
    },
    async reset() {
      await ctx.reset();
    },
    async close() {
      if (timer) clearInterval(timer);
      await app.close();
      await mail.close();
      ctx.stop();
      store.saveNow();
      if (!options.dataDir) rmSync(ctx.blobDir, { recursive: true, force: true });
    },
  };
}
