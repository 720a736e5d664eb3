import { useRef, useState } from 'preact/hooks';
import { repLabel } from '../../../ui/format.ts';
import { PlanDocumentView } from '../../../ui/planDocument.tsx';
import { api, type Schemas } from '../api.ts';
import { Field, PageHeader, Show, useLoad } from '../components.tsx';
import { Link } from '../router.tsx';

// A plan version's document as reps read it (docs/plan-documents.md): the model the admin API generates from the
// version's plan file, with worked examples the engine computed, rendered by the portal's own component, and the same
// document as a PDF download. Choosing a rep shows (and downloads) that rep's document, with their own quota.

type PlanDocument = Schemas['PlanDocument'];

function documentPath(planId: string, versionId: string, userId: string): string {
  const path = `/admin/v1/plans/${encodeURIComponent(planId)}/versions/${encodeURIComponent(versionId)}/document`;
  const query = new URLSearchParams({ format: 'pdf', ...(userId === '' ? {} : { user_id: userId }) });
  return `${path}?${query}`;
}

export function PlanDocumentPage(props: { planId: string; versionId: string }) {
  const [userId, setUserId] = useState('');
  const [reps] = useLoad(() => api.GET('/admin/v1/reps'), []);
  const [loaded, reload] = useLoad<PlanDocument>(async () => {
    const answer = await api.GET('/admin/v1/plans/{id}/versions/{version_id}/document', {
      params: {
        path: { id: props.planId, version_id: props.versionId },
        query: { format: 'json', ...(userId === '' ? {} : { user_id: userId }) },
      },
    });
    return { data: answer.data as PlanDocument | undefined, error: answer.error };
  }, [props.planId, props.versionId, userId]);
  // While another rep's document loads, the last one stays on the page (busy).
  const last = useRef<PlanDocument | undefined>(undefined);
  if (loaded.state === 'ready') last.current = loaded.data;
  const page = (document: PlanDocument, busy: boolean) => (
    <div class="plan-document" aria-busy={busy}>
      <nav class="breadcrumb" aria-label="Breadcrumb">
        <Link href="/plans">Plans</Link> <span aria-hidden="true">/</span>{' '}
        <Link href={`/plans/${document.plan.id}`}>{document.plan.name}</Link> <span aria-hidden="true">/</span>{' '}
        <span>Document of v{document.plan.version_number}</span>
      </nav>
      <PageHeader
        title={document.title}
        description={document.subtitle}
        actions={
          <a class="button" href={documentPath(props.planId, props.versionId, userId)} download>
            Download PDF
          </a>
        }
      />
      <Field label="Rep" id="document-rep" hint="The document as this rep reads it, with their own quota per period.">
        <select
          id="document-rep"
          value={userId}
          aria-describedby="document-rep-hint"
          onChange={(event) => setUserId(event.currentTarget.value)}
        >
          <option value="">The plan (no rep)</option>
          {(reps.state === 'ready' ? reps.data.reps : []).map((rep) => (
            <option key={rep.id} value={rep.id}>
              {repLabel(rep)}
            </option>
          ))}
        </select>
      </Field>
      <div class="card">
        <PlanDocumentView document={document} idPrefix="console-doc" titled={false} explained />
      </div>
    </div>
  );

  // The same tree whether ready or loading another rep's: the picker is not mounted again, and keeps its focus.
  if (loaded.state === 'ready') return page(loaded.data, false);
  if (loaded.state === 'loading' && last.current?.plan.version_id === props.versionId) return page(last.current, true);
  return (
    <Show<PlanDocument> loaded={loaded} retry={reload}>
      {(document) => page(document, false)}
    </Show>
  );
}
