import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@pdf-lib/fontkit';
import { type PDFFont, type PDFPage, PDFDocument as PdfLibDocument, rgb } from 'pdf-lib';
import type { PdfBlock, PdfColumn, PdfDocument } from './document.ts';

// Renders a PdfDocument to PDF bytes with pdf-lib. DejaVu Sans is embedded (subset) so every Latin, Greek or
// Cyrillic name prints without a system font; A4 pages; tables wrap their cells, break across pages and repeat
// their header row on each page; every page's footer carries the page number of the total and the generation time.

const PAGE_WIDTH = 595.28;
const PAGE_HEIGHT = 841.89;
const MARGIN = 50;
const FOOTER_HEIGHT = 30;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const BOTTOM = MARGIN + FOOTER_HEIGHT;

const BODY_SIZE = 10;
const SMALL_SIZE = 8;
const TITLE_SIZE = 20;
const HEADING_SIZES = { 1: 14, 2: 12 } as const;
const LINE_GAP = 1.35;
const CELL_PADDING = 4;
const BLOCK_GAP = 8;

const TEXT = rgb(0.1, 0.1, 0.1);
const MUTED = rgb(0.4, 0.4, 0.4);
const RULE = rgb(0.75, 0.75, 0.75);
const HEADER_FILL = rgb(0.93, 0.93, 0.93);

const require = createRequire(import.meta.url);
let fontBytes: { regular: Uint8Array; bold: Uint8Array } | undefined;

function loadFonts(): { regular: Uint8Array; bold: Uint8Array } {
  fontBytes ??= {
    regular: readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')),
    bold: readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')),
  };
  return fontBytes;
}

/** Characters a PDF text run cannot hold as such (tabs, control characters) become spaces. */
function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is replaced
  return text.replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, ' ');
}

/** Where an id (`opp-2026-0042`, `deal_01…`, `acme.com/q3`) may break: after one of its own separators. */
const ID_SEPARATORS = new Set(['-', '_', '.', '/', ':', '#']);

/**
 * How much of a word too wide for a line goes on this line: up to its last separator that fits (an id breaks at its
 * own separators, `opp-2026-` / `0042`), else as many characters as fit (a word with no separator to break at).
 */
function cutOf(word: string, font: PDFFont, size: number, width: number): number {
  for (let cut = word.length - 1; cut > 0; cut -= 1) {
    if (ID_SEPARATORS.has(word[cut - 1] as string) && font.widthOfTextAtSize(word.slice(0, cut), size) <= width) {
      return cut;
    }
  }
  let cut = word.length - 1;
  while (cut > 1 && font.widthOfTextAtSize(word.slice(0, cut), size) > width) cut -= 1;
  return cut;
}

/**
 * Splits text into lines no wider than `width`: at spaces where possible; a word alone wider than the line breaks
 * after its own separators where it has them, inside a run of letters or digits only when that run alone is wider.
 */
export function wrapText(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of printable(text).split('\n')) {
    let line = '';
    for (const word of paragraph.split(/ +/)) {
      const candidate = line === '' ? word : `${line} ${word}`;
      if (font.widthOfTextAtSize(candidate, size) <= width) {
        line = candidate;
        continue;
      }
      if (line !== '') lines.push(line);
      line = '';
      let rest = word;
      while (font.widthOfTextAtSize(rest, size) > width) {
        const cut = cutOf(rest, font, size, width);
        lines.push(rest.slice(0, cut));
        rest = rest.slice(cut);
      }
      line = rest;
    }
    lines.push(line);
  }
  return lines;
}

class Layout {
  readonly pages: PDFPage[] = [];
  private page!: PDFPage;
  private y = 0;

  private readonly pdf: PdfLibDocument;
  readonly regular: PDFFont;
  readonly bold: PDFFont;

  constructor(pdf: PdfLibDocument, regular: PDFFont, bold: PDFFont) {
    this.pdf = pdf;
    this.regular = regular;
    this.bold = bold;
    this.newPage();
  }

  newPage(): void {
    this.page = this.pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    this.pages.push(this.page);
    this.y = PAGE_HEIGHT - MARGIN;
  }

  /** Starts a new page unless `height` more fits on this one (a fresh page takes whatever comes). */
  ensure(height: number): void {
    if (this.y - height < BOTTOM && this.y < PAGE_HEIGHT - MARGIN) this.newPage();
  }

  gap(height: number): void {
    this.y -= height;
  }

  lines(lines: string[], options: { font: PDFFont; size: number; x?: number; color?: ReturnType<typeof rgb> }): void {
    const lineHeight = options.size * LINE_GAP;
    for (const line of lines) {
      this.ensure(lineHeight);
      this.y -= lineHeight;
      this.page.drawText(line, {
        x: options.x ?? MARGIN,
        y: this.y + (lineHeight - options.size) / 2 + 1,
        size: options.size,
        font: options.font,
        color: options.color ?? TEXT,
      });
    }
  }

  text(text: string, font: PDFFont, size: number, indent = 0): void {
    this.lines(wrapText(text, font, size, CONTENT_WIDTH - indent), { font, size, x: MARGIN + indent });
  }

