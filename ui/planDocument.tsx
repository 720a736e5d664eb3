import type { ComponentChildren } from 'preact';
import type { components } from '../generated/openapi.ts';

// A plan document's model (docs/plan-documents.md) as a page section, for the rep portal's plan acceptance and the
// console's plan document page: the same sections, texts and figures as the document's HTML page and PDF, styled by
// the shared stylesheet, every table in a scrolling region a keyboard can reach (phone widths). Headings start at h2:
// the page around it has the h1.

export type PlanDocumentModel = components['schemas']['PlanDocument'];
type Example = PlanDocumentModel['examples'][number];

function TableRegion(props: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a table wider than a phone scrolls; the keyboard must reach it.
    <section class="table-wrap" aria-label={props.label} tabIndex={0}>
      {props.children}
    </section>
  );
}

/**
 * `titled: false` when the page around it already shows the document's title and subtitle (the console's page has
 * them in its own header); `explained`: each worked example's line opens to the engine's explanation.
 */
export function PlanDocumentView(props: {
  document: PlanDocumentModel;
  idPrefix?: string;
  titled?: boolean;
  explained?: boolean;
}) {
  const { document } = props;
  const id = (name: string) => `${props.idPrefix ?? 'doc'}-${name}`;
  const titled = props.titled ?? true;
  return (
    <article
      class="plan-document stack"
      {...(titled ? { 'aria-labelledby': id('title') } : { 'aria-label': document.title })}
    >
      {titled ? (
        <header>
          <h2 id={id('title')}>{document.title}</h2>
          <p class="muted">{document.subtitle}</p>
        </header>
      ) : null}
      <section aria-labelledby={id('summary')}>
        <h3 id={id('summary')}>What the plan pays</h3>
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
      </section>
      <section aria-labelledby={id('quota')}>
        <h3 id={id('quota')}>Your quota</h3>
        <p>{document.quota.amount === null ? 'No quota.' : `Quota: ${document.quota.amount}.`}</p>
        <p>{document.quota.source}</p>
        {document.quota.ramp ? <p>{document.quota.ramp}</p> : null}
        {document.quota.periods.length > 0 ? (
          <TableRegion label="Your quota by period">
            <table>
              <caption class="visually-hidden">Your quota by period</caption>
              <thead>
                <tr>
                  <th scope="col">Period</th>
                  <th scope="col" class="numeric">
                    Quota
                  </th>
                  <th scope="col">Where it comes from</th>
                </tr>
              </thead>
              <tbody>
                {document.quota.periods.map((period) => (
                  <tr key={period.period_id}>
                    <td class="nowrap">{period.period_id}</td>
                    <td class="numeric">{period.amount ?? 'None'}</td>
                    <td>{period.source}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableRegion>
        ) : null}
      </section>
      <section aria-labelledby={id('chips')}>
        <h3 id={id('chips')}>What each chip pays</h3>
        {document.chips.map((chip) => (
          <section key={chip.key} aria-labelledby={id(`chip-${chip.key}`)}>
            <h4 id={id(`chip-${chip.key}`)}>{chip.name}</h4>
            <p>{chip.pays}</p>
            <p class="muted">
              {chip.applies_when === null ? 'Applies to every deal.' : `Applies when ${chip.applies_when}.`}
            </p>
            {chip.tier_mode ? <p>{chip.tier_mode}</p> : null}
            {chip.tiers ? (
              <TableRegion label={`Tiers of ${chip.name}`}>
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
              </TableRegion>
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
      </section>
      {document.plan_limits.length > 0 ? (
        <section aria-labelledby={id('limits')}>
          <h3 id={id('limits')}>Caps and draws</h3>
          {document.plan_limits.map((text) => (
            <p key={text}>{text}</p>
          ))}
        </section>
      ) : null}
      <section aria-labelledby={id('splits')}>
        <h3 id={id('splits')}>Split deals</h3>
        <p>{document.splits}</p>
        {document.overrides ? <p>{document.overrides}</p> : null}
      </section>
      <section aria-labelledby={id('examples')}>
        <h3 id={id('examples')}>Worked examples</h3>
        <p class="muted">Every figure below was computed by the compensation engine for the sample deals shown.</p>
        {document.examples.map((example) => (
          <WorkedExample
            key={example.key}
            example={example}
            id={id(`example-${example.key}`)}
            explained={props.explained ?? false}
          />
        ))}
      </section>
      {(document.terms ?? []).length > 0 ? (
        <section aria-labelledby={id('terms')}>
          <h3 id={id('terms')}>Your company's terms</h3>
          {(document.terms ?? []).map((term) => (
            <section key={term.key} class="stack" aria-labelledby={id(`terms-${term.key}`)}>
              <h4 id={id(`terms-${term.key}`)}>{term.title}</h4>
              {term.paragraphs.map((text) => (
                <p key={text}>{text}</p>
              ))}
            </section>
          ))}
        </section>
      ) : null}
    </article>
  );
}

function WorkedExample(props: { example: Example; id: string; explained: boolean }) {
  const { example } = props;
  return (
    <section aria-labelledby={props.id}>
      <h4 id={props.id}>{example.title}</h4>
      <p>
        {example.description} Period {example.period_id}.
      </p>
      <TableRegion label={`Deals of ${example.title}`}>
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
                <td>{deal.external_id}</td>
                <td class="nowrap">{deal.close_date}</td>
                <td class="numeric">{deal.amount}</td>
                <td>{deal.details}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableRegion>
      <TableRegion label={`What ${example.title} pays`}>
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
                  {props.explained ? (
                    <details>
                      <summary>{line.chip}</summary>
                      {line.explanation.map((sentence) => (
                        <p key={sentence} class="small muted">
                          {sentence}
                        </p>
                      ))}
                    </details>
                  ) : (
                    line.chip
                  )}
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
      </TableRegion>
      {example.silent_chips.length > 0 ? (
        <p class="muted">Pays nothing here: {example.silent_chips.join(', ')}.</p>
      ) : null}
    </section>
  );
}
