import { loadSecrets } from "../../src/lib/secrets.ts";
import { createTestApp, type TestApp } from "./app.ts";

/**
 * `n` more Keepsake apps on `t`'s database, each with its own pool of connections (as separate
 * processes would have), to race `t` for what must happen once: claims, locks, limits. `env`
 * is their configuration (give them `t`'s). They never close `t`'s database.
 */
export async function peerApps(
  t: TestApp,
  n: number,
  env: Record<string, string> = {},
): Promise<{ apps: TestApp[]; close(): Promise<void> }> {
  const secrets = loadSecrets(t.ctx.config);
  const apps = await Promise.all(
    Array.from({ length: n }, () =>
      createTestApp(
        {
          // The same secrets, as every process of one deployment has.
          JWT_SECRET: Buffer.from(secrets.jwtSecret).toString(),
          ENCRYPTION_KEY: secrets.encryptionKey.toString("hex"),
          ...env,
        },
        {
          database: { ...t.database, close: async () => {} },
          providers: t.ctx.config.providers,
        },
      ),
    ),
  );
  return {
    apps,
    close: async () => {
      await Promise.all(apps.map((a) => a.close()));
    },
  };
}
