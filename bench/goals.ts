import { cpuMsOf, cpuOf, type Result } from './measure.ts';

// The goals of `npm run bench` (bench/run.ts): each scenario's ratio to its floor against its minimum.

export interface Goal {
  row: string;
  ratio: number;
  minimum: number;
  p99Ratio: number;
  subject: Result;
  floor: Result;
  /**
   * What bounds the rate: `server`, each server's one JavaScript thread (reads: PostgreSQL and the load generator
   * fit in the other core); `total`, the server and PostgreSQL sharing both cores (deal events).
   */
  bound: 'server' | 'total';
  /** What else this run measured that says where the cost is, printed under a goal not met. */
  notes: string[];
}

/**
 * Each goal, met or not; under one not met, the CPU it allows per request against what Quotient spent, and what
 * else the run measured about where that goes. Every scenario is bound by CPU on this machine, so a rate goal is a
 * CPU budget: at `minimum` times the floor's rate, Quotient may spend 1 / `minimum` times the floor's CPU per request
 * on what bounds the rate (its server's one thread for reads, server and PostgreSQL together for deal events).
 */
export function reportGoals(goals: readonly Goal[]): void {
  process.stdout.write('Goals\n');
  for (const goal of goals) {
    const met = goal.ratio >= goal.minimum && goal.p99Ratio <= 2;
    process.stdout.write(
      `  ${met ? 'met    ' : 'NOT MET'}  ${goal.row}: ${goal.ratio.toFixed(2)}x the floor (>= ${goal.minimum}), p99 ${goal.p99Ratio.toFixed(2)}x (<= 2)\n`,
    );
    if (met) continue;
    const floorMs = cpuMsOf(goal.floor, goal.bound);
    const what = goal.bound === 'server' ? 'server CPU (one JavaScript thread)' : 'CPU of server and PostgreSQL';
    if (floorMs !== null) {
      process.stdout.write(
        `           ${what} per request: the floor ${floorMs.toFixed(2)} ms, so the goal allows ${(floorMs / goal.minimum).toFixed(2)} ms; ` +
          `Quotient spent ${cpuOf(goal.subject, goal.bound)} ms (server ${cpuOf(goal.subject, 'server')}, PostgreSQL ${cpuOf(goal.subject, 'database')})\n`,
      );
    }
    for (const note of goal.notes) process.stdout.write(`           ${note}\n`);
  }
  process.stdout.write('\n');
}
