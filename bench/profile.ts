import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

// Attribution of the server's CPU (`BENCH_PROFILE=1`): the server runs with `node --cpu-prof`, and each
// scenario's measured window of the profile is summed by where the time was spent (self time, by package or by
// Quotient's own directory), so that every cost of the hot path has a number before anything is cut.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A measured window, in microseconds of the monotonic clock (process.hrtime), and its request count. */
export interface ProfileWindow {
  name: string;
  fromUs: number;
  toUs: number;
  requests: number;
}

/** Where a sample's time goes: a package, a part of Quotient, or the runtime. */
export function categoryOf(frame: { functionName: string; url: string }): string {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName === '(garbage collector)') return 'V8 garbage collector';
    if (functionName === '(idle)') return '(idle)';
    if (functionName === '(program)') return 'V8/libuv native (program)';
    return `native: ${functionName || 'anonymous'}`;
  }
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + 'node_modules/'.length).split('/');
    const name = parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
    return `npm: ${name}`;
  }
  if (url.startsWith('node:')) {
    const module = url.slice('node:'.length).replace(/^internal\//, '');
    const area = module.split('/')[0] ?? module;
    return `node: ${area}`;
  }
  const source = /\/(src|generated)\/(.*)$/.exec(url);
  if (source) {
    const path = source[2] ?? '';
    const directory = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : path;
    return `quotient: ${source[1]}/${directory}`;
  }
  return url;
}

/** Self time per category in each window, in ms per request. */
export async function summariseProfiles(
  directory: string,
  windows: readonly ProfileWindow[],
): Promise<Map<string, Map<string, number>>> {
  const files = (await readdir(directory)).filter((file) => file.endsWith('.cpuprofile'));
  const summary = new Map<string, Map<string, number>>(windows.map((window) => [window.name, new Map()]));
  for (const file of files) {
    const profile = JSON.parse(await readFile(join(directory, file), 'utf8')) as CpuProfile;
    const categories = new Map(profile.nodes.map((node) => [node.id, categoryOf(node.callFrame)]));
    let at = profile.startTime;
    for (let index = 0; index < profile.samples.length; index++) {
      const delta = profile.timeDeltas[index] ?? 0;
      at += delta;
      const window = windows.find((candidate) => at >= candidate.fromUs && at < candidate.toUs);
      if (!window) continue;
      const category = categories.get(profile.samples[index] as number) ?? 'unknown';
      const totals = summary.get(window.name) as Map<string, number>;
      // A sample stands for the time until the next one.
      const next = profile.timeDeltas[index + 1] ?? delta;
      totals.set(category, (totals.get(category) ?? 0) + next / 1000 / window.requests);
    }
  }
  return summary;
}

export function printProfileSummary(summary: Map<string, Map<string, number>>, top = 18): void {
  for (const [name, totals] of summary) {
    const busy = [...totals].filter(([category]) => category !== '(idle)');
    const total = busy.reduce((sum, [, ms]) => sum + ms, 0);
    process.stdout.write(`\nServer CPU profile, ${name}: ${total.toFixed(3)} ms of CPU per request (self time)\n`);
    for (const [category, ms] of busy.sort((a, b) => b[1] - a[1]).slice(0, top)) {
      process.stdout.write(
        `  ${category.padEnd(48)} ${ms.toFixed(3).padStart(7)} ms  ${((100 * ms) / total).toFixed(1).padStart(5)}%\n`,
      );
    }
  }
}
