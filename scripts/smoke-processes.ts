// The processes of the production smoke test (production-smoke.ts): commands run to completion,
// long-running roles in their own process groups, and the waits and checks between them.
import { type ChildProcess, spawn } from "node:child_process";

export const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));

/** Signals a child's whole process group (npm → sh → node). */
export function signal(child: ChildProcess, sig: NodeJS.Signals) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, sig);
  } catch {}
}

/** The processes started in the install directory `app`, kept for the cleanup and the dumps. */
export function smokeProcesses(app: string) {
  const children: { name: string; child: ChildProcess; output: string[] }[] = [];

  function dumpOutputs() {
    for (const { name, output } of children) {
      const text = output.join("").trim();
      if (text)
        console.error(`--- ${name} (last lines) ---\n${text.split("\n").slice(-30).join("\n")}`);
    }
  }

  /** Runs a command to completion in the install; its output is shown only when it fails. */
  function sh(command: string, env: Record<string, string> = {}) {
    return new Promise<void>((resolve, reject) => {
      const child = spawn(command, { cwd: app, shell: true, env: { ...process.env, ...env } });
      const out: string[] = [];
      child.stdout.on("data", (d) => out.push(String(d)));
      child.stderr.on("data", (d) => out.push(String(d)));
      child.on("exit", (code) =>
        code === 0
          ? resolve()
          : reject(
              new Error(
                `${command} exited ${code}:\n${out.join("").split("\n").slice(-40).join("\n")}`,
              ),
            ),
      );
    });
  }

  /** Starts a long-running process in its own process group; resolves once it printed `ready`. */
  function start(
    name: string,
    command: readonly string[],
    env: Record<string, string>,
    ready: RegExp,
    cwd = app,
  ) {
    const child = spawn(command[0]!, command.slice(1), {
      cwd,
      env: { ...process.env, ...env },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const entry = { name, child, output: [] as string[] };
    children.push(entry);
    return new Promise<string>((resolve, reject) => {
      let seen = "";
      const onData = (d: Buffer) => {
        entry.output.push(String(d));
        seen += String(d);
        const match = ready.exec(seen);
        if (match) resolve(match[1] ?? match[0]);
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", onData);
      child.on("exit", (code, sig) =>
        reject(
          new Error(`${name} exited (${code ?? sig}) before it was ready:\n${seen.slice(-3000)}`),
        ),
      );
    });
  }

  return { children, dumpOutputs, sh, start };
}

/** Polls `probe` until `done` holds; fails with `what` after `ms`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T>,
  done: (v: T) => boolean,
  ms = 120_000,
) {
  const end = Date.now() + ms;
  let last: T | undefined;
  for (;;) {
    last = await probe().catch(() => undefined);
    if (last !== undefined && done(last)) return last;
    if (Date.now() > end)
      throw new Error(`Timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export function check(ok: boolean, message: string) {
  if (!ok) throw new Error(message);
}
