import type { PlanFileProblem } from './types.ts';

// Paths of places in a plan document (`chips[1].tiers[0].rate_bps`), and problems put in document order.

export type Segment = string | number;

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
export function pointerSegments(pointer: string, document: unknown): Segment[] {
  if (pointer === '') return [];
  const segments: Segment[] = [];
  let node = document;
  for (const raw of pointer.slice(1).split('/')) {
    const name = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    const segment = Array.isArray(node) && /^\d+$/.test(name) ? Number(name) : name;
    segments.push(segment);
    node = (node as Record<string | number, unknown> | undefined)?.[segment];
  }
  return segments;
}

export function formatPath(segments: Segment[]): string {
  return segments
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`;
      if (/^[A-Za-z_$][\w$]*$/.test(segment)) return index === 0 ? segment : `.${segment}`;
      return `[${JSON.stringify(segment)}]`;
    })
    .join('');
}

export function parsePath(path: string): Segment[] {
  const segments: Segment[] = [];
  for (const match of path.matchAll(/([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)) {
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else if (match[3] !== undefined) segments.push(JSON.parse(match[3]) as string);
  }
  return segments;
}

export function dedupe(problems: PlanFileProblem[]): PlanFileProblem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const id = `${problem.path}\n${problem.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Problems in the order their places appear in the file, each with its line when the file is YAML. */
export function inDocumentOrder(
  problems: PlanFileProblem[],
  document: unknown,
  locate: ((path: Segment[]) => number | undefined) | undefined,
): PlanFileProblem[] {
  const order = new Map<string, number>();
  const visit = (node: unknown, segments: Segment[]) => {
    order.set(formatPath(segments), order.size);
    if (Array.isArray(node)) {
      node.forEach((member, index) => {
        visit(member, [...segments, index]);
      });
    } else if (isObject(node)) for (const [name, member] of Object.entries(node)) visit(member, [...segments, name]);
  };
  visit(document, []);
  const rank = (path: string): number => {
    const segments = parsePath(path);
    for (let length = segments.length; length >= 0; length--) {
      const found = order.get(formatPath(segments.slice(0, length)));
      if (found !== undefined) return found + (length < segments.length ? 0.5 : 0);
    }
    return Number.POSITIVE_INFINITY;
  };
  return problems
    .map((problem, index) => ({ problem, index, rank: rank(problem.path) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ problem }) => {
      const line = locate?.(parsePath(problem.path));
      return line === undefined ? problem : { ...problem, line };
    });
}
