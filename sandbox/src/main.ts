import { resolve } from "node:path";
import { startSandbox } from "./index.ts";

const port = Number(process.env.SANDBOX_PORT ?? 8090);
const dataDir = resolve(process.env.SANDBOX_DATA_DIR ?? "./data/sandbox");
const sandbox = await startSandbox({
  port,
  host: process.env.SANDBOX_HOST ?? "127.0.0.1",
  dataDir,
  smtpPort: Number(process.env.SANDBOX_SMTP_PORT ?? 8025),
  publicUrl: process.env.SANDBOX_PUBLIC_URL,
  stripeWebhookUrl: process.env.SANDBOX_STRIPE_WEBHOOK_URL,
  demoTimer: process.env.SANDBOX_DEMO_TIMER !== "0",
  largeVideoBytes: process.env.SANDBOX_LARGE_VIDEO_BYTES
    ? Number(process.env.SANDBOX_LARGE_VIDEO_BYTES)
    : undefined,
});
console.log(`Keepsake provider sandbox on ${sandbox.url} (data: ${dataDir})`);
console.log(
  `  consent screens: ${sandbox.url}/  ·  drive browser: ${sandbox.url}/drive  ·  mail: ${sandbox.urls.mail} (SMTP ${sandbox.urls.smtp})  ·  control: ${sandbox.url}/_control`,
);
const stop = async () => {
  await sandbox.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
