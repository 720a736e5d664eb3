import type { PdfBlock, PdfDocument } from '../../lib/pdf/document.ts';
import { formatMinorUnits } from '../currencies.ts';
import type { Statement } from './statement.ts';

// A statement as a printable document: per plan, attainment, the lines and adjustments with their explanations and
// amounts, and the totals; the figures are the JSON statement's, formatted in each currency's own decimals.

const STATUS_LABELS = { projected: 'Projected', pending: 'Pending', approved: 'Approved', paid: 'Paid' } as const;

function money(cents: number, currency: string): string {
  return formatMinorUnits(BigInt(cents), currency);
}

/** The rep as the statement names them: their display name with their external id, else the external id alone. */
function repOf(statement: Statement): string {
  const { display_name: name, external_id: externalId } = statement.user;
  return name === null ? externalId : `${name} (${externalId})`;
}

export function statementPdfDocument(statement: Statement, generatedAt: Date): PdfDocument {
  const blocks: PdfBlock[] = [
    {
      kind: 'keyValues',
      rows: [
        { key: 'Rep', value: repOf(statement) },
        {
          key: 'Period',
          value: `${statement.period.id} (${statement.period.starts_on} to ${statement.period.ends_on}), ${statement.period.status}`,
        },
        ...statement.by_currency.map((entry) => ({
          key: statement.by_currency.length > 1 ? `Payable (${entry.currency})` : 'Payable',
          value: money(entry.payable_cents, entry.currency),
        })),
      ],
    },
  ];
  for (const plan of statement.plans) {
    const { attainment, currency } = plan;
    blocks.push({ kind: 'heading', text: `${plan.plan_name} (${plan.plan_key})` });
    blocks.push({
      kind: 'keyValues',
      rows: [
        { key: 'Won', value: money(attainment.won_cents, currency) },
        {
          key: 'Quota',
          value: attainment.quota_cents === null ? 'none' : money(attainment.quota_cents, currency),
        },
        { key: 'Attainment', value: attainment.percent === null ? '—' : `${attainment.percent.toFixed(2)}%` },
      ],
    });
    const rows = [
      ...plan.lines.map((line) => [
        line.deal_external_id ?? '—',
        line.chip_name,
        STATUS_LABELS[line.status],
        line.explanation,
        money(line.amount_cents, currency),
      ]),
      ...plan.adjustments.map((line) => [
        line.deal_external_id ?? '—',
        `${line.chip_name} (${line.kind === 'clawback' ? 'clawback' : 'top-up'} for ${line.from_period_id})`,
        STATUS_LABELS[line.status],
        line.reason,
        money(line.amount_cents, currency),
      ]),
    ];
    if (rows.length === 0)
      blocks.push({ kind: 'paragraph', text: 'Nothing is booked under this plan in this period.' });
    else {
      blocks.push({
        kind: 'table',
        columns: [
          { header: 'Deal', weight: 2, ids: true },
          { header: 'Line', weight: 3 },
          { header: 'Status', weight: 2 },
          { header: 'Why', weight: 7 },
          { header: 'Amount', align: 'right', weight: 3 },
        ],
        rows,
      });
    }
    blocks.push({
      kind: 'keyValues',
      rows: [
        ...(['projected', 'pending', 'approved', 'paid'] as const).map((status) => ({
          key: STATUS_LABELS[status],
          value: money(plan.totals[`${status}_cents`], currency),
        })),
        { key: 'Payable', value: money(plan.payable_cents, currency) },
      ],
    });
  }
  if (statement.manual_adjustments.length > 0) {
    blocks.push({ kind: 'heading', text: 'Manual adjustments' });
    blocks.push({
      kind: 'table',
      columns: [
        { header: 'Category', weight: 3 },
        { header: 'Status', weight: 2 },
        { header: 'Why', weight: 9 },
        { header: 'Amount', align: 'right', weight: 3 },
      ],
      rows: statement.manual_adjustments.map((adjustment) => [
        adjustment.category.replace(/_/g, ' '),
        STATUS_LABELS[adjustment.status as keyof typeof STATUS_LABELS] ?? adjustment.status,
        adjustment.reason,
        money(adjustment.amount_cents, adjustment.currency),
      ]),
    });
  }
  if (statement.plans.length === 0) {
    blocks.push({ kind: 'paragraph', text: 'No plan applies to this rep in this period.' });
  }
  return {
    title: statement.final ? `Final statement ${statement.period.id}` : `Statement ${statement.period.id}`,
    subtitle: statement.final ? `${repOf(statement)} · last day ${statement.final.leaving_date}` : repOf(statement),
    blocks,
    generatedAt,
    footer: `Statement ${statement.period.id} · ${statement.user.external_id}`,
  };
}
