import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";
import { SANDBOX_CREDENTIALS } from "../sandbox/src/credentials.ts";
import { freePort } from "./free-port.ts";
import { check, exited, signal, smokeProcesses, until } from "./smoke-processes.ts";
import { ROOT } from "./web-build.ts";

/** The image's build steps, in order (Dockerfile, build stage). */
export const BUILD_STEPS = [
  "npm ci --no-audit --no-fund --prefer-offline",
  "npm run build",
  "npm run build:server",
  "npm prune --omit=dev --no-audit --no-fund",
];
/** The image's commands per role (Dockerfile CMD, compose.yaml `command`). */
export const ROLE_COMMANDS = {
  migrate: ["node", "apps/server/dist/main.js", "migrate"],
  api: ["node", "--max-semi-space-size=4", "apps/server/dist/main.js", "api"],
  worker: ["node", "--max-semi-space-size=1", "--max-opt=2", "apps/server/dist/main.js", "worker"],
} as const;

const INSTAGRAM_ACCOUNT = { id: "8410000000000002", username: "maya.creates" };
const GOOGLE_USER = { sub: "104000000000000000002", email: "maya.chen@example.com" };

const timeoutSeconds = Number(process.env.SMOKE_TIMEOUT_SECONDS ?? 900);
const started = Date.now();
const step = (what: string) =>
  console.log(`  [${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${what}`);

// ---- PostgreSQL, or skip ------------------------------------------------------------------

const serverUrl = process.env.TEST_DATABASE_URL;
async function answers(url: string) {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}
if (!serverUrl || !(await answers(serverUrl))) {
  console.log(
    `Production smoke test skipped: ${serverUrl ? `no PostgreSQL server answers at ${serverUrl}` : "TEST_DATABASE_URL is not set"} (it needs a PostgreSQL server; none was started).`,
  );
  process.exit(0);
}

// ---- Cleanup, whatever happens ------------------------------------------------------------

const work = mkdtempSync(join(tmpdir(), "keepsake-production-"));
const app = join(work, "app");
const { children, dumpOutputs, sh, start } = smokeProcesses(app);
const database = `keepsake_smoke_${randomBytes(5).toString("hex")}`;
let databaseCreated = false;

async function adminQuery(sql: string) {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}
let cleaning: Promise<void> | null = null;
function cleanup() {
  cleaning ??= (async () => {
    for (const { child } of children) signal(child, "SIGTERM");
    const all = Promise.all(children.map(({ child }) => exited(child)));
    const late = setTimeout(() => {
      for (const { child } of children) signal(child, "SIGKILL");
    }, 15_000);
    await all;
    clearTimeout(late);
    if (databaseCreated) {
      await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((err) =>
        console.error(`Could not drop ${database}: ${(err as Error).message}`),
      );
    }
    rmSync(work, { recursive: true, force: true });
  })();
  return cleaning;
}

const deadline = setTimeout(() => {
  console.error(`✘ Production smoke test timed out after ${timeoutSeconds}s`);
  dumpOutputs();
  cleanup().finally(() => process.exit(1));
}, timeoutSeconds * 1000);
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    cleanup().finally(() => process.exit(130));
  });
}

// ---- The run ------------------------------------------------------------------------------

