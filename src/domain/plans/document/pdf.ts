import type { PdfBlock, PdfDocument } from '../../../lib/pdf/document.ts';
import type { PlanDocument } from './model.ts';

// A plan document as the PDF renderer's document model: the same sections, texts and figures as the HTML page.

export function planDocumentPdf(document: PlanDocument, generatedAt: Date): PdfDocument {
  const blocks: PdfBlock[] = [
    ...document.summary.map((text): PdfBlock => ({ kind: 'paragraph', text })),
    { kind: 'keyValues', rows: document.facts.map((fact) => ({ key: fact.label, value: fact.value })) },
    { kind: 'heading', text: 'Your quota' },
    {
      kind: 'paragraph',
      text: document.quota.amount === null ? 'No quota.' : `Quota: ${document.quota.amount}.`,
    },
    { kind: 'paragraph', text: document.quota.source },
    ...(document.quota.ramp === null ? [] : [{ kind: 'paragraph', text: document.quota.ramp } as const]),
    ...(document.quota.periods.length === 0
      ? []
      : [
          {
            kind: 'table' as const,
            columns: [
              { header: 'Period', weight: 2 },
              { header: 'Quota', align: 'right' as const, weight: 3 },
              { header: 'Where it comes from', weight: 8 },
            ],
            rows: document.quota.periods.map((period) => [period.period_id, period.amount ?? 'None', period.source]),
          },
        ]),
    { kind: 'heading', text: 'What each chip pays' },
  ];
  for (const chip of document.chips) {
    blocks.push(
      { kind: 'heading', level: 2, text: chip.name },
      { kind: 'paragraph', text: chip.pays },
      {
        kind: 'paragraph',
        text: chip.applies_when === null ? 'Applies to every deal.' : `Applies when ${chip.applies_when}.`,
      },
    );
    if (chip.tier_mode !== null) blocks.push({ kind: 'paragraph', text: chip.tier_mode });
    if (chip.tiers !== null) {
      blocks.push({
        kind: 'table',
        columns: [
          { header: 'Band', weight: 1 },
          { header: 'From', weight: 4 },
          { header: 'Up to', weight: 4 },
          { header: 'Rate', align: 'right', weight: 2 },
        ],
        rows: chip.tiers.map((tier) => [String(tier.band), tier.from, tier.to, tier.rate]),
      });
    }
    if (chip.limits.length > 0) blocks.push({ kind: 'list', items: chip.limits });
  }
  if (document.plan_limits.length > 0) {
    blocks.push(
      { kind: 'heading', text: 'Caps and draws' },
      ...document.plan_limits.map((text): PdfBlock => ({ kind: 'paragraph', text })),
    );
  }
  blocks.push({ kind: 'heading', text: 'Split deals' }, { kind: 'paragraph', text: document.splits });
  if (document.overrides !== null) {
    blocks.push({ kind: 'heading', text: 'Overrides' }, { kind: 'paragraph', text: document.overrides });
  }
  blocks.push(
    { kind: 'heading', text: 'Worked examples' },
    {
      kind: 'paragraph',
      text: 'Every figure below was computed by the compensation engine for the sample deals shown.',
    },
  );
  for (const example of document.examples) {
    blocks.push(
      { kind: 'heading', level: 2, text: example.title },
      { kind: 'paragraph', text: `${example.description} Period ${example.period_id}.` },
      {
        kind: 'table',
        columns: [
          { header: 'Deal', weight: 2 },
          { header: 'Closed', weight: 2 },
          { header: 'Amount', align: 'right', weight: 2 },
          { header: 'Details', weight: 4 },
        ],
        rows: example.deals.map((deal) => [deal.external_id, deal.close_date, deal.amount, deal.details]),
      },
    );
    if (example.lines.length > 0) {
      blocks.push(
        {
          kind: 'table',
          columns: [
            { header: 'Deal', weight: 3 },
            { header: 'Chip', weight: 4 },
            { header: 'Pays', align: 'right', weight: 2 },
          ],
          rows: [
            ...example.lines.map((line) => [line.deal_external_id ?? 'The period', line.chip, line.amount]),
            ['Total', '', example.total],
          ],
        },
        { kind: 'paragraph', text: 'How each amount is computed:' },
        {
          kind: 'list',
          items: example.lines.map(
            (line) => `${line.deal_external_id ?? 'The period'}, ${line.chip}: ${line.explanation.join(' ')}`,
          ),
        },
      );
    } else {
      blocks.push({ kind: 'paragraph', text: `Nothing is paid: total ${example.total}.` });
    }
    if (example.silent_chips.length > 0) {
      blocks.push({ kind: 'paragraph', text: `Pays nothing here: ${example.silent_chips.join(', ')}.` });
    }
  }
  const terms = document.terms ?? [];
  if (terms.length > 0) {
    blocks.push({ kind: 'heading', text: "Your company's terms" });
    for (const section of terms) {
      blocks.push(
        { kind: 'heading', level: 2, text: section.title },
        ...section.paragraphs.map((text): PdfBlock => ({ kind: 'paragraph', text })),
      );
    }
  }
  return {
    title: document.title,
    subtitle: document.subtitle,
    blocks,
    generatedAt,
    footer: `${document.title}, version ${document.plan.version_number}`,
  };
}
