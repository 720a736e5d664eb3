import { readdirSync, readFileSync } from 'node:fs';

// CPU time of processes, from /proc (Linux only; elsewhere null), so that a run can say where the time of an
// event goes: the server process, or the PostgreSQL backends working for it.

/** Linux reports utime and stime in USER_HZ ticks, 100 per second on every Linux ABI. */
const TICKS_PER_SECOND = 100;

function ticksOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** The process and its direct children (the postmaster and its backends). */
export function withChildren(pid: number): number[] {
  const pids = [pid];
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) pids.push(Number(entry));
    }
  } catch {
    // not Linux, or a process ended while we looked
  }
  return pids;
}

export type CpuSnapshot = Map<number, number>;

/** CPU ticks used so far by each process that still runs. */
export function snapshot(pids: number[]): CpuSnapshot {
  const ticks: CpuSnapshot = new Map();
  for (const pid of pids) {
    const used = ticksOf(pid);
    if (used !== null) ticks.set(pid, used);
  }
  return ticks;
}

/** CPU seconds between two snapshots; a process that started in between counts from zero. Null off Linux. */
export function cpuSecondsBetween(before: CpuSnapshot, after: CpuSnapshot): number | null {
  if (after.size === 0) return null;
  let ticks = 0;
  for (const [pid, used] of after) ticks += used - (before.get(pid) ?? 0);
  return ticks / TICKS_PER_SECOND;
}

/** The postmaster's pid, from the first line of postmaster.pid in the cluster directory. */
export function postmasterPid(clusterDir: string): number | null {
  try {
    return Number(readFileSync(`${clusterDir}/postmaster.pid`, 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
}