  heading(text: string, level: 1 | 2): void {
    const size = HEADING_SIZES[level];
    const lines = wrapText(text, this.bold, size, CONTENT_WIDTH);
    // A heading stays with at least two lines of what follows it.
    this.ensure(BLOCK_GAP + (lines.length * size + 2 * BODY_SIZE) * LINE_GAP);
    this.gap(BLOCK_GAP / 2);
    this.lines(lines, { font: this.bold, size });
  }

  list(items: string[]): void {
    for (const item of items) {
      const lines = wrapText(item, this.regular, BODY_SIZE, CONTENT_WIDTH - 14);
      this.ensure(BODY_SIZE * LINE_GAP);
      const top = this.y;
      this.lines(lines.slice(0, 1), { font: this.regular, size: BODY_SIZE, x: MARGIN + 14 });
      this.page.drawText('•', {
        x: MARGIN + 3,
        y: top - BODY_SIZE * LINE_GAP + 3,
        size: BODY_SIZE,
        font: this.regular,
      });
      this.lines(lines.slice(1), { font: this.regular, size: BODY_SIZE, x: MARGIN + 14 });
    }
  }

  keyValues(rows: Array<{ key: string; value: string }>): void {
    const keyWidth = Math.min(
      CONTENT_WIDTH * 0.4,
      Math.max(0, ...rows.map((row) => this.bold.widthOfTextAtSize(printable(row.key), BODY_SIZE))) + 12,
    );
    const lineHeight = BODY_SIZE * LINE_GAP;
    for (const row of rows) {
      const keyLines = wrapText(row.key, this.bold, BODY_SIZE, keyWidth - 12);
      const valueLines = wrapText(row.value, this.regular, BODY_SIZE, CONTENT_WIDTH - keyWidth);
      const height = Math.max(keyLines.length, valueLines.length) * lineHeight;
      this.ensure(Math.min(height, PAGE_HEIGHT - MARGIN - BOTTOM));
      const top = this.y;
      this.lines(keyLines, { font: this.bold, size: BODY_SIZE });
      const afterKey = this.y;
      this.y = top;
      this.lines(valueLines, { font: this.regular, size: BODY_SIZE, x: MARGIN + keyWidth });
      this.y = Math.min(this.y, afterKey);
    }
  }

  table(columns: PdfColumn[], rows: string[][], caption: string | undefined): void {
    if (caption !== undefined) this.text(caption, this.bold, BODY_SIZE);
    const widths = columnWidths(columns, rows, this.regular, this.bold);
    const lineHeight = BODY_SIZE * LINE_GAP;
    const cellLines = (cells: string[], font: PDFFont) =>
      columns.map((_, index) => wrapText(cells[index] ?? '', font, BODY_SIZE, (widths[index] ?? 0) - 2 * CELL_PADDING));
    const rowHeight = (lines: string[][]) => Math.max(1, ...lines.map((cell) => cell.length)) * lineHeight + 4;

    const header = cellLines(
      columns.map((column) => column.header),
      this.bold,
    );
    const drawRow = (lines: string[][], font: PDFFont, fill?: ReturnType<typeof rgb>) => {
      const height = rowHeight(lines);
      const top = this.y;
      if (fill !== undefined) {
        this.page.drawRectangle({ x: MARGIN, y: top - height, width: CONTENT_WIDTH, height, color: fill });
      }
      let x = MARGIN;
      lines.forEach((cell, index) => {
        const width = widths[index] ?? 0;
        const align = columns[index]?.align ?? 'left';
        cell.forEach((line, lineIndex) => {
          const textWidth = font.widthOfTextAtSize(line, BODY_SIZE);
          this.page.drawText(line, {
            x: align === 'right' ? x + width - CELL_PADDING - textWidth : x + CELL_PADDING,
            y: top - 2 - (lineIndex + 1) * lineHeight + (lineHeight - BODY_SIZE) / 2 + 1,
            size: BODY_SIZE,
            font,
            color: TEXT,
          });
        });
        x += width;
      });
      this.y = top - height;
      this.page.drawLine({
        start: { x: MARGIN, y: this.y },
        end: { x: MARGIN + CONTENT_WIDTH, y: this.y },
        thickness: 0.5,
        color: RULE,
      });
    };

    const headerHeight = rowHeight(header);
    const bodyRows = rows.map((row) => cellLines(row, this.regular));
    this.ensure(headerHeight + (bodyRows[0] === undefined ? 0 : rowHeight(bodyRows[0])));
    drawRow(header, this.bold, HEADER_FILL);
    for (const row of bodyRows) {
      const height = rowHeight(row);
      if (this.y - height < BOTTOM) {
        this.newPage();
        drawRow(header, this.bold, HEADER_FILL);
      }
      drawRow(row, this.regular);
    }
  }

