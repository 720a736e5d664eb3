import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import { describe, test } from 'vitest';
import { csvSource, type ImportRow, type ReadSettings, readExport } from '../../src/domain/imports/rows.ts';
import { decodedText, type Encoding, sniffDelimiter } from '../../src/domain/imports/text.ts';
import { Refusal } from '../../src/domain/refusal.ts';
import { loadContract } from '../../src/http/contract.ts';
import { DealEventCheck } from '../../src/http/dealEventCheck.ts';
import { xlsxRecords } from '../../src/lib/xlsx.ts';

// The cases of a CRM export as customers have them (issue 43), each read right or refused with its line and
// column. The fixtures follow the CRMs' published formats: HubSpot's UI export (labels, a BOM, CRLF), Salesforce's
// "Details only" report exports from Classic (title and filter lines, the Grand Totals and Confidential footer) and
// Lightning, Salesforce's Data Export (API names, API values), and the same files re-saved by Excel.

const check = new DealEventCheck(loadContract());

interface Read {
  rows: ImportRow[];
  conventions: string;
  heading: number[];
  footer: number[];
}

async function read(
  bytes: Uint8Array | string,
  settings: Partial<ReadSettings> & { encoding?: Encoding; chunk?: number } = {},
): Promise<Read> {
  const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  const chunk = settings.chunk ?? data.length;
  const text = () =>
    decodedText(
      (async function* () {
        for (let at = 0; at < data.length; at += chunk) yield data.subarray(at, at + chunk);
      })(),
      settings.encoding,
    );
  let sample = '';
  for await (const part of text()) sample += part;
  const { survey, rows } = await readExport(
    csvSource(text, sniffDelimiter(sample)),
    { fallbackCurrency: 'USD', ...settings },
    (body) => check.outcome(body),
  );
  const all: ImportRow[] = [];
  for await (const row of rows) all.push(row);
  return {
    rows: all,
    conventions: survey.conventions.source,
    heading: survey.headingLines,
    footer: survey.footerLines,
  };
}

async function refusal(bytes: Uint8Array | string, settings: Partial<ReadSettings> & { encoding?: Encoding } = {}) {
  try {
    await read(bytes, settings);
  } catch (error) {
    assert.ok(error instanceof Refusal, String(error));
    return error.reason;
  }
  assert.fail('the file was read');
}

function bodies(result: Read) {
  return result.rows.map((row) => {
    if ('event' in row) {
      const { dedup_key: _key, ...body } = row.body;
      return body;
    }
    return 'skipped' in row ? { line: row.line, skipped: row.skipped } : { line: row.line, refusal: row.refusal };
  });
}

const HUBSPOT_HEADER = 'Record ID,Deal Name,Deal Stage,Amount,Close Date,Deal owner,Currency';