try {
  console.log(`Production smoke test in ${work}`);

  // 1. A clean copy of the repository: what git tracks (or would track, as not ignored).
  const { execFileSync } = await import("node:child_process");
  const files = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    },
  )
    .split("\0")
    .filter((f) => f && existsSync(join(ROOT, f)));
  for (const f of new Set(files)) {
    mkdirSync(dirname(join(app, f)), { recursive: true });
    cpSync(join(ROOT, f), join(app, f));
  }
  step(`copied ${files.length} files`);

  // The container files must say what this script does.
  const dockerfile = readFileSync(join(app, "Dockerfile"), "utf8");
  const compose = readFileSync(join(app, "compose.yaml"), "utf8");
  for (const s of BUILD_STEPS) check(dockerfile.includes(s), `Dockerfile does not run "${s}"`);
  // And `npm run api|worker` (their node flags: docs/operations.md).
  const scripts = JSON.parse(readFileSync(join(app, "package.json"), "utf8")).scripts;
  for (const [role, command] of Object.entries(ROLE_COMMANDS)) {
    const json = JSON.stringify(command).replaceAll(",", ", ");
    const ran = dockerfile.includes(json) || compose.includes(json);
    check(ran, `neither Dockerfile nor compose.yaml runs the ${role} role as ${json}`);
    const npm = role === "migrate" || String(scripts[role]).endsWith(command.join(" "));
    check(npm, `npm run ${role} does not end in ${command.join(" ")}`);
  }

  // 2. The image's build steps.
  for (const s of BUILD_STEPS) {
    await sh(s);
    step(s);
  }
  for (const dev of ["rolldown", "vitest"])
    check(!existsSync(join(app, "node_modules", dev)), `npm prune --omit=dev left ${dev}`);

  // 3. A standalone sandbox from the development checkout stands in for Meta and Google.
  const sandboxPort = await freePort();
  const sandboxUrl = await start(
    "sandbox",
    [process.execPath, "sandbox/src/main.ts"],
    {
      SANDBOX_PORT: String(sandboxPort),
      SANDBOX_SMTP_PORT: "0",
      SANDBOX_DATA_DIR: join(work, "sandbox"),
      SANDBOX_DEMO_TIMER: "0",
      SANDBOX_LARGE_VIDEO_BYTES: String(3 * 1024 * 1024),
    },
    /provider sandbox on (http:\/\/\S+)/,
    ROOT,
  );
  step(`sandbox on ${sandboxUrl}`);
  const control = async <T>(path: string, body?: unknown) => {
    const res = await fetch(`${sandboxUrl}/_control${path}`, {
      method: body ? "POST" : "GET",
      ...(body
        ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }
        : {}),
    });
    if (!res.ok) throw new Error(`sandbox ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };

  // 4. A fresh database, the one-shot migration, then two APIs and two workers at once.
  await adminQuery(`CREATE DATABASE ${database}`);
  databaseCreated = true;
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const apiPorts = [await freePort(), await freePort()];
  const workerMetricsPort = await freePort();
  const metricsToken = randomBytes(16).toString("hex");
  const common: Record<string, string> = {
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    DATABASE_URL: url.toString(),
    DATABASE_POOL_SIZE: "4",
    JWT_SECRET: randomBytes(32).toString("hex"),
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    HOST: "127.0.0.1",
    METRICS_TOKEN: metricsToken,
    // The public origin (the load balancer's): OAuth redirects come back to it.
    APP_URL: `http://127.0.0.1:${apiPorts[0]}`,
    INSTAGRAM_CLIENT_ID: SANDBOX_CREDENTIALS.instagram.clientId,
    INSTAGRAM_CLIENT_SECRET: SANDBOX_CREDENTIALS.instagram.clientSecret,
    FACEBOOK_APP_ID: SANDBOX_CREDENTIALS.facebook.appId,
    FACEBOOK_APP_SECRET: SANDBOX_CREDENTIALS.facebook.appSecret,
    GOOGLE_CLIENT_ID: SANDBOX_CREDENTIALS.google.clientId,
    GOOGLE_CLIENT_SECRET: SANDBOX_CREDENTIALS.google.clientSecret,
    INSTAGRAM_WWW_URL: `${sandboxUrl}/www.instagram.com`,
    INSTAGRAM_API_URL: `${sandboxUrl}/api.instagram.com`,
    INSTAGRAM_GRAPH_URL: `${sandboxUrl}/graph.instagram.com`,
    FACEBOOK_WWW_URL: `${sandboxUrl}/www.facebook.com`,
    FACEBOOK_GRAPH_URL: `${sandboxUrl}/graph.facebook.com`,
    GOOGLE_ACCOUNTS_URL: `${sandboxUrl}/accounts.google.com`,
    GOOGLE_OAUTH2_URL: `${sandboxUrl}/oauth2.googleapis.com`,
    GOOGLE_OPENID_URL: `${sandboxUrl}/openidconnect.googleapis.com`,
    GOOGLE_APIS_URL: `${sandboxUrl}/www.googleapis.com`,
  };
  const roleEnv = (n: number, extra: Record<string, string> = {}) => ({
    ...common,
    DATA_DIR: join(work, `data-${n}`),
    ...extra,
  });
  const migrate = start("migrate", ROLE_COMMANDS.migrate, roleEnv(0), /Migrations applied/);
  await migrate;
  await exited(children.at(-1)!.child);
  check(children.at(-1)!.child.exitCode === 0, "the migration did not exit 0");
  step("migrated (one-shot)");

  const running = /Keepsake \((?:api|worker)\) is running/;
  await Promise.all([
    start(
      "api 1 (npm run api)",
      ["npm", "run", "api"],
      roleEnv(1, { PORT: String(apiPorts[0]) }),
      running,
    ),
    start("api 2", ROLE_COMMANDS.api, roleEnv(2, { PORT: String(apiPorts[1]) }), running),
    start("worker 1 (npm run worker)", ["npm", "run", "worker"], roleEnv(3), running),
    start(
      "worker 2",
      ROLE_COMMANDS.worker,
      roleEnv(4, { METRICS_PORT: String(workerMetricsPort) }),
      running,
    ),
  ]);
  const apis = apiPorts.map((p) => `http://127.0.0.1:${p}`);
  for (const api of apis) {
    const ready = await fetch(`${api}/api/health/ready`);
    check(ready.status === 200, `${api}/api/health/ready answered ${ready.status}`);
  }
  step("two APIs and two workers running");

  // 5. A user, as a browser would, alternating between the two APIs (a load balancer).
  let turn = 0;
  const call = async (method: string, path: string, token?: string, body?: unknown) => {
    const base = apis[turn++ % apis.length]!;
    const res = await fetch(`${base}${path}`, {
      method,
      redirect: "manual",
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body ? { "content-type": "application/json" } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    // biome-ignore lint/suspicious/noExplicitAny: the script reads answers loosely
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, body: json, location: res.headers.get("location") };
  };
  const email = `smoke.${Date.now()}@example.com`;
  const password = "Passw0rdOk-smoke";
  const registered = await call("POST", "/api/auth/register", undefined, {
    full_name: "Smoke Test",
    email,
    password,
  });
  check(registered.status === 201, `register answered ${registered.status}`);
  const login = await call("POST", "/api/auth/login", undefined, { email, password });
  check(login.status === 200, `login answered ${login.status}`);
  const token = login.body.access_token as string;

  /** The provider's consent page, then its form, then Keepsake's callback on the other API. */
  const consent = async (authUrl: string, fields: Record<string, string>) => {
    const page = await fetch(authUrl);
    check(page.status === 200, `consent page ${authUrl} answered ${page.status}`);
    await page.text();
    const submitted = await fetch(authUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
      redirect: "manual",
    });
    const location = submitted.headers.get("location");
    check(submitted.status === 302 && !!location, `consent form answered ${submitted.status}`);
    const callback = new URL(location!);
    check(callback.origin === common.APP_URL, `redirected to ${callback.origin}, not APP_URL`);
    const landed = await call("GET", `${callback.pathname}${callback.search}`);
    check(landed.status === 302, `callback answered ${landed.status}`);
    check(!/error/.test(landed.location ?? ""), `callback sent the browser to ${landed.location}`);
  };
  const ig = await call("GET", "/api/oauth/instagram/login?account_type=business", token);
  check(ig.status === 200, `Instagram login answered ${ig.status}`);
  await consent(ig.body.auth_url, { decision: "allow", account: INSTAGRAM_ACCOUNT.id });
  const google = await call("GET", "/api/oauth/google/auth-url", token);
  check(google.status === 200, `Google auth URL answered ${google.status}`);
  await consent(google.body.auth_url, {
    decision: "allow",
    authuser: GOOGLE_USER.sub,
    drive_file: "on",
  });
  step(`registered ${email}, connected @${INSTAGRAM_ACCOUNT.username} and Google Drive`);

  // 6. Back it up (connecting both started a backup; pressing the button again joins it).
  const backup = await call("POST", "/api/sync/start", token, {});
  check(
    backup.status === 200,
    `sync start answered ${backup.status}: ${JSON.stringify(backup.body)}`,
  );
  const done = await until(
    "the backup to end",
    async () => (await call("GET", "/api/sync/status", token)).body,
    (s) => s?.is_syncing === false && s.sync_job?.status !== "running",
    300_000,
  );
  check(
    done.sync_job.status === "completed" &&
      done.sync_job.posts_processed === done.sync_job.posts_total,
    `the backup ended as ${JSON.stringify(done.sync_job)}`,
  );
  step(`backed up ${done.sync_job.posts_total} posts`);

  // 7. Every file in the Drive once, and every post's files there.
  type File = {
    isFolder: boolean;
    trashed: boolean;
    name: string;
    appProperties: Record<string, string>;
  };
  const driveFiles = (
    await control<{ files: File[] }>(`/drive/files?email=${encodeURIComponent(GOOGLE_USER.email)}`)
  ).files.filter((f) => !f.isFolder && !f.trashed);
  const counts = new Map<string, number>();
  for (const f of driveFiles) {
    const key = f.appProperties.keepsakeMediaId ?? `name:${f.name}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const duplicates = [...counts].filter(([, n]) => n > 1);
  check(duplicates.length === 0, `files in Drive more than once: ${JSON.stringify(duplicates)}`);
  const { media } = await control<{
    media: { id: string; media_type: string; media_url_withheld: boolean; children: string[] }[];
  }>(`/instagram/${INSTAGRAM_ACCOUNT.username}/media`);
  const missing: string[] = [];
  for (const m of media) {
    const keys = [`${m.id}_meta`];
    if (!m.media_url_withheld)
      keys.push(...(m.media_type === "CAROUSEL_ALBUM" ? m.children : [m.id]));
    for (const k of keys) if (!counts.has(k)) missing.push(k);
  }
  check(missing.length === 0, `missing from Drive: ${missing.join(", ")}`);
  // The posts and the live stories.
  check(
    done.sync_job.posts_total >= media.length,
    `${media.length} posts, ${done.sync_job.posts_total} backed up`,
  );
  step(`${driveFiles.length} files in Drive, each once, for ${media.length} posts`);

  // 8. What operators watch: the API's metrics (queues, from the database) and a worker's own.
  const scrape = async (url: string) => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${metricsToken}` } });
    check(res.status === 200, `${url} answered ${res.status}`);
    return res.text();
  };
  check((await fetch(`${apis[0]}/metrics`)).status === 401, "/metrics answered without the token");
  check(
    (await scrape(`${apis[1]}/metrics`)).includes(
      'keepsake_jobs{queue="backup-post",state="active"}',
    ),
    "the API's /metrics has no queue figures",
  );
  const workerMetrics = await scrape(`http://127.0.0.1:${workerMetricsPort}/metrics`);
  check(
    workerMetrics.includes("keepsake_provider_calls_total{"),
    "worker 2's metrics count no provider call",
  );
  step("metrics: the API's with the token, worker 2's on METRICS_PORT");

  // 9. The image's processes stop cleanly on SIGTERM, as `docker stop` sends it (npm, in front of
  // the other two, dies of the signal itself; cleanup stops them).
  for (const { name, child } of children) {
    if (!/^(api|worker) 2$/.test(name) || child.exitCode !== null) continue;
    signal(child, "SIGTERM");
    await exited(child);
    check(child.exitCode === 0, `${name} exited ${child.exitCode ?? child.signalCode} on SIGTERM`);
  }
  step("the image's api and worker stopped on SIGTERM with exit code 0");
  console.log(`✔ Production smoke test passed in ${((Date.now() - started) / 1000).toFixed(0)}s`);
} catch (err) {
  console.error(`✘ Production smoke test failed: ${(err as Error).message}`);
  dumpOutputs();
  process.exitCode = 1;
} finally {
  clearTimeout(deadline);
  await cleanup();
}