  footer(text: string, generatedAt: Date): void {
    const total = this.pages.length;
    const stamp = `Generated ${generatedAt.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
    this.pages.forEach((page, index) => {
      const y = MARGIN;
      page.drawLine({
        start: { x: MARGIN, y: y + SMALL_SIZE * 1.6 },
        end: { x: PAGE_WIDTH - MARGIN, y: y + SMALL_SIZE * 1.6 },
        thickness: 0.5,
        color: RULE,
      });
      const label = wrapText(text, this.regular, SMALL_SIZE, CONTENT_WIDTH / 2)[0] ?? '';
      page.drawText(label, { x: MARGIN, y, size: SMALL_SIZE, font: this.regular, color: MUTED });
      const pageLabel = `Page ${index + 1} of ${total}`;
      const pageWidth = this.regular.widthOfTextAtSize(pageLabel, SMALL_SIZE);
      page.drawText(pageLabel, {
        x: PAGE_WIDTH - MARGIN - pageWidth,
        y,
        size: SMALL_SIZE,
        font: this.regular,
        color: MUTED,
      });
      const stampWidth = this.regular.widthOfTextAtSize(stamp, SMALL_SIZE);
      page.drawText(stamp, {
        x: PAGE_WIDTH - MARGIN - pageWidth - 16 - stampWidth,
        y,
        size: SMALL_SIZE,
        font: this.regular,
        color: MUTED,
      });
    });
  }
}

/** Column widths filling the content width: by weight where given, else by what header and cells need. */
function columnWidths(columns: PdfColumn[], rows: string[][], regular: PDFFont, bold: PDFFont): number[] {
  const natural = columns.map((column, index) => {
    const widest = Math.max(
      bold.widthOfTextAtSize(printable(column.header), BODY_SIZE),
      ...rows.map((row) => regular.widthOfTextAtSize(printable(row[index] ?? ''), BODY_SIZE)),
    );
    return Math.max(30, Math.min(widest + 2 * CELL_PADDING, CONTENT_WIDTH * 0.6));
  });
  const weights = columns.map((column, index) => column.weight ?? natural[index] ?? 1);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const widths = weights.map((weight) => (weight / total) * CONTENT_WIDTH);
  // An ids column widens to its longest piece between separators, taken from the other columns by their share.
  const needed = columns.map((column, index) =>
    column.ids
      ? Math.min(
          CONTENT_WIDTH / 3,
          2 * CELL_PADDING +
            Math.max(
              0,
              ...rows.flatMap((row) =>
                idPieces(printable(row[index] ?? '')).map((piece) => regular.widthOfTextAtSize(piece, BODY_SIZE)),
              ),
            ),
        )
      : 0,
  );
  const extra = widths.reduce((sum, width, index) => sum + Math.max(0, (needed[index] ?? 0) - width), 0);
  if (extra === 0) return widths;
  const others = widths.reduce((sum, width, index) => (columns[index]?.ids ? sum : sum + width), 0);
  return widths.map((width, index) =>
    columns[index]?.ids ? Math.max(width, needed[index] ?? 0) : width - (width / others) * extra,
  );
}

/** A cell's pieces that must stay on one line: its words cut after each separator. */
function idPieces(text: string): string[] {
  return text.split(/ +/).flatMap((word) => word.split(/(?<=[-_./:#])/));
}

function renderBlock(layout: Layout, block: PdfBlock): void {
  switch (block.kind) {
    case 'heading':
      layout.heading(block.text, block.level ?? 1);
      break;
    case 'paragraph':
      layout.text(block.text, layout.regular, BODY_SIZE);
      break;
    case 'list':
      layout.list(block.items);
      break;
    case 'keyValues':
      layout.keyValues(block.rows);
      break;
    case 'table':
      layout.table(block.columns, block.rows, block.caption);
      break;
    case 'pageBreak':
      layout.newPage();
      return;
  }
  layout.gap(BLOCK_GAP);
}

/** The document as PDF bytes. The same document (generatedAt included) always gives the same bytes. */
export async function renderPdf(document: PdfDocument): Promise<Uint8Array> {
  const pdf = await PdfLibDocument.create();
  pdf.registerFontkit(fontkit);
  const fonts = loadFonts();
  const regular = await pdf.embedFont(fonts.regular, { subset: true });
  const bold = await pdf.embedFont(fonts.bold, { subset: true });
  pdf.setTitle(document.title);
  if (document.author !== undefined) pdf.setAuthor(document.author);
  pdf.setProducer('Quotient');
  pdf.setCreator('Quotient');
  pdf.setCreationDate(document.generatedAt);
  pdf.setModificationDate(document.generatedAt);

  const layout = new Layout(pdf, regular, bold);
  layout.lines(wrapText(document.title, bold, TITLE_SIZE, CONTENT_WIDTH), { font: bold, size: TITLE_SIZE });
  if (document.subtitle !== undefined) {
    layout.lines(wrapText(document.subtitle, regular, BODY_SIZE + 1, CONTENT_WIDTH), {
      font: regular,
      size: BODY_SIZE + 1,
      color: MUTED,
    });
  }
  layout.gap(BLOCK_GAP * 1.5);
  for (const block of document.blocks) renderBlock(layout, block);
  layout.footer(document.footer ?? document.title, document.generatedAt);
  return pdf.save({ useObjectStreams: true });
}