describe('numbers and dates by locale', () => {
  const rows = (lines: string[], header = 'Record ID;Deal Stage;Amount;Close Date;Deal owner') =>
    `${header}\n${lines.join('\n')}\n`;

  test.each([
    ['de-DE', '12,50', 1250],
    ['de-DE', '1.234,56', 123456],
    ['fr-FR', '1 234,56', 123456],
    ['fr-FR', '1\u00a0234,56', 123456],
    ['fr-FR', '1\u202f234,56', 123456],
    ['en-US', '12,500.00', 1250000],
    ['en-GB', '1,234', 123400],
    ['de-DE', '1.234', 123400],
  ])('%s reads %s as %i cents', async (locale, amount, cents) => {
    const result = await read(rows([`1;closedwon;"${amount}";2026-03-14;ana`]), { locale });
    assert.deepEqual(bodies(result), [
      {
        external_id: '1',
        state: { stage: 'closed_won', amount_cents: cents, close_date: '2026-03-14', owner_external_id: 'ana' },
      },
    ]);
  });

  test('dates in the locale given: 05/08/2025 is 5 August in en-GB, 8 May in en-US; 14.03.2026 in de-DE', async () => {
    const file = rows(['1;closedwon;1;05/08/2025;ana']);
    const gb = bodies(await read(file, { locale: 'en-GB' }));
    const us = bodies(await read(file, { locale: 'en_US' }));
    assert.equal((gb[0] as { state: { close_date: string } }).state.close_date, '2025-08-05');
    assert.equal((us[0] as { state: { close_date: string } }).state.close_date, '2025-05-08');
    const de = bodies(await read(rows(['1;closedwon;1;14.03.2026;ana']), { locale: 'de-DE' }));
    assert.equal((de[0] as { state: { close_date: string } }).state.close_date, '2026-03-14');
  });

  test('without --locale, what the file decides is used and stated: a day above 12 makes the file day first', async () => {
    const result = await read(
      `${HUBSPOT_HEADER}\n1,A,closedwon,5,05/08/2025,ana,USD\n2,B,closedwon,5,14/03/2025,ana,USD\n`,
    );
    assert.deepEqual(
      result.rows.map((row) => ('event' in row ? row.body.state : row)),
      [
        {
          stage: 'closed_won',
          amount_cents: 500,
          close_date: '2025-08-05',
          owner_external_id: 'ana',
          custom: { deal_name: 'A' },
        },
        {
          stage: 'closed_won',
          amount_cents: 500,
          close_date: '2025-03-14',
          owner_external_id: 'ana',
          custom: { deal_name: 'B' },
        },
      ],
    );
    assert.match(result.conventions, /day first \(line 3, Close Date \(column 5\)\)/);
  });

  test('dates no row decides refuse the whole file, with the rows that show it, never swapped', async () => {
    const reason = await refusal(
      `${HUBSPOT_HEADER}\n1,A,closedwon,5,05/08/2025,ana,USD\n2,B,closedwon,5,03/04/2025,ana,USD\n`,
    );
    assert.match(reason, /could be day\/month or month\/day/);
    assert.match(reason, /line 2, Close Date \(column 5\): "05\/08\/2025"/);
    assert.match(reason, /line 3, Close Date \(column 5\): "03\/04\/2025"/);
  });

  test('a file with a day-first and a month-first date is refused, naming both lines', async () => {
    const reason = await refusal(
      `${HUBSPOT_HEADER}\n1,A,closedwon,5,14/03/2025,ana,USD\n2,B,closedwon,5,03/14/2025,ana,USD\n`,
    );
    assert.match(reason, /day first \(line 2, Close Date \(column 5\)\) and month first \(line 3/);
  });

  test('an amount only a locale reads (1,234 or 12,50 without --locale) is refused with its line and column', async () => {
    const reason = await refusal(`${HUBSPOT_HEADER}\n1,A,closedwon,"1,234",2025-03-14,ana,USD\n`);
    assert.match(reason, /line 2, Amount \(column 4\): "1,234" is 1234 in one locale and 1\.234 in another/);
    // 12,50 can only be a decimal comma: the file says so, and it is read as such.
    const decided = await read(`${HUBSPOT_HEADER}\n1,A,closedwon,"12,50",2025-03-14,ana,EUR\n`);
    assert.equal(
      (decided.rows[0] as unknown as { body: { state: { amount_cents: number } } }).body.state.amount_cents,
      1250,
    );
  });

  test('2025-03-14garbage, 2026-02-30 and a two-digit year are refused by line and column', async () => {
    const result = await read(
      `${HUBSPOT_HEADER}\n1,A,closedwon,5,2025-03-14garbage,ana,USD\n2,A,closedwon,5,2026-02-30,ana,USD\n3,A,closedwon,5,3/14/26,ana,USD\n`,
    );
    assert.deepEqual(bodies(result), [
      { line: 2, refusal: 'Close Date (column 5): "2025-03-14garbage" is not a date' },
      { line: 3, refusal: 'Close Date (column 5): "2026-02-30" is not a calendar date' },
      { line: 4, refusal: 'Close Date (column 5): "3/14/26" is not a date (the year needs four digits)' },
    ]);
  });

  test('an unknown locale is refused by name', async () => {
    assert.match(await refusal(`${HUBSPOT_HEADER}\n`, { locale: 'xx-YY' }), /--locale xx-YY: not a locale/);
  });
});

describe('currencies', () => {
  test("Salesforce's Amount Currency, Opportunity Currency and CurrencyIsoCode; JPY in yen, not cents", async () => {
    const lightning = await read(
      'Opportunity Owner,Opportunity Name,Stage,Amount Currency,Amount,Close Date,Opportunity ID\n' +
        'Ann,A,Closed Won,EUR,"12,500.00",3/14/2026,006A\nBob,B,Closed Won,JPY,"1,500,000",3/15/2026,006B\n',
    );
    assert.deepEqual(
      lightning.rows.map((row) =>
        'event' in row ? [row.body.currency, (row.body.state as { amount_cents: number }).amount_cents] : row,
      ),
      [
        ['EUR', 1250000],
        ['JPY', 1500000],
      ],
    );
    const api = await read(
      'Id,IsDeleted,OwnerId,StageName,Amount,CurrencyIsoCode,CloseDate\n006A,false,005X,Closed Won,1250.5,GBP,2026-03-14\n',
    );
    assert.equal((api.rows[0] as unknown as { body: { currency: string } }).body.currency, 'GBP');
  });

  test('"Amount (EUR)" states the currency; a currency column that disagrees refuses the row; no currency is the fallback, unstated in the event', async () => {
    const result = await read(
      'Record ID,Deal Stage,Amount (EUR),Close Date,Deal owner,Currency\n1,closedwon,5,2026-03-14,ana,\n2,closedwon,5,2026-03-14,ana,USD\n',
    );
    assert.deepEqual(bodies(result), [
      {
        external_id: '1',
        currency: 'EUR',
        state: { stage: 'closed_won', amount_cents: 500, close_date: '2026-03-14', owner_external_id: 'ana' },
      },
      {
        line: 3,
        refusal:
          "Amount (EUR) (column 3): the row's currency is not one: USD (Currency (column 6)) and EUR (Amount (EUR) (column 3))",
      },
    ]);
    const none = await read('Record ID,Deal Stage,Amount,Close Date,Deal owner\n1,closedwon,5,2026-03-14,ana\n', {
      fallbackCurrency: 'JPY',
    });
    const row = none.rows[0] as Extract<ImportRow, { event: unknown }>;
    assert.equal(row.body.currency, undefined);
    assert.deepEqual(
      [row.facts.currency, row.facts.currencySource, (row.body.state as { amount_cents: number }).amount_cents],
      ['JPY', 'fallback', 5],
    );
  });

  test('"EUR 1,200.00" and "€1.200,00" state their currency; a € amount in a USD row is refused', async () => {
    const result = await read(
      `Record ID;Deal Stage;Amount;Close Date;Deal owner;Currency\n1;closedwon;EUR 1.200,00;2026-03-14;ana;\n2;closedwon;€1.200,00;2026-03-14;ana;USD\n`,
      { locale: 'de-DE' },
    );
    assert.deepEqual(bodies(result), [
      {
        external_id: '1',
        currency: 'EUR',
        state: { stage: 'closed_won', amount_cents: 120000, close_date: '2026-03-14', owner_external_id: 'ana' },
      },
      { line: 3, refusal: `Amount (column 3): "€1.200,00" is written in € but the row's currency is USD` },
    ]);
  });
});

describe('stages, deleted rows and ids', () => {
  test("each pipeline's won and lost come from the export's own flags: a second pipeline's Renewed is won", async () => {
    const result = await read(
      'Record ID,Deal Stage,Pipeline,Amount,Close Date,Deal owner,Is Closed Won,Is Deal Closed?\n' +
        '1,Renewed,Renewals,5,2026-03-14,ana,true,true\n2,Churned,Renewals,5,2026-03-14,ana,false,true\n3,Talking,Renewals,5,2026-03-14,ana,false,false\n',
    );
    assert.deepEqual(
      result.rows.map((row) =>
        'event' in row ? [(row.body.state as { stage: string }).stage, row.facts.openStage] : row,
      ),
      [
        ['closed_won', undefined],
        ['closed_lost', undefined],
        ['Talking', 'Talking'],
      ],
    );
  });

  test('without flags, a stage no list names is read as open and said so (the row says it is open)', async () => {
    const result = await read(`${HUBSPOT_HEADER}\n1,A,Renewed,5,2026-03-14,ana,USD\n`);
    const row = result.rows[0] as Extract<ImportRow, { event: unknown }>;
    assert.equal(row.facts.openStage, 'Renewed');
  });

  test('IsDeleted = true and Archived rows are skipped, never a live deal', async () => {
    const api = await read(
      'Id,IsDeleted,OwnerId,StageName,Amount,CurrencyIsoCode,CloseDate,IsWon,IsClosed\n' +
        '006A,false,005X,Closed Won,100,USD,2026-03-14,true,true\n006B,true,005X,Closed Won,99,USD,2026-03-14,true,true\n',
    );
    assert.deepEqual(bodies(api).slice(1), [{ line: 3, skipped: 'deleted' }]);
    const hubspot = await read(`${HUBSPOT_HEADER},Archived\n1,A,closedwon,5,2026-03-14,ana,USD,Yes\n`);
    assert.deepEqual(bodies(hubspot), [{ line: 2, skipped: 'deleted' }]);
  });

  test('ids in scientific notation (an Excel re-save) refuse the file, by line and column', async () => {
    const reason = await refusal(
      `${HUBSPOT_HEADER}\n2.15839E+11,A,closedwon,5,2026-03-14,ana,USD\n2.15839E+11,B,closedwon,6,2026-03-14,bo,USD\n`,
    );
    assert.match(reason, /2 deal ids are in scientific notation/);
    assert.match(reason, /line 2, Record ID \(column 1\): "2\.15839E\+11"/);
  });

  test('one deal id on two rows with different contents refuses the file; identical rows are read (the import counts repeats)', async () => {
    const reason = await refusal(
      `${HUBSPOT_HEADER}\n7,A,closedwon,5,2026-03-14,ana,USD\n7,A,closedwon,6,2026-03-14,ana,USD\n`,
    );
    assert.match(reason, /deal 7 on lines 2 and 3/);
    const repeated = await read(`${HUBSPOT_HEADER}\n${'7,A,closedwon,5,2026-03-14,ana,USD\n'.repeat(10)}`);
    assert.equal(repeated.rows.length, 10);
    assert.equal(new Set(repeated.rows.map((row) => ('event' in row ? row.body.dedup_key : ''))).size, 1);
  });
});

describe('headers', () => {
  test('matched without regard to case and spacing; "Amount (USD)" is the amount', async () => {
    const result = await read(
      'record id,DEAL STAGE,Amount (USD),Close date,Deal Owner\n1,closedwon,5,2026-03-14,ana\n',
    );
    assert.deepEqual(bodies(result), [
      {
        external_id: '1',
        currency: 'USD',
        state: { stage: 'closed_won', amount_cents: 500, close_date: '2026-03-14', owner_external_id: 'ana' },
      },
    ]);
  });

  test.each([
    ['Record ID,Deal Stage,Close Date,Deal owner', /no column "Amount" \(mapping hubspot\)/],
    ['Record ID,Deal Stage,Amount,Deal owner', /no column "Close Date"/],
    ['Record ID,Deal Stage,Amount,Close Date', /no column "Deal owner"/],
    ['Record ID,Deal Stage,Amount,Amount,Close Date,Deal owner', /names "Amount" twice \(columns 3 and 4\)/],
    ['Opportunity ID,Stage,Amount,Close Date', /no column "Opportunity Owner" \(mapping salesforce\)/],
    ['a,b', /give a mapping/],
  ])('%s is refused by name', async (header, expected) => {
    assert.match(await refusal(`${header}\n1,2,3,4,5,6\n`), expected);
  });
});

describe('files as customers have them', () => {
  const file = `${HUBSPOT_HEADER}\r\n1,Zoë,closedwon,5,2026-03-14,José Álvarez,USD\r\n`;
  const expected = [
    {
      external_id: '1',
      currency: 'USD',
      state: {
        stage: 'closed_won',
        amount_cents: 500,
        close_date: '2026-03-14',
        owner_external_id: 'José Álvarez',
        custom: { deal_name: 'Zoë' },
      },
    },
  ];

  test('UTF-8 with and without a BOM, UTF-16 LE and BE with a BOM, CRLF; in any chunks', async () => {
    const utf8 = new TextEncoder().encode(file);
    assert.deepEqual(bodies(await read(utf8)), expected);
    assert.deepEqual(bodies(await read(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8]), { chunk: 1 })), expected);
    const le = new Uint8Array([0xff, 0xfe, ...Buffer.from(file, 'utf16le')]);
    assert.deepEqual(bodies(await read(le, { chunk: 3 })), expected);
    const be = Buffer.from(file, 'utf16le');
    be.swap16();
    assert.deepEqual(bodies(await read(new Uint8Array([0xfe, 0xff, ...be]))), expected);
  });

  test('Windows-1252 bytes are refused as not UTF-8 with their line, and read with --encoding windows-1252', async () => {
    const latin = Buffer.from(`${HUBSPOT_HEADER}\r\n1,Zoë,closedwon,5,2026-03-14,José Álvarez,USD\r\n`, 'latin1');
    assert.match(await refusal(new Uint8Array(latin)), /this file is not UTF-8: line 2 has the byte 0xEB/);
    assert.deepEqual(bodies(await read(new Uint8Array(latin), { encoding: 'windows-1252' })), expected);
    const later = Buffer.concat([
      Buffer.from(`${HUBSPOT_HEADER}\n${'2,A,closedwon,5,2026-03-14,ana,USD\n'.repeat(5)}`),
      latin.subarray(latin.indexOf('\n') + 1),
    ]);
    assert.match(await refusal(new Uint8Array(later)), /not UTF-8: line 7/);
  });

  test('a semicolon-separated and a tab-separated file are read (the delimiter detected)', async () => {
    assert.deepEqual(bodies(await read(file.replaceAll(',', ';'))), expected);
    assert.deepEqual(bodies(await read(file.replaceAll(',', '\t'))), expected);
  });

  test('a Salesforce Classic report: title and filter lines above the header, Grand Totals and Confidential below, none read as rows', async () => {
    const classic =
      '"Opportunities by Owner"\n"Filtered By:"\n"  Close Date equals THIS FISCAL YEAR"\n\n' +
      '"Opportunity Owner","Opportunity Name","Stage","Amount","Close Date","Opportunity ID"\n' +
      '"Ann","A","Closed Won","12,500.00","3/14/2026","006A"\n"Bob","B","Negotiation","1,000.00","3/15/2026","006B"\n' +
      '\n"Grand Totals (2 records)","","","13,500.00","",""\n\n"Confidential Information - Do Not Distribute"\n' +
      '"Copyright (c) 2000-2026 salesforce.com, inc. All rights reserved."\n';
    const result = await read(classic);
    assert.deepEqual(result.heading, [1, 2, 3]);
    assert.deepEqual(result.footer, [9, 11, 12]);
    assert.deepEqual(
      result.rows.map((row) => ('event' in row ? row.body.external_id : row)),
      ['006A', '006B'],
    );
    assert.match(
      await refusal(`${classic}"Cy","C","Closed Won","1.00","3/16/2026","006C"\n`),
      /line 13: a row after the report's footer \(line 9\)/,
    );
  });

  test('an XLSX workbook (HubSpot’s default export) is read from its typed cells: numbers, dates, long ids', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Deals');
    sheet.addRow(['Record ID', 'Deal Name', 'Deal Stage', 'Amount', 'Close Date', 'Deal owner', 'Currency']);
    sheet.addRow([215839000001, 'Zoë', 'closedwon', 12500.5, new Date(Date.UTC(2026, 2, 14)), 'José Álvarez', 'EUR']);
    sheet.addRow([215839000002, 'Two', 'Contract Sent', 99, new Date(Date.UTC(2026, 2, 15)), 'ana', 'EUR']);
    // A row whose last cells are empty (the sheet does not store them) and an id typed as text.
    sheet.addRow(['215839000003', 'Three', 'closedlost', 1, new Date(Date.UTC(2026, 2, 16)), 'ana']);
    const records = await xlsxRecords(new Uint8Array(await workbook.xlsx.writeBuffer()));
    const { survey, rows } = await readExport(
      async function* () {
        yield* records;
      },
      { fallbackCurrency: 'USD' },
      (body) => check.outcome(body),
    );
    assert.equal(survey.mapping.name, 'hubspot');
    const all = [];
    for await (const row of rows) all.push('event' in row ? row.body : row);
    assert.deepEqual(
      all.map((body) => ('state' in body ? [body.external_id, body.currency, body.state] : body)),
      [
        [
          '215839000001',
          'EUR',
          {
            stage: 'closed_won',
            amount_cents: 1250050,
            close_date: '2026-03-14',
            owner_external_id: 'José Álvarez',
            custom: { deal_name: 'Zoë' },
          },
        ],
        [
          '215839000002',
          'EUR',
          {
            stage: 'Contract Sent',
            amount_cents: 9900,
            close_date: '2026-03-15',
            owner_external_id: 'ana',
            custom: { deal_name: 'Two' },
          },
        ],
        [
          '215839000003',
          undefined,
          {
            stage: 'closed_lost',
            amount_cents: 100,
            close_date: '2026-03-16',
            owner_external_id: 'ana',
            custom: { deal_name: 'Three' },
          },
        ],
      ],
    );
  });
});
