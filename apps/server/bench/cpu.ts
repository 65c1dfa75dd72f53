/**
 * Where a benchmark's CPU time went (Linux /proc): the machine as a whole, this process, given
 * child processes, and PostgreSQL's server processes. Times are in /proc's clock ticks, which
 * Linux fixes at 100 per second for user space (USER_HZ).
 */
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

const TICKS_PER_SECOND = 100;

export interface CpuSnapshot {
  at: number;
  /** Busy and total ticks of every core together. */
  machine: { busy: number; total: number };
  self: number;
  children: number[];
  postgres: Map<string, number>;
}

/** utime + stime of one process, ticks (0 when it is gone). */
function processTicks(pid: number | string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may hold spaces; the fields after it are fixed.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** Ticks of each PostgreSQL server process, by pid. */
function postgresTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres")
        ticks.set(pid, processTicks(pid));
    } catch {
      // Gone while we looked.
    }
  }
  return ticks;
}

/** What PostgreSQL's processes used between two snapshots (a backend new since counts whole). */
function postgresDelta(a: Map<string, number>, b: Map<string, number>): number {
  let ticks = 0;
  for (const [pid, t] of b) ticks += Math.max(0, t - (a.get(pid) ?? 0));
  return ticks;
}

export function cpuSnapshot(children: number[]): CpuSnapshot {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]?.trim().split(/\s+/).slice(1) ?? [];
  const n = cpu.map(Number);
  // user nice system idle iowait irq softirq steal …
  const idle = (n[3] ?? 0) + (n[4] ?? 0);
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  return {
    at: performance.now(),
    machine: { busy: total - idle, total },
    self: processTicks(process.pid),
    children: children.map(processTicks),
    postgres: postgresTicks(),
  };
}

/**
 * One line: how busy the machine's cores were between two snapshots, and each part's share in
 * cores (1.00 = one core fully busy). PostgreSQL's backends that exited in between are missed.
 */
export function cpuLine(
  a: CpuSnapshot,
  b: CpuSnapshot,
  childName: string,
  selfName = "this process (sandbox, bench)",
): string {
  const seconds = (b.at - a.at) / 1000;
  const cores = (ticks: number) => (ticks / TICKS_PER_SECOND / seconds).toFixed(2);
  const machine = (b.machine.busy - a.machine.busy) / (b.machine.total - a.machine.total);
  const parts = b.children.map((t, i) => cores(t - (a.children[i] ?? 0)));
  return [
    `machine ${(machine * 100).toFixed(0)} % busy of ${availableParallelism()} cores;`,
    `${childName} ${parts.join(" + ")},`,
    `${selfName} ${cores(b.self - a.self)},`,
    `PostgreSQL server ${cores(postgresDelta(a.postgres, b.postgres))} cores`,
  ].join(" ");
}
