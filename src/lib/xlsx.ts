import type ExcelJS from 'exceljs';
import type { Cell } from '../domain/imports/recordMapper.ts';
import type { SourceRecord } from '../domain/imports/rows.ts';
import { Refusal } from '../domain/refusal.ts';

// An XLSX workbook's first sheet as records (exceljs reads it): each row's cells typed as the sheet holds them
// (numbers as numbers, dates as dates, text as text), so that no locale is needed to read them; a formula is read
// as its cached result. A row's line is its row number in the sheet. exceljs is loaded when a workbook is read, not
// with the CLI: it is over a second of every command's start on a shared 2-core machine.

/** True when the bytes start as a ZIP file does (an XLSX workbook is one). */
export function looksLikeXlsx(start: Uint8Array): boolean {
  return start[0] === 0x50 && start[1] === 0x4b && start[2] === 0x03 && start[3] === 0x04;
}

export async function xlsxRecords(bytes: Uint8Array): Promise<SourceRecord[]> {
  const { default: excel } = await import('exceljs');
  const workbook = new excel.Workbook();
  try {
    await workbook.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
  } catch (error) {
    throw new Refusal(
      'invalid_body',
      `the file is not an XLSX workbook Quotient can read (${(error as Error).message})`,
    );
  }
  const sheet = workbook.worksheets[0];
  if (sheet === undefined) throw new Refusal('invalid_body', 'the workbook has no sheet');
  const records: SourceRecord[] = [];
  // Every row as wide as the sheet (a row's trailing empty cells are not stored), as a CSV's rows are.
  const width = sheet.columnCount;
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const cells: Cell[] = [];
    for (let column = 1; column <= width; column++) cells.push(cellValue(row.getCell(column).value));
    records.push({ line: rowNumber, cells });
  });
  return records;
}

function cellValue(value: ExcelJS.CellValue): Cell {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Date) return value;
  if (typeof value === 'object') {
    if ('richText' in value) return value.richText.map((part) => part.text).join('');
    if ('error' in value) return String(value.error);
    if ('result' in value) return cellValue(value.result as ExcelJS.CellValue);
    if ('text' in value) return typeof value.text === 'string' ? value.text : String(value.text);
  }
  return String(value);
}
