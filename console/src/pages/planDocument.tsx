import { api, type Schemas } from '../api.ts';
import { PageHeader, Show, useLoad } from '../components.tsx';
import { Link } from '../router.tsx';

// A plan version's document as reps read it (docs/plan-documents.md): the model the admin API generates from the
// version's plan file, with worked examples the engine computed, and the same document as a PDF download.

type PlanDocument = Schemas['PlanDocument'];
type Example = PlanDocument['examples'][number];

function documentPath(planId: string, versionId: string): string {
  return `/admin/v1/plans/${encodeURIComponent(planId)}/versions/${encodeURIComponent(versionId)}/document`;
}

export function PlanDocumentPage(props: { planId: string; versionId: string }) {
  const [loaded, reload] = useLoad(async () => {
    const answer = await api.GET('/admin/v1/plans/{id}/versions/{version_id}/document', {
      params: { path: { id: props.planId, version_id: props.versionId }, query: { format: 'json' } },
    });
    return { data: answer.data as PlanDocument | undefined, error: answer.error };
  }, [props.planId, props.versionId]);

  return (
    <Show loaded={loaded} retry={reload}>
      {(document) => (
        <article class="plan-document">
          <nav class="breadcrumb" aria-label="Breadcrumb">
            <Link href="/plans">Plans</Link> <span aria-hidden="true">/</span>{' '}
            <Link href={`/plans/${document.plan.id}`}>{document.plan.name}</Link> <span aria-hidden="true">/</span>{' '}
            <span>Document of v{document.plan.version_number}</span>
          </nav>
          <PageHeader
            title={document.title}
            description={document.subtitle}
            actions={
              <a class="button" href={`${documentPath(props.planId, props.versionId)}?format=pdf`} download>
                Download PDF
              </a>
            }
          />
          <section class="card" aria-labelledby="summary-title">
            <h2 id="summary-title">What the plan pays</h2>
            {document.summary.map((text) => (
              <p key={text}>{text}</p>
            ))}
            <dl class="facts">
              {document.facts.map((fact) => (
                <div key={fact.label}>
                  <dt>{fact.label}</dt>
                  <dd>{fact.value}</dd>
                </div>
              ))}
            </dl>
            <h3>Quota</h3>
            <p>{document.quota.amount === null ? 'No quota.' : `Quota: ${document.quota.amount}.`}</p>
            <p class="muted">{document.quota.source}</p>
            {document.quota.ramp ? <p>{document.quota.ramp}</p> : null}
          </section>
          <section class="card" aria-labelledby="chips-title">
            <h2 id="chips-title">What each chip pays</h2>
            {document.chips.map((chip) => (
              <section key={chip.key} aria-labelledby={`chip-${chip.key}`}>
                <h3 id={`chip-${chip.key}`}>{chip.name}</h3>
                <p>{chip.pays}</p>
                <p class="muted">
                  {chip.applies_when === null ? 'Applies to every deal.' : `Applies when ${chip.applies_when}.`}
                </p>
                {chip.tier_mode ? <p>{chip.tier_mode}</p> : null}
                {chip.tiers ? (
                  <div class="table-wrap">
                    <table>
                      <caption class="visually-hidden">Tiers of {chip.name}</caption>
                      <thead>
                        <tr>
                          <th scope="col">Band</th>
                          <th scope="col">From</th>
                          <th scope="col">Up to</th>
                          <th scope="col" class="numeric">
                            Rate
                          </th>
                        </tr>
                      </thead>
                      <tbody>
                        {chip.tiers.map((tier) => (
                          <tr key={tier.band}>
                            <td>{tier.band}</td>
                            <td>{tier.from}</td>
                            <td>{tier.to}</td>
                            <td class="numeric">{tier.rate}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                ) : null}
                {chip.limits.length > 0 ? (
                  <ul>
                    {chip.limits.map((limit) => (
                      <li key={limit}>{limit}</li>
                    ))}
                  </ul>
                ) : null}
              </section>
            ))}
            {document.plan_limits.length > 0 ? (
              <>
                <h3>Caps and draws</h3>
                {document.plan_limits.map((text) => (
                  <p key={text}>{text}</p>
                ))}
              </>
            ) : null}
            <h3>Split deals</h3>
            <p>{document.splits}</p>
            {document.overrides ? (
              <>
                <h3>Overrides</h3>
                <p>{document.overrides}</p>
              </>
            ) : null}
          </section>
          <section class="card" aria-labelledby="examples-title">
            <h2 id="examples-title">Worked examples</h2>
            <p class="muted">Every figure below was computed by the compensation engine for the sample deals shown.</p>
            {document.examples.map((example) => (
              <WorkedExample key={example.key} example={example} />
            ))}
          </section>
        </article>
      )}
    </Show>
  );
}

function WorkedExample(props: { example: Example }) {
  const { example } = props;
  return (
    <section aria-labelledby={`example-${example.key}`}>
      <h3 id={`example-${example.key}`}>{example.title}</h3>
      <p>
        {example.description} Period {example.period_id}.
      </p>
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Deals of {example.title}</caption>
          <thead>
            <tr>
              <th scope="col">Deal</th>
              <th scope="col">Closed</th>
              <th scope="col" class="numeric">
                Amount
              </th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {example.deals.map((deal) => (
              <tr key={deal.external_id}>
                <td>
                  <code>{deal.external_id}</code>
                </td>
                <td class="nowrap">{deal.close_date}</td>
                <td class="numeric">{deal.amount}</td>
                <td>{deal.details}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">What {example.title} pays</caption>
          <thead>
            <tr>
              <th scope="col">Deal</th>
              <th scope="col">Chip</th>
              <th scope="col" class="numeric">
                Pays
              </th>
            </tr>
          </thead>
          <tbody>
            {example.lines.map((line) => (
              <tr key={`${line.chip_key} ${line.deal_external_id}`}>
                <td>{line.deal_external_id ?? 'The period'}</td>
                <td>
                  <details>
                    <summary>{line.chip}</summary>
                    {line.explanation.map((sentence) => (
                      <p key={sentence} class="small muted">
                        {sentence}
                      </p>
                    ))}
                  </details>
                </td>
                <td class="numeric">{line.amount}</td>
              </tr>
            ))}
            <tr>
              <th scope="row" colSpan={2}>
                Total
              </th>
              <td class="numeric strong">{example.total}</td>
            </tr>
          </tbody>
        </table>
      </div>
      {example.silent_chips.length > 0 ? (
        <p class="muted">Pays nothing here: {example.silent_chips.join(', ')}.</p>
      ) : null}
    </section>
  );
}
