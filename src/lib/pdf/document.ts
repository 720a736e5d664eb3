// A printable document as plain data: what a statement or a plan document says, in the order it says it. The
// renderer decides pages, wrapping and fonts; callers format their figures (money, percentages) as text first.

export type PdfAlign = 'left' | 'right';

export interface PdfColumn {
  header: string;
  /** `right` for figures (money, percentages), so their digits line up. */
  align?: PdfAlign;
  /** Relative share of the table width; columns without one share what their contents need. */
  weight?: number;
  /**
   * Ids (deal ids): the column is at least as wide as the longest piece of a cell between its separators
   * (`opp-2026-0042` needs `2026-`), up to a third of the page, so an id breaks only at its own separators.
   */
  ids?: boolean;
}

export type PdfBlock =
  | { kind: 'heading'; text: string; level?: 1 | 2 }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'keyValues'; rows: Array<{ key: string; value: string }> }
  | { kind: 'table'; columns: PdfColumn[]; rows: string[][]; caption?: string }
  | { kind: 'pageBreak' };

export interface PdfDocument {
  title: string;
  subtitle?: string;
  blocks: PdfBlock[];
  /** Printed in every page's footer and kept as the file's creation date, so the same input gives the same bytes. */
  generatedAt: Date;
  /** Footer text before the page number (defaults to the title). */
  footer?: string;
  author?: string;
}
