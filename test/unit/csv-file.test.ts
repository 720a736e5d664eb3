import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { csvField, csvFile } from '../../src/domain/csvFile.ts';
import { csvRows } from '../helpers/csv.ts';

// The CSV writer every export uses: RFC 4180 quoting, CRLF records, formulas defused in text, numbers left numbers.

describe('the CSV writer', () => {
  test('a header and rows, each record ended by CRLF, the last too', () => {
    assert.equal(
      csvFile(
        ['a', 'b'],
        [
          ['x', 1],
          ['y', 2],
        ],
      ),
      'a,b\r\nx,1\r\ny,2\r\n',
    );
    assert.equal(csvFile(['only'], []), 'only\r\n');
  });

  test.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['two\r\nlines', '"two\r\nlines"'],
    ['a;b', '"a;b"'],
    ['', ''],
  ])('text %j is written %j', (text, expected) => {
    assert.equal(csvField(text), expected);
  });

  test.each([
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
    ['@SUM(1)', "'@SUM(1)"],
    ['-2+3', "'-2+3"],
    ['\t=1', "'\t=1"],
    ['\r=1', `"'\r=1"`],
    ['=1,2', `"'=1,2"`],
  ])('text %j that would start a formula is defused as %j', (text, expected) => {
    assert.equal(csvField(text), expected);
  });

  test.each([
    [-1250, '-1250'],
    [0, '0'],
    [12_000_000_000n, '12000000000'],
    [-3n, '-3'],
    ['-1250', '-1250'],
    ['-12.50', '-12.50'],
    [false, 'false'],
    [null, ''],
    [undefined, ''],
  ])('the number or value %s is written as it is: %s', (value, expected) => {
    assert.equal(csvField(value), expected);
  });

  test('a file with hostile text reads back, by an RFC 4180 reader, as the defused cells', async () => {
    const hostile = ['=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", '@SUM(1)', 'line\r\nbreak, "quoted"'];
    const text = csvFile(['text', 'amount_cents'], [...hostile.map((cell) => [cell, -500])]);
    assert.deepEqual(await csvRows(text), [
      ['text', 'amount_cents'],
      [`'=HYPERLINK("http://x","y")`, '-500'],
      ["'+cmd|' /C calc'!A0", '-500'],
      ["'@SUM(1)", '-500'],
      ['line\r\nbreak, "quoted"', '-500'],
    ]);
  });

  test('quotes, line breaks and separators read back as they were written', async () => {
    const cells = ['"', '""', 'a"b', 'x\ny', ',', ';', ' spaced '];
    assert.deepEqual(
      await csvRows(
        csvFile(
          ['q'],
          cells.map((cell) => [cell]),
        ),
      ),
      [['q'], ...cells.map((cell) => [cell])],
    );
  });
});
