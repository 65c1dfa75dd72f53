// `npm run dev`: the server in watch mode plus Vite's dev server with hot reload (it proxies /api).
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./web-build.ts";

const children: ChildProcess[] = [
  spawn(process.execPath, ["--watch", "apps/server/src/main.ts", "all"], {
    cwd: ROOT,
    stdio: "inherit",
  }),
  spawn(process.execPath, [join(ROOT, "node_modules/vite/bin/vite.js")], {
    cwd: join(ROOT, "apps/web"),
    stdio: "inherit",
  }),
];

const stop = () => {
  for (const c of children) c.kill("SIGTERM");
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
for (const c of children)
  c.on("exit", (code) => {
    stop();
    process.exitCode = code ?? 0;
  });
