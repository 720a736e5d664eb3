import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { CsvSyntaxError, csvRecords } from '../../src/domain/imports/csv.ts';
import { BUILT_IN_MAPPINGS, parseMapping } from '../../src/domain/imports/mapping.ts';
import { type ReadContext, RefusedRow, RowMapper } from '../../src/domain/imports/recordMapper.ts';
import { Refusal } from '../../src/domain/refusal.ts';

async function records(text: string, chunkSize = text.length || 1) {
  async function* chunks() {
    for (let start = 0; start < text.length; start += chunkSize) yield text.slice(start, start + chunkSize);
  }
  const all = [];
  for await (const record of csvRecords(chunks())) all.push(record);
  return all;
}

describe('reading CSV', () => {
  const text = '\ufeffid,name,note\r\n1,"Acme, Inc.","said ""hi"""\r\n\r\n2,Globex,"two\nlines"\n3,,\n';
  const expected = [
    { line: 1, fields: ['id', 'name', 'note'] },
    { line: 2, fields: ['1', 'Acme, Inc.', 'said "hi"'] },
    { line: 4, fields: ['2', 'Globex', 'two\nlines'] },
    { line: 6, fields: ['3', '', ''] },
  ];

  test('quoted commas, doubled quotes, line breaks in quotes, CRLF, a BOM and blank lines; records keep their line', async () => {
    assert.deepEqual(await records(text), expected);
  });

  test('the same records whatever the chunks the stream is cut into', async () => {
    for (const size of [1, 2, 3, 7]) assert.deepEqual(await records(text, size), expected, `chunks of ${size}`);
  });

  test('a last record without a line break is read; an unclosed quote is refused with its line', async () => {
    assert.deepEqual(await records('a,b\n1,2'), [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
    ]);
    await assert.rejects(records('a,b\n1,"open\n'), (error) => error instanceof CsvSyntaxError && error.line === 2);
  });
});

const US: ReadContext = { conventions: { dateOrder: 'mdy', decimal: '.', source: 'test' }, fallbackCurrency: 'USD' };

function mapped(mapper: RowMapper, cells: string[], context = US) {
  const result = mapper.map(cells, context);
  assert.equal(result.kind, 'event');
  return (result as Extract<typeof result, { kind: 'event' }>).body;
}

describe('mapping a row to a deal event', () => {
  const hubspot = BUILT_IN_MAPPINGS.hubspot as NonNullable<(typeof BUILT_IN_MAPPINGS)['hubspot']>;
  const header = ['Record ID', 'Deal Stage', 'Amount', 'Close Date', 'Deal owner', 'Last Modified Date', 'New Logo'];

  test('stages listed as won or lost become closed_won / closed_lost, others are kept; amounts and dates are read', () => {
    const mapper = new RowMapper(hubspot, header);
    const event = mapped(mapper, [
      '42',
      'closed WON',
      '12,500.5',
      '3/14/2026',
      'Jane Smith',
      '3/14/2026 4:02 PM',
      'true',
    ]);
    assert.deepEqual(event, {
      external_id: '42',
      state: {
        stage: 'closed_won',
        amount_cents: 1_250_050,
        close_date: '2026-03-14',
        owner_external_id: 'Jane Smith',
        custom: { new_logo: true },
      },
      occurred_at: '2026-03-14T16:02:00.000Z',
      dedup_key: event.dedup_key,
    });
    assert.deepEqual(mapped(mapper, ['43', 'Contract Sent', '', '', '', '', '']).state, { stage: 'Contract Sent' });
  });

  test('the dedup key is the same for the same row and differs when the row changes', () => {
    const mapper = new RowMapper(hubspot, header);
    const row = ['42', 'Closed Won', '100', '2026-03-14', 'kim', '2026-03-14 10:00', ''];
    assert.equal(mapped(mapper, row).dedup_key, mapped(mapper, [...row]).dedup_key);
    assert.notEqual(
      mapped(mapper, row).dedup_key,
      mapped(mapper, [...row.slice(0, 2), '101', ...row.slice(3)]).dedup_key,
    );
    assert.match(String(mapped(mapper, row).dedup_key), /^import:42:[0-9a-f]{32}$/);
  });

  test('a value that is not an amount, a date or a boolean refuses the row, naming the column', () => {
    const mapper = new RowMapper(hubspot, header);
    const refusal = (row: string[]) => {
      try {
        mapper.map(row, US);
        return 'accepted';
      } catch (error) {
        assert.ok(error instanceof RefusedRow);
        return error.message;
      }
    };
    assert.equal(refusal(['1', 'Won', 'TBD', '', '', '', '']), 'Amount (column 3): "TBD" is not an amount');
    assert.equal(
      refusal(['1', 'Won', '', '2026-02-30', '', '', '']),
      'Close Date (column 4): "2026-02-30" is not a calendar date',
    );
    assert.equal(
      refusal(['1', 'Won', '', '2025-03-14garbage', '', '', '']),
      'Close Date (column 4): "2025-03-14garbage" is not a date',
    );
    assert.equal(refusal(['1', 'Won', '', '', '', '', 'maybe']), 'New Logo (column 7): "maybe" is not true or false');
    assert.equal(refusal(['', 'Won', '', '', '', '', '']), 'Record ID (column 1): is empty');
  });

  test('a mapping file must name its columns and they must be in the file', () => {
    const mapping = parseMapping({ id: 'Deal', stage: 'Phase', amount: 'Value', won_stages: ['Signed'] }, 'm.yaml');
    assert.throws(() => new RowMapper(mapping, ['Deal', 'Phase']), /no column "Value"/);
    assert.throws(
      () => parseMapping({ id: 'Deal' }, 'm.yaml'),
      (error) => error instanceof Refusal && error.code === 'invalid_body',
    );
    assert.throws(() => parseMapping({ id: 'Deal', stage: 'Phase', stages: [] }, 'm.yaml'), /stages: not a member/);
    assert.throws(
      () => parseMapping({ id: 'Deal', stage: 'Phase', custom: { seats: { column: 'S', type: 'date' } } }, 'm.yaml'),
      /custom\.seats\.type/,
    );
  });
});
