import {
  SANDBOX_CREDENTIALS,
  type Sandbox,
  type SandboxOptions,
  startSandbox,
} from "@keepsake/sandbox";
import { sandboxProviders } from "../../src/config.ts";
import type { ContextDeps } from "../../src/context.ts";
import { createTestApp, type TestApp } from "./app.ts";
import type { TestDatabase } from "./database.ts";

export interface SandboxedApp extends TestApp {
  sandbox: Sandbox;
  /** Walks a consent page like a browser: submits it and answers where it redirects. */
  consent(authUrl: string, fields: Record<string, string>): Promise<URL>;
  /** Follows a provider redirect into Keepsake's GET callback; answers the dashboard URL. */
  land(callback: URL): Promise<URL>;
  /** Connects an Instagram account through Instagram Login: consent, then the callback. */
  connectInstagram(token: string, account: string): Promise<URL>;
  /** Connects Google Drive as the sandbox's Google user `sub`, granting drive.file. */
  connectDrive(token: string, sub: string): Promise<URL>;
}

/** A Keepsake test app whose providers are a sandbox started for the test file. */
export async function createSandboxedApp(
  env: Record<string, string> | ((sandboxUrl: string) => Record<string, string>) = {},
  options: {
    sandbox?: SandboxOptions;
    engineSettings?: ContextDeps["engineSettings"];
    log?: ContextDeps["log"];
    database?: TestDatabase;
    jobs?: ContextDeps["jobs"];
  } = {},
): Promise<SandboxedApp> {
  const { sandbox: sandboxOptions, ...appOptions } = options;
  const sandbox = await startSandbox({ port: 0, ...sandboxOptions });
  const given = typeof env === "function" ? env(sandbox.url) : env;
  // Mail goes to the sandbox's SMTP server, as in sandbox mode.
  const t = await createTestApp(
    { SMTP_URL: sandbox.urls.smtp, ...given },
    {
      providers: sandboxProviders(sandbox.url, SANDBOX_CREDENTIALS),
      ...appOptions,
    },
  );
  const app: SandboxedApp = {
    ...t,
    sandbox,
    async consent(authUrl, fields) {
      const res = await fetch(authUrl, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
        redirect: "manual",
      });
      const location = res.headers.get("location");
      if (res.status !== 302 || !location) {
        throw new Error(`consent page answered ${res.status}: ${await res.text()}`);
      }
      return new URL(location);
    },
    async land(callback) {
      const res = await t.call("GET", `${callback.pathname}${callback.search}`);
      if (res.status !== 302) throw new Error(`callback answered ${res.status}`);
      return new URL(String(res.headers.location), "http://keepsake.test");
    },
    async connectInstagram(token, account) {
      const res = await t.call("GET", "/api/oauth/instagram/login?account_type=business", {
        token,
      });
      if (res.status !== 200) throw new Error(`Instagram login answered ${res.status}`);
      return app.land(await app.consent(res.body.auth_url, { decision: "allow", account }));
    },
    async connectDrive(token, sub) {
      const res = await t.call("GET", "/api/oauth/google/auth-url", { token });
      if (res.status !== 200) throw new Error(`Google auth URL answered ${res.status}`);
      const fields = { decision: "allow", authuser: sub, drive_file: "on" };
      return app.land(await app.consent(res.body.auth_url, fields));
    },
    async close() {
      await t.close();
      await sandbox.close();
    },
  };
  return app;
}
