import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/**
 * A docs page's worked examples, which tests recompute: the fenced block or the table that follows
 * `<!-- worked-example: name -->` on the page (blank lines between the mark and a table are skipped).
 */
export function workedExamples(docsPage: string): (name: string) => string {
  const page = readFileSync(new URL(`../../docs/${docsPage}`, import.meta.url), 'utf8');
  return (name) => {
    const start = page.indexOf(`<!-- worked-example: ${name} -->`);
    assert.ok(start >= 0, `docs/${docsPage} has no worked-example ${name}`);
    const after = page.slice(start).split('\n').slice(1);
    if (after[0]?.startsWith('```')) return after.slice(1, after.indexOf('```', 1)).join('\n');
    while (after[0] === '') after.shift();
    const end = after.findIndex((line) => !line.startsWith('|'));
    return after.slice(0, end).join('\n');
  };
}

/** The rows of a Markdown table (without its header and rule), as trimmed cells. */
export function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .slice(2)
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}
