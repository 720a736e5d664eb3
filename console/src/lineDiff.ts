// A line diff of two small texts (normalised plan files), by longest common subsequence.

export type DiffLine = { kind: 'same' | 'added' | 'removed'; text: string };

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const table: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      const row = table[i] as number[];
      row[j] = a[i] === b[j] ? (table[i + 1]?.[j + 1] ?? 0) + 1 : Math.max(table[i + 1]?.[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i] as string });
      i++;
      j++;
    } else if ((table[i + 1]?.[j] ?? 0) >= (table[i]?.[j + 1] ?? 0)) {
      lines.push({ kind: 'removed', text: a[i++] as string });
    } else {
      lines.push({ kind: 'added', text: b[j++] as string });
    }
  }
  while (i < a.length) lines.push({ kind: 'removed', text: a[i++] as string });
  while (j < b.length) lines.push({ kind: 'added', text: b[j++] as string });
  return lines.filter((line, index, all) => !(line.text === '' && index === all.length - 1));
}
