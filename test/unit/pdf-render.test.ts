import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { type PdfDocument, renderPdf } from '../../src/lib/pdf/index.ts';
import { pdfText } from '../helpers/pdfText.ts';

const generatedAt = new Date('2026-03-01T09:30:00Z');

function document(blocks: PdfDocument['blocks'], extra: Partial<PdfDocument> = {}): PdfDocument {
  return { title: 'Statement for Zoë Ångström', generatedAt, blocks, ...extra };
}

describe('PDF renderer', () => {
  test('a document reads back with its title, headings, paragraphs, lists and key/value rows', async () => {
    const bytes = await renderPdf(
      document(
        [
          { kind: 'heading', text: 'What the plan pays' },
          { kind: 'paragraph', text: 'Ten percent of every closed-won deal.' },
          { kind: 'list', items: ['First item', 'Second item'] },
          {
            kind: 'keyValues',
            rows: [
              { key: 'Rep', value: 'Зоя Петрова' },
              { key: 'Period', value: '2026-02' },
            ],
          },
        ],
        { subtitle: 'February 2026' },
      ),
    );
    assert.equal(Buffer.from(bytes.subarray(0, 5)).toString('latin1'), '%PDF-');
    const read = await pdfText(bytes);
    assert.equal(read.pageCount, 1);
    assert.equal(read.lines[0], 'Statement for Zoë Ångström');
    assert.equal(read.lines[1], 'February 2026');
    for (const line of [
      'What the plan pays',
      'Ten percent of every closed-won deal.',
      '• First item',
      'Rep Зоя Петрова',
      'Period 2026-02',
    ]) {
      assert.ok(read.lines.includes(line), `${line} in ${JSON.stringify(read.lines)}`);
    }
  });

  test('a long paragraph wraps within the page and keeps every word in order', async () => {
    const words = Array.from({ length: 300 }, (_, index) => `word${index}`);
    const read = await pdfText(await renderPdf(document([{ kind: 'paragraph', text: words.join(' ') }])));
    const body = read.lines.filter((line) => line.startsWith('word'));
    assert.ok(body.length > 5, 'wrapped onto several lines');
    assert.deepEqual(body.join(' ').split(' '), words);
  });

  test('a word wider than the page is broken, not cut off', async () => {
    const long = 'x'.repeat(400);
    const read = await pdfText(await renderPdf(document([{ kind: 'paragraph', text: long }])));
    assert.equal(
      read.lines
        .filter((line) => line.startsWith('x'))
        .join('')
        .replaceAll(' ', ''),
      long,
    );
  });

  test('an id too wide for its column breaks only at its own separators, and an id with none is never broken', async () => {
    const ids = ['HS-2026-000123-RENEWAL-EMEA', 'opp_acme.corp/q3:renewal#2', '0065g00000AbCdEfGhIJ', 'a-b'];
    const bytes = await renderPdf(
      document([
        {
          kind: 'table',
          columns: [
            { header: 'Deal', weight: 1, ids: true },
            { header: 'Why', weight: 12 },
          ],
          rows: ids.map((id) => [id, 'why']),
        },
      ]),
    );
    const page = (await pdfText(bytes)).pages[0] ?? [];
    const header = page.findIndex((runs) => runs.join(' ') === 'Deal Why');
    assert.ok(header > 0, JSON.stringify(page));
    // A row's first line has its deal's first piece and "why"; the lines below it only the rest of the deal.
    const cells: string[][] = [];
    for (const runs of page.slice(header + 1)) {
      if (runs.length === 2 && runs[1] === 'why') cells.push([runs[0] as string]);
      else if (runs.length === 1 && cells.length < ids.length) cells.at(-1)?.push(runs[0] as string);
    }
    assert.deepEqual(
      cells.map((pieces) => pieces.join('')),
      ids,
    );
    assert.ok(
      cells.some((pieces) => pieces.length > 1),
      `the narrow column wraps some id: ${JSON.stringify(cells)}`,
    );
    for (const pieces of cells) {
      for (const piece of pieces.slice(0, -1))
        assert.match(piece, /[-_./:#]$/, `${JSON.stringify(pieces)} breaks mid-word`);
    }
    assert.deepEqual(cells[2], ['0065g00000AbCdEfGhIJ']);
  });

  test('a money column is right-aligned: its figures end at the same x', async () => {
    const bytes = await renderPdf(
      document([
        {
          kind: 'table',
          columns: [{ header: 'Deal' }, { header: 'Amount', align: 'right' }],
          rows: [
            ['Acme', '1,000.00'],
            ['Globex', '123,456.78'],
          ],
        },
      ]),
    );
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    const page = await (await pdfjs.getDocument({ data: new Uint8Array(bytes) }).promise).getPage(1);
    const items = (await page.getTextContent()).items.filter(
      (item): item is typeof item & { str: string; width: number; transform: number[] } =>
        'str' in item && /\d,\d/.test(item.str),
    );
    assert.equal(items.length, 2);
    const ends = items.map((item) => (item.transform[4] as number) + item.width);
    assert.ok(Math.abs((ends[0] as number) - (ends[1] as number)) < 0.5, `right edges ${ends.join(', ')}`);
    const read = await pdfText(bytes);
    assert.ok(read.lines.includes('Deal Amount'));
    assert.ok(read.lines.includes('Globex 123,456.78'));
  });

  test('a long table continues on the next pages with its header repeated, and every footer numbers its page', async () => {
    const rows = Array.from({ length: 120 }, (_, index) => [`Deal ${index + 1}`, `${index + 1},000.00`]);
    const read = await pdfText(
      await renderPdf(
        document(
          [
            {
              kind: 'table',
              caption: 'Deals',
              columns: [{ header: 'Deal' }, { header: 'Amount', align: 'right' }],
              rows,
            },
          ],
          { footer: 'Quotient statement' },
        ),
      ),
    );
    assert.ok(read.pageCount >= 3, `pages: ${read.pageCount}`);
    read.pages.forEach((page, index) => {
      const lines = page.map((line) => line.join(' '));
      assert.ok(lines.includes('Deal Amount'), `header on page ${index + 1}`);
      assert.ok(
        lines.includes(`Quotient statement Generated 2026-03-01 09:30 UTC Page ${index + 1} of ${read.pageCount}`),
        `footer on page ${index + 1}: ${JSON.stringify(lines.at(-1))}`,
      );
    });
    const dealLines = read.lines.filter((line) => /^Deal \d/.test(line));
    assert.deepEqual(
      dealLines,
      rows.map((row) => row.join(' ')),
    );
  });

  test('an explicit page break starts a new page', async () => {
    const read = await pdfText(
      await renderPdf(
        document([{ kind: 'paragraph', text: 'before' }, { kind: 'pageBreak' }, { kind: 'paragraph', text: 'after' }]),
      ),
    );
    assert.equal(read.pageCount, 2);
    assert.ok(read.pages[1]?.some((line) => line.join(' ') === 'after'));
  });

  test('the same document gives the same bytes', async () => {
    const input = document([{ kind: 'paragraph', text: 'stable' }]);
    assert.deepEqual(await renderPdf(input), await renderPdf(input));
  });
});
