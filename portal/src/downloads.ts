import { api, type ErrorDocument } from './api.ts';

// Statement and plan-document downloads: fetched through the portal's client (so with the rep token, authorized like
// the statement itself) and handed to the browser to save through an object URL.

/** Hands a file the API answered to the browser to save, through an object URL (the call carried the bearer). */
function save(data: unknown, response: Response, error: unknown, fallbackName: string): void {
  if (!response.ok || !(data instanceof Blob)) {
    throw new Error((error as ErrorDocument | undefined)?.reason ?? 'The download failed.');
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(data);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Saves a statement as CSV or PDF, fetched with the rep token like any call. */
export async function downloadStatement(userId: string, periodId: string, format: 'csv' | 'pdf'): Promise<void> {
  const { data, error, response } = await api.GET('/v1/users/{id}/statements/{period_id}', {
    params: { path: { id: userId, period_id: periodId }, query: { format } },
    parseAs: 'blob',
  });
  save(data, response, error, `statement-${periodId}.${format}`);
}

/** Saves a plan's document (its chips, tiers and worked examples) as PDF. */
export async function downloadPlanDocument(planId: string): Promise<void> {
  const { data, error, response } = await api.GET('/v1/plans/{id}/document', {
    params: { path: { id: planId }, query: { format: 'pdf' } },
    parseAs: 'blob',
  });
  save(data, response, error, 'plan.pdf');
}

/** Saves the document kept with a plan acceptance (the one the rep accepted) as PDF. */
export async function downloadAcceptedDocument(acceptanceId: string, label: string): Promise<void> {
  const { data, error, response } = await api.GET('/v1/plan-acceptances/{id}/document', {
    params: { path: { id: acceptanceId }, query: { format: 'pdf' } },
    parseAs: 'blob',
  });
  save(data, response, error, `${label.replace(/[^\w.-]+/g, '-')}.pdf`);
}
