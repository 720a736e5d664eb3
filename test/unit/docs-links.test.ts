import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'vitest';

// README.md and docs/*.md: every relative link resolves to a file of the repository (and, with a #fragment, to a
// heading of it), and nothing points at documents outside the repository.

const ROOT = resolve(new URL('../../', import.meta.url).pathname);
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => anchorOf(match[1] ?? '')));
}

function linksOf(document: string): string[] {
  const text = readFileSync(join(ROOT, document), 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '');
}

describe('documentation links', () => {
  test('README.md is at most 200 lines and lists the docs', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    assert.ok(readme.split('\n').length <= 200, `README.md has ${readme.split('\n').length} lines`);
    for (const document of DOCUMENTS.filter((name) => name !== 'README.md')) {
      assert.ok(readme.includes(`](${document})`), `README.md links ${document}`);
    }
  });

  test.each(DOCUMENTS)('every relative link of %s resolves inside the repository', (document) => {
    const links = linksOf(document).filter((link) => !/^[a-z]+:/i.test(link));
    for (const link of links) {
      const [path = '', fragment] = link.split('#');
      const target = path === '' ? join(ROOT, document) : resolve(dirname(join(ROOT, document)), path);
      assert.ok(!relative(ROOT, target).startsWith('..'), `${document}: ${link} leaves the repository`);
      assert.ok(existsSync(target), `${document}: ${link} does not exist`);
      if (fragment !== undefined) {
        assert.ok(anchorsOf(target).has(fragment), `${document}: ${link} names no heading of ${path || document}`);
      }
    }
  });

  test.each(DOCUMENTS)('%s names no document outside the repository', (document) => {
    const text = readFileSync(join(ROOT, document), 'utf8');
    assert.doesNotMatch(text, /\.\.\/shared|\/work\/shared|product\.md|interface-spec\.md|house-style\.md/);
  });
});
