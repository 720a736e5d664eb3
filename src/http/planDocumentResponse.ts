import type { Request, Response } from 'express';
import type { PlanDocument } from '../domain/plans/document/model.ts';
import type { PlanDocuments } from '../services/planDocuments.ts';
import { htmlPageSecurityHeaders } from './securityHeaders.ts';

// A plan document in the format the caller asked for, the same way on every surface (/v1, the admin API): the
// `format` parameter when given (a plain link can ask for the PDF), else `Accept`, else JSON.

export type PlanDocumentFormat = 'json' | 'html' | 'pdf';

const MEDIA_TYPES: Record<PlanDocumentFormat, string> = {
  json: 'application/json',
  html: 'text/html',
  pdf: 'application/pdf',
};

// The page has its own inline styles and nothing else: no script, no fetch, no outside resource.
const PAGE_HEADERS = htmlPageSecurityHeaders({
  'script-src': "'none'",
  'style-src': "'unsafe-inline'",
  'connect-src': "'none'",
  'form-action': "'none'",
});

export function planDocumentFormat(req: Request, format: PlanDocumentFormat | undefined): PlanDocumentFormat {
  if (format !== undefined) return format;
  const accepted = req.accepts([MEDIA_TYPES.json, MEDIA_TYPES.html, MEDIA_TYPES.pdf]);
  if (accepted === MEDIA_TYPES.html) return 'html';
  if (accepted === MEDIA_TYPES.pdf) return 'pdf';
  return 'json';
}

/** Sends the document: the JSON model, the HTML page or the PDF (named after the plan key and version). */
export async function sendPlanDocument(
  res: Response,
  documents: PlanDocuments,
  document: PlanDocument,
  format: PlanDocumentFormat,
): Promise<void> {
  if (format === 'json') {
    res.status(200).json(document);
    return;
  }
  res.vary('Accept');
  if (format === 'html') {
    res.status(200).set(PAGE_HEADERS).type('text/html; charset=utf-8').send(documents.html(document));
    return;
  }
  const bytes = await documents.pdf(document);
  const name = `${document.plan.key.replace(/[^A-Za-z0-9._-]/g, '_')}-v${document.plan.version_number}.pdf`;
  res
    .status(200)
    .type('application/pdf')
    .set('Content-Disposition', `inline; filename="${name}"`)
    .send(Buffer.from(bytes));
}
