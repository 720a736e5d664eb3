export type { PdfAlign, PdfBlock, PdfColumn, PdfDocument } from './document.ts';
export { renderPdf } from './render.ts';
