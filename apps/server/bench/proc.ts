/** What Linux tells of a process (/proc), for the benchmarks. */
import { readdirSync, readFileSync } from "node:fs";

/** Peak resident set size of a process (Linux: VmHWM), in bytes. */
export function peakRss(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * CPU seconds a process has used (Linux: utime + stime of /proc/<pid>/stat, 100 ticks a second):
 * the worker's cost, which other load on the machine does not change as it changes seconds.
 */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** CPU seconds of every PostgreSQL process on this machine (server and backends). */
export function postgresCpuSeconds(): number {
  let n = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").startsWith("postgres"))
        n += cpuSeconds(Number(pid)) ?? 0;
    } catch {
      // The process ended meanwhile.
    }
  }
  return n;
}
