import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type pg from 'pg';

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

/**
 * The PostgreSQL backends serving one client process: pg_stat_activity's `client_port` of each backend, matched to
 * the local ports of the client's TCP sockets (its `/proc/<pid>/fd` links and `/proc/<pid>/net/tcp`). Only the work
 * done for that process counts, not autovacuum, the checkpointer or the WAL writer catching up on earlier
 * scenarios' writes. Empty off Linux.
 */
export async function backendsServing(admin: pg.Pool, clientPid: number): Promise<number[]> {
  const ports = localPortsOf(clientPid);
  if (ports.size === 0) return [];
  const { rows } = await admin.query<{ pid: number; client_port: number }>(
    `SELECT pid, client_port FROM pg_stat_activity WHERE backend_type = 'client backend' AND client_port IS NOT NULL`,
  );
  return rows.filter((row) => ports.has(row.client_port)).map((row) => row.pid);
}

/** The local ports of a process's TCP sockets. */
function localPortsOf(pid: number): Set<number> {
  const ports = new Set<number>();
  try {
    const inodes = new Set<string>();
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (socket?.[1]) inodes.add(socket[1]);
      } catch {
        // closed while we looked
      }
    }
    for (const table of ['tcp', 'tcp6']) {
      let text: string;
      try {
        text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
      } catch {
        continue;
      }
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
      for (const line of text.split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/);
        const local = fields[1];
        const inode = fields[9];
        if (local && inode && inodes.has(inode))
          ports.add(Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16));
      }
    }
  } catch {
    // not Linux, or the process ended
  }
  return ports;
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

/** CPU seconds this process's exited and waited-for children have used so far (a CLI command run by the bench). */
export function childrenCpuSeconds(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * CPU seconds a PostgreSQL cluster has used so far: its postmaster's, that of the backends it has reaped (a
 * connection that ended) and that of the processes it runs now. Null off Linux.
 */
export function clusterCpuSeconds(postmasterPid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${postmasterPid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    let ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const child = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const rest = child.slice(child.lastIndexOf(')') + 2).split(' ');
        if (Number(rest[1]) === postmasterPid) ticks += Number(rest[11]) + Number(rest[12]);
      } catch {
        // ended while we looked
      }
    }
    return ticks / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}
